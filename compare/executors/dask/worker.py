"""The Dask workers' side of ``DaskExecutor``: a solver process per worker thread.

``SolverPlugin`` is registered on the cluster for one run. On every Dask
worker, present and future, it loads the run's plugins, checks that the
worker has every engine the run needs, and starts one ``LocalExecutor``
solver process per worker thread: the same persistent, warmed-up process,
with the same time limit, grace and kill-and-replace, as a local run. A Dask
task (``solve_chunk``) hands a chunk of tasks to one of them and waits with
the deadline, in a worker thread, so the Dask worker itself is never
blocked.

A chunk whose worker dies (node lost, OOM killer) runs again elsewhere: Dask
reruns it, or, where the scheduler allows no rerun, the client resubmits it.
That second try goes "carefully": one task at a time, each noted in the
scheduler's metadata under the chunk's key before it starts, so if that
worker dies too, the task that was running is known. The next try records
it ``crashed`` (it killed two workers in a row) and carries on with the
rest. The metadata is Dask's own (``Client.set_metadata``), and goes when
the chunk's key is forgotten.

This module needs ``distributed`` (the "dask" extra); ``dask.executor``
imports it only when a run uses Dask.
"""
from __future__ import annotations

import asyncio
import multiprocessing as mp
import socket
import threading
import time

from distributed import Future, Reschedule, WorkerPlugin, get_client, get_worker

import engines
from compare.executors.base import WorkerSetup
from compare.executors.dask.shipping import FETCH_S, localized
from compare.executors.local.executor import LocalExecutor
from compare.executors.tasks import Task
from compare.plugins import PluginError, load_plugins
from engines import Result, Status

# The workers of a local cluster share one process: they start solver processes
# one at a time (starting one sets, then restores, process-wide state).
_STARTING = threading.Lock()


class WorkerUnfit(RuntimeError):
    """This worker cannot run the comparison (an engine or a plugin is missing)."""


def solver_slot(setup: WorkerSetup, plugins: list[str]) -> LocalExecutor:
    """A one-process ``LocalExecutor`` whose process outlives ``run``: it stays, warm,
    for the next chunk, and goes with ``close``; bound to the run's setup, it holds the
    run's memory limit as a local run's workers do."""
    slot = LocalExecutor(1, plugins=plugins, keep_workers=True, starting=_STARTING)
    slot.bind(setup)
    return slot


def missing_engines(labels: list[str]) -> list[str]:
    """The engines (labels) this process cannot run, each with the reason."""
    missing = []
    for label in labels:
        try:
            cls = engines.engine_class(engines.EngineSpec.of(label).name)
            if not cls.available():
                missing.append(f"{label} (its library {cls.library or label} is not installed)")
        except Exception as exc:       # unknown here: a plugin or a version missing
            missing.append(f"{label} ({exc})")
    return missing


class SolverPlugin(WorkerPlugin):
    """Per Dask worker: the run's plugins, an engine check, the solver processes."""

    def __init__(self, setup: WorkerSetup, plugins: list[str]):
        self.run_setup = setup       # (``setup`` is the plugin hook Dask calls)
        self.plugins = list(plugins)
        self.problem: str | None = None
        self.host = ""
        self.stopping = False
        self._idle: list[LocalExecutor] = []
        self._slots: list[LocalExecutor] = []
        self._free = None           # made on the worker (a lock does not travel)

    async def setup(self, worker) -> None:
        # starting processes takes a moment: not on the worker's event loop. A
        # problem is kept, not raised: the client asks for it (``problem_of``)
        # and says it in one line, where a raise would log a traceback here.
        await asyncio.get_running_loop().run_in_executor(None, self._setup, worker.state.nthreads)

    def _setup(self, threads: int) -> None:
        self.host = socket.gethostname()
        self._free = threading.Condition()
        try:
            load_plugins(self.plugins)
        except PluginError as err:
            self.problem = f"Dask worker on {self.host}: {err}"
            return
        missing = missing_engines(list(self.run_setup.engines))
        if missing:
            self.problem = f"Dask worker on {self.host} lacks engine {', '.join(missing)}"
            return
        # A Nanny starts its worker as a daemonic process, and multiprocessing
        # refuses children to those. The solver processes are this plugin's own:
        # teardown stops them, and they exit when the worker's pipe closes.
        mp.current_process().daemon = False
        for _ in range(max(1, threads)):
            slot = solver_slot(self.run_setup, self.plugins)
            slot.start()
            self._idle.append(slot)
            self._slots.append(slot)

    def take(self) -> LocalExecutor:
        with self._free:
            while not self._idle:
                self._free.wait()
            return self._idle.pop()

    def give_back(self, slot: LocalExecutor) -> None:
        with self._free:
            if not self.stopping:
                self._idle.append(slot)
                self._free.notify()
                return
        slot.close()            # the plugin went while this slot was busy

    def teardown(self, worker) -> None:
        """The run is over (finished, or its client interrupted or gone): idle solver
        processes stop, busy ones are killed at once rather than left to finish a task
        nobody will store, so the cluster closes within moments."""
        if self._free is None:       # set up failed before any slot
            return
        with self._free:
            self.stopping = True
            idle, self._idle = self._idle, []
        for slot in self._slots:
            if slot not in idle:
                slot.kill_workers()  # its chunk's thread sees the death and gives it back
        for slot in idle:
            slot.close()


