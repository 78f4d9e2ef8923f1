"""The executor interface and the limits every executor shares.

``Executor`` is what the plan and the runner see: ``run(tasks, puzzles)``
yields ``(task, result)`` as each task finishes, and the hooks around it are
declared here with what each means when an executor has nothing to do for
it. ``compare.executors.local.executor`` implements it with local worker processes,
``compare.executors.dask.executor`` on a Dask cluster.
"""
from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections import deque
from typing import Callable, Iterable, Iterator

from compare.executors.tasks import Task
from compare.limits import SettingsError
from engines import Result

WARMUP_LIMIT_S = 60.0     # a worker that cannot warm up in this long is restarted without it
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


def grace_for(timeout: float) -> float:
    """Extra time an engine gets to stop itself before its worker is killed."""
    return 1.0 + 0.1 * timeout


Skip = Callable[[Task], "Result | None"]


class Executor(ABC):
    """Where tasks run. The plan calls, in order: ``bind`` (the run's settings),
    ``start`` (workers warm up while the store is read), ``fit`` (how many tasks
    are left), then ``run``, ``facts``, ``close``; it reads and sets
    ``local_workers`` and reads ``workers`` and ``gave_up``. Every hook but
    ``run`` has a default that does nothing."""

    workers: int | None = None   # tasks that can run at once; None until known
    gave_up: str | None = None   # why no worker could start, once the executor gave up
    # worker processes of a cluster the executor starts on this machine for the run
    # (None: it starts none, or the number is not its own); the plan caps it as it
    # caps --workers, by the tasks and the memory available
    local_workers: int | None = None

    steerable = False   # ``run`` takes ``skip`` and ``pauses`` (below)

    @abstractmethod
    def run(self, tasks: Iterable[Task], puzzles: dict) -> Iterator[tuple[Task, Result] | None]:
        """Yield ``(task, result)`` for every task, as each finishes.

        A ``steerable`` executor's ``run`` also takes ``skip`` and ``pauses``.
        ``skip(task)``, asked just before a task would be handed to a worker,
        may answer it without running it (a ``Result`` to yield as its own);
        ``None`` runs it (``take_runnable`` does the asking). With ``pauses``
        it also yields ``None`` when what came in should be settled before it
        hands out more or waits (the runner checks and stores results in
        batches); without, the runner settles each result as it comes.
        """

    @staticmethod
    def take_runnable(pending: deque, skip: Skip | None,
                      answered: list) -> bool:
        """Answer the tasks at the head of ``pending`` that ``skip`` answers (into
        ``answered``, as ``(task, result)``); True when a task to run is at the head."""
        while pending:
            stand_in = skip(pending[0]) if skip is not None else None
            if stand_in is None:
                return True
            answered.append((pending.popleft(), stand_in))
        return False

    def bind(self, engines: list[str], mode: str, limit: int,  # noqa: B027
             formulations: Iterable[str], memory_limit: float | None = None) -> None:
        """The run's engines, warm-up settings and memory limit, for an executor made
        before the settings were known; one made with its own keeps them."""

    def start(self) -> None:  # noqa: B027  (an executor may start its workers on first use)
        """Start the workers now, so they warm up while the run is being prepared."""

    def fit(self, tasks: int) -> None:  # noqa: B027  (an executor may size itself as it goes)
        """Only ``tasks`` remain (a resumed run): start no more workers than they need."""

    def close(self) -> None:  # noqa: B027  (an optional hook: most executors hold nothing)
        """Release workers; ``run`` calls it when done, and so does ``with``."""

    def facts(self) -> dict:
        """What the executor measured about itself, for the run's record (warm-up costs)."""
        return {}

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
