"""Run tasks in long-lived worker processes on this machine, with limits enforced
from outside.

``LocalExecutor`` implements the ``Executor`` interface (``executors.base``,
with the limits every executor shares). This module is its schedule: which
task goes to which worker, and when. The parent's watch over each worker
process (start, messages, limits, kill and replace) is ``supervision``; what
the parent keeps about each worker and the waiting tasks is ``pool``; what
runs inside a worker is ``worker.session`` (warm-up, measurement) and
``worker.transport`` (the message protocol); how a solver process is
started and made to die with its parent is ``processes``. Other executors
reuse them.

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
  are paid once; each warms every shape it meets before timing it (``worker.session``).
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
  are taken back (the token pipe of ``worker.transport``) and go to the idle worker.
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

from compare.executors.base import Executor, Skip, WorkerSetup, start_limit
from compare.executors.local import processes
from compare.executors.local.pool import Pending, Worker, drain, modules_for, release, spread
from compare.executors.local.preparation import Preparations
from compare.executors.local.supervision import Supervisor
from compare.executors.local.worker.session import rss_mb
from compare.executors.tasks import Task
from compare.plugins import plugin_list
from engines import Result, Status

SHORT_TASK_S = 0.05       # tasks expected to take less than this travel in chunks
CHUNK_S = 0.05            # about this much expected work per chunk of short tasks
MAX_CHUNK = 1024          # enough microsecond solves to fill a chunk's CHUNK_S, so a
                          # worker does not wait for the parent between short chunks
TAKE_BACK_AFTER_S = 0.02  # a task running longer may lose the tasks queued behind it
WAITING_SCAN = 256        # queued tasks looked at for one that need not wait
MEMORY_POLL_S = 0.02      # how often busy workers' memory is read under a memory limit


class LocalExecutor(Supervisor, Executor):
    """Worker processes on this machine (see the module docstring).

    ``workers``: the cores it may use at once (default: one per core).
    Made with ``engines`` (and the warm-up settings and memory limit beside
    them) it is bound already; made without, ``bind`` gives them.
    """

    def __init__(self, workers: int | None = None, engines: list[str] | None = None,
                 mode: str = "first", limit: int = 2,
                 formulations: Iterable[str] = ("alldiff",),
                 start_method: str | None = None, warmup: bool = True,
                 plugins: str | None = None, memory_limit: float | None = None,
                 max_processes: int | None = None, keep_workers: bool = False,
                 starting=None):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.max_processes = max_processes
        # keep_workers: ``run`` leaves the workers up, warm, for the next call; only
        # ``close`` stops them. starting: a lock held while a worker process starts,
        # for callers that start executors from several threads of one process.
        self.keep_workers = keep_workers
        self.starting = starting if starting is not None else nullcontext()
        # plugin modules the workers import (default: as this process has them)
        self.plugins = plugin_list(plugins)
        self.warmup = warmup                 # False: workers skip the start-up warm-up
        self.engines: list[str] = []         # these three come with the setup (``bind``)
        self.memory_limit: float | None = None
        self.skip_warmup: set[str] = set()
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
        self.answered_puzzles: set[str] = set()      # loaded by some worker, so cached
        if engines:
            self.bind(WorkerSetup(tuple(engines), mode, limit, tuple(formulations),
                                  memory_limit))

    def bind(self, setup: WorkerSetup) -> None:
        super().bind(setup)
        self.engines = list(self.setup.engines)
        self.memory_limit = self.setup.memory_limit
        self.skip_warmup = set() if self.warmup else set(self.engines)

    # ----- the run loop -------------------------------------------------------
    def start(self) -> None:
        """Start the engines' preparations, then the first engines' workers now (``run``
        starts each on first use)."""
        if self.setup is None:
            raise RuntimeError("the local executor starts once bound to a run (bind)")
        free = self.workers - len(self.pool) - self._prepare()
        ready = [e for e in self.engines if not self.preparing.holds(e)]
        for index in range(free if ready else 0):
            self.pool.append(self._start(ready[index % len(ready)]))

    def _prepare(self) -> int:
        """Once per executor: ask the engines what to prepare, start it; cores it holds."""
        if self.preparing is None:
            self.preparing = Preparations(self.ctx, self.engines,
                                          lambda e: modules_for(e, self.plugins), self.starting,
                                          limit_of=self._preparation_limit)
            self.preparing.start(self.workers - len(self.pool))
        return self.preparing.busy

    @property
    def process_cap(self) -> int:
        return self.max_processes or self.workers * max(1, len(self.engines))

    def run(self, tasks: Iterable[Task], puzzles: dict, skip: Skip | None = None,
            pauses: bool = False) -> Iterator[tuple[Task, Result] | None]:
        pending = Pending(tasks)
        self.skip, answered = skip, []
        self.task_limits = {**self.task_limits, **{
            engine: max(t.timeout for t in queue) for engine, queue in pending.queues.items()}}
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
                    self._spread_loads(queue, puzzles)
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

    def _spread_loads(self, queue: deque, puzzles: dict) -> None:
        """Put first a task whose input no other worker is loading now, if one waits.

        A puzzle given by reference (an instance file) is loaded by the worker
        that runs it, through the shared cache. Engines go through the puzzles
        side by side, so on a cold cache two workers would parse the same file
        at once; one of them takes the next instance instead, and finds the
        first one in the cache when it comes to it."""
        head = queue[0]
        if head.repeat or not self._loading_elsewhere(head, puzzles):
            return
        for index, task in enumerate(islice(queue, 1, WAITING_SCAN), start=1):
            if not task.repeat and not self._loading_elsewhere(task, puzzles):
                del queue[index]
                queue.appendleft(task)
                return

    def _loading_elsewhere(self, task: Task, puzzles: dict) -> bool:
        if (not hasattr(puzzles[task.puzzle_id], "load_input")
                or task.puzzle_id in self.answered_puzzles):
            return False
        return any(t.puzzle_id == task.puzzle_id for w in self.pool
                   if w.engine != task.engine for t in w.inflight)

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

    def _collect(self, pending: Pending) -> Iterator[tuple[Task, Result]]:
        for done in self._gather(pending):
            self.answered_puzzles.add(done[0].puzzle_id)
            yield done

    def _gather(self, pending: Pending) -> Iterator[tuple[Task, Result]]:
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


