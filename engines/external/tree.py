"""A solver process and every process it starts: found, measured and ended together.

The solver leads a process group of its own (``start_new_session``), so one
``killpg`` reaches everything that stayed in it. A descendant may leave the
group (``setsid``, a daemon's double fork); ``ProcessTree`` remembers every
descendant it has seen, so a signal reaches those too, as long as they were
seen once (each memory reading looks). ``psutil`` checks a remembered
process's start time before it signals, so a recycled pid is never hit.
"""
from __future__ import annotations

import os
import signal

import psutil

MB = 1024 * 1024


def child_pids(pid: int) -> list[int]:
    """The pids of ``pid``'s children, read from ``/proc/PID/task/*/children`` on Linux
    (about 0.1 ms for a small tree, where psutil's scan of every process takes ms);
    psutil's answer elsewhere. Empty when the process is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = None
    if tasks is not None:
        found: list[int] = []
        try:
            for tid in tasks:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                    found += [int(p) for p in f.read().split()]
            return found
        except FileNotFoundError:
            if os.path.exists(f"/proc/{pid}"):   # a thread ended meanwhile: read again
                return child_pids(pid)
            return []
        except OSError:
            pass                                  # no children files: ask psutil
    try:
        return [c.pid for c in psutil.Process(pid).children()]
    except psutil.Error:
        return []


class ProcessTree:
    """The process ``root`` leads and its descendants, as far as they have been seen.

    ``measure`` walks the tree and returns the sum of its processes' resident
    sets, in MB (shared pages counted once per process); ``peak_mb`` is the
    largest sum measured. ``signal`` sends to the group and to every process
    seen; ``alive`` tells whether any of them still runs.
    """

    def __init__(self, root: int):
        self.root = root
        self.group = root            # start_new_session: the root leads its own group
        self.seen: dict[int, psutil.Process] = {}
        self.peak_mb: float | None = None
        self._remember(root)

    def _remember(self, pid: int) -> psutil.Process | None:
        proc = self.seen.get(pid)
        if proc is None:
            try:
                proc = self.seen[pid] = psutil.Process(pid)
            except psutil.Error:
                return None
        return proc

    def walk(self) -> list[psutil.Process]:
        """The processes of the tree now, root first, each remembered."""
        found, stack, visited = [], [self.root], set()
        while stack:
            pid = stack.pop()
            if pid in visited:
                continue
            visited.add(pid)
            proc = self._remember(pid)
            if proc is not None:
                found.append(proc)
            stack += child_pids(pid)
        return found

    def measure(self) -> float:
        total = 0
        for proc in self.walk():
            try:
                total += proc.memory_info().rss
            except psutil.Error:
                pass
        mb = total / MB
        self.saw_peak(mb)
        return mb

    def saw_peak(self, mb: float) -> None:
        if mb > 0 and (self.peak_mb is None or mb > self.peak_mb):
            self.peak_mb = mb

    def signal(self, sig: int) -> None:
        """``sig`` to the group and to every descendant seen, the ones that left it too."""
        self.walk()                  # descendants started since the last reading
        try:
            os.killpg(self.group, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for proc in self.seen.values():
            try:
                proc.send_signal(sig)
            except psutil.Error:
                pass

    def alive(self) -> bool:
        """Whether any process seen still runs (zombies waiting to be reaped do not)."""
        for proc in self.seen.values():
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    return True
            except psutil.Error:
                pass
        return False

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
