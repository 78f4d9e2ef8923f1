"""Run the tasks on a Dask cluster: ``DaskExecutor``, the ``Executor`` interface over Dask.

Only where the tasks run changes. Verdicts, the store and the report stay in
this process, exactly as for a local run; each row also names the worker's
host.

* **The cluster**: a running scheduler (``scheduler="tcp://host:8786"``, or
  the ``DASK_SCHEDULER_ADDRESS`` variable), a cluster object the caller owns
  (``cluster=SLURMCluster(...)``), or ``cluster="local:N"``: a scheduler and N
  single-threaded workers inside this process, talking in memory, started for
  the run and stopped after it (each worker still drives its own solver
  process, below). The client connects only to the address it is given, and
  waits at most ``CONNECT_S`` for it.
* **Hard limits** stay where a local run has them: a worker plugin gives
  every Dask worker thread one persistent, warmed-up solver process
  (``dask.worker``), killed and replaced when a task overruns.
* **Chunks**: a Dask task is a chunk of tasks, sized so that a chunk takes
  about ``TARGET_CHUNK_S`` (less near the end; ``chunk=N`` fixes the size),
  so scheduling costs stay small next to millisecond puzzles. Each worker
  thread has ``CHUNKS_PER_THREAD`` chunks in hand, so it never waits for this
  process, and results come back as each chunk finishes.
* **Faults**: the chunks of a worker that dies run again elsewhere (rerun by
  the scheduler, or resubmitted from here where the scheduler reruns
  nothing, as a local cluster's does); a task that kills two workers in a
  row is recorded ``crashed`` (see ``dask.worker``). Every task is yielded
  once, whatever ran twice.
* **Instance files** (XCSP3 references) load on the workers from the client's
  path where they can read it, else from bytes sent once per instance
  (``dask.shipping``).

``distributed`` is an optional dependency (the "dask" extra): it is imported
when a Dask run starts, never by a local run.
"""
from __future__ import annotations

import logging
import math
import os
import time
import uuid
from collections import deque
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from typing import Iterable, Iterator

from compare.executors.base import Executor, Skip, WorkerSetup
from compare.executors.dask.cluster import (
    DEBUG_ENV,
    QUIET_CLUSTER,
    ClusterError,
    can_connect,
    first_line,
    local_cluster_size,
    probe,
    quiet_dask_logs,
    scheduler_address,
)
from compare.executors.dask.shipping import Shipments
from compare.executors.local.processes import main_hidden, start_forkserver
from compare.executors.tasks import Task
from compare.plugins import plugin_list
from engines import Result, Status

CONNECT_S = 10.0          # longest wait for a scheduler (less if Dask's connect timeout is lower)
TARGET_CHUNK_S = 1.0      # a chunk should take about this long on a worker
TAIL_CHUNK_S = 0.25       # but near the end of a run, no less than this
FIRST_CHUNK = 1           # tasks per chunk before any time is known
MAX_CHUNK = 5000
CHUNKS_PER_THREAD = 2     # chunks in hand per worker thread: one running, one waiting
RESUBMITS = 2             # a chunk whose workers keep dying, with no culprit found
PLUGIN_PREFIX = "csp-compare-solvers-"

__all__ = ["ClusterError", "DaskExecutor", "merged_facts"]


@dataclass
class _Chunk:
    tasks: list[Task]
    careful: bool = False      # one task at a time, each noted (after workers died on it)
    resubmits: int = 0


