"""Sudoku of box size 2..5 (4x4 to 25x25) and its CSP model.

Cells are numbered row-major, ``cell = row * n + col``; the model's variables
follow that order, so ``lexfirst`` is the BOJ 2239 "first in row-major order"
answer. Values are 1..n; 0 marks a blank in a grid.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .base import Puzzle
from .model import AllDifferent, Model, NotEqualOffset, Structure

BOX_SIZES = (2, 3, 4, 5)


def side_for_cells(cells: int) -> int | None:
    """The grid side whose square is ``cells``, if it is a supported size."""
    for box in BOX_SIZES:
        if box ** 4 == cells:
            return box * box
    return None


def box_of_side(n: int) -> int:
    box = int(round(n ** 0.5))
    if box * box != n or box not in BOX_SIZES:
        raise ValueError(f"unsupported Sudoku side {n} (supported: 4, 9, 16, 25)")
    return box


@lru_cache(maxsize=None)
def units(n: int) -> tuple[tuple[int, ...], ...]:
    """Rows, then columns, then boxes: each a tuple of cell indices."""
    box = box_of_side(n)
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    boxes = [tuple((br * box + i) * n + bc * box + j
                   for i in range(box) for j in range(box))
             for br in range(box) for bc in range(box)]
    return tuple(rows + cols + boxes)


def structure(n: int, formulation: str = "alldiff") -> Structure:
    """One shared structure per side and formulation, so engines can cache on it."""
    return _structure(n, formulation)


@lru_cache(maxsize=None)
def _structure(n: int, formulation: str) -> Structure:
    names = tuple(f"r{r + 1}c{c + 1}" for r in range(n) for c in range(n))
    domains = (tuple(range(1, n + 1)),) * (n * n)
    if formulation == "alldiff":
        cons = tuple(AllDifferent(u) for u in units(n))
    elif formulation == "pairwise":
        pairs = sorted({(min(a, b), max(a, b)) for u in units(n)
                        for a in u for b in u if a != b})
        cons = tuple(NotEqualOffset(a, b, 0) for a, b in pairs)
    else:
        raise ValueError(f"unknown Sudoku formulation {formulation!r}")
    return Structure(f"sudoku-{n}/{formulation}", names, domains, cons)


@dataclass(frozen=True)
class Sudoku(Puzzle):
    """A Sudoku grid: ``n`` by ``n`` values, 0 for a blank."""
    n: int
    grid: tuple[int, ...]
    name: str = ""
    source: str = ""

    kind = "sudoku"
    formulations = ("alldiff", "pairwise")

    def __post_init__(self):
        box_of_side(self.n)
        if len(self.grid) != self.n * self.n:
            raise ValueError(f"a {self.n}x{self.n} grid needs {self.n * self.n} cells")

    @property
    def box(self) -> int:
        return box_of_side(self.n)

    @property
    def size(self) -> int:
        return self.n

    @property
    def clues(self) -> int:
        return sum(1 for v in self.grid if v)

    def givens(self) -> tuple[tuple[int, int], ...]:
        return tuple((cell, v) for cell, v in enumerate(self.grid) if v)

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        return Model(structure(self.n, chosen), self.givens(), self.name)

    def with_values(self, values) -> "Sudoku":
        """The solved grid for an engine's solution (values in cell order)."""
        return Sudoku(self.n, tuple(values), self.name, self.source)

    def rows(self) -> list[tuple[int, ...]]:
        n = self.n
        return [self.grid[r * n:(r + 1) * n] for r in range(n)]
