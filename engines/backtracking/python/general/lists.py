"""AllDifferentList in the general path: one ``Relation`` per pair of lists.

A pair holds when the two lists differ at some position. The forward check
(``forward``) is the whole propagation: with every variable of the pair fixed
the test decides; with one left open (every other position fixed and equal),
that variable loses the value that would make the lists equal. A variable in
both lists, or twice in one, is one variable of the relation, so the test
reads it once.
"""
from __future__ import annotations

from engines.backtracking.python.general.forward import Relation, distinct
from puzzles.model import AllDifferentList


def all_different_list(con: AllDifferentList) -> list[Relation]:
    """The pairs' relations; a pair whose lists name the same variable at every
    position can never differ: its relation is over no variable, and false."""
    relations = []
    for j, b in enumerate(con.lists):
        for a in con.lists[:j]:
            relations.append(_pair(a, b))
    return relations


def _pair(a: tuple[int, ...], b: tuple[int, ...]) -> Relation:
    spots = [(x, y) for x, y in zip(a, b) if x != y]
    vs, at = distinct(v for spot in spots for v in spot)
    where = tuple((at[x], at[y]) for x, y in spots)

    def holds(vals) -> bool:
        return any(vals[i] != vals[k] for i, k in where)
    return Relation("AllDifferentList", vs, holds)
