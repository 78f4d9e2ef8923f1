"""A damaged numba disk cache is discarded and rebuilt, with one warning.

The compiled kernels are cached on disk next to their modules
(``kernel/__pycache__``). A file there that was cut short (a full disk, a
killed compile) or garbled does not make numba compile afresh: loading it
raises (``EOFError``, ``UnpicklingError``, ``RuntimeError: LLVM bitcode
parsing error``) on the first call of the kernel, and every numba task of a
run would be an error. Any exception raised while numba loads a cache entry
(its traceback passes through ``numba.core.caching``) is taken as such
damage: the kernel modules' cache files are removed and the call made again,
which compiles and writes a fresh cache.

Worker processes meet the damage together; an exclusive lock on a file in
the cache folder makes the first one rebuild while the others wait, and they
then load the rebuilt cache. So a run says it once, on stderr, and compiles
once. The same lock (``exclusive``) lets processes that fill an empty cache
at the same time (``prepare``) compile once: the first compiles, the others
load what it wrote. Where the folder cannot be written numba keeps its cache
elsewhere, or compiles in memory (``NUMBA_CACHE_DIR`` chooses the place).
"""
from __future__ import annotations

import os
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:          # not on Windows: each process rebuilds on its own there
    fcntl = None

KERNEL_PACKAGE = "engines.backtracking.compiled.kernel"
LOCK_NAME = ".csp-compare-rebuild.lock"
_warned = False


def healing(call, *args):
    """``call(*args)``; after a failure to load the disk cache, once more on a fresh one."""
    try:
        return call(*args)
    except Exception as exc:
        if not from_cache(exc):
            raise
        damage = exc
    folders = cache_folders()
    with exclusive(folders):
        try:                   # another process may have rebuilt it while this one waited
            return call(*args)
        except Exception as exc:
            if not from_cache(exc):
                raise
            damage = exc
        removed = discard(folders)
        warn(damage, removed, folders)
        return call(*args)


def from_cache(exc: BaseException) -> bool:
    """Whether ``exc`` (or one it came from) was raised loading a numba cache entry."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        for frame in traceback.extract_tb(exc.__traceback__):
            if Path(frame.filename).parts[-3:] == ("numba", "core", "caching.py"):
                return True
        exc = exc.__cause__ or exc.__context__
    return False


def kernel_dispatchers() -> list:
    """The compiled functions of the kernel modules loaded in this process."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return []
    found = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == KERNEL_PACKAGE or
                                  name.startswith(KERNEL_PACKAGE + ".")):
            continue
        found += [v for v in vars(module).values() if isinstance(v, Dispatcher)]
    return found


def cache_folders() -> dict[Path, set[str]]:
    """Each folder holding the kernel's cache, with the module files cached there."""
    folders: dict[Path, set[str]] = {}
    for dispatcher in kernel_dispatchers():
        try:
            folder = Path(dispatcher.stats.cache_path)
            stem = Path(dispatcher.py_func.__code__.co_filename).stem
        except Exception:      # a function without a disk cache
            continue
        folders.setdefault(folder, set()).add(stem)
    return folders


def discard(folders: dict[Path, set[str]]) -> int:
    """Remove the kernel modules' index and data files; how many went."""
    removed = 0
    for folder, stems in folders.items():
        for stem in stems:
            for path in list(folder.glob(f"{stem}.*.nbi")) + list(folder.glob(f"{stem}.*.nbc")):
                try:
                    path.unlink()
                    removed += 1
                except OSError:
                    pass
    return removed


def warn(damage: BaseException, removed: int, folders) -> None:
    """One line on stderr, once per process."""
    global _warned
    if _warned:
        return
    _warned = True
    where = ", ".join(str(f) for f in folders) or "numba's cache folder"
    cause = " ".join(f"{type(damage).__name__}: {damage}".split())[:160]
    print(f"warning: the numba kernel's disk cache in {where} could not be read ({cause}); "
          f"{removed} cache files discarded, compiling afresh", file=sys.stderr, flush=True)


def on_disk(dispatchers) -> bool:
    """Whether numba's disk cache holds an entry for each of ``dispatchers``, fresh for
    its source file, in this numba version: a cheap look at each index file, no
    compiling and no loading. Where numba's cache cannot be read so (another numba
    version, no disk cache), False: the caller then compiles, which is always safe.
    """
    for dispatcher in dispatchers:
        try:                   # numba's own reader: it checks the version and the stamp
            if not dispatcher._cache._cache_file._load_index():
                return False
        except Exception:
            return False
    return True


_held = threading.local()     # the lock is this thread's already (``healing`` in ``prepare``)


@contextmanager
def exclusive(folders=None):
    """An exclusive lock on a file in the (first) cache folder, where one can be made.

    Held by one process at a time across the machine; taken again inside
    itself (a damaged entry met while preparing) it is already held.
    """
    if getattr(_held, "on", False):
        yield
        return
    handle = None
    if fcntl is not None:
        for folder in (cache_folders() if folders is None else folders):
            try:
                os.makedirs(folder, exist_ok=True)
                handle = open(os.path.join(folder, LOCK_NAME), "a")
                fcntl.flock(handle, fcntl.LOCK_EX)
                break
            except OSError:
                if handle is not None:
                    handle.close()
                handle = None
    _held.on = True
    try:
        yield
    finally:
        _held.on = False
        if handle is not None:
            handle.close()         # closing releases the lock