class DaskExecutor(Executor):
    """Tasks in chunks on a Dask cluster (see the module docstring).

    Made with ``engines`` (and the warm-up settings and memory limit beside
    them) it is bound already; made without, ``bind`` gives them.
    """

    def __init__(self, engines: list[str] | None = None, mode: str = "first", limit: int = 2,
                 formulations: Iterable[str] = ("alldiff",), *, scheduler: str | None = None,
                 cluster=None, chunk: int | None = None, workers: int | None = None,
                 plugins: str | None = None, security=None, connect_s: float = CONNECT_S,
                 memory_limit: float | None = None):
        if scheduler is not None and cluster is not None:
            raise ClusterError("give --scheduler or --cluster, not both")
        if chunk is not None and chunk < 1:
            raise ClusterError(f"--chunk {chunk}: must be at least 1")
        self.scheduler = None if scheduler is None else scheduler_address(scheduler)
        self.cluster = None if isinstance(cluster, (str, int)) else cluster
        self.local_workers = None
        if scheduler is None and self.cluster is None:
            self.local_workers = (local_cluster_size(cluster) if cluster is not None
                                  else workers or os.cpu_count() or 1)
        self.chunk = chunk
        self.plugins = plugin_list(plugins)
        self.security = security
        self.connect_s = connect_s
        if engines:
            self.setup = WorkerSetup(tuple(engines), mode, limit, tuple(formulations),
                                     memory_limit)
        self.workers = self.local_workers or 1      # worker threads, counted once connected
        self.gave_up: str | None = None
        self.per_task_s: float | None = None
        self._client = None
        self._own_cluster = None
        self._hidden = ExitStack()
        self._plugin_name: str | None = None
        self._live: dict = {}
        self._threads_at = 0.0
        self._token = uuid.uuid4().hex[:10]
        self._submitted = 0
        self._track_tries = True
        self._facts: dict = {}
        self._shipping: Shipments | None = None
        self.shipped: dict[str, int] = {}     # bytes scattered per file digest (``shipping``)

    # ----- cluster -------------------------------------------------------------------
    def start(self) -> None:
        """Connect (or start the local cluster) and set up every worker's solver processes."""
        if self._client is not None:
            return
        if self.setup is None:
            raise ClusterError("the dask executor needs the run's engines before it starts")
        try:
            self._connect()
            self._set_up_workers()
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        try:    # the optional dependency, imported where it is used
            import dask
            import distributed
        except ImportError:
            raise ClusterError("the dask executor needs the distributed package "
                               "(pip install 'csp-compare[dask]')") from None
        if not os.environ.get(DEBUG_ENV):
            self._hidden.enter_context(quiet_dask_logs())
        if self.local_workers:
            # The scheduler and the workers live in this process, talking in memory
            # (no Dask worker processes to start, no Dask port to open); each
            # worker thread drives its own solver process, started by the plugin,
            # which hides the caller's script from it: hidden while the cluster
            # lives, so the workers' threads never race to hide and restore it.
            # Scheduler and workers still serve small HTTP servers (health,
            # metrics): on free 127.0.0.1 ports, no dashboard. Their warnings (a
            # cancelled chunk on Ctrl-C) are the run's own business: errors only.
            # No memory limit for the workers: this process's memory is the
            # client's; the solver processes are where tasks run. The scheduler
            # reruns no chunk (nothing to rerun: no worker can die alone).
            self._hidden.enter_context(main_hidden())
            # The solver processes fork from a server started here, in this
            # thread: started by a worker's thread, it would die when the cluster
            # closes; and it preloads the engines while the cluster starts.
            start_forkserver()
            local = "127.0.0.1:0"
            with dask.config.set(QUIET_CLUSTER):
                self._own_cluster = distributed.LocalCluster(
                    n_workers=self.local_workers, threads_per_worker=1, processes=False,
                    protocol="inproc://", memory_limit=0, dashboard_address=None,
                    worker_dashboard_address=local, silence_logs=logging.ERROR,
                    scheduler_kwargs={"dashboard_address": local, "dashboard": False,
                                      "allowed_failures": 0})
            self._client = distributed.Client(self._own_cluster, set_as_default=False)
            return
        if self.cluster is not None:
            self._client = distributed.Client(self.cluster, set_as_default=False)
            return
        limit = dask.config.get("distributed.comm.timeouts.connect")
        wait_s = min(self.connect_s, dask.utils.parse_timedelta(limit, default="s"))
        security = self.security or distributed.Security()
        can_connect(self.scheduler, security)
        probe(self.scheduler, security, wait_s)
        try:
            self._client = distributed.Client(self.scheduler, timeout=wait_s,
                                              set_as_default=False, security=security)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {self.scheduler} "
                               f"(waited {wait_s:g} s: {first_line(exc)})") from None

    def _set_up_workers(self) -> None:
        from compare.executors.dask import worker as dask_worker
        client = self._client
        self._drop_stale_plugins()
        name = PLUGIN_PREFIX + client.id
        plugin = dask_worker.SolverPlugin(self.setup, self.plugins)
        client.register_plugin(plugin, name=name)
        self._plugin_name = name
        problems = sorted({p for p in client.run(dask_worker.problem_of, name).values() if p})
        if problems:
            more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
            raise ClusterError(problems[0] + more)
        self.workers = max(1, self._threads(refresh=True))
        try:
            retries = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
        except Exception:
            retries = 1
        self._track_tries = retries != 0     # the scheduler reruns lost chunks itself

    def _drop_stale_plugins(self) -> None:
        """Solver processes a killed client left on the workers go now."""
        def stale(dask_scheduler, prefix=PLUGIN_PREFIX):   # runs on the scheduler
            live = set(dask_scheduler.clients)
            return [name for name in dask_scheduler.worker_plugins
                    if name.startswith(prefix) and name[len(prefix):] not in live]
        with suppress(Exception):
            for name in self._client.run_on_scheduler(stale):
                self._client.unregister_worker_plugin(name)

    def fit(self, tasks: int) -> None:
        """Nothing to do: a cluster's size is its own (a local one's, ``local_workers``,
        the plan caps before ``start``), and chunks shrink near the end of a run."""

    def _threads(self, refresh: bool = False) -> int:
        """Worker threads in the cluster now (asked at most every 2 s)."""
        if refresh or time.monotonic() - self._threads_at > 2.0:
            with suppress(Exception):
                self.workers = max(1, sum(self._client.nthreads().values()))
            self._threads_at = time.monotonic()
        return self.workers

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with suppress(Exception):
                client.cancel(list(self._live))
            self._live = {}
            if self._shipping is not None:
                with suppress(Exception):
                    self._shipping.close()
                self._shipping = None
            if self._plugin_name:
                with suppress(Exception):       # before the plugin takes its slots away
                    from compare.executors.dask import worker as dask_worker
                    found = client.run(dask_worker.facts_of, self._plugin_name)
                    self._facts = merged_facts([f for slots in found.values() for f in slots])
                with suppress(Exception):
                    client.unregister_worker_plugin(self._plugin_name)
                self._plugin_name = None
            with suppress(Exception):
                client.close()
        cluster, self._own_cluster = self._own_cluster, None
        if cluster is not None:
            with suppress(Exception):
                cluster.close()
        self._hidden.close()

    def facts(self) -> dict:
        """The warm-up costs of the workers' solver processes (their local executors'),
        together: read from every Dask worker when the run ends."""
        return self._facts

    # ----- the run ---------------------------------------------------------------------
    def run(self, tasks: Iterable[Task], puzzles: dict, skip: Skip | None = None,
            pauses: bool = False) -> Iterator[tuple[Task, Result] | None]:
        tasks = list(tasks)
        try:
            if tasks:
                self.start()
                for done in self._stream(tasks, puzzles, skip):
                    if done is not None or pauses:
                        yield done
        finally:
            self.close()

    def _stream(self, tasks: list[Task], puzzles: dict,
                skip: Skip | None) -> Iterator[tuple[Task, Result] | None]:
        from distributed import as_completed
        by_tid = {t.tid: t for t in tasks}
        pending, done, unrun = deque(tasks), set(), []
        self._shipping = Shipments(self._client, self._token, tasks, puzzles)
        self.shipped = self._shipping.sent
        arrived = as_completed(loop=self._client.loop, with_results=True, raise_errors=False)
        while pending or self._live:
            self._top_up(pending, puzzles, arrived, skip, unrun)
            for task, _ in unrun:
                self._shipping.answered(task, puzzles)
            yield from unrun
            unrun.clear()
            yield None
            if not self._live:
                continue
            future, outcome = next(arrived)
            chunk = self._live.pop(future)
            # workers stay fed while results are judged
            self._top_up(pending, puzzles, arrived, skip, unrun)
            if future.status == "finished":
                _, results, per_task, gave_up = outcome
                self._learn(per_task)
                self.gave_up = self.gave_up or gave_up
                answered = {tid for tid, _ in results}
                missing = [t for t in chunk.tasks if t.tid not in answered]
                if missing and not self.gave_up:  # never expected; no task may go unanswered
                    self._submit(_Chunk(missing), puzzles, arrived)
            else:
                results = self._failed(future, outcome, chunk, puzzles, arrived)
            future.release()
            for tid, result in results:
                if tid not in done:
                    done.add(tid)
                    self._shipping.answered(by_tid[tid], puzzles)
                    yield by_tid[tid], result
            yield None               # a chunk is in: the caller settles it
            if self.gave_up:         # no solver process can start: the rest cannot run
                return

    def _top_up(self, pending: deque, puzzles: dict, arrived, skip, unrun: list) -> None:
        """Keep every worker thread's chunks in hand; tasks ``skip`` answers go to ``unrun``."""
        while len(self._live) < CHUNKS_PER_THREAD * self._threads():
            size = min(self._chunk_size(len(pending)), len(pending))
            chunk = []
            while len(chunk) < size and self.take_runnable(pending, skip, unrun):
                chunk.append(pending.popleft())
            if not chunk:
                return
            self._submit(_Chunk(chunk), puzzles, arrived)

    def _submit(self, chunk: _Chunk, puzzles: dict, arrived) -> None:
        from compare.executors.dask import worker as dask_worker
        needed = {t.puzzle_id: puzzles[t.puzzle_id] for t in chunk.tasks}
        self._submitted += 1
        future = self._client.submit(
            dask_worker.solve_chunk, self._plugin_name, chunk.tasks, needed, chunk.careful,
            self._track_tries, self._shipping.keys(chunk.tasks, puzzles),
            key=f"csp-chunk-{self._token}-{self._submitted}", pure=False)
        self._live[future] = chunk
        arrived.add(future)

    def _chunk_size(self, remaining: int) -> int:
        if self.chunk:
            return self.chunk
        if self.per_task_s is None:
            return FIRST_CHUNK
        per_task = max(self.per_task_s, 1e-6)
        # near the end, smaller chunks so every worker finishes at about the same time
        share = math.ceil(remaining / (CHUNKS_PER_THREAD * self._threads()))
        size = min(int(TARGET_CHUNK_S / per_task), max(share, int(TAIL_CHUNK_S / per_task)))
        return max(1, min(size, MAX_CHUNK))

    def _learn(self, per_task: float) -> None:
        if per_task > 0:
            self.per_task_s = per_task if self.per_task_s is None else (
                0.5 * self.per_task_s + 0.5 * per_task)

    def _failed(self, future, outcome, chunk: _Chunk, puzzles: dict, arrived) -> list:
        """Results of a chunk that did not finish: crashes found, the rest resubmitted."""
        from distributed import KilledWorker

        from compare.executors.dask import worker as dask_worker
        if future.status == "cancelled":
            raise ClusterError("the Dask scheduler dropped the run (was it stopped?); finished "
                               "results are kept: continue with --resume")
        error = outcome[1]
        if isinstance(error, dask_worker.WorkerUnfit):
            raise ClusterError(str(error))
        if not isinstance(error, KilledWorker):
            raise ClusterError(f"a chunk failed on the Dask cluster: "
                               f"{type(error).__name__}: {first_line(error)}")
        # the scheduler gave up on the chunk: its workers kept dying
        state = {}
        with suppress(Exception):
            state = self._client.get_metadata([future.key], None) or {}
        culprits = set(state.get("crashed", []))
        if state.get("at") is not None:
            culprits.add(state["at"])
        results = [(t.tid, _crashed(t, "two Dask workers died in a row while it ran"))
                   for t in chunk.tasks if t.tid in culprits]
        rest = [t for t in chunk.tasks if t.tid not in culprits]
        if rest and (culprits or chunk.resubmits < RESUBMITS):
            again = _Chunk(rest, careful=True, resubmits=0 if culprits else chunk.resubmits + 1)
            self._submit(again, puzzles, arrived)
        else:
            results += [(t.tid, _crashed(t, "Dask workers kept dying while its chunk ran"))
                        for t in rest]
        return results


