"""Latin squares: every row and column holds each value once; givens kept."""
from __future__ import annotations

from compare.judge.rulebook import out_of_range, register_rules, repeat_in_groups, values_of


def check_latin(puzzle, answer) -> str | None:
    n = puzzle.n

    def name(i: int) -> str:
        return f"r{i // n + 1}c{i % n + 1}"

    grid = values_of(answer, n * n, "cells", name)
    if isinstance(grid, str):
        return grid
    reason = out_of_range(grid, 1, n, name)
    if reason:
        return reason
    for i, (given, value) in enumerate(zip(puzzle.grid, grid)):
        if given and given != value:
            return f"{name(i)} changes given {given} to {value}"
    rows = ((f"row {r + 1}", grid[r * n:(r + 1) * n]) for r in range(n))
    cols = ((f"column {c + 1}", grid[c::n]) for c in range(n))
    return repeat_in_groups(rows) or repeat_in_groups(cols)


register_rules("latin", check_latin)
