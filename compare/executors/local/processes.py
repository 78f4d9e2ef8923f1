"""Process plumbing every executor shares: how a solver process is started and how it ends.

* ``spawn``: every solver process (a worker, an engine's preparation) starts
  through it, with the steps below.
* ``main_hidden``: a solver process never re-runs the caller's script, so the
  Python API works from a plain script or notebook with no ``__main__`` guard.
* ``start_forkserver`` and ``start_method``: fresh solver processes fork from
  a clean server that has the engines' modules imported already.
* ``marked_as_harness``, ``die_with_parent`` and ``guard_forkserver``: a solver
  process (and the forkserver) never outlives the harness, however it dies.
* ``apart_from_terminal`` and ``call_apart``: Ctrl-C and SIGTERM are the
  harness's; a solver process never hears them from the terminal.

The local executor starts its workers with these; the Dask executor and its
worker plugin use the same, so a solver process on a Dask worker behaves as a
local one.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import threading
from contextlib import contextmanager, nullcontext
from multiprocessing import forkserver
from multiprocessing.connection import wait

from engines import describe, describe_exit, libc_prctl, set_parent_death_signal

PARENT_ENV = "CSP_COMPARE_HARNESS_PID"   # set while the harness starts a process
BASE_MODULES = ("engines", "compare.executors.local.worker.transport", "puzzles.kinds.sudoku")


def start_method() -> str:
    """forkserver where there is one: fresh workers fork from a clean, preloaded server."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def preload_modules() -> list[str]:
    """Modules the forkserver imports once: the harness's own, no engine's.

    Every worker forks from the forkserver, so what it preloads every worker
    holds. An engine's library (numba, OR-Tools) is imported by the workers
    of that engine only, so a worker's memory is its engine's own.
    """
    return list(BASE_MODULES)


def start_forkserver() -> None:
    """Start the forkserver now, from this thread, preloading the harness's modules.

    Workers fork from it, and it dies with the thread that started it
    (``guard_forkserver``: the kernel's parent-death signal follows the
    thread). Workers started from short-lived threads (a local Dask cluster's)
    would take it with them when those threads end, so their caller starts it
    first from its own thread; it preloads meanwhile, in parallel.
    """
    if start_method() != "forkserver":
        return
    mp.get_context("forkserver").set_forkserver_preload(preload_modules())
    with main_hidden(), marked_as_harness():
        forkserver.ensure_running()


_STARTING = threading.RLock()     # one process start at a time (process-wide state)
_hiding = {"depth": 0, "saved": {}}


@contextmanager
def main_hidden():
    """Start a worker without re-importing the caller's script in it.

    multiprocessing runs the parent's ``__main__`` file again in every spawned
    or forkserver child. A plain script (or notebook) that calls the API with
    no ``if __name__ == "__main__"`` guard would then start a comparison in
    each worker. Workers need nothing from ``__main__``, so it is hidden while
    they start. Runs in several threads share the hiding: the first hides,
    the last puts it back.
    """
    with _STARTING:
        if _hiding["depth"] == 0:
            main = sys.modules.get("__main__")
            saved = {k: getattr(main, k) for k in ("__file__", "__spec__") if hasattr(main, k)}
            for key in saved:
                if key == "__spec__":
                    main.__spec__ = None
                else:
                    delattr(main, key)
            _hiding["saved"] = saved
        _hiding["depth"] += 1
    try:
        yield
    finally:
        with _STARTING:
            _hiding["depth"] -= 1
            if _hiding["depth"] == 0:
                main = sys.modules.get("__main__")
                for key, value in _hiding.pop("saved").items():
                    setattr(main, key, value)
                _hiding["saved"] = {}


