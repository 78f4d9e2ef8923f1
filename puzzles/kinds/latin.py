"""Latin square completion (quasigroup completion): fill an N x N grid with
1..N so that no row or column repeats a value, keeping the givens.

Puzzles come from a seeded generator (``latin:N:holes=K:seed=S``) or from a
grid file (``latin:FILE``): N lines of N whitespace-separated values, ``0`` or
``.`` for a blank, ``#`` comments and blank lines ignored.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from puzzles.errors import PuzzleInputError
from puzzles.kinds.sudoku import GridPuzzle, grid_text, groups_structure
from puzzles.model import Structure
from puzzles.reading import read_text
from puzzles.specs import Spec, file_stem, register_kind

MAX_N = 64


@lru_cache(maxsize=None)
def units(n: int) -> tuple[tuple[int, ...], ...]:
    """Rows, then columns."""
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    return tuple(rows + cols)


@lru_cache(maxsize=None)
def structure(n: int, formulation: str) -> Structure:
    return groups_structure(f"latin-{n}/{formulation}", n, units(n), formulation,
                            "Latin square")


@dataclass(frozen=True)
class LatinSquare(GridPuzzle):
    """An N x N grid, 0 for a blank."""
    n: int
    grid: tuple[int, ...]
    name: str = ""
    source: str = "latin"

    kind = "latin"
    formulations = ("alldiff", "pairwise", "onehot")

    def __post_init__(self):
        if len(self.grid) != self.n * self.n:
            raise ValueError(f"a Latin square of order {self.n} needs {self.n ** 2} cells")

    def grid_structure(self, formulation: str) -> Structure:
        return structure(self.n, formulation)

    def format_answer(self, answer) -> str:
        return grid_text(answer, self.n)


def random_square(n: int, rng: random.Random) -> tuple[int, ...]:
    """The cyclic square with rows, columns and symbols shuffled.

    Not uniform over all Latin squares (it only reaches isotopes of the cyclic
    group), but every one is a valid completion, so a punched grid is solvable.
    """
    rows, cols, symbols = (rng.sample(range(n), n) for _ in range(3))
    return tuple(symbols[(rows[r] + cols[c]) % n] + 1 for r in range(n) for c in range(n))


def generate(n: int, holes: int, seed: int = 0) -> LatinSquare:
    """A random completion puzzle with ``holes`` blanks (always satisfiable)."""
    rng = random.Random(seed)
    grid = list(random_square(n, rng))
    for cell in rng.sample(range(n * n), holes):
        grid[cell] = 0
    return LatinSquare(n, tuple(grid), f"latin-{n}-h{holes}-s{seed}")


def read_grid(text: str, source: str) -> LatinSquare:
    """A grid file: rows of whitespace-separated values, 0 or '.' for a blank."""
    rows: list[tuple[int, list[int]]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].split()
        if line:
            rows.append((lineno, [_value(tok, source, lineno) for tok in line]))
    if not rows:
        raise PuzzleInputError(source, None, "empty Latin square file")
    n = len(rows)
    if n > MAX_N:
        raise PuzzleInputError(source, rows[MAX_N][0], f"more than {MAX_N} rows")
    for lineno, values in rows:
        if len(values) != n:
            raise PuzzleInputError(source, lineno,
                                   f"row has {len(values)} values; a square of {n} rows needs {n}")
        for v in values:
            if v > n:
                raise PuzzleInputError(source, lineno, f"value {v} out of range 1..{n}")
    _check_givens(rows, source)
    name = file_stem(source)
    return LatinSquare(n, tuple(v for _, values in rows for v in values), name, name)


def _value(token: str, source: str, lineno: int) -> int:
    if token == ".":
        return 0
    if not token.isdigit():
        raise PuzzleInputError(source, lineno, f"stray {token!r}; expected a number or '.'")
    return int(token)


def _check_givens(rows, source: str) -> None:
    """Two equal givens in a row or column make the file wrong, not just unsolvable."""
    for r, (lineno, values) in enumerate(rows):
        for c, v in enumerate(values):
            if not v:
                continue
            if v in values[:c]:
                raise PuzzleInputError(source, lineno, f"value {v} twice in row {r + 1}")
            if any(rows[above][1][c] == v for above in range(r)):
                raise PuzzleInputError(source, lineno, f"value {v} twice in column {c + 1}")


@register_kind("latin", "latin:N[:holes=K][:seed=S] or latin:FILE  Latin square completion",
               formulations=LatinSquare.formulations)
def load(spec: Spec) -> LatinSquare:
    if not spec.arg.isdigit():
        spec.check_options()
        path = spec.existing_file("grid file")
        return read_grid(read_text(path), path)
    spec.check_options("holes", "seed")
    n = spec.int_arg("order N", 1, MAX_N)
    holes = spec.int_option("holes", n * n // 2, 0, n * n)
    seed = spec.int_option("seed", 0, 0, 2 ** 63)
    return generate(n, holes, seed)
