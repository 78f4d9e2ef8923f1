"""The files of a run folder, named once, and how every command writes a file safely.

Only ``compare.store`` names what a run folder holds: the results database
the run writes, and the files its report makes from it. A reader or writer
elsewhere asks for ``RunFile.SUMMARY`` (or a ``RunFolder``'s paths), so a
renamed file is renamed in one place.
"""
from __future__ import annotations

import errno
import os
import secrets
from enum import StrEnum
from pathlib import Path
from typing import Callable

from compare.errors import StorageError


class RunFile(StrEnum):
    """A run folder's files; the value is the file's name in the folder."""
    RESULTS = "results.sqlite"      # the run's results: the one file a run writes
    LOCK = "run.lock"               # held by the one process writing the folder
    CSV = "results.csv"
    PARQUET = "results.parquet"
    SUMMARY = "summary.md"
    SUMMARY_JSON = "summary.json"
    META = "meta.json"
    PAGE = "report.html"
    CACTUS = "cactus.png"
    SCATTER = "scatter.png"
    PROFILE = "profile.png"
    COMPARE = "compare.md"          # report --compare A B --out DIR writes these there
    COMPARE_JSON = "compare.json"
    BENCH = "bench.md"              # a benchmark part's verdicts


# errno values that mean the storage, not the program, is at fault
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO,
                            errno.EACCES, errno.EPERM})


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def storage_fault(path, exc: BaseException) -> StorageError:
    """A ``StorageError`` for ``path`` from an ``OSError`` or an SQLite error."""
    cause = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return StorageError(f"{path}: cannot write ({cause})")


def atomic_write(path: Path | str, write: Callable[[Path], object]) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then rename it over ``path``.

    A full disk or a kill mid-write leaves the previous file whole (or no file),
    never a truncated one; a failure is a ``StorageError``. The rename replaces
    whatever has the name, a symbolic link included, never what a link points
    to; the temporary file is made new (``O_EXCL``), so no link planted under
    its name is followed either.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666))
    except OSError as exc:
        raise storage_fault(path, exc) from None
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise storage_fault(path, exc) from None


def write_text(path: Path | str, text: str) -> None:
    """``text`` into ``path`` (UTF-8), whole or not at all (``atomic_write``).

    A file name that is not UTF-8 (its bytes kept as surrogate escapes) is
    written with those bytes shown escaped (``\\xff``): the file stays UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_probe(folder: Path) -> OSError | None:
    """Why the OS refuses a write in ``folder`` right now, if it does."""
    probe = folder / f".write-probe-{os.getpid()}"
    try:
        with open(probe, "wb") as handle:
            handle.write(b"\0" * 4096)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        return exc
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    return None
