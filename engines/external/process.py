"""One solve by a solver executable, with its limits held for the whole process tree.

``run_solver(argv, timeout_s=..., memory_mb=...)`` starts the executable in a
session of its own, waits for it while reading its output, and returns a
``Finished``. Whatever happens (a normal exit, the time limit, the memory
limit, an exception or a signal in the caller) no process of the tree is left
running when it returns or raises. See docs/engines.md, "Engines that run an
executable".
"""
from __future__ import annotations

import errno
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from engines.contract import Status, Unsupported
from engines.external.tree import MB, ProcessTree
from engines.support.lifetime import describe_exit, libc_prctl, set_parent_death_signal

GRACE_S = 1.0            # between SIGTERM and SIGKILL at the time limit
POLL_S = 0.05            # how often the tree's memory is read
OUTPUT_CAP = 4 * MB      # bytes kept of each of stdout and stderr (half head, half tail)
DRAIN_S = 0.5            # reading what is left in the pipes once the tree is ended
JVM_HEAP_SHARE = 0.75    # of the memory limit, for the Java heap (``jvm_heap_flag``)
OOM_MARKERS = (b"MemoryError", b"java.lang.OutOfMemoryError", b"std::bad_alloc",
               b"out of memory", b"Out of memory", b"Cannot allocate memory")
CALLER_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


class ExecutableMissing(Unsupported):
    """The solver executable cannot be run here; the message is one line that says why.

    A subclass of ``Unsupported``, so an engine's ``solve`` turns it into an
    ``unsupported`` result carrying the message.
    """


def find_executable(name: str, package_hint: str | None = None) -> str:
    """The full path of ``name`` (a command looked up in ``PATH``, or a path), or
    ``ExecutableMissing`` saying why it cannot be run: not installed (with
    ``package_hint``, e.g. "Debian package flatzinc"), not a file, not executable."""
    hint = f" ({package_hint})" if package_hint else ""
    if os.sep in name or (os.altsep and os.altsep in name):
        path = name
        if not os.path.exists(path):
            raise ExecutableMissing(f"{name} does not exist{hint}")
    else:
        path = shutil.which(name)
        if path is None:
            present = shutil.which(name, mode=os.F_OK)
            if present is None:
                raise ExecutableMissing(f"{name} is not installed{hint}")
            path = present
    if os.path.isdir(path):
        raise ExecutableMissing(f"{path} is a folder, not an executable")
    if not os.access(path, os.X_OK):
        raise ExecutableMissing(f"{path} is not executable (no permission to run it)")
    return path


def missing_reason(name: str, package_hint: str | None = None) -> str:
    """Why ``name`` cannot run (``find_executable``'s message), or "" when it can: what
    an engine's ``available`` and ``unavailable_reason`` answer from."""
    try:
        find_executable(name, package_hint)
    except ExecutableMissing as exc:
        return str(exc)
    return ""


def jvm_heap_flag(memory_mb: float) -> str:
    """``-Xmx`` for a Java solver under ``memory_mb``: three quarters of it, the rest
    left to the JVM's own memory (code, threads, metaspace). A JVM reserves far
    more address space than it uses, so a Java solver runs with
    ``limit_address_space=False``: the heap flag bounds the heap, the tree's
    resident-memory poll bounds the whole."""
    return f"-Xmx{max(16, int(memory_mb * JVM_HEAP_SHARE))}m"


@dataclass
class Finished:
    """How one run of a solver executable ended.

    ``stdout`` and ``stderr`` are text (UTF-8, undecodable bytes replaced), at
    most ``OUTPUT_CAP`` bytes each: past it the first and last halves are kept
    around a line ``[... N bytes left out ...]``, and ``*_dropped`` counts what
    went. ``timed_out``: stopped at the time limit. ``memout``: stopped past
    the memory limit, or the solver said it ran out of memory. ``interrupted``:
    ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT that this helper did not send.
    ``peak_rss_mb``: the largest sum of the tree's resident sets read (one
    reading every ``POLL_S``); None when none could be read.
    """
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    memout: bool = False
    interrupted: bool = False
    peak_rss_mb: float | None = None
    stdout_dropped: int = 0
    stderr_dropped: int = 0

    @property
    def ended(self) -> str:
        """The exit in words: ``exit code 1``, ``signal SIGKILL``."""
        return describe_exit(self.returncode)

    def limit_status(self) -> Status | None:
        """``MEMOUT`` or ``TIMEOUT`` when a limit ended the run; None when the solver
        ended by itself and its output decides."""
        if self.memout:
            return Status.MEMOUT
        if self.timed_out:
            return Status.TIMEOUT
        return None


