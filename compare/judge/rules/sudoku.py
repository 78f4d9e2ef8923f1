"""Sudoku from first principles: rows, columns and boxes re-derived here, not
taken from ``puzzles.kinds.sudoku`` or the model.
"""
from __future__ import annotations

from math import isqrt
from typing import Sequence

from compare.judge.rulebook import register_rules, repeat_in_groups, whole_numbers


def check_sudoku(puzzle, answer: Sequence) -> str | None:
    n, given = puzzle.n, puzzle.grid
    if len(answer) != n * n:
        return f"wrong length: {len(answer)} values for {n * n} cells"
    box = isqrt(n)
    if box * box != n:
        return f"side {n} is not a square"

    def name(i: int) -> str:
        return f"r{i // n + 1}c{i % n + 1}"

    grid = whole_numbers(answer, name)
    if isinstance(grid, str):
        return grid
    for i, value in enumerate(grid):
        if value == 0:
            return f"{name(i)} holds 0 (blank)"
        if not 1 <= value <= n:
            return f"{name(i)} holds {value} (outside 1..{n})"
        if given[i] and given[i] != value:
            return f"{name(i)} changes given {given[i]} to {value}"
    return repeat_in_groups(_sudoku_groups(grid, n, box))


def _sudoku_groups(grid: list[int], n: int, box: int):
    for r in range(n):
        yield f"row {r + 1}", grid[r * n:(r + 1) * n]
    for c in range(n):
        yield f"column {c + 1}", grid[c::n]
    for b in range(n):
        top, left = (b // box) * box, (b % box) * box
        yield f"box {b + 1}", [grid[(top + i) * n + left + j]
                               for i in range(box) for j in range(box)]


register_rules("sudoku", check_sudoku)
