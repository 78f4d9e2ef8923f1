"""Arith ``result = op(args)`` in the general path.

``div`` truncates toward zero and ``mod`` takes the dividend's sign; a zero
divisor and a negative exponent have no value, and neither has a power past
the 64th of a base other than -1, 0 or 1 (no domain reaches it; the checker
reads it the same way), so the constraint fails there.

Over small base domains (at most ``TABLE_MAX`` combinations of its distinct
variables) the relation becomes the table of its allowed tuples, pruned to
generalised arc consistency by ``table``; past that, the forward check
(``forward``) alone: checked when every variable is fixed, the last open one
narrowed to the values that pass.
"""
from __future__ import annotations

from itertools import product

from engines.backtracking.python.general import table
from engines.backtracking.python.general.forward import Relation, distinct
from puzzles.model import Arith, Table

TABLE_MAX = 4096          # combinations of the base domains enumerated into a table


def toward_zero(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _power(a: list[int]) -> int | None:
    base, exponent = a
    if exponent < 0 or (exponent > 64 and abs(base) > 1):
        return None
    return base ** exponent


COMPUTE = {
    "times": lambda a: a[0] * a[1],
    "div": lambda a: toward_zero(a[0], a[1]) if a[1] else None,
    "mod": lambda a: a[0] - a[1] * toward_zero(a[0], a[1]) if a[1] else None,
    "pow": _power,
    "abs": lambda a: abs(a[0]),
    "min": min,
    "max": max,
}


def arith(con: Arith) -> Relation:
    vs, at = distinct((*con.args, con.result))
    args, result, compute = tuple(at[v] for v in con.args), at[con.result], COMPUTE[con.op]

    def holds(vals) -> bool:
        r = compute([vals[p] for p in args])
        return r is not None and r == vals[result]
    return Relation("Arith", vs, holds, (), _table_rule(vs, holds))


def _table_rule(vs: tuple[int, ...], holds):
    def make(base, shape):
        values = shape.values
        choices = [[values[k] for k in range(len(values)) if base[v] >> k & 1] for v in vs]
        size = 1
        for c in choices:
            size *= len(c)
        if size > TABLE_MAX:
            return _nothing
        rows = tuple(row for row in product(*choices) if holds(list(row)))
        return table.propagator(Table(vs, rows), shape)
    return make


def _nothing(doms, changed) -> bool:
    return True