class Capped:
    """A stream's bytes, keeping the first and last ``cap / 2`` of them."""

    def __init__(self, cap: int):
        self.half = max(1, cap // 2)
        self.head, self.tail = bytearray(), bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - self.half
            if excess > 0:
                del self.tail[:excess]
                self.dropped += excess

    def has(self, marker: bytes) -> bool:
        return marker in self.head or marker in self.tail

    def text(self) -> str:
        gap = f"\n[... {self.dropped} bytes left out ...]\n".encode() if self.dropped else b""
        return bytes(self.head + gap + self.tail).decode("utf-8", errors="replace")


class CallerTerminated(BaseException):
    """SIGTERM reached the caller while it waited (``run_solver`` re-delivers it)."""


def run_solver(argv: list[str], *, timeout_s: float, memory_mb: float | None = None,
               cwd: str | None = None, env: dict[str, str] | None = None,
               stdin: bytes | str | None = None, limit_address_space: bool = True,
               grace_s: float = GRACE_S, output_cap: int = OUTPUT_CAP) -> Finished:
    """Run ``argv`` once under ``timeout_s`` seconds and ``memory_mb`` MB, and end it.

    * ``argv[0]`` goes through ``find_executable``: ``ExecutableMissing`` if it
      cannot run;
    * the process leads a new session (its own process group) and is killed by
      the kernel if the calling thread dies (``PR_SET_PDEATHSIG``, Linux);
    * at ``timeout_s`` the group and every descendant seen get SIGTERM, then
      SIGKILL ``grace_s`` later (``timed_out``);
    * ``memory_mb``: each process gets it as ``RLIMIT_AS`` (unless
      ``limit_address_space`` is False, as a JVM needs), and the tree's
      resident memory, read every ``POLL_S``, past it kills the tree (``memout``);
    * an exception in the caller while it waits (KeyboardInterrupt), or SIGTERM
      to it, kills the tree first and is then raised (SIGTERM re-delivered);
    * on every way out the group and every descendant seen are killed and the
      process reaped; stdout and stderr are read as they come, capped.
    """
    if not argv:
        raise ValueError("run_solver needs a command")
    program = argv[0]
    if cwd is not None and os.sep in program and not os.path.isabs(program):
        program = os.path.join(cwd, program)       # where the child will look for it
    argv = [find_executable(program), *argv[1:]]
    with sigterm_raises():
        try:
            return _run(argv, timeout_s, memory_mb, cwd, env, stdin, limit_address_space,
                        grace_s, output_cap)
        except CallerTerminated:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            raise


@contextmanager
def sigterm_raises():
    """While inside, SIGTERM with its default action raises ``CallerTerminated`` instead
    of ending the process at once, so the solver's tree is killed first. Only from the
    main thread (the one that may set handlers) and only when nobody handles SIGTERM."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_terminated(signum, frame):
    raise CallerTerminated


def _child_setup(parent: int, address_space: int | None):
    """What the child does between fork and exec: die with this thread, take the limit."""
    def setup():
        if set_parent_death_signal() and os.getppid() != parent:
            os._exit(128 + signal.SIGKILL)          # the parent died before the signal was set
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return setup


def address_space_bytes(memory_mb: float | None, limit: bool) -> int | None:
    """The ``RLIMIT_AS`` a solver process gets: ``memory_mb``, never above the hard limit."""
    if memory_mb is None or not limit:
        return None
    wanted = int(memory_mb * MB)
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def _run(argv, timeout_s, memory_mb, cwd, env, stdin, limit_as, grace_s, output_cap):
    libc_prctl()                                    # loaded here: never after the fork
    if isinstance(stdin, str):
        stdin = stdin.encode()
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, start_new_session=True,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_child_setup(os.getpid(), address_space_bytes(memory_mb, limit_as)))
    except OSError as exc:        # a bad interpreter line, a wrong architecture
        raise ExecutableMissing(f"{argv[0]} cannot be run ({exc.strerror or exc})") from None
    tree = ProcessTree(proc.pid)
    outs = {proc.stdout: Capped(output_cap), proc.stderr: Capped(output_cap)}
    sel = selectors.DefaultSelector()
    for stream in outs:
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ)
    exit_fd = _exit_fd(proc.pid)
    if exit_fd is not None:
        sel.register(exit_fd, selectors.EVENT_READ)
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
    timed_out = memout = False
    sent: set[int] = set()
    wall = None
    try:
        deadline = start + timeout_s
        kill_at = None
        next_poll = start
        while True:
            now = time.perf_counter()
            if _exited(proc.pid):
                wall = now - start
                break
            if now >= next_poll:
                rss = tree.measure()
                next_poll = now + POLL_S
                if memory_mb is not None and rss > memory_mb and not timed_out:
                    memout = True
                    sent.add(signal.SIGKILL)
                    tree.kill()
            if now >= deadline and not timed_out and not memout:
                timed_out = True
                sent.add(signal.SIGTERM)
                tree.signal(signal.SIGTERM)
                kill_at = now + grace_s
            if kill_at is not None and now >= kill_at:
                sent.add(signal.SIGKILL)
                tree.kill()
                kill_at = None
            waiting_for_limit = not timed_out and not memout
            wake = min(t for t in (next_poll, deadline if waiting_for_limit else None,
                                   kill_at) if t is not None)
            _read(sel, outs, max(0.0, min(wake - now, POLL_S)), exit_fd, exit_fd is None)
    finally:
        tree.kill()              # the leader is a zombie at most: its group is still ours
        _reap(proc, tree)
        if wall is None:
            wall = time.perf_counter() - start
        _drain(sel, outs, exit_fd)
        sel.close()
        for stream in outs:
            stream.close()
        if exit_fd is not None:
            os.close(exit_fd)
    out, err = outs[proc.stdout], outs[proc.stderr]
    code = proc.returncode
    said_oom = any(err.has(m) for m in OOM_MARKERS) or (
        code != 0 and any(m in out.tail[-4096:] for m in OOM_MARKERS))
    return Finished(
        argv=argv, returncode=code, stdout=out.text(), stderr=err.text(), wall_s=wall,
        timed_out=timed_out, memout=memout or (said_oom and not timed_out),
        interrupted=code < 0 and -code in CALLER_SIGNALS and -code not in sent,
        peak_rss_mb=tree.peak_mb, stdout_dropped=out.dropped, stderr_dropped=err.dropped)


def _reap(proc: subprocess.Popen, tree: ProcessTree) -> None:
    """Wait for the leader, taking its peak resident set from the kernel (``wait4``):
    exact for the leader, where readings every ``POLL_S`` miss a short run."""
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except (ChildProcessError, AttributeError):
        proc.wait()
        return
    proc.returncode = os.waitstatus_to_exitcode(status)
    tree.saw_peak(usage.ru_maxrss / (MB if sys.platform == "darwin" else 1024))


def _exit_fd(pid: int) -> int | None:
    """A pidfd, readable once ``pid`` has exited (Linux 5.3+); None elsewhere."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _exited(pid: int) -> bool:
    """Whether ``pid`` has ended, without reaping it (the zombie keeps its group's id)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _read(sel, outs, timeout: float, exit_fd, short: bool) -> None:
    """Read what is ready, waiting up to ``timeout``; a stream at its end is let go.
    ``short`` (no pidfd tells of the exit): wait 5 ms at most, so an exit is seen soon."""
    if short:
        timeout = min(timeout, 0.005)
    if not sel.get_map():
        time.sleep(timeout)
        return
    for key, _ in sel.select(timeout):
        if key.fileobj is exit_fd:
            continue
        try:
            data = os.read(key.fileobj.fileno(), 1 << 16)
        except BlockingIOError:
            continue
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if data:
            outs[key.fileobj].add(data)
        else:
            sel.unregister(key.fileobj)


def _drain(sel, outs, exit_fd) -> None:
    """Read what the ended tree left in the pipes, for at most ``DRAIN_S`` (a descendant
    out of reach may hold a pipe open)."""
    if exit_fd is not None and exit_fd in sel.get_map():
        sel.unregister(exit_fd)
    until = time.perf_counter() + DRAIN_S
    while sel.get_map() and time.perf_counter() < until:
        _read(sel, outs, max(0.0, until - time.perf_counter()), exit_fd, False)


def _feed(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
    except OSError:              # the solver ended, or does not read its input
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass
