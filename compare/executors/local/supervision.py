"""The parent's watch over the local executor's worker processes.

``Supervisor`` is the half of ``LocalExecutor`` that deals with one worker
process at a time, whatever the schedule: starting it, reading its messages,
its deadline (the start-up, warm-up and task limits), killing it when it
overruns a limit and reporting the task it held, stopping it when its core
is wanted elsewhere, and learning how long tasks take. The other half,
``executor``, decides which tasks go where and when.

It works on the executor's state, set up by ``LocalExecutor``: ``pool``
(the ``Worker`` of each process), ``setup`` and ``plugins`` (what a new
worker serves and imports), ``ctx`` and ``starting`` (how it starts), and
the records ``facts`` reads (``started``, ``ready_infos``, ``shape_warmups``,
``shape_kills``, ``warmup_kills``).
"""
from __future__ import annotations

import math
import os
import time

from compare.executors.base import (
    START_LIMIT_ENV,
    WARMUP_CAP_S,
    WARMUP_LIMIT_S,
    WARMUP_RETRIES,
    compiles_on_first_use,
    grace_for,
)
from compare.executors.local import processes
from compare.executors.local.pool import (
    Pending,
    Worker,
    file_of,
    lost_result,
    modules_for,
    release,
)
from compare.executors.local.worker.session import WorkerInit
from compare.executors.local.worker.transport import worker_main
from compare.executors.tasks import Task
from compare.facts import peak_rss_of
from engines import Result, Status

MAX_FAILED_STARTS = 3     # workers in a row that die before they are ready
LOADING = "loading "      # a shape that is the harness loading an input, not an engine


