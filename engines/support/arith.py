"""What several engines share to translate the model's ``Arith`` and ``ReifiedLinear``
kinds: ``pow`` as a table, and the negation of a comparison."""
from __future__ import annotations

from itertools import product
from math import prod

from puzzles.model import Arith

# The most (base, exponent) assignments a pow table enumerates; beyond it the
# engines answer n/a rather than spend the translation on one constraint.
POW_TABLE_MOST = 1 << 18
# |base| > 1 with an exponent above this is beyond every engine's value range (2^64).
_LARGEST_EXPONENT = 64

# ``not (sum op rhs)`` as ``sum op' rhs'`` over the integers.
NEGATED = {"==": lambda rhs: ("!=", rhs), "!=": lambda rhs: ("==", rhs),
           "<=": lambda rhs: (">=", rhs + 1), ">=": lambda rhs: ("<=", rhs - 1)}


def pow_table(con: Arith, domains) -> tuple[tuple[int, ...], list[tuple[int, ...]]] | None:
    """``result = base ** exponent`` as (scope, rows) over the distinct variables of
    (base, exponent, result), every row one that holds; None when the base and
    exponent have more than ``POW_TABLE_MOST`` assignments.

    A negative exponent has no value, so no row (the checker's and MiniZinc's rule).
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
        b, e = row[base], row[exponent]
        if e < 0 or (e > _LARGEST_EXPONENT and abs(b) > 1):
            continue
        value = b ** e
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
