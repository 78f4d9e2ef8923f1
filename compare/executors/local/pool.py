"""What the local executor keeps about its worker processes and waiting tasks.

``Worker`` is the parent's view of one worker process (its pipes, the tasks
it holds, whether it is warming up); ``Pending`` the tasks not yet handed
out, a queue per engine. The functions are the small steps the executor takes
on them: releasing a worker's pipe ends, draining its token pipe, the result
of a task whose worker did not come back.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Iterable

import psutil

import engines
from compare.executors.base import KILLED_WARMING_UP
from compare.executors.local import processes
from compare.executors.tasks import Task
from compare.facts import Fact
from engines import Result, Status


@dataclass
class Worker:
    proc: mp.process.BaseProcess
    conn: object
    tokens: tuple                     # the parent's (read, write) ends of the token pipe
    lifeline: object                  # the only write end of the worker's lifeline
    warming: str | None = ""          # engine being warmed up; None once ready
    since: float = field(default_factory=time.perf_counter)   # start of current work
    inflight: deque = field(default_factory=deque)
    known: set = field(default_factory=set)
    shaping: bool = False             # warming a new shape before the head task
    shape: str | None = None          # the shape being warmed
    retiring: bool = False
    engine: str = ""                  # the one engine this process serves
    watched: psutil.Process | None = None    # kept for memory readings (``rss_mb``)

    @property
    def ready(self) -> bool:
        return self.warming is None

    def watch(self) -> psutil.Process | int:
        """The worker's ``psutil.Process``, made once (a fresh one per reading costs 3x)."""
        if self.watched is None:
            try:
                self.watched = psutil.Process(self.proc.pid)
            except psutil.Error:
                return self.proc.pid
        return self.watched

    @property
    def busy(self) -> bool:
        """Using (or about to use) a core: warming up, running tasks, or retiring."""
        return not self.ready or bool(self.inflight) or self.retiring


class Pending:
    """Tasks waiting in the parent: a queue per engine, the oldest task first."""

    def __init__(self, tasks: Iterable[Task]):
        self.queues: dict[str, deque] = {}
        for task in tasks:
            self.queues.setdefault(task.engine, deque()).append(task)

    def __bool__(self) -> bool:
        return any(self.queues.values())

    def __len__(self) -> int:
        return sum(map(len, self.queues.values()))

    def by_age(self) -> list[str]:
        """Engines with waiting tasks, the one whose first task is oldest first."""
        return sorted((e for e, q in self.queues.items() if q),
                      key=lambda e: self.queues[e][0].tid)

    def put_back(self, tasks: Iterable[Task]) -> None:
        """Tasks that were handed out but not started go back to the front."""
        for task in reversed(list(tasks)):
            self.queues.setdefault(task.engine, deque()).appendleft(task)

    def take_all(self) -> list[Task]:
        tasks = sorted((t for q in self.queues.values() for t in q), key=lambda t: t.tid)
        self.queues.clear()
        return tasks


def spread(engine: str, shape: str | None, seconds: list[float]) -> dict:
    row = {"engine": engine, "workers": len(seconds), "total_s": round(sum(seconds), 4),
           "max_s": round(max(seconds), 4)}
    if shape is not None:
        row = {"engine": engine, "shape": shape, **{k: v for k, v in row.items()
                                                     if k != "engine"}}
    return row


def file_of(task: Task) -> str:
    """The file (or spec) part of a puzzle id: puzzles from one file take alike."""
    return task.puzzle_id.rsplit(":", 1)[0]


def drain(fd: int) -> int:
    """Read every byte waiting in a non-blocking pipe; how many there were."""
    taken = 0
    while True:
        try:
            chunk = os.read(fd, 4096)
        except (BlockingIOError, OSError):
            return taken
        if not chunk:
            return taken
        taken += len(chunk)


def release(w: Worker) -> None:
    for end in (w.conn, w.lifeline, *w.tokens):
        try:
            end.close()
        except OSError:
            pass


def lost_result(task: Task, cause: str, elapsed: float, exitcode, shaping: bool,
                 resident: float | None, memory_limit: float | None) -> Result:
    """The result of a task whose worker did not come back."""
    result = Result(task.engine, "", "", task.mode, Status.CRASHED, solve_s=elapsed)
    if cause == Status.TIMEOUT:
        result.status = Status.TIMEOUT
        result.message = (f"killed after {elapsed:.1f} s (time limit {task.timeout:g} s)"
                          + (f" {KILLED_WARMING_UP} (model build, first use)"
                             if shaping else ""))
        result.fact = Fact.WARMUP_KILLED if shaping else None
        result.peak_rss_mb = resident       # the solve's peak up to the kill, where read
    elif cause == Status.MEMOUT:
        result.status = Status.MEMOUT
        result.peak_rss_mb = resident
        result.message = (f"killed at {resident:.0f} MB resident, over the memory limit "
                          f"of {memory_limit:g} MB")
    else:
        result.message = f"worker died ({processes.describe_exit(exitcode)})"
    return result


def modules_for(engine: str, plugins: list[str]) -> tuple[str, ...]:
    """The plugins, and the module that defines this engine's class when the caller
    registered it by importing that module (a test, a notebook) rather than through
    ``COMPARE_PLUGINS``: the worker imports it, as it does its plugins, so the engine
    is known there; it is this engine's own module, so isolation holds."""
    try:
        module = engines.engine_class(engines.EngineSpec.of(engine).name).__module__
    except Exception:
        return tuple(plugins)
    spec = getattr(sys.modules.get(module), "__spec__", None)
    if (module.split(".")[0] == "engines" or module.startswith("compare_plugin_")
            or spec is None or spec.name != module or module in plugins):
        return tuple(plugins)
    return (*plugins, module)
