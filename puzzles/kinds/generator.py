"""Seeded Sudoku generator: a random full grid, then givens removed while unique.

Uniqueness is checked by counting solutions up to 2. Puzzles know no engines,
so the counting function is a parameter (``count_solutions(model, limit) ->
int``); ``run_compare.py generate`` (``compare/cli/generate.py``) passes an engine's count.

Difficulty follows the clue count: few clues are hard, many are easy. Removal
is one greedy pass in random order, so a target below what that pass can reach
gives the fewest clues it found (``best_of`` passes are tried).
"""
from __future__ import annotations

import random
from typing import Callable

from puzzles.kinds.sudoku import Sudoku, box_of_side, format_grid, units
from puzzles.model import Model

CountSolutions = Callable[[Model, int], int]

# Clue targets that a greedy pass reaches quickly; from easy to hard per size.
DEFAULT_CLUES = {4: 6, 9: 30, 16: 150, 25: 420}


def full_grid(n: int, rng: random.Random) -> tuple[int, ...]:
    """A random solved grid: the shifted pattern, shuffled within its symmetries."""
    box = box_of_side(n)
    bands = rng.sample(range(box), box)
    rows = [b * box + r for b in bands for r in rng.sample(range(box), box)]
    stacks = rng.sample(range(box), box)
    cols = [s * box + c for s in stacks for c in rng.sample(range(box), box)]
    digits = rng.sample(range(1, n + 1), n)

    def pattern(r: int, c: int) -> int:
        return (box * (r % box) + r // box + c) % n

    return tuple(digits[pattern(r, c)] for r in rows for c in cols)


def _peers(n: int) -> list[frozenset[int]]:
    peers = [set() for _ in range(n * n)]
    for unit in units(n):
        for cell in unit:
            peers[cell].update(unit)
    return [frozenset(p - {cell}) for cell, p in enumerate(peers)]


def carve(solution: tuple[int, ...], n: int, clues: int, rng: random.Random,
          count_solutions: CountSolutions) -> Sudoku:
    """Blank cells in random order, keeping each blank only if the puzzle stays unique."""
    grid = list(solution)
    peers = _peers(n)
    given = n * n
    for cell in rng.sample(range(n * n), n * n):
        if given <= clues:
            break
        value, grid[cell] = grid[cell], 0
        if not _forced(grid, cell, value, peers[cell], n) and \
                count_solutions(Sudoku(n, tuple(grid)).to_model(), 2) != 1:
            grid[cell] = value
            continue
        given -= 1
    return Sudoku(n, tuple(grid))


def _forced(grid: list[int], cell: int, value: int, peers, n: int) -> bool:
    """A blank whose peers hold every other value can only be ``value``: no count needed."""
    seen = {grid[p] for p in peers}
    return len(seen - {0}) == n - 1 and value not in seen


def generate(n: int, count: int, clues: int | None, seed: int,
             count_solutions: CountSolutions, best_of: int = 1) -> list[Sudoku]:
    """``count`` unique puzzles of side ``n`` with about ``clues`` givens each."""
    target = DEFAULT_CLUES.get(n, n * n // 2) if clues is None else clues
    if not 0 <= target <= n * n:
        raise ValueError(f"clues must be in 0..{n * n} for a {n}x{n} grid")
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        tries = [carve(full_grid(n, rng), n, target, rng, count_solutions)
                 for _ in range(max(1, best_of))]
        found.append(min(tries, key=lambda s: s.clues))
    return found


def file_text(found: list[Sudoku], n: int, count: int, clues: int | None, seed: int,
              best_of: int = 1) -> str:
    """Puzzles one per line, under a comment naming the command that made them.

    A ``# format: line`` comment comes first: sixteen 4x4 puzzles would
    otherwise look like one 16x16 grid to format detection.
    """
    header = (f"# format: line\n"
              f"# generated: python run_compare.py generate --size {n} --count {count}"
              + ("" if clues is None else f" --clues {clues}") + f" --seed {seed}"
              + (f" --best-of {best_of}" if best_of > 1 else "") + "\n")
    return header + "".join(format_grid(p, "line") for p in found)


def warmup_puzzles() -> list[Sudoku]:
    """Nearly full 4x4 and 9x9 grids every engine solves at once (worker warm-up)."""
    rng = random.Random(0)
    found = []
    for n, blanks in ((4, 4), (9, 12)):
        grid = list(full_grid(n, rng))
        for cell in rng.sample(range(n * n), blanks):
            grid[cell] = 0
        found.append(Sudoku(n, tuple(grid), "warm-up", "warm-up"))
    return found