@contextmanager
def marked_as_harness():
    """While a process starts, name this one as the harness (see ``guard_forkserver``).

    Only from the main thread: the kernel's parent-death signal follows the
    thread that started the process, so a forkserver started from another
    thread (the API called in a thread) would die with that thread, and the
    next run would find it gone. Started unmarked, it still exits when this
    process does (its pipe from here closes). Starts are one at a time, so
    the mark is never another thread's.
    """
    with _STARTING:
        before = os.environ.get(PARENT_ENV)
        if threading.current_thread() is threading.main_thread():
            os.environ[PARENT_ENV] = str(os.getpid())
        else:
            os.environ.pop(PARENT_ENV, None)
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(PARENT_ENV, None)
            else:
                os.environ[PARENT_ENV] = before


# ----- signals are the harness's ---------------------------------------------------------
def spawn(ctx, target, args: tuple, starting=None, duplex: bool = True):
    """Start ``target(conn, *args, lifeline)`` in a solver process, as every one starts:
    a daemon, the caller's script hidden from it, marked as the harness's, one start
    at a time (``starting``, a lock, for callers on several threads).

    Returns the process, the parent's end of its connection (``duplex=False``: the
    parent only reads) and the lifeline's write end, which only the parent holds:
    the process dies when it closes (``die_with_parent``). The child's ends are
    closed here, so the parent sees the process's death as the connection's end.
    """
    conn, child = ctx.Pipe(duplex=duplex)
    life_r, life_w = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(child, *args, life_r), daemon=True)
    with starting if starting is not None else nullcontext(), main_hidden(), \
            marked_as_harness():
        proc.start()
    child.close()
    life_r.close()
    return proc, conn, life_w


def apart_from_terminal() -> None:
    """Leave the terminal's process group, so Ctrl-C reaches the harness alone.

    The terminal sends SIGINT to its whole foreground group. Solver libraries
    take it in a worker whatever the worker asked for (one raises "Program
    interrupted by user", others stop their search and answer "unknown"),
    and the harness would then store an error or a timeout for a
    task the user interrupted. Out of the group, a worker hears of Ctrl-C only
    through the harness, which stops it and stores nothing for its task.
    """
    try:
        os.setpgid(0, 0)
    except (AttributeError, OSError):
        pass


