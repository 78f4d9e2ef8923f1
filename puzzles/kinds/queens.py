"""N-Queens: one queen per row, none attacking another.

Variable ``q_i`` is the column (1..N) of the queen in row i. Two formulations:

* ``alldiff``: AllDifferent over the columns and over both diagonal indices
  ``q_i + i`` and ``q_i - i``. The model's AllDifferent takes plain variables,
  so each diagonal index is an auxiliary variable tied to its queen by a
  Linear equality: ``up_i - q_i == i`` and ``down_i - q_i == N - 1 - i`` (the
  shift by N - 1 keeps every value positive, in 1..2N-1). The auxiliaries
  come after the queens and are fixed by them, so counts and ``lexfirst`` are
  those of the queens alone.
* ``pairwise``: per pair of rows, ``q_i != q_j`` and ``q_i != q_j +- (j - i)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from puzzles.base import Puzzle
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure
from puzzles.specs import Spec, register_kind

MAX_N = 1000


@lru_cache(maxsize=None)
def structure(n: int, formulation: str) -> Structure:
    queens = tuple(f"q{i + 1}" for i in range(n))
    columns = tuple(range(1, n + 1))
    if formulation == "pairwise":
        cons = tuple(NotEqualOffset(i, j, c) for i in range(n) for j in range(i + 1, n)
                     for c in (0, j - i, i - j))
        return Structure(f"queens-{n}/pairwise", queens, (columns,) * n, cons)
    if formulation != "alldiff":
        raise ValueError(f"unknown N-Queens formulation {formulation!r}")
    names = queens + tuple(f"up{i + 1}" for i in range(n)) \
        + tuple(f"down{i + 1}" for i in range(n))
    shift = n - 1                        # keeps the down-diagonal indices in 1..2n-1
    domains = ((columns,) * n + tuple(tuple(v + i for v in columns) for i in range(n))
               + tuple(tuple(v - i + shift for v in columns) for i in range(n)))
    rows = range(n)
    up, down = tuple(n + i for i in rows), tuple(2 * n + i for i in rows)
    cons = [AllDifferent(tuple(rows)), AllDifferent(up), AllDifferent(down)]
    cons += [Linear((1, -1), (up[i], i), "==", i) for i in rows]
    cons += [Linear((1, -1), (down[i], i), "==", shift - i) for i in rows]
    return Structure(f"queens-{n}/alldiff", names, domains, tuple(cons))


@dataclass(frozen=True)
class Queens(Puzzle):
    n: int
    name: str = ""
    source: str = "queens"

    kind = "queens"
    formulations = ("alldiff", "pairwise")

    def __post_init__(self):
        if not 1 <= self.n <= MAX_N:
            raise ValueError(f"N-Queens needs 1 <= N <= {MAX_N}, got {self.n}")
        if not self.name:
            object.__setattr__(self, "name", f"queens-{self.n}")

    @property
    def size(self) -> int:
        return self.n

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        return Model(structure(self.n, chosen), (), self.name)

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """The queen's column in each row (the auxiliaries dropped)."""
        return tuple(values[:self.n])

    def format_answer(self, answer) -> str:
        """The columns on one line, then the board."""
        board = ["".join("Q" if col == q else "." for col in range(1, self.n + 1))
                 for q in answer]
        return "\n".join([" ".join(map(str, answer))] + board)


@register_kind("queens", "queens:N  N-Queens on an N x N board",
               formulations=Queens.formulations)
def load(spec: Spec) -> Queens:
    spec.check_options()
    return Queens(spec.int_arg("board size N", 1, MAX_N))
