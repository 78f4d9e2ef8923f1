"""Run tasks in long-lived worker processes, with a time limit enforced from outside.

The interface is one method: ``Executor.run(tasks, puzzles)`` yields
``(task, result)`` as each task finishes, in any order. ``LocalExecutor``
implements it with processes on this machine; a distributed executor can
implement the same method.

Why this shape:

* Workers live for the whole run, so imports (OR-Tools takes most of a second)
  are paid once, and each worker solves a nearly full Sudoku with every engine
  before its first timed task so caches and lazy imports are warm.
* A task is a few short strings; each puzzle object crosses the pipe once per
  worker, not once per task. A worker holds a few tasks at a time (more when
  tasks are short) so it never waits on the parent between tasks.
* With short tasks the parent does not wake for every result: each wake-up
  would preempt a worker on a busy machine (measured: a 0.6 ms stall per
  result on 2 loaded cores). It collects results every ``POLL_S`` instead, and
  still wakes at once when a worker dies.
* Engines get the time limit and usually stop themselves. The backstop is the
  parent: a task still running at ``timeout + grace`` is killed with its worker
  (status ``timeout``) and a fresh worker takes the next task. A worker that
  dies on its own (segfault, ``os._exit``) gives status ``crashed``. Either way
  the tasks queued behind it go back to the queue, so the run always finishes.
* Time is measured inside the worker: ``build_s`` covers puzzle -> model ->
  the engine's own form, ``solve_s`` the search.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import time
from abc import ABC, abstractmethod
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Iterable, Iterator

import engines
from compare.harness.plugins import load_plugins, plugin_list
from compare.harness.tasks import Task
from engines import Result, Status
from puzzles.generator import warmup_puzzles

WARMUP_LIMIT_S = 60.0     # a worker that cannot warm up in this long is restarted without it
SHORT_TASK_S = 0.05       # below this mean task time, workers get a deeper queue
MAX_QUEUE = 64
MAX_FAILED_STARTS = 3     # workers in a row that die before they are ready
POLL_S = 0.01             # with short tasks the parent looks for results this often


def grace_for(timeout: float) -> float:
    """Extra time an engine gets to stop itself before its worker is killed."""
    return 1.0 + 0.1 * timeout


class Executor(ABC):
    @abstractmethod
    def run(self, tasks: Iterable[Task], puzzles: dict) -> Iterator[tuple[Task, Result]]:
        """Yield ``(task, result)`` for every task, as each finishes."""

    def close(self) -> None:  # noqa: B027  (an optional hook: most executors hold nothing)
        """Release workers; ``run`` calls it when done, and so does ``with``."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def default_start_method() -> str:
    """forkserver where there is one: fresh workers fork from a clean, preloaded server."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


@dataclass
class _Worker:
    proc: mp.process.BaseProcess
    conn: object
    warming: str | None = ""          # engine being warmed up; None once ready
    since: float = field(default_factory=time.perf_counter)   # start of current work
    inflight: deque = field(default_factory=deque)
    known: set = field(default_factory=set)

    @property
    def ready(self) -> bool:
        return self.warming is None


class LocalExecutor(Executor):
    """Worker processes on this machine (see the module docstring)."""

    def __init__(self, workers: int, engines: list[str], mode: str = "first",
                 limit: int = 2, formulations: Iterable[str] = ("alldiff",),
                 start_method: str | None = None, warmup: bool = True,
                 plugins: str | None = None):
        self.workers = max(1, workers)
        # plugin modules the workers import (default: as this process has them)
        self.plugins = plugin_list(plugins)
        self.engines = list(engines)
        self.warm = (mode, limit, tuple(formulations))
        self.skip_warmup: set[str] = set() if warmup else set(self.engines)
        self.ctx = mp.get_context(start_method or default_start_method())
        if self.ctx.get_start_method() == "forkserver":
            self.ctx.set_forkserver_preload(_preload_modules(self.engines))
        self.pool: list[_Worker] = []
        self.failed_starts = 0
        self.gave_up: str | None = None      # why no worker could start, once it gave up
        self.mean_task_s: float | None = None

    # ----- the run loop -------------------------------------------------------
    def start(self) -> None:
        """Start the workers now (``run`` would start them on first use)."""
        while len(self.pool) < self.workers:
            self.pool.append(self._start())

    def run(self, tasks: Iterable[Task], puzzles: dict) -> Iterator[tuple[Task, Result]]:
        pending = deque(tasks)
        try:
            while pending or any(w.inflight for w in self.pool):
                while pending and len(self.pool) < self.workers:
                    self.pool.append(self._start())
                self._dispatch(pending, puzzles)
                yield from self._collect(pending)
        finally:
            self.close()

    def _dispatch(self, pending: deque, puzzles: dict) -> None:
        depth = self._queue_depth()
        for w in self.pool:
            if not (w.ready and pending) or len(w.inflight) > depth // 2:
                continue
            batch = []
            while pending and len(w.inflight) + len(batch) < depth:
                batch.append(pending.popleft())
            new = {t.puzzle_id: puzzles[t.puzzle_id] for t in batch
                   if t.puzzle_id not in w.known}
            if not w.inflight:
                w.since = time.perf_counter()
            try:
                w.conn.send((new, batch))
            except (BrokenPipeError, ConnectionResetError, EOFError):
                pending.extendleft(reversed(batch))   # the death is handled in _collect
                continue
            w.known.update(new)
            w.inflight.extend(batch)

    def _short_tasks(self) -> bool:
        return self.mean_task_s is not None and self.mean_task_s < SHORT_TASK_S

    def _queue_depth(self) -> int:
        """Tasks a worker may hold: enough to hide the round trip on short tasks."""
        if self.mean_task_s is None:
            return 2
        if self.mean_task_s > SHORT_TASK_S:
            return 1
        return max(2, min(MAX_QUEUE, int(SHORT_TASK_S / max(self.mean_task_s, 1e-4))))

    def _collect(self, pending: deque) -> Iterator[tuple[Task, Result]]:
        busy = [w for w in self.pool if w.inflight or not w.ready]
        waitables = [w.proc.sentinel for w in busy]
        timeout = self._time_to_deadline(busy)
        if self._short_tasks():
            timeout = POLL_S if timeout is None else min(POLL_S, timeout)
        else:
            waitables += [w.conn for w in busy]
        wait(waitables, timeout=timeout)
        for w in list(self.pool):
            try:
                while w.conn.poll():
                    done = self._receive(w)
                    if done is not None:
                        yield done
            except (EOFError, OSError):
                pass
            if not w.proc.is_alive():
                yield from self._replace(w, pending, killed=False)
            elif self._overdue(w):
                yield from self._replace(w, pending, killed=True)

    def _receive(self, w: _Worker):
        msg = w.conn.recv()
        now = time.perf_counter()
        if msg[0] == "warming":
            w.warming, w.since = msg[1], now
            return None
        if msg[0] == "ready":
            w.warming, w.since = None, now
            self.failed_starts = 0
            return None
        _, tid, result = msg
        task = w.inflight.popleft()
        assert task.tid == tid, "worker answered out of order"
        self._note_time(now - w.since)
        w.since = now
        return task, result

    def _note_time(self, seconds: float) -> None:
        if self.mean_task_s is None:
            self.mean_task_s = seconds
        else:
            self.mean_task_s = 0.9 * self.mean_task_s + 0.1 * seconds

    def _limit_of(self, w: _Worker) -> float:
        if not w.ready:
            return WARMUP_LIMIT_S
        timeout = w.inflight[0].timeout
        return timeout + grace_for(timeout)

    def _time_to_deadline(self, busy: list[_Worker]) -> float | None:
        if not busy:
            return None
        now = time.perf_counter()
        return max(0.0, min(w.since + self._limit_of(w) - now for w in busy))

    def _overdue(self, w: _Worker) -> bool:
        if w.ready and not w.inflight:
            return False
        return time.perf_counter() - w.since >= self._limit_of(w)

    def _replace(self, w: _Worker, pending: deque, killed: bool):
        """Kill or bury a worker, report its current task, requeue the rest."""
        elapsed = time.perf_counter() - w.since
        if killed:
            w.proc.kill()
        w.proc.join(5)
        self.pool.remove(w)
        if not w.ready:
            self.skip_warmup.add(w.warming)      # warm-up itself was the problem
            self.failed_starts += 1
        elif w.inflight:
            task = w.inflight.popleft()
            yield task, _lost_result(task, killed, elapsed, w.proc.exitcode)
        pending.extendleft(reversed(w.inflight))
        _close_quietly(w.conn)
        if self.failed_starts >= MAX_FAILED_STARTS:
            # workers die before their first task: give up rather than loop forever
            why = f"no worker could start ({_describe_exit(w.proc.exitcode)})"
            self.gave_up = why
            while pending:
                task = pending.popleft()
                yield task, Result(task.engine, "", "", task.mode, Status.CRASHED, message=why)

    # ----- workers -----------------------------------------------------------
    def _start(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        init = (self.plugins, self.engines, self.warm,
                sorted(self.skip_warmup))
        proc = self.ctx.Process(target=worker_main, args=(child, init), daemon=True)
        with _main_hidden():
            proc.start()
        child.close()
        return _Worker(proc, parent)

    def close(self) -> None:
        for w in self.pool:
            if not w.ready:
                w.proc.kill()            # still warming up: nothing to finish
                continue
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.perf_counter() + 2
        for w in self.pool:
            w.proc.join(max(0.0, deadline - time.perf_counter()))
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join(1)
            _close_quietly(w.conn)
        self.pool = []


@contextmanager
def _main_hidden():
    """Start a worker without re-importing the caller's script in it.

    multiprocessing runs the parent's ``__main__`` file again in every spawned
    or forkserver child. A plain script (or notebook) that calls the API with
    no ``if __name__ == "__main__"`` guard would then start a comparison in
    each worker. Workers need nothing from ``__main__``, so it is hidden while
    they start.
    """
    main = sys.modules.get("__main__")
    saved = {k: getattr(main, k) for k in ("__file__", "__spec__") if hasattr(main, k)}
    try:
        for key in saved:
            if key == "__spec__":
                main.__spec__ = None
            else:
                delattr(main, key)
        yield
    finally:
        for key, value in saved.items():
            setattr(main, key, value)


def _close_quietly(conn) -> None:
    try:
        conn.close()
    except OSError:
        pass


def _lost_result(task: Task, killed: bool, elapsed: float, exitcode) -> Result:
    """The result of a task whose worker did not come back."""
    if killed:
        status = Status.TIMEOUT
        message = f"killed after {elapsed:.1f} s (time limit {task.timeout:g} s)"
    else:
        status = Status.CRASHED
        message = f"worker died ({_describe_exit(exitcode)})"
    return Result(task.engine, "", "", task.mode, status, solve_s=elapsed, message=message)


def _describe_exit(code) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def _preload_modules(labels: list[str]) -> list[str]:
    """Modules the forkserver imports once, so every fresh worker starts warm."""
    mods = ["engines", "compare.harness.executor", "puzzles.sudoku"]
    for label in labels:
        try:
            cls = engines.engine_class(engines.parse_spec(label)[0])
        except Exception:
            continue
        mods.append(cls.__module__)
    return list(dict.fromkeys(mods))


# ----- inside the worker process ---------------------------------------------------
def worker_main(conn, init) -> None:
    plugins, labels, warm, skip = init
    load_plugins(plugins)
    built = {label: engines.get_engine(label) for label in labels}
    for label, engine in built.items():
        if label not in skip:
            conn.send(("warming", label))
            _warm_up(engine, *warm)
    conn.send(("ready", os.getpid()))
    puzzles: dict = {}
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        new, batch = msg
        puzzles.update(new)
        for task in batch:
            result = solve_task(built[task.engine], puzzles[task.puzzle_id], task)
            conn.send(("done", task.tid, result))


def solve_task(engine, puzzle, task: Task) -> Result:
    """One timed task: the model build is added to the engine's own build time."""
    start = time.perf_counter()
    try:
        model = puzzle.to_model(task.formulation)
    except Exception as exc:     # a puzzle that cannot be modelled is an error result
        return Result(engine.label, engine.library or "builtin", engine.version(),
                      task.mode, Status.ERROR, message=f"model: {type(exc).__name__}: {exc}")
    model_s = time.perf_counter() - start
    result = engine.solve(model, task.mode, task.limit, task.timeout)
    result.build_s += model_s
    return result


def _warm_up(engine, mode: str, limit: int, formulations) -> None:
    """Solve nearly full Sudokus untimed, so the first timed task pays no first-use cost."""
    for puzzle in warmup_puzzles():
        for form in formulations:
            if form in puzzle.formulations:
                engine.solve(puzzle.to_model(form), mode, limit, 5.0)