# ----- no grandchild left ------------------------------------------------------------------
PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Become a subreaper (Linux): processes an engine starts stay this process's heirs.

    A solver-binary wrapper may start a process that starts another and
    exits (a daemon, a shell pipeline). Orphaned, the grandchild would go to
    init, out of reach; under a subreaper it comes back to this process,
    where ``end_leftovers`` finds it.
    """
    prctl = libc_prctl()
    if prctl is None:
        return False
    _REAPER["on"] = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _REAPER["on"]


# Only a worker that adopted its orphans ends its leftovers: the same code run in
# the caller's own process (a test, a notebook) must not kill that process's
# children, its forkserver among them.
_REAPER = {"on": False}


def end_leftovers(rounds: int = 8) -> int:
    """Kill and reap every child this process has now; how many there were.

    A worker calls it when a task ends: whatever the engine started and left
    running (a solver binary, its helpers) goes, together with any process
    group of its own the child made (``start_new_session``). It reads one
    small ``/proc`` file, through a descriptor kept open (``pread`` at offset
    0 reads it afresh): about a microsecond when the task started nothing,
    against 15 for an open, read and close per task.
    """
    ended = 0
    if not _REAPER["on"]:
        return ended
    ours = None
    for _ in range(rounds):          # a killed child's own children come back to us
        try:
            pids = [int(p) for p in _children().split()]
        except (OSError, ValueError):
            return ended
        if not pids:
            return ended
        ours = os.getpgid(0) if ours is None else ours
        for pid in pids:
            _end(pid, ours)
            ended += 1
    return ended


_CHILDREN = {"pid": None, "fd": None}    # this process's children file, kept open


def _children() -> bytes:
    """The text of ``/proc/self/task/PID/children``: this process's children's pids."""
    pid = os.getpid()
    if _CHILDREN["pid"] != pid:          # first call, or a fork's child: a file of its own
        _CHILDREN["fd"] = os.open(f"/proc/self/task/{pid}/children", os.O_RDONLY)
        _CHILDREN["pid"] = pid
    fd, size = _CHILDREN["fd"], 4096
    while True:
        text = os.pread(fd, size, 0)
        if len(text) < size:
            return text
        size *= 4                        # more children than the buffer holds


def _end(pid: int, ours: int) -> None:
    try:
        group = os.getpgid(pid)
        if group != ours:
            os.killpg(group, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def end_group(pid: int | None) -> None:
    """Kill the process group a worker leads (``apart_from_terminal`` made it), so nothing
    an engine started in it outlives the worker; nothing when there is none."""
    if not pid or pid <= 0:      # killpg(0) would be this process's own group
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


class ProcessDied(RuntimeError):
    """The child of ``call_apart`` ended without an answer (killed, crashed, overran);
    ``overran``: it was still running at its limit and was stopped."""

    def __init__(self, why: str, overran: bool = False):
        super().__init__(why)
        self.overran = overran


def call_apart(function, *args, within: float | None = None):
    """``function(*args)`` in a throw-away child process, as a worker would run it.

    The child is forked (cheap: the modules are loaded already), leaves the
    terminal's group and dies with this process; its return value, or the
    exception it raised, comes back pickled. Solver libraries in it may take
    any signal they like: this process keeps its own, and Ctrl-C or SIGTERM
    here stops the child at once, even inside a C call that never returns to
    Python. Past ``within`` seconds the child is killed (``ProcessDied``).
    Where there is no fork, the call runs here.
    """
    if "fork" not in mp.get_all_start_methods():
        return function(*args)
    ctx = mp.get_context("fork")
    answer, child_end = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_apart_main, args=(child_end, function, args), daemon=True)
    proc.start()
    child_end.close()
    try:
        if not wait([answer, proc.sentinel], within):
            raise ProcessDied(f"still running after {within:g} s", overran=True)
        try:
            kind, value = answer.recv()
        except (EOFError, OSError):
            proc.join(1)
            raise ProcessDied(describe_exit(proc.exitcode)) from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        answer.close()
    if kind == "raised":
        raise value
    return value


def _apart_main(conn, function, args) -> None:
    apart_from_terminal()
    set_parent_death_signal()
    try:
        outcome = ("returned", function(*args))
    except BaseException as exc:      # the caller decides what it means
        outcome = ("raised", exc)
    try:
        pickle.loads(pickle.dumps(outcome))    # what the caller could not unpickle either
        conn.send(outcome)
    except Exception as exc:
        conn.send(("raised", ProcessDied(f"its answer could not be sent "
                                         f"({describe(outcome[1])}: {describe(exc)})")))


# ----- never outlive the parent ---------------------------------------------------------
def die_with_parent(lifeline=None) -> None:
    """Make sure this process ends when the process that started it does.

    Two independent means, because a parent can die in ways it cannot clean
    up after (``kill -9``, the OOM killer):

    * Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, so the kernel kills this
      process the moment its parent process exits. With the forkserver, that
      parent is the forkserver, which gets the same treatment on import of
      this module (``guard_forkserver``) and also exits on its own when the
      harness dies;
    * everywhere: a thread blocked on ``lifeline``, a pipe whose other end
      only the parent holds; end of file means the parent is gone, and the
      process exits within a few milliseconds (unless an extension holds
      the interpreter lock all that time, which the kernel signal covers).
    """
    set_parent_death_signal()
    if lifeline is not None:
        threading.Thread(target=_watch_lifeline, args=(lifeline,), name="lifeline",
                         daemon=True).start()


def _watch_lifeline(lifeline) -> None:
    try:
        while True:
            lifeline.recv_bytes()
    except (EOFError, OSError):
        pass
    os._exit(0)


def guard_forkserver() -> None:
    """In the forkserver, which imports this module first: die with the harness too.

    The harness puts its pid in ``PARENT_ENV`` while it starts processes, so a
    direct child of the harness that imports this module recognises itself.
    The harness process itself never matches (its parent is a shell).
    """
    if os.environ.get(PARENT_ENV) == str(os.getppid()):
        set_parent_death_signal()


guard_forkserver()
