"""ReifiedLinear and Clause in the general path: the Boolean core.

* ``ReifiedLinear``: while the literal is open, the Linear's bounds decide it
  when they can (no total in reach meets the operator: 0; every total does,
  and the constraint is not merely implied: 1). Once the literal is 1 the
  Linear's own reviser runs (``linear.propagator``); once it is 0, that of the
  negated Linear (``==`` and ``!=`` swap, ``<= r`` becomes ``>= r + 1``),
  unless the constraint is implied, which then says nothing more.
* ``Clause``: unit propagation. A true literal satisfies it; with every
  literal false but one, that one is made true; with none left it fails.

Both end on the forward check (``forward``), which also covers a variable
named twice (the literal among the Linear's terms, one variable on both
sides of a clause).
"""
from __future__ import annotations

from engines.backtracking.python.general import linear
from engines.backtracking.python.general.forward import (
    Relation,
    bit_of,
    boolean,
    distinct,
    low_high,
)
from engines.backtracking.python.general.linear import feasible
from puzzles.model import OPERATORS, Clause, Linear, ReifiedLinear, merged_terms

NEGATED = {"==": ("!=", 0), "!=": ("==", 0), "<=": (">=", 1), ">=": ("<=", -1)}


def negated(lin: Linear) -> Linear:
    """The Linear that holds exactly when ``lin`` does not."""
    op, shift = NEGATED[lin.op]
    return Linear(lin.coeffs, lin.vars, op, lin.rhs + shift)


def reified_linear(con: ReifiedLinear) -> Relation:
    lin = merged_terms(Linear(con.coeffs, con.vars, con.op, con.rhs))
    vs, at = distinct((*lin.vars, con.literal))
    terms = tuple(zip(lin.coeffs, (at[v] for v in lin.vars)))
    compare, rhs, lit, implied = OPERATORS[lin.op], lin.rhs, at[con.literal], con.implied

    def holds(vals) -> bool:
        b = vals[lit]
        if b not in (0, 1):
            return False
        inner = compare(sum(a * vals[p] for a, p in terms), rhs)
        return inner == bool(b) or (implied and not b)
    return Relation("ReifiedLinear", vs, holds, ((con.literal, boolean),),
                    _reified_rule(lin, con.literal, implied))


def _reified_rule(lin: Linear, literal: int, implied: bool):
    neg = negated(lin)

    def make(base, shape):
        values = shape.values
        zero, one = bit_of(shape, 0), bit_of(shape, 1)
        on_true = linear.propagator(lin, base, shape) if lin.vars else None
        on_false = None if implied or not lin.vars else linear.propagator(neg, base, shape)
        terms = tuple(zip(lin.vars, lin.coeffs))

        def revise(doms, changed) -> bool:
            d = doms[literal]
            if d & (d - 1):                     # open: 0 or 1
                lo = hi = 0
                for v, a in terms:
                    x0, x1 = low_high(doms[v], values)
                    lo, hi = (lo + a * x0, hi + a * x1) if a > 0 else (lo + a * x1, hi + a * x0)
                if not feasible(lin.op, lin.rhs, lo, hi):
                    d = zero
                elif not implied and not feasible(neg.op, neg.rhs, lo, hi):
                    d = one
                else:
                    return True
                doms[literal] = d
                changed.append(literal)
            if d == one and on_true is not None:
                return on_true(doms, changed)
            if d == zero and on_false is not None:
                return on_false(doms, changed)
            return True
        return revise
    return make


def clause(con: Clause) -> Relation:
    vs, at = distinct((*con.positive, *con.negative))
    pos = tuple(at[v] for v in dict.fromkeys(con.positive))
    neg = tuple(at[v] for v in dict.fromkeys(con.negative))

    def holds(vals) -> bool:
        return all(x in (0, 1) for x in vals) and (
            any(vals[p] == 1 for p in pos) or any(vals[q] == 0 for q in neg))
    return Relation("Clause", vs, holds, tuple((v, boolean) for v in vs),
                    _unit_rule(tuple(vs[p] for p in pos), tuple(vs[q] for q in neg)))


def _unit_rule(positive: tuple[int, ...], negative: tuple[int, ...]):
    def make(base, shape):
        zero, one = bit_of(shape, 0), bit_of(shape, 1)
        literals = tuple((v, one, zero) for v in positive) + \
            tuple((v, zero, one) for v in negative)

        def revise(doms, changed) -> bool:
            unit = fill = 0
            found = False
            for v, true, false in literals:
                d = doms[v]
                if d == true:
                    return True                 # satisfied
                if d != false:                  # open (0/1 domains only)
                    if found:
                        return True             # two open literals: nothing to say
                    unit, fill, found = v, true, True
            if not found:
                return False
            doms[unit] = fill
            changed.append(unit)
            return True
        return revise
    return make
