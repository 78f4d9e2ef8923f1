"""What an engine answers, in words every part of the tool shares.

The harness, the judge, the store and the reports read an engine only through
these types: the modes it may be asked, the ``Status`` of its answer, the
``Outcome`` its search returns and the ``Result`` the base class fills from it.
Kept apart from ``base`` so that code reading results never loads the machinery
that produces them.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

MODES = ("first", "lexfirst", "count")
KEEP_SOLUTIONS = 16   # solutions kept for checking in count mode


class Status(str, Enum):
    SOLVED = "solved"
    UNSAT = "unsatisfiable"
    TIMEOUT = "timeout"
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    CRASHED = "crashed"       # set by the harness when a worker dies
    MEMOUT = "memout"         # out of memory: a MemoryError, or past the harness's limit

    def __str__(self) -> str:
        return self.value


# The statuses that carry an answer the checker can judge; every other one is
# unverified but never wrong.
ANSWERED = (Status.SOLVED, Status.UNSAT)
ANSWERED_WORDS = tuple(s.value for s in ANSWERED)   # as stored in tables
# The statuses of an engine or worker that failed: no answer, and nothing learnt about
# the engine, so a run with any of them fails unless errors are allowed.
FAILED = (Status.ERROR, Status.CRASHED, Status.MEMOUT)
FAILED_WORDS = tuple(s.value for s in FAILED)


def status_word(status) -> str:
    """A status as the tables store it: an engine's ``Status``, a word already, or
    another enum's member. Read off ``_value_``: ``str`` goes through the enum's
    ``value`` property, a microsecond a call, and the parent asks of every result."""
    return status._value_ if type(status) is Status else str(getattr(status, "value", status))


SEARCH_STATS = ("nodes", "failures", "propagations", "restarts", "nogoods")
"""The search statistics an ``Outcome`` and a ``Result`` carry, each a whole number
or None where the engine does not report it (``nodes`` 0 then):

* ``nodes``: decisions tried (branches taken);
* ``failures``: dead ends met, a propagation wiping out a domain or a refuted decision;
* ``propagations``: propagator runs;
* ``restarts``: restarts of the search;
* ``nogoods``: nogoods (learnt clauses) recorded.

``backtracks`` stays beside them, the engine's own count of retreats."""


class Unsupported(Exception):
    """Raised by an engine for a mode, option or constraint it cannot do correctly."""


@dataclass
class Outcome:
    """What ``search`` reports; ``solve`` adds timings and identity."""
    status: Status
    solutions: list[tuple[int, ...]] = field(default_factory=list)
    count: int | None = None
    nodes: int = 0
    backtracks: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    # ``SEARCH_STATS`` beyond nodes: None where the engine does not report them;
    # keyword-only, so the fields above keep their positions.
    failures: int | None = field(default=None, kw_only=True)
    propagations: int | None = field(default=None, kw_only=True)
    restarts: int | None = field(default=None, kw_only=True)
    nogoods: int | None = field(default=None, kw_only=True)


@dataclass
class Result:
    """One engine's answer for one model and mode."""
    engine: str
    library: str
    version: str
    mode: str
    status: Status
    solutions: list[tuple[int, ...]] = field(default_factory=list)
    count: int | None = None
    build_s: float = 0.0
    solve_s: float = 0.0
    nodes: int = 0
    backtracks: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    traceback: str = ""                 # where an engine fault was raised, for --debug
    # Measured around the solve by the harness's worker, not by the engine.
    cpu_s: float | None = None          # CPU time of the process (every thread)
    peak_rss_mb: float | None = None    # peak resident memory of the process
    host: str | None = None             # the machine that ran it (a cluster's worker)
    # How the harness, not the engine, ended the task or stood in for it (a word of
    # the harness's vocabulary), kept as data so no one reads it out of ``message``.
    fact: str | None = None
    # How the worker loaded the task's input, untimed, before the solve (a file per
    # instance): ``(parse s, translate s, from)``, from ``memory``, ``cache`` or ``file``.
    loading: tuple[float, float, str] | None = None
    # ``SEARCH_STATS`` beyond nodes, as the engine's ``Outcome`` gave them (keyword-only).
    failures: int | None = field(default=None, kw_only=True)
    propagations: int | None = field(default=None, kw_only=True)
    restarts: int | None = field(default=None, kw_only=True)
    nogoods: int | None = field(default=None, kw_only=True)

    @property
    def total_s(self) -> float:
        return self.build_s + self.solve_s

    @property
    def solution(self) -> tuple[int, ...] | None:
        return self.solutions[0] if self.solutions else None


def describe(exc: BaseException) -> str:
    """``Type: message``, or the type alone when the exception says nothing more."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def timed_out(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline
