"""What the general path reads of a structure, once per shape.

Values, bit indexes, AllDifferent groups and the structural UNSAT reasons
come from the shape (``..shape``), as on the AllDifferent path. Here the
other constraints get one reading of every corner case, so neither search
has to care: each constraint keeps distinct variables and no dead terms, and
a constraint over no variable is decided now. ReifiedLinear, Clause, Element
and Arith become ``forward.Relation``s (one module per kind reads them), and
AllDifferentList one per pair of its lists (``lists``).
"""
from __future__ import annotations

from engines.backtracking.python.general import arith, element, lists, reified
from engines.backtracking.shape import Shape, shape_for
from puzzles.model import (
    OPERATORS,
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    NotEqualOffset,
    ReifiedLinear,
    Structure,
    Table,
    merged_terms,
)

# The kinds read into a ``forward.Relation``, and the reading of each.
RELATIONS = {ReifiedLinear: reified.reified_linear, Clause: reified.clause,
             Element: element.element, Arith: arith.arith}


def normalise(structure: Structure) -> tuple[list, str]:
    """The non-AllDifferent constraints made plain, or why none can hold.

    A repeated variable in a Linear adds up its coefficients; in a Table the
    rows where its positions disagree go. AllDifferent is the shape's.
    """
    kept = []
    for con in structure.constraints:
        if isinstance(con, AllDifferent):
            continue
        if isinstance(con, NotEqualOffset):
            if con.x != con.y:
                kept.append(con)
            elif con.c == 0:
                return [], f"{structure.variables[con.x]} != itself"
        elif isinstance(con, Linear):
            lin = merged_terms(con)
            if lin.vars:
                kept.append(lin)
            elif not OPERATORS[lin.op](0, lin.rhs):
                return [], f"Linear with no variable left: 0 {lin.op} {lin.rhs} is false"
        elif type(con) in RELATIONS or isinstance(con, AllDifferentList):
            rels = (lists.all_different_list(con) if isinstance(con, AllDifferentList)
                    else [RELATIONS[type(con)](con)])
            for rel in rels:
                if rel.vars:
                    kept.append(rel)
                elif not rel.holds([]):
                    return [], f"{rel.kind} over no variable is false"
        else:
            table = _distinct_positions(con)
            if table.vars:
                kept.append(table)
            elif not table.tuples:
                return [], f"Table over {tuple(con.vars)} allows no tuple"
    return kept, ""


def _distinct_positions(con: Table) -> Table:
    first: dict[int, int] = {}
    for pos, v in enumerate(con.vars):
        first.setdefault(v, pos)
    keep = sorted(first.values())
    rows = []
    for row in con.tuples:
        if len(row) == len(con.vars) and all(row[p] == row[first[v]] for p, v in enumerate(con.vars)):
            rows.append(tuple(row[p] for p in keep))
    return Table(tuple(con.vars[p] for p in keep), tuple(dict.fromkeys(rows)))


class Compiled:
    """The normalised constraints both general variants search with."""

    def __init__(self, shape: Shape):
        self.shape = shape
        self.constraints, reason = normalise(shape.structure)
        self.unsat = shape.unsat_reason or reason


def compiled_for(structure: Structure) -> Compiled:
    """The cached compilation for ``structure``: built once per shape, not per puzzle."""
    return shape_for(structure).derived(Compiled)
