"""The solver-process side of the harness: what a worker runs and measures.

The parent decides which task runs where and when (``executor``); this module
runs tasks and measures them, as one unit any executor can reuse:

* ``Session``: the engines of a run, built once per process and warmed up;
  ``Session.run(task, puzzle)`` gives a ``Result`` with the build and search
  times, the CPU time and peak memory of the solve, under the memory limit.
  Each new shape (engine x model structure x mode) is warmed untimed before
  the first timed task on it, and the cost is reported, not hidden.
* ``solve_task``: one timed task, the model build included; every result
  passes the engine boundary (``boundary``) before it is trusted.

How a worker process talks to its parent is ``transport``. One task runs at
a time per process: the resource figures are the process's.
"""
from __future__ import annotations

import ctypes
import gc
import os
import resource
import socket
import time
import traceback
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import psutil

import engines
from compare.executors.local.processes import end_leftovers
from compare.executors.local.worker.boundary import checked_result
from compare.executors.tasks import Task
from compare.facts import peak_rss_mb
from compare.plugins import load_plugins
from engines import Result, Status, describe
from puzzles.formats.reference import release_held
from puzzles.kinds.generator import warmup_puzzles

WARMUP_TIMEOUT_S = 5.0    # a warm-up solve is a nearly full grid: this is generous
HOST = socket.gethostname()


@dataclass(frozen=True)
class WorkerInit:
    """What a worker needs to serve a run; small and picklable."""
    plugins: tuple[str, ...]
    engines: tuple[str, ...]
    mode: str = "first"
    limit: int = 2
    formulations: tuple[str, ...] = ("alldiff",)
    skip_warmup: tuple[str, ...] = ()     # engines whose start-up warm-up failed before
    memory_limit_mb: float | None = None


# ----- resources ------------------------------------------------------------------------
class Meter:
    """CPU time and peak resident memory of one solve, in the process that runs it.

    CPU is the process's user + system time (``process_time``, the same as
    ``getrusage(RUSAGE_SELF)`` but a quarter of its cost), every thread of the
    process included (an engine's own search threads count). Peak memory is the
    kernel's high-water mark of resident memory (``VmHWM``, which is also what
    ``ru_maxrss`` reports); on Linux writing ``5`` to ``/proc/self/clear_refs``
    resets it to the current size, so each task's figure is its own peak.
    Where that file cannot be written the figure is the process's peak since
    it started (``method`` says which). Both cost about a microsecond.
    """

    def __init__(self):
        self._reset_fd = None
        try:
            self._reset_fd = os.open("/proc/self/clear_refs", os.O_WRONLY)
            os.write(self._reset_fd, b"5")
            self.method = "VmHWM, reset per task (/proc/self/clear_refs)"
        except OSError:
            if self._reset_fd is not None:
                os.close(self._reset_fd)
            self._reset_fd = None
            self.method = "ru_maxrss: the worker's peak so far (no per-task reset here)"
        self._cpu = 0.0

    def start(self) -> None:
        if self._reset_fd is not None:
            try:
                os.write(self._reset_fd, b"5")
            except OSError:
                pass
        self._cpu = time.process_time()

    def stop(self) -> tuple[float, float]:
        """``(cpu_s, peak_rss_mb)`` since ``start``."""
        cpu = time.process_time() - self._cpu
        return cpu, peak_rss_mb()


def rss_mb(process: "psutil.Process | int | None" = None) -> float | None:
    """Resident memory of a process now (this one by default), in MB; None once it is gone
    or where the system will not say. Pass a kept ``psutil.Process`` to read one often:
    about 12 µs a reading (psutil reads ``/proc/PID/statm``), against 28 µs when the
    handle is made afresh each time."""
    return _memory(process, "rss")


def _virtual_bytes() -> int | None:
    found = _memory(None, "vms")
    return None if found is None else int(found * 1024 * 1024)


def _memory(process, field: str) -> float | None:
    try:
        if not isinstance(process, psutil.Process):
            process = psutil.Process(process)
        return getattr(process.memory_info(), field) / (1024 * 1024)
    except (psutil.Error, OSError, ValueError):
        return None


