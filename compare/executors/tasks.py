"""What a comparison run is made of: puzzles, and tasks over them.

A task is one puzzle x formulation x engine x repeat in one mode. It stays
small (ids and short strings) because thousands cross the pipe to the workers;
the puzzle object itself travels once per worker (see ``executor``).
"""
from __future__ import annotations

import difflib
import random
from dataclasses import dataclass
from pathlib import PurePath
from typing import Iterable, TypeVar

from puzzles.base import Puzzle

T = TypeVar("T")


@dataclass(frozen=True)
class Task:
    tid: int
    puzzle_id: str
    formulation: str
    engine: str          # the engine's canonical label: name and non-default options
    mode: str
    limit: int
    timeout: float
    repeat: int

    @property
    def key(self) -> tuple:
        """What makes a result unique in the store (and what ``--resume`` skips)."""
        return (self.puzzle_id, self.formulation, self.engine, self.mode, self.repeat)


@dataclass(frozen=True)
class PuzzleRecord:
    """A loaded puzzle and where it came from, for tables and reproduce commands."""
    puzzle_id: str
    puzzle: Puzzle
    source: str          # file stem (or the spec), the grouping column of the summary
    origin: str          # the path or spec the user gave
    line: int            # 1-based line in ``origin``; 0 for a spec
    digest: str = ""     # ``runner.puzzle_digest`` if known already (loading makes it)


def sample_per_origin(items: list[tuple[str, T]], k: int | None, seed: int) -> list[tuple[str, T]]:
    """A reproducible subset of ``k`` items per origin (file or spec), in input order.

    The draw is seeded by the file's name, not its folder, so everyone's copy of
    a public set gives the same sample (the benchmark's figures rest on that).
    """
    if not k:
        return items
    by_origin: dict[str, list[int]] = {}
    for index, (origin, _) in enumerate(items):
        by_origin.setdefault(origin, []).append(index)
    keep: set[int] = set()
    for origin, indices in by_origin.items():
        rng = random.Random(f"{seed}:{PurePath(origin).name}")
        chosen = indices if len(indices) <= k else rng.sample(indices, k)
        keep.update(chosen)
    return [item for index, item in enumerate(items) if index in keep]


def formulations_for(puzzle: Puzzle, wanted: list[str] | None) -> list[str]:
    """The formulations to run for a puzzle: its default, or those of ``wanted`` it has."""
    if not wanted:
        return [puzzle.formulations[0]]
    return [f for f in wanted if f in puzzle.formulations]


def formulation_hint(records: Iterable[PuzzleRecord], wanted: Iterable[str]) -> str:
    """When no puzzle has any formulation asked for: ' (did you mean X?)' for a near
    miss among those the puzzles have, else ' (the puzzles have: ...)', so a typo is
    told from a formulation these kinds lack."""
    have = list(dict.fromkeys(f for rec in records for f in rec.puzzle.formulations))
    for name in wanted:
        close = difflib.get_close_matches(name, have, n=1, cutoff=0.6)
        if close:
            return f" (did you mean {close[0]}?)"
    return f" (the puzzles have: {', '.join(have)})" if have else ""


def build_tasks(records: Iterable[PuzzleRecord], engines: list[str], mode: str,
                limit: int, timeout: float, repeat: int,
                formulations: list[str] | None = None) -> list[Task]:
    """Every task, repeats outermost so a cut-short run still covers every puzzle once.

    Engines are interleaved per puzzle, so slow drift of the machine (heat,
    neighbours) falls on all engines alike.
    """
    records = list(records)
    tasks: list[Task] = []
    for rep in range(repeat):
        for rec in records:
            for form in formulations_for(rec.puzzle, formulations):
                for engine in engines:
                    tasks.append(Task(len(tasks), rec.puzzle_id, form, engine,
                                      mode, limit, timeout, rep))
    return tasks
