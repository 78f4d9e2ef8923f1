"""The executor interface and the limits every executor shares.

``Executor`` is what the plan and the runner see, whatever runs the tasks:
worker processes on this machine (``compare.executors.local``) or a Dask
cluster (``compare.executors.dask``). Every executor implements every hook
declared here, so the plan and the runner have one path for all of them;
``compare.executors.executor_for`` makes one of any kind.
"""
from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Iterable, Iterator

import engines
from compare.executors.tasks import Task
from compare.limits import SettingsError
from engines import Result

# The long warm-up is only for an engine that declares a compile on first use
# (``Engine.compiles_on_first_use``): its start-up, and each new shape, get
# WARMUP_LIMIT_S, doubled after each kill of that shape up to WARMUP_CAP_S, at
# most WARMUP_RETRIES times a run. Every other engine warms up under the task's
# own limit plus grace: a hang there is the task's timeout, never minutes.
WARMUP_LIMIT_S = 60.0     # a worker that cannot warm up in this long is restarted without it
WARMUP_CAP_S = 240.0      # a declared compile's warm-up limit is never doubled past this
START_LIMIT_S = 30.0      # a worker must import its plugins and build its engines in this long
START_LIMIT_ENV = "COMPARE_START_LIMIT"     # seconds, to change START_LIMIT_S
                          # (and a new shape gets as long: compiling it is no part of a task)
KILLED_WARMING_UP = "while its shape was warming up"   # in the message of such a kill
WARMUP_RETRIES = 3        # a shape's warm-up killed this often: its task is a timeout


def start_limit() -> float:
    """Seconds a fresh worker has to import the plugins and build the engines.

    ``COMPARE_START_LIMIT`` sets it (0.1 to 86400); a plugin that hangs at
    import in the workers then ends the run in one line instead of holding it.
    """
    text = os.environ.get(START_LIMIT_ENV)
    if not text:
        return START_LIMIT_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.1 <= value <= 86400:      # nan and inf fail this too
        raise SettingsError(f"{START_LIMIT_ENV}={text!r}: expected seconds from 0.1 to 86400")
    return value


@lru_cache(maxsize=256)
def compiles_on_first_use(label: str) -> bool:
    """Whether the engine ``label`` declares a compile on first use
    (``Engine.compiles_on_first_use``); an engine that cannot be built here does not."""
    try:
        return bool(engines.get_engine(label).compiles_on_first_use)
    except Exception:
        return False


def warmup_note(labels) -> str:
    """The run header's word on the long warm-up: which engines get it, and its bounds
    ("" when no engine declares a compile, and every warm-up has the task's limit)."""
    compiling = [str(label) for label in labels if compiles_on_first_use(str(label))]
    if not compiling:
        return ""
    return (f"; compile warm-up up to {WARMUP_LIMIT_S:g} s a shape (doubled after a kill, "
            f"at most {WARMUP_CAP_S:g} s) for {', '.join(compiling)}")


def grace_for(timeout: float) -> float:
    """Extra time an engine gets to stop itself before its worker is killed."""
    return 1.0 + 0.1 * timeout


Skip = Callable[[Task], "Result | None"]


@dataclass(frozen=True)
class WorkerSetup:
    """What an executor's workers are set up with for a run, given to ``bind`` as one
    object: the engines they serve (canonical labels), how they warm up (the run's
    mode, limit and formulations, so the warm-up meets the shapes the tasks will),
    and the memory limit each worker is held to (MB; None: none)."""
    engines: tuple[str, ...]
    mode: str = "first"
    limit: int = 2
    formulations: tuple[str, ...] = ("alldiff",)
    memory_limit: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "engines", tuple(self.engines))
        object.__setattr__(self, "formulations", tuple(self.formulations or ("alldiff",)))


class Executor(ABC):
    """Where tasks run.

    The plan makes an executor once (``executor_for``) and calls, in order:
    ``bind`` once (the run's ``WorkerSetup``), ``start`` (the workers warm up
    while the puzzles or the store are read; it may come before the tasks are
    known), ``fit`` (how many tasks are left), then the runner calls ``run``
    and reads ``facts``, and the plan calls ``close``. The plan reads
    ``workers`` and ``gave_up``, and reads and caps ``local_workers``.
    ``run`` must be implemented; the other hooks have a default that does
    nothing, which the executors of this package each replace.
    """

    workers: int | None = None   # tasks that can run at once; None until known
    gave_up: str | None = None   # why no worker could start, once the executor gave up
    # worker processes of a cluster the executor starts on this machine for the run
    # (None: it starts none, or the number is not its own); the plan caps it as it
    # caps --workers, by the tasks and the memory available, before ``start``
    local_workers: int | None = None
    setup: WorkerSetup | None = None   # what ``bind`` gave (or the executor was made with)

    @abstractmethod
    def run(self, tasks: Iterable[Task], puzzles: dict, skip: Skip | None = None,
            pauses: bool = False) -> Iterator[tuple[Task, Result] | None]:
        """Yield ``(task, result)`` for every task, as each finishes.

        ``puzzles`` maps each task's ``puzzle_id`` to its puzzle.

        ``skip(task)``, asked just before a task would be handed to a worker,
        may answer it without running it: a ``Result`` to yield as the task's
        own (a timeout's later repeat, unrun); ``None`` runs it.
        ``take_runnable`` does the asking. An executor that hands out tasks in
        groups asks it of each task as the task joins a group, so a verdict
        that comes in meanwhile still counts.

        ``pauses``: also yield ``None`` whenever what came in should be settled
        (checked and stored by the runner, in a batch) before the executor
        hands out more work or waits; the runner always asks for pauses.
        Without, only results are yielded.

        When ``run`` returns, every task has been yielded once, unless
        ``gave_up`` says why the rest could not run.
        """

    @staticmethod
    def take_runnable(pending: deque, skip: Skip | None, answered: list) -> bool:
        """Answer the tasks at the head of ``pending`` that ``skip`` answers (into
        ``answered``, as ``(task, result)``); True when a task to run is at the head."""
        while pending:
            stand_in = skip(pending[0]) if skip is not None else None
            if stand_in is None:
                return True
            answered.append((pending.popleft(), stand_in))
        return False

    def bind(self, setup: WorkerSetup) -> None:
        """The run's ``WorkerSetup``, given once, before ``start``.

        An executor made with a setup of its own keeps it, and takes only the
        memory limit when it had none. An executor that derives state from
        its setup overrides this and calls it first.
        """
        own = self.setup
        if own is None:
            self.setup = setup
        elif own.memory_limit is None and setup.memory_limit is not None:
            self.setup = replace(own, memory_limit=setup.memory_limit)

    def start(self) -> None:  # noqa: B027  (an executor may start its workers on first use)
        """Start the workers now, so they warm up while the run is being prepared.

        Called after ``bind``, perhaps before the tasks are known; calling it
        again does nothing more. ``run`` starts whatever was not started yet.
        """

    def fit(self, tasks: int) -> None:  # noqa: B027  (an executor may size itself as it goes)
        """Only ``tasks`` remain (a resumed run, or fewer than the early estimate): use no
        more workers than they need. An executor whose size is a cluster's keeps it."""

    def close(self) -> None:  # noqa: B027  (an executor that holds nothing has nothing to do)
        """Release the workers and whatever ``start`` made; safe to call more than once.
        ``run`` calls it when done (unless told to keep its workers), and so does ``with``."""

    def facts(self) -> dict:
        """What the executor measured about itself, for the run's record (warm-up costs,
        processes started, how memory was read); ``{}`` when it measured nothing."""
        return {}

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
