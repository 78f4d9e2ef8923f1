"""Arith ``result = op(args)`` in the general path.

The value of ``op(args)`` is ``engines.support.arith.arith_value``'s, the one
evaluator the engines share; where it has none, the constraint fails.

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
from engines.support.arith import arith_value
from puzzles.model import Arith, Table

TABLE_MAX = 4096          # combinations of the base domains enumerated into a table


def arith(con: Arith) -> Relation:
    vs, at = distinct((*con.args, con.result))
    args, result, op = tuple(at[v] for v in con.args), at[con.result], con.op
    arith_value(op, (1,) * len(args))           # an unknown operation raises here

    def holds(vals) -> bool:
        r = arith_value(op, [vals[p] for p in args])
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