@contextmanager
def address_space_cap(limit_mb: float | None):
    """While solving, new address space is capped at twice ``limit_mb`` (``RLIMIT_AS``).

    The limit itself is on resident memory, which the parent watches from
    outside (``executor``) every few milliseconds. This cap is the backstop
    for an allocation too fast for that watch: one that asks for more than
    twice the limit at once fails at once with ``MemoryError`` (memout).
    It counts from the process's current virtual size, because solver libraries
    and JIT compilers reserve far more address space than they touch (a warmed
    worker with an eight-thread solver has 1 GB virtual against 150 MB resident):
    capping virtual memory outright would fail them for nothing.
    """
    if not limit_mb or not hasattr(resource, "RLIMIT_AS"):
        yield
        return
    now = _virtual_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if now is None:
        yield
        return
    cap = now + int(2 * limit_mb * 1024 * 1024)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ----- a worker's run -------------------------------------------------------------------
class Session:
    """The engines of a run in one process, warmed, running one task at a time.

    ``notify`` receives the protocol's progress messages (``warming``,
    ``shaping``, ``warmed``); a caller that needs none passes nothing.
    """

    def __init__(self, init: WorkerInit, notify=None):
        self.init = init
        self.notify = notify or (lambda message: None)
        load_plugins(list(init.plugins))
        self.engines = {label: engines.get_engine(label) for label in init.engines}
        self.meter = Meter()
        self.warm: set[tuple] = set()          # (engine, structure key, mode) warmed here
        self.retire: str | None = None          # why this process should be replaced
        self.startup_s: dict[str, float] = {}   # start-up warm-up time per engine

    def start_up(self) -> None:
        """Solve nearly full 4x4 and 9x9 grids with every engine: imports, caches, JIT."""
        for label, engine in self.engines.items():
            if label in self.init.skip_warmup:
                continue
            self.notify(("warming", label))
            start = time.perf_counter()
            for puzzle in warmup_puzzles():
                for form in self.init.formulations:
                    if form in puzzle.formulations:
                        model = puzzle.to_model(form)
                        engine.solve(model, self.init.mode, self.init.limit, WARMUP_TIMEOUT_S)
                        self.warm.add((label, model.structure.key, self.init.mode))
            self.startup_s[label] = time.perf_counter() - start
        settle_heap()

    def info(self) -> dict:
        return {"pid": os.getpid(), "rss_mb": rss_mb(), "peak_method": self.meter.method,
                "host": HOST, "warmup_s": dict(self.startup_s)}

    def run(self, task: Task, puzzle) -> Result:
        """One task: its shape warmed first if new here, then timed and measured.

        The shape is read off the timed build's model, so a puzzle is built once
        per task; only a task that meets a new shape builds again, after warming.
        """
        engine = self.engines[task.engine]
        self.meter.start()
        limit = self.init.memory_limit_mb
        loading = None
        try:
            with address_space_cap(limit) if limit else nullcontext():
                loading, result = self._load(engine, task, puzzle)
                if result is None:
                    result = solve_task(engine, puzzle, task,
                                        lambda model: self._warmed(engine, task, puzzle, model))
        except MemoryError as exc:      # raised outside the engine's own guard
            result = failed(engine, task, Status.MEMOUT, describe(exc), traceback.format_exc())
        result.loading = loading
        result.cpu_s, result.peak_rss_mb = self.meter.stop()
        end_leftovers()                  # nothing the engine started outlives its task
        result.host = HOST
        if result.status == Status.MEMOUT:
            result.message = (f"out of memory ({result.message}"
                              + (f"; memory limit {limit:g} MB)" if limit else ")"))
            self.retire = "ran out of memory"     # its heap may be in any state now
        return result

    def _load(self, engine, task: Task, puzzle) -> tuple:
        """A puzzle given by reference (a file per instance) loaded here, untimed, before
        the solve: ``(loading, None)``, or ``(loading, result)`` when it cannot be.

        The parent gives the load the time a new shape gets (``shaping``), and the
        memory limit covers it: an instance too large to load is the task's memout.
        """
        load = getattr(puzzle, "load_input", None)
        if load is None:
            return None, None
        if puzzle.input_loaded:
            return load(), None
        # Another instance: what the worker holds for the last one goes first (its input,
        # the engines' structure caches, the freed heap), so the peak is this task's own.
        release_held()
        engines.forget_structures()
        settle_heap()
        what = f"loading {puzzle.name}"
        self.notify(("shaping", task.tid, what))
        start = time.perf_counter()
        try:
            loading = load()
        except MemoryError as exc:
            return None, failed(engine, task, Status.MEMOUT, f"loading: {describe(exc)}",
                                traceback.format_exc())
        except Exception as exc:       # a bad file: this task's error, with the reason
            return None, failed(engine, task, Status.ERROR, f"model: {describe(exc)}",
                                traceback.format_exc())
        finally:
            self.notify(("warmed", task.tid, task.engine, what, time.perf_counter() - start))
        settle_heap()
        self.meter.start()
        return loading, None

    def _warmed(self, engine, task: Task, puzzle, model) -> bool:
        """True if the model's shape was warm here already; else warm it now, untimed.

        After a warm-up the caller starts its clocks and its build again.
        """
        shape = model.structure.key
        key = (task.engine, shape, task.mode)
        if key in self.warm:
            return True
        if getattr(puzzle, "shape_per_puzzle", False):
            # the kind's first shape warms it; later ones are timed as they come
            kind = (task.engine, f"kind:{puzzle.kind}", task.mode)
            if kind in self.warm:
                return True
            self.warm.add(kind)
        self.notify(("shaping", task.tid, shape))
        start = time.perf_counter()
        self._warm_shape(engine, task, puzzle)
        self.warm.add(key)
        settle_heap()
        self.notify(("warmed", task.tid, task.engine, shape, time.perf_counter() - start))
        self.meter.start()
        return False

    def _warm_shape(self, engine, task: Task, puzzle) -> None:
        """Solve the puzzle's twin of the same shape, or else translate the puzzle, untimed."""
        try:
            twin = puzzle.warmup_twin()
            if twin is not None:
                engine.solve(twin.to_model(task.formulation), task.mode, task.limit,
                             min(task.timeout, WARMUP_TIMEOUT_S))
                return
            model = puzzle.to_model(task.formulation)
            if engine.unsupported_reason(model, task.mode) is None:
                engine.translate(model)
        except (Exception, SystemExit):   # best effort; the timed task tells the truth
            pass