class Supervisor:
    """Starting, hearing, timing, replacing and stopping worker processes (see above)."""

    # the longest time limit of each engine's tasks, once ``run`` has them: the limit
    # of a start-up warm-up that is no declared compile (reassigned, never changed)
    task_limits: dict[str, float] = {}

    def _stop(self, w: Worker) -> None:
        """An idle worker finishes and leaves the pool."""
        self.pool.remove(w)
        try:
            w.conn.send(None)
        except (OSError, ValueError):
            pass
        w.proc.join(1)
        if w.proc.is_alive():
            w.proc.kill()
            w.proc.join(1)
        release(w)

    def _guess(self, task: Task) -> float | None:
        found = self.guesses.get((task.engine, file_of(task)))
        return found if found is not None else self.guesses.get(task.engine)

    def _learn(self, task: Task, seconds: float) -> None:
        for key in ((task.engine, file_of(task)), task.engine):
            old = self.guesses.get(key)
            self.guesses[key] = seconds if old is None else 0.5 * old + 0.5 * seconds

    def _receive(self, w: Worker, pending: Pending) -> list[tuple[Task, Result]]:
        """Act on one message from ``w``; the finished tasks it reports."""
        msg = w.conn.recv()
        now = time.perf_counter()
        kind = msg[0]
        if kind == "warming":
            w.warming, w.since = msg[1], now
        elif kind == "ready":
            w.warming, w.since = None, now
            self.ready_infos.append(msg[1])
            self.failed_starts = 0
            resident = msg[1].get("rss_mb")
            if self.memory_limit and resident and resident >= self.memory_limit:
                self.gave_up = (f"a worker holds {resident:.0f} MB once its engines are "
                                f"loaded, at or above the memory limit of "
                                f"{self.memory_limit:g} MB")
        elif kind == "shaping":
            w.shaping, w.shape = True, msg[2]
        elif kind == "warmed":
            _, _, engine, shape, seconds = msg
            self.shape_warmups.append((engine, shape, seconds))
            w.since, w.shaping = now, False
        elif kind == "unfit":              # the worker cannot start: a plugin, an engine
            self.gave_up = f"no worker could start: {msg[1]}"
        elif kind == "retire":
            w.retiring = True
            pending.put_back(w.inflight)   # unstarted: no token was taken
            w.inflight.clear()
        elif kind == "done":
            finished = []
            for tid, result in msg[1]:
                task = w.inflight.popleft()
                assert task.tid == tid, "worker answered out of order"
                self._learn(task, max(result.total_s, 0.0) or now - w.since)
                finished.append((task, result))
            w.since, w.shaping = now, False
            return finished
        return []

    def _limit_of(self, w: Worker) -> float:
        """The worker's deadline from ``since``: the start limit while it loads; a
        declared compile's warm-up limit while it warms that engine up, or a new shape
        (or the harness loads an input); else the task's limit plus grace, warm-up or
        not, so an engine that hangs anywhere costs its task no more."""
        if not w.ready:       # "": plugins and engines still loading, before any warm-up
            if w.warming == "" or (w.warming and compiles_on_first_use(w.warming)):
                return self.start_limit if w.warming == "" else WARMUP_LIMIT_S
            timeout = self.task_limits.get(w.engine)
            return WARMUP_LIMIT_S if timeout is None else timeout + grace_for(timeout)
        timeout = w.inflight[0].timeout
        if self._long_shaping(w):   # a first compile (a JIT, an empty cache) is not the task's
            return max(self._shape_limit(w), timeout + grace_for(timeout))
        return timeout + grace_for(timeout)

    def _preparation_limit(self, labels: list[str]) -> float:
        """A preparation's limit: none of its own for a declared compile; else its
        engines' task limit plus grace, once ``run`` knows it."""
        limits = [self.task_limits[label] for label in labels if label in self.task_limits]
        if not limits or any(compiles_on_first_use(label) for label in labels):
            return math.inf
        return max(limits) + grace_for(max(limits))

    @staticmethod
    def _long_shaping(w: Worker) -> bool:
        """Whether ``w`` is warming a shape with the long limit: a declared compile, or
        the harness's own load of an input."""
        if not w.shaping:
            return False
        return (isinstance(w.shape, str) and w.shape.startswith(LOADING)) or \
            compiles_on_first_use(w.inflight[0].engine)

    def _time_to_deadline(self, busy: list[Worker]) -> float | None:
        timed = [w for w in busy if w.inflight or not w.ready]
        if not timed:
            return None
        now = time.perf_counter()
        return max(0.0, min(w.since + self._limit_of(w) - now for w in timed))

    def _overdue(self, w: Worker) -> bool:
        if w.ready and not w.inflight:
            return False
        return time.perf_counter() - w.since >= self._limit_of(w)

    def _shape_limit(self, w: Worker) -> float:
        """The warm-up limit of the worker's shape: doubled after each kill of it, so a
        compile slower than the limit (a loaded machine) finishes on a later try, but
        never past ``WARMUP_CAP_S``."""
        kills = self.shape_kills.get((w.inflight[0].engine, w.shape), 0)
        return min(WARMUP_LIMIT_S * 2 ** kills, WARMUP_CAP_S)

    def _replace(self, w: Worker, pending: Pending, cause: str,
                 resident: float | None = None):
        """Kill or bury a worker, report its current task, requeue the rest.

        A task whose shape was still warming up, with the long limit of a declared
        compile, when its worker was killed never started: it is run again (the
        warm-up with twice the time, up to the cap), up to ``WARMUP_RETRIES`` times,
        and only then recorded as a timeout. Any other warm-up had the task's own
        limit: its kill is the task's timeout at once."""
        elapsed = time.perf_counter() - w.since
        if cause == Status.TIMEOUT and w.ready and w.inflight and not w.shaping:
            resident = peak_rss_of(w.proc.pid)     # the solve's peak, read before the kill
        if cause != "died":
            w.proc.kill()
        w.proc.join(5)
        processes.end_group(w.proc.pid)        # what its engine started goes with it
        self.pool.remove(w)
        if not w.ready and not self.gave_up and w.warming == "" and cause == Status.TIMEOUT:
            # plugins or engines hang while loading: another worker would hang as well
            self.gave_up = (f"no worker could start: loading the plugins and engines took "
                            f"over {self.start_limit:g} s (the limit; {START_LIMIT_ENV} "
                            "sets it)")
        elif not w.ready and not self.gave_up:
            self.skip_warmup.add(w.warming)      # warm-up itself was the problem
            self.failed_starts += 1
            if self.failed_starts >= MAX_FAILED_STARTS:
                # workers die before their first task: give up rather than loop forever
                self.gave_up = f"no worker could start ({processes.describe_exit(w.proc.exitcode)})"
        elif w.inflight and cause == Status.TIMEOUT and self._long_shaping(w) and \
                self.shape_kills.get(
                (w.inflight[0].engine, w.shape), 0) < WARMUP_RETRIES:
            key = (w.inflight[0].engine, w.shape)
            self.shape_kills[key] = self.shape_kills.get(key, 0) + 1
            self.warmup_kills.append((*key, elapsed))
        elif w.inflight:
            task = w.inflight.popleft()
            self._learn(task, elapsed)
            yield task, lost_result(task, cause, elapsed, w.proc.exitcode, w.shaping,
                                     resident, self.memory_limit)
        pending.put_back(w.inflight)
        release(w)

    def _start(self, engine: str) -> Worker:
        """A new worker process for ``engine``; its warm-up takes a core at once."""
        tokens_r, tokens_w = self.ctx.Pipe(duplex=False)
        os.set_blocking(tokens_r.fileno(), False)
        setup = self.setup
        init = WorkerInit(modules_for(engine, self.plugins), (engine,), setup.mode, setup.limit,
                          setup.formulations, (engine,) if engine in self.skip_warmup else (),
                          self.memory_limit)
        proc, conn, lifeline = processes.spawn(self.ctx, worker_main, (init, tokens_r),
                                               self.starting)
        self.started[engine] = self.started.get(engine, 0) + 1
        return Worker(proc, conn, (tokens_r, tokens_w), lifeline, engine=engine)

    def kill_workers(self) -> None:
        """Kill every worker process now; safe from another thread than ``run``'s, which
        finds the deaths as it would any other (its tasks crashed)."""
        for w in list(self.pool):
            try:
                w.proc.kill()
            except (OSError, ValueError, AttributeError):
                pass
        if self.preparing is not None:
            self.preparing.kill()
