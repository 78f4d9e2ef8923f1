"""The model in CPMpy's terms: variables and constraint expressions, built once per
structure, and the task a search runs on (see docs/engines-cpmpy.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.cpmpy.backends import cp
from engines.cpmpy.kinds import KIND_EXPRESSIONS, literal_domains
from engines.support.structure_cache import StructureCache
from puzzles.model import (
    OPERATORS,
    AllDifferent,
    Linear,
    NotEqualOffset,
    Structure,
    merged_terms,
)


def _variable(dom: tuple[int, ...]):
    if dom == (0, 1):
        return cp.boolvar()
    return cp.intvar(min(dom), max(dom))


def _expr_of(con, xs, neq_as_alldiff: bool):
    """One model constraint as a CPMpy expression (see docs/engines-cpmpy.md).

    Degenerate shapes become constants here because some backends fail on
    them (an empty table, a sum over nothing, an AllDifferent naming a
    variable twice), and each is decided by the model alone.
    """
    if isinstance(con, AllDifferent):
        if len(set(con.vars)) < len(con.vars):
            return cp.BoolVal(False)
        return cp.AllDifferent([xs[v] for v in con.vars]) if len(con.vars) > 1 else None
    if isinstance(con, Linear):
        merged = merged_terms(con)
        if not merged.vars:
            return cp.BoolVal(bool(OPERATORS[con.op](0, con.rhs)))
        total = cp.sum([a * xs[v] for a, v in zip(merged.coeffs, merged.vars)])
        return OPERATORS[con.op](total, con.rhs)
    if isinstance(con, NotEqualOffset):
        if con.x == con.y:
            return cp.BoolVal(con.c != 0)
        x, y = xs[con.x], xs[con.y]
        if neq_as_alldiff:
            return cp.AllDifferent([x, y + con.c] if con.c else [x, y])
        return x != y + con.c
    if not con.vars:
        return cp.BoolVal(() in con.tuples)
    if not con.tuples:
        return cp.BoolVal(False)
    return cp.Table([xs[v] for v in con.vars], [list(t) for t in con.tuples])


@dataclass
class Shape:
    """CPMpy variables and constraint expressions of one structure.

    Built once per structure (and per disequality form): givens arrive as
    ``x == v`` constraints on top, which CPMpy transforms faster than fresh
    variables with narrowed bounds (PySAT on a 9x9 Sudoku: 83 ms a puzzle
    instead of 136 ms).
    """
    xs: list
    constraints: list


def _shape(structure: Structure, neq_as_alldiff: bool) -> Shape:
    domains = literal_domains(structure)
    xs = [_variable(dom or base) for dom, base in zip(domains, structure.domains)]
    constraints = [cp.BoolVal(False)] if not all(domains) else []
    constraints += [cp.InDomain(x, list(dom)) for x, dom in zip(xs, domains)
                    if dom and max(dom) - min(dom) + 1 != len(dom)]
    for con in structure.constraints:
        if type(con) in KIND_EXPRESSIONS:
            constraints += KIND_EXPRESSIONS[type(con)](con, xs, domains)
            continue
        expr = _expr_of(con, xs, neq_as_alldiff)
        if expr is not None:
            constraints.append(expr)
    return Shape(xs, constraints)


SHAPES = {flag: StructureCache(lambda s, flag=flag: _shape(s, flag)) for flag in (False, True)}


@dataclass
class CpmTask:
    """A translated model: its variables, narrowed domains, constraints and a solver
    with them posted (None when a domain is empty: unsatisfiable before search)."""
    xs: list
    domains: list[tuple[int, ...]]
    constraints: list
    solver: Any = None

    @property
    def empty(self) -> bool:
        return self.solver is None
