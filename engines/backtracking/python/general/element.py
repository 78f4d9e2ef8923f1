"""Element ``value = vars[index - base]`` in the general path.

The index keeps the positions whose entry still shares a value with
``value``; ``value`` keeps what the entries at those positions can still
take; once the index is fixed, its entry and ``value`` keep the values they
share. All three rules stay sound when one variable plays two parts (the
index inside the array, the value equal to an entry), and the forward check
(``forward``) ends every revision.
"""
from __future__ import annotations

from engines.backtracking.python.general.forward import Relation, distinct, keep
from puzzles.model import Element


def element(con: Element) -> Relation:
    vs, at = distinct((con.index, *con.vars, con.value))
    index, entries, value, base, n = at[con.index], tuple(at[v] for v in con.vars), \
        at[con.value], con.base, len(con.vars)

    def holds(vals) -> bool:
        i = vals[index] - base
        return 0 <= i < n and vals[entries[i]] == vals[value]
    return Relation("Element", vs, holds, ((con.index, lambda x: 0 <= x - base < n),),
                    _rule(con))


def _rule(con: Element):
    index, value = con.index, con.value

    def make(base_doms, shape):
        slots = tuple((1 << shape.vidx[con.base + i], var) for i, var in enumerate(con.vars)
                      if con.base + i in shape.vidx)

        def revise(doms, changed) -> bool:
            while True:
                di, dv = doms[index], doms[value]
                ni = reach = 0
                for b, var in slots:
                    if di & b and doms[var] & dv:
                        ni |= b
                        reach |= doms[var]
                moved = keep(doms, changed, index, ni)
                if moved < 0:
                    return False
                step = keep(doms, changed, value, reach)
                if step < 0:
                    return False
                moved |= step
                di = doms[index]
                if not di & (di - 1):
                    var = next(var for b, var in slots if b == di)
                    common = doms[var] & doms[value]
                    for v in (var, value):
                        step = keep(doms, changed, v, common)
                        if step < 0:
                            return False
                        moved |= step
                if not moved:
                    return True
        return revise
    return make
