"""Sudoku of box size 2..5 (4x4 to 25x25) and its CSP model.

Cells are numbered row-major, ``cell = row * n + col``; the model's variables
follow that order, so ``lexfirst`` is the BOJ 2239 "first in row-major order"
answer. Values are 1..n; 0 marks a blank in a grid.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from puzzles.base import Puzzle
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure

BOX_SIZES = (2, 3, 4, 5)


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
    return groups_structure(f"sudoku-{n}/{formulation}", n, units(n), formulation, "Sudoku")


def groups_structure(key: str, n: int, groups, formulation: str, kind: str,
                     extra: tuple = ()) -> Structure:
    """An n x n grid of values 1..n whose ``groups`` each hold different values, in
    ``formulation`` (``alldiff``, ``pairwise``, or ``onehot`` when there is no
    ``extra``), followed by the ``extra`` constraints: the model of every grid kind."""
    if formulation == "onehot" and not extra:
        return onehot_structure(key, cell_names(n), n, groups)
    if formulation == "alldiff":
        cons = tuple(AllDifferent(g) for g in groups)
    elif formulation == "pairwise":
        cons = not_equal_pairs(groups)
    else:
        raise ValueError(f"unknown {kind} formulation {formulation!r}")
    return Structure(key, cell_names(n), (tuple(range(1, n + 1)),) * (n * n), cons + extra)


def cell_names(n: int) -> tuple[str, ...]:
    return tuple(f"r{r + 1}c{c + 1}" for r in range(n) for c in range(n))


def not_equal_pairs(groups) -> tuple[NotEqualOffset, ...]:
    """The pairwise formulation of AllDifferent groups: one ``!=`` per peer pair."""
    pairs = sorted({(min(a, b), max(a, b)) for g in groups
                    for a in g for b in g if a != b})
    return tuple(NotEqualOffset(a, b, 0) for a, b in pairs)


# ----- one-hot exact cover -------------------------------------------------
# Boolean x[cell][value]. Within a cell the values run DOWN from n to 1, so the
# lexicographically smallest Boolean vector picks the smallest value in each
# cell first: ``lexfirst`` on the one-hot model decodes to the same grid as
# ``lexfirst`` on the alldiff model.

def onehot_var(cell: int, value: int, n: int) -> int:
    return cell * n + (n - value)


def onehot_structure(key: str, names, n: int, groups) -> Structure:
    """Exact cover: each cell takes one value, each group holds each value once."""
    variables = tuple(f"{name}={v}" for name in names for v in range(n, 0, -1))
    ones = (1,) * n
    cons = [Linear(ones, tuple(onehot_var(c, v, n) for v in range(1, n + 1)), "==", 1)
            for c in range(len(names))]
    cons += [Linear(ones, tuple(onehot_var(c, v, n) for c in g), "==", 1)
             for g in groups for v in range(1, n + 1)]
    return Structure(key, variables, ((0, 1),) * len(variables), tuple(cons))


def onehot_givens(givens, n: int) -> tuple[tuple[int, int], ...]:
    """``cell = value`` facts as ``x[cell][value] = 1`` facts."""
    return tuple((onehot_var(cell, v, n), 1) for cell, v in givens)


def onehot_decode(values, n: int) -> tuple[int, ...]:
    """The grid back from the Booleans; 0 where a cell has no single value set."""
    grid = []
    for cell in range(len(values) // n):
        chosen = [v for v in range(1, n + 1) if values[onehot_var(cell, v, n)]]
        grid.append(chosen[0] if len(chosen) == 1 else 0)
    return tuple(grid)


def grid_text(values, n: int) -> str:
    """Rows of space-separated values: the answer format of grid puzzles."""
    return "\n".join(" ".join(str(v) for v in values[r * n:(r + 1) * n])
                     for r in range(n))


class GridPuzzle(Puzzle):
    """An ``n`` x ``n`` grid of values 1..n from givens (0 = blank): Sudoku, Latin squares.

    Subclasses have ``n`` and ``grid`` and say which structure a formulation
    uses; a ``onehot`` formulation re-encodes the givens and decodes back here.
    """
    n: int
    grid: tuple[int, ...]

    def grid_structure(self, formulation: str) -> Structure:
        raise NotImplementedError

    @property
    def size(self) -> int:
        return self.n

    @property
    def clues(self) -> int:
        return len(self.grid) - self.grid.count(0)

    def givens(self) -> tuple[tuple[int, int], ...]:
        return tuple((cell, v) for cell, v in enumerate(self.grid) if v)

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        givens = self.givens()
        if chosen == "onehot":
            givens = onehot_givens(givens, self.n)
        return Model(self.grid_structure(chosen), givens, self.name)

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        if self.check_formulation(formulation) == "onehot":
            return onehot_decode(values, self.n)
        return tuple(values)

    def warmup_twin(self) -> "GridPuzzle":
        """A solved grid of the same side with a blank in every row (named ``warm-up``)."""
        box = int(round(self.n ** 0.5))
        n = self.n
        if box * box == n:     # the shifted pattern is also a valid Sudoku
            rows = [[(box * (r % box) + r // box + c) % n + 1 for c in range(n)]
                    for r in range(n)]
        else:
            rows = [[(r + c) % n + 1 for c in range(n)] for r in range(n)]
        grid = [v for row in rows for v in row]
        for r in range(n):
            grid[r * n + (r * 7) % n] = 0
        return replace(self, grid=tuple(grid), name="warm-up", source="warm-up")


@dataclass(frozen=True)
class Sudoku(GridPuzzle):
    """A Sudoku grid: ``n`` by ``n`` values, 0 for a blank."""
    n: int
    grid: tuple[int, ...]
    name: str = ""
    source: str = ""

    kind = "sudoku"
    formulations = ("alldiff", "pairwise", "onehot")
    formats = ("boj2239", "boj2580", "line")       # written forms (puzzles.formats.grids)

    def __post_init__(self):
        box_of_side(self.n)
        if len(self.grid) != self.n * self.n:
            raise ValueError(f"a {self.n}x{self.n} grid needs {self.n * self.n} cells")

    @property
    def box(self) -> int:
        return box_of_side(self.n)

    def grid_structure(self, formulation: str) -> Structure:
        return structure(self.n, formulation)

    def with_values(self, values) -> "Sudoku":
        """The solved grid for an engine's solution (values in cell order)."""
        return Sudoku(self.n, tuple(values), self.name, self.source)

    def format_answer(self, answer, fmt: str | None = None) -> str:
        """The solved grid as the input was written (``line`` by default)."""
        if (fmt is None or fmt == "line") and isinstance(answer, (tuple, list)) \
                and len(answer) == self.n * self.n:
            # The harness writes every answer of a run so, a sweep 100,000: as bytes
            # through a table, a third of the time of a character per value. A value
            # outside the table (or outside a byte) takes the general way below.
            try:
                raw = bytes(answer)
            except (ValueError, TypeError):
                raw = b"\xff"
            if not raw or max(raw) < len(_LINE_CHARS):
                return raw.translate(_LINE_TABLE).decode("ascii") + "\n"
        return format_grid(self.with_values(answer), fmt or "line")

    def one_line(self) -> str:
        return self.format_answer(self.grid, "line").strip()

    def rows(self) -> list[tuple[int, ...]]:
        n = self.n
        return [self.grid[r * n:(r + 1) * n] for r in range(n)]


VALUE_CHARS = "123456789ABCDEFGHIJKLMNOP"   # cell values as the files write them
_LINE_CHARS = "." + VALUE_CHARS               # indexed by value, a blank first
_BOJ_CHARS = "0" + VALUE_CHARS
_LINE_TABLE = _LINE_CHARS.encode().ljust(256, b"?")   # bytes.translate's table


def format_grid(sudoku: Sudoku, fmt: str) -> str:
    """The grid in ``fmt``, newline-terminated; blanks are ``0`` (``.`` in ``line``)."""
    # ``map`` over a character table, not a generator: every answer of a run is
    # written this way once, and a sweep writes 100,000 of them.
    if fmt == "line":
        return "".join(map(_LINE_CHARS.__getitem__, sudoku.grid)) + "\n"
    if fmt == "boj2239":
        rows = ("".join(map(_BOJ_CHARS.__getitem__, row)) for row in sudoku.rows())
    elif fmt == "boj2580":
        rows = (" ".join(map(str, row)) for row in sudoku.rows())
    else:
        raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(Sudoku.formats)})")
    return "\n".join(rows) + "\n"
