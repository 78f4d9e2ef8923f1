"""The model's ReifiedLinear, Clause, Element, Arith and AllDifferentList kinds as
CPMpy expressions.

Each translator takes the constraint, the structure's CPMpy variables and its
``literal_domains``, and returns the expressions to post (a list: some kinds add side
conditions). No auxiliary variable is made, so counts stay the model's.

CPMpy's ``//`` truncates toward zero and ``%`` takes the dividend's sign, as the
kind does; a zero divisor is excluded explicitly rather than left to each
backend's reading of an undefined value. CPMpy's power takes a constant
exponent only, so ``pow`` is a table (``engines.support.arith``).
"""
from __future__ import annotations

from engines.contract import Unsupported
from engines.cpmpy.backends import cp
from engines.support.arith import POW_TOO_LARGE, pow_table
from puzzles.model import (
    OPERATORS,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    ReifiedLinear,
    merged_terms,
)


def literal_domains(structure) -> list[tuple[int, ...]]:
    """The structure's domains, with those of the variables the kinds demand be 0/1
    (literals, clause variables) narrowed to 0 and 1: such a variable is then a CPMpy
    Boolean or a constant (CPMpy's PySAT loses the value of an integer variable
    that only ``x == 1`` names)."""
    used: set[int] = set()
    for con in structure.constraints:
        if isinstance(con, ReifiedLinear):
            used.add(con.literal)
        elif isinstance(con, Clause):
            used.update(con.positive, con.negative)
    return [tuple(v for v in dom if v in (0, 1)) if i in used else dom
            for i, dom in enumerate(structure.domains)]


def _literal(xs, var: int, domains):
    """The variable as a Boolean expression, over ``literal_domains``: a CPMpy
    Boolean, or a constant (with no 0/1 value left, the shape is false already)."""
    if domains[var] == (0, 1):
        return xs[var]
    return cp.BoolVal(domains[var] == (1,))


def reified_linear(con: ReifiedLinear, xs, domains) -> list:
    lit = _literal(xs, con.literal, domains)
    merged = merged_terms(Linear(con.coeffs, con.vars, con.op, con.rhs))
    if not merged.vars:
        holds = OPERATORS[con.op](0, con.rhs)
        if not holds:
            return [~lit]
        return [] if con.implied else [lit]
    inner = OPERATORS[con.op](cp.sum([a * xs[v] for a, v in zip(merged.coeffs, merged.vars)]),
                              con.rhs)
    return [lit.implies(inner) if con.implied else lit == inner]


def clause(con: Clause, xs, domains) -> list:
    lits = [_literal(xs, v, domains) for v in con.positive]
    lits += [~_literal(xs, v, domains) for v in con.negative]
    return [cp.any(lits) if lits else cp.BoolVal(False)]


def element(con: Element, xs, domains) -> list:
    """The index kept within the array explicitly (CPMpy leaves an index outside it
    to each backend); a Boolean index, which CPMpy's Element refuses, by cases."""
    if not con.vars:
        return [cp.BoolVal(False)]
    index, value = xs[con.index], xs[con.value]
    last = con.base + len(con.vars) - 1
    picked = [xs[v] for v in con.vars]
    within = [index >= con.base, index <= last]
    if len(picked) == 1:   # no ``x == x``: CPMpy's PySAT then loses x's value
        return within + ([] if con.value == con.vars[0] else [value == picked[0]])
    if domains[con.index] == (0, 1):
        return within + [(index == con.base + i).implies(value == x)
                         for i, x in enumerate(picked) if con.base + i in (0, 1)]
    position = index - con.base if con.base else index
    return within + [cp.Element(cp.cpm_array(picked), position) == value]


def _div_mod(op: str, a, b, result, a_boolean: bool, b_boolean: bool) -> list:
    """``a div b`` or ``a mod b``; a Boolean operand by cases (CPMpy's Z3 interface
    cannot divide a Boolean): a 0/1 divisor must be 1, and a 0/1 dividend divided
    by ±1 is ±itself with remainder 0, else 0 with itself as remainder."""
    if b_boolean:
        return [b == 1, result == (a if op == "div" else 0)]
    if not a_boolean:
        return [b != 0, result == (a // b if op == "div" else a % b)]
    unit, wide = (b == 1) | (b == -1), (b >= 2) | (b <= -2)
    if op == "mod":
        return [b != 0, unit.implies(result == 0), wide.implies(result == a)]
    return [b != 0, (b == 1).implies(result == a), (b == -1).implies(result == -a),
            wide.implies(result == 0)]


def arith(con: Arith, xs, domains) -> list:
    args = [xs[v] for v in con.args]
    result = xs[con.result]
    if con.op == "times":
        return [result == args[0] * args[1]]
    if con.op in ("div", "mod") and domains[con.args[1]] == (0,):
        return [cp.BoolVal(False)]   # CPMpy's decompositions raise on a divisor of only 0
    if con.op in ("div", "mod"):
        return _div_mod(con.op, *args, result, *(domains[v] == (0, 1) for v in con.args))
    if con.op == "pow":
        table = pow_table(con, domains)
        if table is None:
            raise Unsupported(f"cpmpy: {POW_TOO_LARGE}")
        scope, rows = table
        if not rows:
            return [cp.BoolVal(False)]
        return [cp.Table([xs[v] for v in scope], [list(r) for r in rows])]
    if con.op == "abs":
        return [result == abs(args[0])]
    if con.op in ("min", "max"):
        if len(args) == 1:
            return [] if con.result == con.args[0] else [result == args[0]]
        return [result == (cp.min(args) if con.op == "min" else cp.max(args))]
    raise Unsupported(f"cpmpy: Arith operation {con.op!r}")


def all_different_list(con: AllDifferentList, xs, domains) -> list:
    """Per pair of lists, some position differs (CPMpy 1.1 has no global for it);
    a position holding one variable twice never does."""
    posted = []
    for j, b in enumerate(con.lists):
        for a in con.lists[:j]:
            differs = [xs[x] != xs[y] for x, y in zip(a, b) if x != y]
            posted.append(cp.any(differs) if differs else cp.BoolVal(False))
    return posted


# The kinds this module translates, each taking (con, xs, domains).
KIND_EXPRESSIONS = {ReifiedLinear: reified_linear, Clause: clause, Element: element,
                    Arith: arith, AllDifferentList: all_different_list}