def merged_facts(parts: list[dict]) -> dict:
    """The ``facts`` of several local executors as one executor's: the warm-up rows of an
    engine (and shape) added up, kills and preparations listed, processes counted."""
    if not parts:
        return {}
    rows: dict[tuple, dict] = {}
    warmup: dict = {"start-up": [], "shapes": [], "killed": [], "prepared": []}
    for part in parts:
        found = part.get("warmup") or {}
        for kind in ("start-up", "shapes"):
            for entry in found.get(kind, []):
                key = (kind, entry["engine"], entry.get("shape"))
                if key not in rows:
                    rows[key] = dict(entry)
                    warmup[kind].append(rows[key])
                    continue
                row = rows[key]
                row["workers"] += entry["workers"]
                row["total_s"] = round(row["total_s"] + entry["total_s"], 4)
                row["max_s"] = max(row["max_s"], entry["max_s"])
        for kind in ("killed", "prepared"):
            warmup[kind] += found.get(kind, [])
    processes: dict[str, int] = {}
    for part in parts:
        for engine, count in (part.get("processes") or {}).items():
            processes[engine] = processes.get(engine, 0) + count
    resident = [p["worker_ready_rss_mb"] for p in parts if p.get("worker_ready_rss_mb")]
    methods = sorted({p["peak_rss_method"] for p in parts if p.get("peak_rss_method")})
    return {"warmup": warmup, "peak_rss_method": "; ".join(methods) or None,
            "processes": processes, "worker_ready_rss_mb": max(resident, default=None),
            "memory_limit_mb": parts[0].get("memory_limit_mb")}


def _crashed(task: Task, why: str) -> Result:
    return Result(task.engine, "", "", task.mode, Status.CRASHED, message=why)