def facts_of(plugin_name: str, dask_worker=None) -> list[dict]:
    """What each of this worker's solver processes measured about itself (warm-up costs,
    warm-ups killed and retried, preparations); ``Client.run`` calls it."""
    plugin = dask_worker.plugins.get(plugin_name)
    return [slot.facts() for slot in plugin._slots] if plugin is not None else []


def problem_of(plugin_name: str, dask_worker=None) -> str | None:
    """Why this worker cannot run the comparison, if it cannot (``Client.run`` calls it)."""
    plugin = dask_worker.plugins.get(plugin_name)
    if plugin is None:
        return f"Dask worker on {socket.gethostname()} did not set up the comparison's plugin"
    return plugin.problem


def solve_chunk(plugin_name: str, tasks: list[Task], puzzles: dict, careful: bool = False,
                track_tries: bool = True, shipped: dict | None = None,
                ) -> tuple[str, list[tuple[int, Result]], float, str | None]:
    """Solve a chunk with one of this worker's solver processes; a Dask task.

    Returns the host name, ``(tid, result)`` pairs, the seconds per task once
    the solver process was ready (for the chunk sizing) and, if no solver
    process could start, why. ``shipped`` gives, per digest, the key of the
    bytes of an instance file some worker cannot read (``dask.shipping``):
    this worker loads such a file from its own copy if it cannot read the path.
    """
    worker = get_worker()
    plugin = worker.plugins.get(plugin_name)
    if plugin is None or plugin.problem or plugin.stopping:
        raise WorkerUnfit(plugin.problem if plugin is not None and plugin.problem else
                          f"Dask worker on {socket.gethostname()} has no solver processes "
                          "for this run")
    attempt = _Attempt(worker.get_current_task(), careful, track_tries)
    results = [(t.tid, Result(t.engine, "", "", t.mode, Status.CRASHED,
                              message="two Dask workers died in a row while it ran"))
               for t in tasks if t.tid in attempt.crashed]
    todo = [t for t in tasks if t.tid not in attempt.crashed]
    puzzles = localized(puzzles, shipped or {}, worker.local_directory, _fetched)
    slot = plugin.take()
    times = []
    try:
        for task, result in _solve(slot, todo, puzzles, attempt):
            results.append((task.tid, result))
            times.append(time.perf_counter())
            if plugin.stopping:        # the worker is closing: run the chunk elsewhere
                raise Reschedule()
    finally:
        plugin.give_back(slot)
    for _, result in results:
        result.host = plugin.host
    # seconds per task: the task times, or the pace of the results when that is slower
    per_task = sum(r.total_s for _, r in results) / max(1, len(results))
    if len(times) > 1:
        per_task = max(per_task, (times[-1] - times[0]) / (len(times) - 1))
    return plugin.host, results, per_task, slot.gave_up


def _fetched(key: str) -> bytes:
    """The bytes the client scattered under ``key`` (held by a worker: ``memory``)."""
    return Future(key, client=get_client(), state="memory").result(timeout=FETCH_S)


def _solve(slot: LocalExecutor, todo: list[Task], puzzles: dict, attempt: "_Attempt"):
    """``(task, result)`` as each finishes; a careful try notes each task as it starts."""
    if not attempt.careful:
        yield from slot.run(todo, puzzles)
        return
    for task in todo:
        attempt.at(task.tid)
        yield from slot.run([task], puzzles)
    attempt.at(None)


class _Attempt:
    """This run of a chunk: which try it is, and what the tries before it left.

    The record lives in the scheduler's metadata under the chunk's key, so it
    survives the worker that wrote it. Where the scheduler reruns nothing
    (``allowed-failures`` 0, as on a local cluster) the client hears of every
    lost chunk itself and resubmits it careful: a first try then keeps no record.
    """

    def __init__(self, key, careful: bool, track_tries: bool):
        self.key = key
        self.careful = careful
        self.crashed: set[int] = set()
        if not (careful or track_tries):
            return
        self.client = get_client()
        state = self.client.get_metadata([key], None) or {}
        tries = state.get("tries", 0)
        self.crashed = set(state.get("crashed", []))
        if state.get("at") is not None:      # a careful try died on that task
            self.crashed.add(state["at"])
        self.careful = careful or tries > 0
        self.client.set_metadata([key], {"tries": tries + 1, "at": None,
                                         "crashed": sorted(self.crashed)})

    def at(self, tid: int | None) -> None:
        """Note the task starting now (``None``: the try finished)."""
        self.client.set_metadata([self.key, "at"], tid)
