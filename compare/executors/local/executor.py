"""Run tasks in long-lived worker processes on this machine, with limits enforced
from outside.

``LocalExecutor`` implements the ``Executor`` interface (``executor_api``,
with the limits every executor shares). What the parent keeps about each
worker and the waiting tasks is ``pool``; what runs inside a worker
(warm-up, measurement, the message protocol) is ``compare.executors.local.worker.session``,
and how a worker process is started and made to die with its parent is
``compare.executors.local.processes``; other executors reuse them.

Why this shape:

* A worker process serves one engine. It imports that engine's library,
  warms it up, and runs only its tasks, so the times and the memory of a
  task are the engine's own, whatever else the run holds: interleaved in one
  process, CP-SAT's and the backtracker's tasks evicted each other's caches
  and the backtracker measured 2.4x slower than alone; one shared process's
  memory was everyone's. The forkserver preloads only the harness's own
  modules (``processes.preload_modules``); each worker imports its engine itself.
* ``workers`` is the number of worker processes that may use a core at once
  (running tasks, or warming up); a run keeps up to ``workers`` processes
  per engine, idle ones waiting on their pipe without using a core, and
  starts one for an engine when its tasks come up. Past ``max_processes``
  the idle process used least recently stops first.
* Workers live for the whole run, so imports (OR-Tools takes most of a second)
  are paid once; each warms every shape it meets before timing it (``worker``).
* Scheduling is dynamic: a free core goes to the engine whose oldest waiting
  task is oldest (tasks come interleaved by puzzle, so engines go through the
  puzzles side by side and slow drift of the machine falls on all alike), and
  a worker gets work only when its queue is empty, so work waits in the
  parent, where any idle worker of its engine can take it; a worker whose
  chunk ends gets the next before the parent checks and stores the results
  that came in, so it does not wait for them. Short tasks
  travel in chunks of about ``CHUNK_S`` of work, sized from the measured time
  of earlier tasks of the same engine and file, to spare the round trip per
  task; a task not known to be short travels alone, so two long tasks never
  queue behind each other. When a task runs long after all, and another
  worker is idle with nothing left to hand out, the tasks queued behind it
  are taken back (the token pipe of ``worker``) and go to the idle worker.
* A puzzle object crosses the pipe once per worker, not once per task.
* Workers report short tasks' results together, every ``worker.REPORT_S``
  (a wake-up of the parent per result preempted a worker on a busy machine:
  measured, a 0.6 ms stall per result on 2 loaded cores), and the parent
  wakes when a report arrives, so a worker never waits on a full pipe (at a
  fixed 10 ms poll, a numba worker spent 90 % of a chunk blocked on it).
* Engines get the time limit and usually stop themselves. The backstop is the
  parent: a task still running at ``timeout + grace`` is killed with its worker
  (status ``timeout``), and with a memory limit a worker whose resident memory
  passes it is killed too (status ``memout``); a fresh worker takes the next
  task. A worker that dies on its own (segfault, ``os._exit``) gives status
  ``crashed``. The tasks queued behind any of them go back to the queue.
* Workers die with the parent, however it dies (``processes.die_with_parent``),
  and ignore Ctrl-C: the parent stops them.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections import deque
from contextlib import nullcontext
from itertools import islice
from multiprocessing.connection import wait
from typing import Iterable, Iterator

from compare.executors.base import (
    START_LIMIT_ENV,
    WARMUP_LIMIT_S,
    WARMUP_RETRIES,
    Executor,
    Skip,
    grace_for,
    start_limit,
)
from compare.executors.local import processes
from compare.executors.local.pool import (
    Pending,
    Worker,
    drain,
    file_of,
    lost_result,
    modules_for,
    release,
    spread,
)
from compare.executors.local.preparation import Preparations
from compare.executors.local.worker.session import WorkerInit, rss_mb, worker_main
from compare.executors.tasks import Task
from compare.plugins import plugin_list
from engines import Result, Status

SHORT_TASK_S = 0.05       # tasks expected to take less than this travel in chunks
CHUNK_S = 0.05            # about this much expected work per chunk of short tasks
MAX_CHUNK = 1024          # enough microsecond solves to fill a chunk's CHUNK_S, so a
                          # worker does not wait for the parent between short chunks
TAKE_BACK_AFTER_S = 0.02  # a task running longer may lose the tasks queued behind it
MAX_FAILED_STARTS = 3     # workers in a row that die before they are ready
WAITING_SCAN = 256        # queued tasks looked at for one that need not wait
MEMORY_POLL_S = 0.02      # how often busy workers' memory is read under a memory limit


class LocalExecutor(Executor):
    """Worker processes on this machine (see the module docstring)."""

    steerable = True

    def __init__(self, workers: int, engines: list[str], mode: str = "first",
                 limit: int = 2, formulations: Iterable[str] = ("alldiff",),
                 start_method: str | None = None, warmup: bool = True,
                 plugins: str | None = None, memory_limit: float | None = None,
                 max_processes: int | None = None, keep_workers: bool = False,
                 starting=None):
        self.workers = max(1, workers)
        self.max_processes = max_processes
        # keep_workers: ``run`` leaves the workers up, warm, for the next call; only
        # ``close`` stops them. starting: a lock held while a worker process starts,
        # for callers that start executors from several threads of one process.
        self.keep_workers = keep_workers
        self.starting = starting if starting is not None else nullcontext()
        # plugin modules the workers import (default: as this process has them)
        self.plugins = plugin_list(plugins)
        self.engines = list(engines)
        self.warm = (mode, limit, tuple(formulations))
        self.memory_limit = memory_limit
        self.skip_warmup: set[str] = set() if warmup else set(self.engines)
        self.ctx = mp.get_context(start_method or processes.start_method())
        if self.ctx.get_start_method() == "forkserver":
            self.ctx.set_forkserver_preload(processes.preload_modules())
        self.pool: list[Worker] = []
        self.failed_starts = 0
        self.start_limit = start_limit()
        self.gave_up: str | None = None      # why no worker could start, once it gave up
        self.guesses: dict = {}              # expected task seconds per (engine, file) and engine
        self.shape_warmups: list[tuple[str, str, float]] = []
        self.shape_kills: dict[tuple[str, str], int] = {}    # warm-ups killed per shape
        self.warmup_kills: list[tuple[str, str, float]] = []
        self.ready_infos: list[dict] = []
        self.skip: Skip | None = None
        self.started: dict[str, int] = {}   # worker processes started per engine
        self.preparing: Preparations | None = None   # engines' one-off work, before workers

    # ----- the run loop -------------------------------------------------------
    def start(self) -> None:
        """Start the engines' preparations, then the first engines' workers now (``run``
        starts each on first use)."""
        free = self.workers - len(self.pool) - self._prepare()
        ready = [e for e in self.engines if not self.preparing.holds(e)]
        for index in range(free if ready else 0):
            self.pool.append(self._start(ready[index % len(ready)]))

    def _prepare(self) -> int:
        """Once per executor: ask the engines what to prepare, start it; cores it holds."""
        if self.preparing is None:
            self.preparing = Preparations(self.ctx, self.engines,
                                          lambda e: modules_for(e, self.plugins), self.starting)
            self.preparing.start(self.workers - len(self.pool))
        return self.preparing.busy

    @property
    def process_cap(self) -> int:
        return self.max_processes or self.workers * max(1, len(self.engines))

    def run(self, tasks: Iterable[Task], puzzles: dict, skip: Skip | None = None,
            pauses: bool = False) -> Iterator[tuple[Task, Result] | None]:
        pending = Pending(tasks)
        self.skip, answered = skip, []
        self._prepare()
        try:
            while pending or any(w.inflight or w.retiring for w in self.pool):
                if self.gave_up:     # no task more can run: none is answered for it
                    break
                self._dispatch(pending, puzzles, answered)
                yield from answered
                answered.clear()
                if not pauses:
                    yield from self._collect(pending)
                    continue
                # A worker whose chunk just ended gets its next one before the
                # results are settled (checked and stored by the caller): for
                # microsecond tasks settling takes about as long as the chunk did.
                # Not after a timeout: ``skip`` must hear of it first, or the
                # timed-out task's next repeat would run.
                finished = list(self._collect(pending))
                if finished and not any(r.status == Status.TIMEOUT for _, r in finished):
                    self._dispatch(pending, puzzles, answered)
                yield from finished
                yield from answered      # stand-ins that dispatch answered
                answered.clear()
                yield None
        finally:
            if not self.keep_workers:
                self.close()

    def fit(self, tasks: int) -> None:
        self.workers = max(1, min(self.workers, tasks))

    def _dispatch(self, pending: Pending, puzzles: dict, answered: list) -> None:
        """Give each free core to the engine with the oldest waiting task."""
        free = self.workers - sum(w.busy for w in self.pool) - self.preparing.busy
        free -= self.preparing.start(free)
        if free > 0 and not pending:
            self._take_back(pending, free)
        handed = True
        while free > 0 and handed:
            handed = False
            for engine in pending.by_age():
                if free <= 0:
                    return
                queue = pending.queues[engine]
                if self.preparing.holds(engine) or not self.take_runnable(
                        queue, self.skip, answered) or not self._may_start(queue):
                    continue
                idle = [w for w in self.pool if w.engine == engine and not w.busy]
                if idle:
                    taken = self._send(idle[0], self._chunk(queue, answered), puzzles, pending)
                elif self._room_for(engine):
                    self.pool.append(self._start(engine))     # its warm-up takes the core
                    taken = 1
                else:
                    continue
                free -= taken
                handed = handed or bool(taken)

    def _may_start(self, queue: deque) -> bool:
        """Whether the head of ``queue`` may start now, put there if need be.

        A task whose earlier repeat is still running waits for that verdict (a
        timeout makes it a stand-in, unrun); the first task behind it that need
        not wait goes first instead."""
        if self.skip is None or queue[0].repeat == 0:
            return True
        running = self._running()
        for index, task in enumerate(islice(queue, WAITING_SCAN)):
            if task.key[:-1] not in running and (index == 0 or self.skip(task) is None):
                if index:
                    del queue[index]
                    queue.appendleft(task)
                return True
        return False

    def _send(self, w: Worker, chunk: list[Task], puzzles: dict, pending: Pending) -> int:
        """Hand ``chunk`` to ``w``; 1 when it took it (a core is now in use)."""
        new = {t.puzzle_id: puzzles[t.puzzle_id] for t in chunk
               if t.puzzle_id not in w.known}
        os.write(w.tokens[1].fileno(), b"\x01" * len(chunk))
        try:
            w.conn.send(("run", new, chunk))
        except (BrokenPipeError, ConnectionResetError, EOFError):
            drain(w.tokens[0].fileno())
            pending.put_back(chunk)          # the death is handled in _collect
            return 0
        w.known.update(new)
        w.inflight.extend(chunk)
        w.since, w.shaping = time.perf_counter(), False
        return 1

    def _room_for(self, engine: str) -> bool:
        """Whether another worker of ``engine`` may start, stopping an idle one if need be."""
        if sum(w.engine == engine for w in self.pool) >= self.workers:
            return False
        if len(self.pool) < self.process_cap:
            return True
        idle = [w for w in self.pool if not w.busy and w.engine != engine]
        if not idle:
            return False
        self._stop(min(idle, key=lambda w: w.since))
        return True

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

    def _chunk(self, pending: deque, answered: list) -> list[Task]:
        """The next tasks for one worker: alone unless known short, then about CHUNK_S.

        A chunk ends before a task whose earlier repeat is running, or is in the
        chunk: that repeat may time out, and then this one is not to run (``skip``
        answers it when it is taken). A guess of "short" can be wrong, and the
        default run's 10 s timeout ran twice when the next repeat rode in a chunk.
        """
        chunk = [pending.popleft()]
        guess = self._guess(chunk[0])
        if guess is None or guess >= SHORT_TASK_S:
            return chunk
        budget = CHUNK_S - guess
        held = None          # what a later repeat waits for; made when one comes up
        while self.take_runnable(pending, self.skip, answered) and len(chunk) < MAX_CHUNK:
            head = pending[0]
            guess = self._guess(head)
            if guess is None or guess >= SHORT_TASK_S or guess > budget:
                break
            if self.skip is not None and head.repeat > 0:
                if held is None:
                    held = self._running() | {t.key[:-1] for t in chunk}
                if head.key[:-1] in held:
                    break
            chunk.append(pending.popleft())
            if held is not None:
                held.add(head.key[:-1])
            budget -= guess
        return chunk

    def _running(self) -> set[tuple]:
        """The tasks held by workers, each without its repeat number."""
        return {t.key[:-1] for w in self.pool for t in w.inflight}

    def _take_back(self, pending: Pending, idle: int) -> None:
        """Unstarted tasks queued behind a task that runs long go back for idle workers."""
        now = time.perf_counter()
        for w in sorted(self.pool, key=lambda w: w.since):
            if idle <= 0:
                return
            if len(w.inflight) < 2 or not w.ready or now - w.since < TAKE_BACK_AFTER_S:
                continue
            taken = drain(w.tokens[0].fileno())
            if taken >= len(w.inflight):
                # the worker has not started the chunk yet: it keeps its first task
                os.write(w.tokens[1].fileno(), b"\x01")
                taken = len(w.inflight) - 1
            pending.put_back([w.inflight.pop() for _ in range(taken)][::-1])
            idle -= 1 if taken else 0

    def _time_to_take_back(self, pending: Pending) -> float | None:
        """When ``_take_back`` should look again: a core is free, nothing waits, and a
        worker holds queued tasks (without a wake-up the loop would sleep until the
        running task's deadline, and the queued tasks would wait for it)."""
        if pending or self.workers - sum(w.busy for w in self.pool) <= 0:
            return None
        holders = [w.since for w in self.pool if w.ready and len(w.inflight) >= 2]
        if not holders:
            return None
        return max(0.001, min(holders) + TAKE_BACK_AFTER_S - time.perf_counter())

    def _guess(self, task: Task) -> float | None:
        found = self.guesses.get((task.engine, file_of(task)))
        return found if found is not None else self.guesses.get(task.engine)

    def _learn(self, task: Task, seconds: float) -> None:
        for key in ((task.engine, file_of(task)), task.engine):
            old = self.guesses.get(key)
            self.guesses[key] = seconds if old is None else 0.5 * old + 0.5 * seconds

    def _collect(self, pending: Pending) -> Iterator[tuple[Task, Result]]:
        busy = [w for w in self.pool if w.busy]
        waitables = [w.proc.sentinel for w in busy] + [w.conn for w in busy]
        waitables += self.preparing.waitables()
        timeout = min((t for t in (self._time_to_deadline(busy), self.preparing.time_left(),
                                   self._time_to_take_back(pending)) if t is not None),
                      default=None)
        if self.memory_limit and busy:
            timeout = MEMORY_POLL_S if timeout is None else min(MEMORY_POLL_S, timeout)
        wait(waitables, timeout=timeout if waitables else 0)
        self.preparing.poll()
        for w in list(self.pool):
            try:
                while w.conn.poll():
                    yield from self._receive(w, pending)
            except (EOFError, OSError):
                pass
            if not w.proc.is_alive():
                yield from self._replace(w, pending, "died")
            elif self._overdue(w):
                yield from self._replace(w, pending, Status.TIMEOUT)
            elif self.memory_limit and w.inflight and w.ready:
                resident = rss_mb(w.watch())
                if resident is not None and resident > self.memory_limit:
                    yield from self._replace(w, pending, Status.MEMOUT, resident)

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
        if not w.ready:       # "": plugins and engines still loading, before any warm-up
            return self.start_limit if w.warming == "" else WARMUP_LIMIT_S
        timeout = w.inflight[0].timeout
        if w.shaping:       # a first compile (a JIT, an empty cache) is not the task's time
            return max(self._shape_limit(w), timeout + grace_for(timeout))
        return timeout + grace_for(timeout)

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
        compile slower than the limit (a loaded machine) finishes on a later try."""
        kills = self.shape_kills.get((w.inflight[0].engine, w.shape), 0)
        return WARMUP_LIMIT_S * 2 ** kills

    def _replace(self, w: Worker, pending: Pending, cause: str,
                 resident: float | None = None):
        """Kill or bury a worker, report its current task, requeue the rest.

        A task whose shape was still warming up when its worker was killed never
        started: it is run again (the warm-up with twice the time), up to
        ``WARMUP_RETRIES`` times, and only then recorded as a timeout."""
        elapsed = time.perf_counter() - w.since
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
        elif w.inflight and cause == Status.TIMEOUT and w.shaping and self.shape_kills.get(
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

    # ----- workers -----------------------------------------------------------
    def _start(self, engine: str) -> Worker:
        parent, child = self.ctx.Pipe()
        tokens_r, tokens_w = self.ctx.Pipe(duplex=False)
        life_r, life_w = self.ctx.Pipe(duplex=False)
        os.set_blocking(tokens_r.fileno(), False)
        mode, limit, formulations = self.warm
        init = WorkerInit(modules_for(engine, self.plugins), (engine,), mode, limit, formulations,
                          (engine,) if engine in self.skip_warmup else (), self.memory_limit)
        proc = self.ctx.Process(target=worker_main, args=(child, init, tokens_r, life_r),
                                daemon=True)
        with self.starting, processes.main_hidden(), processes.marked_as_harness():
            proc.start()
        child.close()
        life_r.close()
        self.started[engine] = self.started.get(engine, 0) + 1
        return Worker(proc, parent, (tokens_r, tokens_w), life_w, engine=engine)

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

    def close(self) -> None:
        """Stop every worker: idle ones finish, busy ones are killed (the run is over)."""
        if self.preparing is not None:
            self.preparing.close()
        for w in self.pool:
            if not w.ready or w.inflight:
                w.proc.kill()            # nothing worth waiting for
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
            processes.end_group(w.proc.pid)
            release(w)
        self.pool = []

    def facts(self) -> dict:
        """Warm-up costs (start-up per engine, and each new shape) and how memory was read."""
        startup: dict[str, list[float]] = {}
        for info in self.ready_infos:
            for label, seconds in (info.get("warmup_s") or {}).items():
                startup.setdefault(label, []).append(seconds)
        shapes: dict[tuple, list[float]] = {}
        for engine, shape, seconds in self.shape_warmups:
            shapes.setdefault((engine, shape), []).append(seconds)
        methods = sorted({i.get("peak_method") for i in self.ready_infos if i.get("peak_method")})
        resident = [i["rss_mb"] for i in self.ready_infos if i.get("rss_mb")]
        return {
            "warmup": {
                "start-up": [spread(label, None, s) for label, s in startup.items()],
                "shapes": [spread(engine, shape, s) for (engine, shape), s in shapes.items()],
                "killed": [{"engine": engine, "shape": shape, "seconds": round(seconds, 2)}
                           for engine, shape, seconds in self.warmup_kills],
                "prepared": self.preparing.records if self.preparing is not None else [],
            },
            "peak_rss_method": "; ".join(methods) or None,
            "processes": dict(self.started),
            "worker_ready_rss_mb": max(resident) if resident else None,
            "memory_limit_mb": self.memory_limit,
        }


