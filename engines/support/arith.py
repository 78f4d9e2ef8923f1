"""What several engines share to translate the model's ``Arith`` and ``ReifiedLinear``
kinds: the one evaluator of ``Arith`` (``arith_value``), ``pow`` as a table, and the
negation of a comparison."""
from __future__ import annotations

from itertools import product
from math import prod

from puzzles.model import Arith

# The most (base, exponent) assignments a pow table enumerates; beyond it the
# engines answer n/a rather than spend the translation on one constraint.
POW_TABLE_MOST = 1 << 18
# |base| > 1 with an exponent above this is beyond every engine's value range (2^64).
_LARGEST_EXPONENT = 64



def _toward_zero(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _power(base: int, exponent: int) -> int | None:
    if exponent < 0 or (exponent > _LARGEST_EXPONENT and abs(base) > 1):
        return None
    return base ** exponent


_COMPUTE = {
    "times": lambda a: a[0] * a[1],
    "div": lambda a: _toward_zero(a[0], a[1]) if a[1] else None,
    "mod": lambda a: a[0] - a[1] * _toward_zero(a[0], a[1]) if a[1] else None,
    "pow": lambda a: _power(a[0], a[1]),
    "abs": lambda a: abs(a[0]),
    "min": min,
    "max": max,
}


def arith_value(op: str, args) -> int | None:
    """``op(args)`` as the model reads ``Arith``; None where it has no value, so the
    constraint fails there: a zero divisor, a negative exponent, and a power past the
    64th of a base other than -1, 0 or 1 (beyond every engine's value range). ``div``
    truncates toward zero and ``mod`` takes the dividend's sign.

    The one evaluator every engine that computes ``Arith`` itself calls: engines must
    agree with each other on every corner, which separate copies drift from. The judge
    keeps its own, so that it stays independent of the engines it checks.

    An unknown ``op`` raises ValueError.
    """
    try:
        compute = _COMPUTE[op]
    except KeyError:
        raise ValueError(f"Arith with unknown operation {op!r}") from None
    return compute(args)


# ``not (sum op rhs)`` as ``sum op' rhs'`` over the integers.
NEGATED = {"==": lambda rhs: ("!=", rhs), "!=": lambda rhs: ("==", rhs),
           "<=": lambda rhs: (">=", rhs + 1), ">=": lambda rhs: ("<=", rhs - 1)}


def pow_table(con: Arith, domains) -> tuple[tuple[int, ...], list[tuple[int, ...]]] | None:
    """``result = base ** exponent`` as (scope, rows) over the distinct variables of
    (base, exponent, result), every row one that holds; None when the base and
    exponent have more than ``POW_TABLE_MOST`` assignments.

    Where the power has no value (``arith_value``'s rule), no row.
    """
    base, exponent = con.args
    free = tuple(dict.fromkeys((base, exponent)))
    if prod(len(domains[v]) for v in free) > POW_TABLE_MOST:
        return None
    scope = tuple(dict.fromkeys((base, exponent, con.result)))
    results = set(domains[con.result])
    rows = []
    for values in product(*(sorted(domains[v]) for v in free)):
        row = dict(zip(free, values))
        value = _power(row[base], row[exponent])
        if value is None:
            continue
        if con.result in row:
            if row[con.result] != value:
                continue
        elif value not in results:
            continue
        row[con.result] = value
        rows.append(tuple(row[v] for v in scope))
    return scope, rows


# The n/a reason of a pow whose table would be too large.
POW_TOO_LARGE = (f"pow over more than {POW_TABLE_MOST} (base, exponent) assignments: "
                 "its table would be too large")
