"""Killer Sudoku: a Sudoku with no givens whose cages add up and repeat no value."""
from __future__ import annotations

from types import SimpleNamespace

from compare.judge.rulebook import register_rules
from compare.judge.rules.sudoku import check_sudoku


def check_killer(puzzle, answer) -> str | None:
    n = puzzle.n
    reason = check_sudoku(SimpleNamespace(n=n, grid=(0,) * (n * n)), answer)
    if reason:
        return reason
    for number, cage in enumerate(puzzle.cages, 1):
        values = [answer[c] for c in cage.cells]
        if len(set(values)) != len(values):
            return f"cage {number} repeats a value: {values}"
        if sum(values) != cage.total:
            return f"cage {number} adds up to {sum(values)}, not {cage.total}"
    return None


register_rules("killer", check_killer)
