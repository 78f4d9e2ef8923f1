"""One writer per run folder: a lock on a file in it, held while a run writes there.

Two runs writing one store (a ``--resume`` started while the first run was
still going) would both finish with every task, and every timing would be
polluted by the other's load. The lock is ``fcntl.flock`` on ``run.lock``
in the folder: the kernel drops it when its holder exits however it ends,
so the lock of a killed run is no obstacle, and the next run takes it over
(and writes its own process id into the file, for the message a third
writer would get).
"""
from __future__ import annotations

import os
from pathlib import Path

from compare.errors import FolderBusy
from compare.store.files import RunFile

try:
    import fcntl
except ImportError:          # no flock on this platform: one writer is then up to the user
    fcntl = None

LOCK_NAME = RunFile.LOCK


class FolderLock:
    """``with FolderLock(folder):`` or ``acquire()``/``release()``; raises ``FolderBusy``."""

    def __init__(self, folder: Path | str):
        self.path = Path(folder) / LOCK_NAME
        self.fd: int | None = None

    def acquire(self) -> FolderLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise FolderBusy(f"{self.path.parent}: another run is writing this folder "
                                 f"(process {holder}); wait for it to end, or use another "
                                 "--out") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)          # closing drops the flock; the file may stay
            self.fd = None

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
