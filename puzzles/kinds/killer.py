"""Killer Sudoku: Sudoku rules, plus cages whose cells hold distinct values
adding up to the cage's sum.

Cage file format (``.killer``; ``killer:FILE`` names one on the command line)::

    # comments start with '#'; blank lines are ignored
    size 9                       first: the grid side, 4, 9, 16 or 25
    10: r1c1 r1c2                then one cage per line: SUM, ':', its cells
    17: r1c3 r2c3 r2c2           cells are rROWcCOL, 1-based, space- or comma-separated

The cages must cover every cell exactly once, and each sum must be reachable
with distinct values. Givens are not part of the format: the cages are the clues.

Formulations: ``alldiff`` (the Sudoku AllDifferent units, plus per cage a
Linear sum and an AllDifferent) and ``pairwise`` (``!=`` per peer pair, cage
mates included, plus the Linear sums).
"""
from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache

from puzzles.base import Puzzle
from puzzles.errors import PuzzleInputError
from puzzles.kinds.sudoku import BOX_SIZES, box_of_side, grid_text, groups_structure, units
from puzzles.model import Linear, Model, Structure
from puzzles.reading import read_text
from puzzles.specs import Spec, file_stem, register_kind

SIDES = tuple(b * b for b in BOX_SIZES)
_SIZE = re.compile(r"^size\s+(\d+)$", re.IGNORECASE)
_CAGE = re.compile(r"^(\d+)\s*:(.*)$")
_CELL = re.compile(r"^r(\d+)c(\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Cage:
    total: int
    cells: tuple[int, ...]    # row-major cell indices


def sum_range(size: int, n: int) -> tuple[int, int]:
    """The smallest and largest sum of ``size`` distinct values from 1..n."""
    return size * (size + 1) // 2, size * (2 * n - size + 1) // 2


@lru_cache(maxsize=64)
def structure(n: int, cages: tuple[Cage, ...], formulation: str) -> Structure:
    sums = tuple(Linear((1,) * len(c.cells), c.cells, "==", c.total) for c in cages)
    groups = units(n) + tuple(c.cells for c in cages if len(c.cells) > 1)
    digest = hashlib.sha1(repr(cages).encode()).hexdigest()[:10]
    return groups_structure(f"killer-{n}-{digest}/{formulation}", n, groups, formulation,
                            "Killer Sudoku", extra=sums)


@dataclass(frozen=True)
class Killer(Puzzle):
    n: int
    cages: tuple[Cage, ...]
    name: str = ""
    source: str = ""

    kind = "killer"
    formulations = ("alldiff", "pairwise")

    @property
    def size(self) -> int:
        return self.n

    @property
    def clues(self) -> int:
        """The number of cages: the clues a Killer Sudoku gives."""
        return len(self.cages)

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        return Model(structure(self.n, self.cages, chosen), (), self.name)

    def format_answer(self, answer) -> str:
        return grid_text(answer, self.n)

    def text(self) -> str:
        """The puzzle in the cage file format."""
        lines = [f"size {self.n}"]
        for cage in self.cages:
            cells = " ".join(f"r{c // self.n + 1}c{c % self.n + 1}" for c in cage.cells)
            lines.append(f"{cage.total}: {cells}")
        return "\n".join(lines) + "\n"


# ----- reading ---------------------------------------------------------------

def read_killer(text: str, source: str) -> Killer:
    """Parse a cage file; every fault names its line."""
    n = None
    cages: list[Cage] = []
    owner: dict[int, int] = {}          # cell -> line of its cage
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if n is None:
            n = _size_line(line, source, lineno)
            continue
        cage = _cage_line(line, n, source, lineno)
        for cell in cage.cells:
            if cell in owner:
                raise PuzzleInputError(source, lineno, f"cell {_cell_name(cell, n)} is already "
                                                       f"in the cage on line {owner[cell]}")
            owner[cell] = lineno
        cages.append(cage)
    if n is None:
        raise PuzzleInputError(source, None, "empty cage file; expected 'size N' and cage lines")
    _check_cover(n, owner, cages, source)
    name = file_stem(source)
    return Killer(n, tuple(cages), name, name)


def _size_line(line: str, source: str, lineno: int) -> int:
    match = _SIZE.match(line)
    if not match:
        raise PuzzleInputError(source, lineno, f"expected 'size N' first, got {line[:30]!r}")
    n = int(match.group(1))
    if n not in SIDES:
        raise PuzzleInputError(source, lineno, f"unsupported size {n} (supported: 4, 9, 16, 25)")
    return n


def _cage_line(line: str, n: int, source: str, lineno: int) -> Cage:
    match = _CAGE.match(line)
    if not match:
        raise PuzzleInputError(source, lineno,
                               f"expected a cage 'SUM: r1c1 r1c2 ...', got {line[:30]!r}")
    names = match.group(2).replace(",", " ").split()
    if not names:
        raise PuzzleInputError(source, lineno, "cage has no cells")
    cells: list[int] = []
    for token in names:
        cell = _cell(token, n, source, lineno)
        if cell in cells:
            raise PuzzleInputError(source, lineno, f"cell {token} twice in one cage")
        cells.append(cell)
    total = int(match.group(1))
    if len(cells) > n:
        raise PuzzleInputError(source, lineno, f"cage of {len(cells)} cells cannot hold "
                                               f"distinct values 1..{n}")
    low, high = sum_range(len(cells), n)
    if not low <= total <= high:
        raise PuzzleInputError(source, lineno, f"sum {total} impossible for {len(cells)} "
                                               f"distinct values 1..{n} (possible: {low}..{high})")
    return Cage(total, tuple(cells))


def _cell(token: str, n: int, source: str, lineno: int) -> int:
    match = _CELL.match(token)
    if not match:
        raise PuzzleInputError(source, lineno, f"bad cell name {token[:20]!r}; expected rROWcCOL "
                                               "such as r1c2")
    row, col = int(match.group(1)), int(match.group(2))
    if not (1 <= row <= n and 1 <= col <= n):
        raise PuzzleInputError(source, lineno, f"cell {token} outside the {n}x{n} grid")
    return (row - 1) * n + col - 1


def _check_cover(n: int, owner: dict[int, int], cages, source: str) -> None:
    missing = [_cell_name(c, n) for c in range(n * n) if c not in owner]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise PuzzleInputError(source, None, f"{len(missing)} cell(s) in no cage: {shown}")
    total, expected = sum(c.total for c in cages), n * n * (n + 1) // 2
    if total != expected:
        raise PuzzleInputError(source, None, f"cage sums add up to {total}, but a {n}x{n} "
                                             f"grid adds up to {expected}")


def _cell_name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


def load_file(path: str) -> Killer:
    return read_killer(read_text(path), path)


@register_kind("killer", "killer:FILE  Killer Sudoku from a cage file",
               formulations=Killer.formulations)
def load(spec: Spec) -> Killer:
    spec.check_options()
    return load_file(spec.existing_file("cage file"))


# ----- making puzzles ----------------------------------------------------------

def solved_grid(n: int, rng: random.Random) -> tuple[int, ...]:
    """A random full Sudoku grid: the pattern grid with bands, stacks and symbols shuffled."""
    box = box_of_side(n)
    rows = [b * box + r for b in rng.sample(range(box), box) for r in rng.sample(range(box), box)]
    cols = [b * box + c for b in rng.sample(range(box), box) for c in rng.sample(range(box), box)]
    symbols = rng.sample(range(1, n + 1), n)
    return tuple(symbols[(box * (r % box) + r // box + c) % n]
                 for r in rows for c in cols)


def random_cages(grid, n: int, rng: random.Random, smallest: int = 2, largest: int = 4) -> Killer:
    """Cages grown at random over ``grid`` (no value twice in a cage), sums from it."""
    free = set(range(n * n))
    cages = []
    while free:
        cage = [min(free)]
        free.discard(cage[0])
        target = rng.randint(smallest, largest)
        while len(cage) < target:
            options = [nb for c in cage for nb in _neighbours(c, n)
                       if nb in free and grid[nb] not in {grid[x] for x in cage}]
            if not options:
                break
            pick = rng.choice(sorted(options))
            cage.append(pick)
            free.discard(pick)
        cages.append(Cage(sum(grid[c] for c in cage), tuple(sorted(cage))))
    return Killer(n, tuple(cages), "killer-random", "killer")


def _neighbours(cell: int, n: int):
    r, c = divmod(cell, n)
    for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        if 0 <= r + dr < n and 0 <= c + dc < n:
            yield (r + dr) * n + c + dc
