"""NotEqualOffset ``x != y + c`` in the general path: forward checking.

Nothing can be said until one side is fixed; then ``y + c`` leaves ``x`` once
``y`` is fixed and ``x - c`` leaves ``y`` once ``x`` is. That is all a binary
disequality ever prunes, so it needs no reviser: its removals join
AllDifferent's in the search's kill arcs, and the ``seed`` variant checks the
same arcs against the assigned variables.
"""
from __future__ import annotations

from puzzles.model import NotEqualOffset


def arcs(constraints, n: int) -> list[tuple[tuple[int, int], ...]]:
    """Per variable, ``(other, delta)``: ``var = a`` forbids ``other = a + delta``."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for con in constraints:
        if isinstance(con, NotEqualOffset):
            out[con.x].append((con.y, -con.c))
            out[con.y].append((con.x, con.c))
    return [tuple(a) for a in out]


def add_removals(gone: dict[int, int], arcs_of_var, value: int, vidx: dict,
                 base) -> None:
    """Add to ``gone`` (other -> value bits) what ``var = value`` forbids."""
    for other, delta in arcs_of_var:
        j = vidx.get(value + delta)
        if j is not None and base[other] >> j & 1:
            gone[other] = gone.get(other, 0) | 1 << j