def settle_heap() -> None:
    """Move everything alive now out of the garbage collector's sight, untimed, and give
    the freed heap back to the system.

    With the engines' libraries loaded a worker holds about 100,000 objects,
    and a full collection walks them all: 30-60 ms measured here, charged to
    whichever task happened to trigger it. Frozen (``gc.freeze``), they are
    never walked again, so a collection inside a timed task costs what that
    task allocated, as it would in a process of its own. Each settle thaws
    them first, so that cycles let go since the last one are collected.
    glibc keeps freed memory mapped for reuse: ``malloc_trim`` returns it,
    so that a task's peak resident memory does not carry what earlier ones
    freed (an XCSP3 instance of 600 MB left 500 MB resident without it).
    """
    gc.unfreeze()
    gc.collect()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
    gc.freeze()


def _malloc_trim():
    """glibc's ``malloc_trim``; None elsewhere."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


def solve_task(engine, puzzle, task: Task, warmed=None) -> Result:
    """One timed task: the model build counts as build time and against the time limit.

    ``warmed(model)``, if given, sees the built model before the search; when it
    returns False (it just warmed the model's shape) the build is timed again.
    """
    for _ in range(2):
        start = time.perf_counter()
        try:
            model = puzzle.to_model(task.formulation)
        except MemoryError as exc:
            return failed(engine, task, Status.MEMOUT, f"model: {describe(exc)}",
                          traceback.format_exc())
        except Exception as exc:     # a puzzle that cannot be modelled is an error result
            return failed(engine, task, Status.ERROR, f"model: {describe(exc)}",
                          traceback.format_exc())
        model_s = time.perf_counter() - start
        if warmed is None or warmed(model):
            break
    if model_s >= task.timeout:
        result = failed(engine, task, Status.TIMEOUT,
                        f"building the model took {model_s:.2f} s, over the time limit")
    else:
        try:
            result = engine.solve(model, task.mode, task.limit, task.timeout - model_s)
        except SystemExit as exc:     # an engine must not end the process that hosts it
            result = failed(engine, task, Status.ERROR,
                            f"the engine called sys.exit({exc.code!r})", traceback.format_exc())
        except MemoryError:
            raise
        except Exception as exc:      # raised outside the template's guard (a malformed
            result = failed(engine, task, Status.ERROR,     # outcome, an overridden solve)
                            f"invalid result from the engine: {describe(exc)}",
                            traceback.format_exc())
        if not isinstance(result, Result):
            result = failed(engine, task, Status.ERROR, "invalid result from the engine: "
                            f"{type(result).__name__}, not a Result")
    result = checked_result(result)     # the engine boundary: see ``boundary``
    result.build_s += model_s
    return result


def failed(engine, task: Task, status: Status, message: str, where: str = "") -> Result:
    return Result(engine.label, engine.library or "builtin", engine.version(), task.mode,
                  status, message=message, traceback=where)
