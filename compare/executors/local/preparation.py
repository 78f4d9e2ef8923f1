"""Engines' one-off preparation: once per run, in a process of its own, before their workers.

Some engines do work on first use that every process running them would
repeat, and that leaves something the next process can use: numba compiles
the backtracker's kernel (about 20 s of CPU) into its disk cache. Left to
the workers, on an empty cache every worker of that engine would compile it
at once, on the cores the other engines' timed tasks need, and a first run
would take minutes longer than the next. An engine names such work
(``Engine.preparation``, asked here in the parent, cheaply); ``Preparations`` then runs
``Engine.prepare`` once per name, in a process started as a worker is (it
dies with the harness and is out of the terminal's reach), holding a core as
a worker would, and the executor starts that engine's workers only once it
is over, while the other engines run. Its time, from the process's start to
its end, is warm-up, untimed, and on record. A preparation that fails, dies
or overruns its limit costs only its time: the workers then meet the work in
their own warm-up, as they would without it. The limit is ``PREPARE_LIMIT_S``
for an engine that declares a compile on first use; any other engine's
preparation has its tasks' limit plus grace once they are known (``limit_of``),
so a ``prepare`` that hangs holds the run no longer than a task would.
"""
from __future__ import annotations

import os
import signal
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable, Iterable

import engines
from compare.executors.local import processes
from compare.plugins import load_plugins
from engines import Engine, describe

PREPARE_LIMIT_S = 600.0   # a preparation still running after this long is killed


def preparation_of(label: str) -> str | None:
    """What the engine ``label`` would prepare now (``Engine.preparation``), or None.

    Only engines that define the hook are built here. Whatever goes wrong
    asking is no preparation: the workers then do the work in their warm-up.
    """
    try:
        spec = engines.EngineSpec.of(label)
        cls = engines.engine_class(spec.name)
        if cls.preparation is Engine.preparation:
            return None
        return cls(**spec.option_dict).preparation() or None
    except Exception:
        return None


@dataclass
class _Running:
    name: str
    engines: list[str]
    proc: object
    conn: object
    lifeline: object
    since: float = field(default_factory=time.perf_counter)


class Preparations:
    """The preparations of one run's engines: waiting, running, done.

    ``holds(engine)`` says whether the engine's workers must wait; ``busy`` is
    how many cores the running ones hold; ``start(cores)`` starts waiting
    ones; ``waitables`` and ``time_left`` let the executor's loop wake for
    them, and ``poll`` settles those that ended. ``records`` is what each cost.
    """

    def __init__(self, ctx, labels: Iterable[str], modules_for: Callable[[str], tuple],
                 starting=None, limit: float | None = None,
                 limit_of: Callable[[list[str]], float] | None = None):
        self.ctx, self.modules_for = ctx, modules_for
        self.limit = PREPARE_LIMIT_S if limit is None else limit
        self.limit_of = limit_of     # the engines' own limit (inf: none), asked as it runs
        self.starting = starting if starting is not None else nullcontext()
        self.waiting: dict[str, list[str]] = {}
        for label in labels:
            name = preparation_of(label)
            if name:
                self.waiting.setdefault(name, []).append(label)
        self.running: list[_Running] = []
        self.records: list[dict] = []

    def holds(self, engine: str) -> bool:
        """Whether ``engine``'s preparation is not over yet: its workers wait."""
        return (any(engine in labels for labels in self.waiting.values())
                or any(engine in r.engines for r in self.running))

    @property
    def busy(self) -> int:
        return len(self.running)

    def start(self, cores: int) -> int:
        """Start up to ``cores`` waiting preparations; how many started."""
        started = 0
        while self.waiting and started < cores:
            name = next(iter(self.waiting))
            labels = self.waiting.pop(name)
            self.running.append(self._spawn(name, labels))
            started += 1
        return started

    def _spawn(self, name: str, labels: list[str]) -> _Running:
        proc, conn, lifeline = processes.spawn(
            self.ctx, prepare_main, (self.modules_for(labels[0]), labels[0]), self.starting,
            duplex=False)
        return _Running(name, labels, proc, conn, lifeline)

    def waitables(self) -> list:
        return [r.conn for r in self.running] + [r.proc.sentinel for r in self.running]

    def time_left(self) -> float | None:
        """Seconds until the first running preparation reaches its limit (None: none runs)."""
        if not self.running:
            return None
        now = time.perf_counter()
        return max(0.0, min(r.since + self._limit(r) - now for r in self.running))

    def _limit(self, run: _Running) -> float:
        return self.limit if self.limit_of is None else min(self.limit,
                                                            self.limit_of(run.engines))

    def poll(self) -> None:
        """Settle the preparations that ended, or overran their limit."""
        for run in list(self.running):
            outcome = None
            try:
                if run.conn.poll():
                    outcome = run.conn.recv()
            except (EOFError, OSError):
                pass
            elapsed = time.perf_counter() - run.since
            if outcome is None and run.proc.is_alive():
                limit = self._limit(run)
                if elapsed < limit:
                    continue
                outcome = f"killed at the limit of {limit:g} s"
            elif outcome is None:
                outcome = f"its process died ({processes.describe_exit(run.proc.exitcode)})"
            self._end(run)
            self.records.append({"engines": run.engines, "preparation": run.name,
                                 "seconds": round(elapsed, 4), "outcome": outcome})

    def _end(self, run: _Running) -> None:
        self.running.remove(run)
        if run.proc.is_alive():
            run.proc.kill()
        run.proc.join(5)
        processes.end_group(run.proc.pid)
        for end in (run.conn, run.lifeline):
            try:
                end.close()
            except OSError:
                pass

    def close(self) -> None:
        """Stop every running preparation (the run is over); what ran is on record."""
        for run in list(self.running):
            elapsed = time.perf_counter() - run.since
            self._end(run)
            self.records.append({"engines": run.engines, "preparation": run.name,
                                 "seconds": round(elapsed, 4), "outcome": "stopped: the run ended"})
        self.waiting.clear()

    def kill(self) -> None:
        """Kill the running preparations now; safe from another thread (``poll`` settles)."""
        for run in list(self.running):
            try:
                run.proc.kill()
            except (OSError, ValueError, AttributeError):
                pass


def prepare_main(conn, modules: tuple[str, ...], label: str, lifeline=None) -> None:
    """The preparation process: the plugins, the engine, its ``prepare``; one word back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processes.apart_from_terminal()
    processes.die_with_parent(lifeline)
    try:
        load_plugins(list(modules))
        engines.get_engine(label).prepare()
        outcome = "done"
    except BaseException as exc:     # any failure is only a lost preparation
        outcome = f"failed: {describe(exc)}"
    try:
        conn.send(outcome)
    except (OSError, EOFError):
        pass
    os._exit(0)
