"""Translated instances kept on disk, so a file is parsed and translated once, not per run.

A file-per-instance input (an XCSP3 file) is loaded where its task runs, by
the worker, and loading it costs seconds to minutes (pycsp3's parser). The
result is kept here, keyed by the file's content digest, the translator's
version and the formulation, so a second run, a resumed run, another worker
or the parent's judge reads it back instead of parsing again.

An entry is one file: a magic line, the blake2b checksum of the payload, the
payload (a pickle of what the format keeps). It is written to a temporary
file beside it and renamed into
place (``os.replace``), so two processes writing the same entry at once
leave one whole entry, never a mix. An entry whose checksum does not match
(a truncated or garbled file) is dropped and rebuilt. Reading an entry
touches its modification time; past the size cap the least recently used
entries are removed. A folder that cannot be written (read-only, full)
turns the cache off for the process, with one warning line.

Where: ``COMPARE_INSTANCE_CACHE`` (a folder, or ``off``: nothing kept anywhere), else the user's
cache folder (``platformdirs``); the cap is ``COMPARE_INSTANCE_CACHE_MB``
(default ``DEFAULT_MB``). The run's ``--cache``, ``--no-cache`` and
``--cache-size`` set these (``configure``); a reference carries the setting of the process that made
its task to the worker that loads it (``settings``).
"""
from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["DEFAULT_MB", "InstanceCache", "configure", "current", "settings"]

FOLDER_ENV = "COMPARE_INSTANCE_CACHE"
SIZE_ENV = "COMPARE_INSTANCE_CACHE_MB"
OFF = "off"
DEFAULT_MB = 2048
MAGIC = b"csp-compare instance cache 1\n"
SUFFIX = ".entry"


def default_folder() -> Path:
    import platformdirs
    return Path(platformdirs.user_cache_dir("csp-compare")) / "instances"


def configure(folder: str | os.PathLike | None = None, enabled: bool = True,
              size_mb: float | None = None) -> None:
    """Set where this process and the workers it starts keep translated instances.

    Not ``enabled`` (``--no-cache``), nothing is read from an earlier run or kept
    for a later one: the run gets a folder of its own, removed when this process
    ends, so that its workers still hand what they loaded to the parent's judge
    and the parent never parses an instance."""
    if not enabled:
        os.environ[FOLDER_ENV] = _private_folder()
    elif folder is not None:
        os.environ[FOLDER_ENV] = os.fspath(folder)
    if size_mb is not None:
        os.environ[SIZE_ENV] = f"{float(size_mb):g}"


_CURRENT: dict[tuple, "InstanceCache | None"] = {}
_PRIVATE: list[str] = []


def _private_folder() -> str:
    if not _PRIVATE:
        _PRIVATE.append(tempfile.mkdtemp(prefix="csp-compare-instances-"))
        atexit.register(shutil.rmtree, _PRIVATE[0], True)
    return _PRIVATE[0]


def settings() -> tuple[str, str]:
    """This process's cache setting, as a reference carries it to the worker that
    loads it: a worker started before ``configure`` still uses the run's cache."""
    return os.environ.get(FOLDER_ENV, ""), os.environ.get(SIZE_ENV, "")


def current(setting: tuple[str, str] | None = None) -> "InstanceCache | None":
    """The cache ``setting`` names (by default this process's), or None when off;
    one object per process and setting, so its one warning is said once."""
    key = tuple(setting) if setting else settings()
    named, size = key
    if key not in _CURRENT:
        if named == OFF:
            _CURRENT[key] = None
        else:
            try:
                cap = float(size) if size else DEFAULT_MB
            except ValueError:
                cap = DEFAULT_MB
            _CURRENT[key] = InstanceCache(Path(named) if named else default_folder(), cap)
    return _CURRENT[key]


class InstanceCache:
    """One cache folder: ``get`` and ``put`` of payload objects by key text."""

    def __init__(self, folder: Path, size_mb: float = DEFAULT_MB):
        self.folder = Path(folder)
        self.cap_bytes = int(size_mb * (1 << 20))
        self.broken = False      # the folder cannot be written: caching is off here
        self.warned = False

    def _path(self, key: str) -> Path:
        name = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
        return self.folder / f"{name}{SUFFIX}"

    def _warn(self, text: str) -> None:
        if not self.warned:
            self.warned = True
            print(f"warning: instance cache: {text}", file=sys.stderr)

    def get(self, key: str):
        """The payload stored under ``key``, or None (absent, unreadable or damaged)."""
        if self.broken:
            return None
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head = len(MAGIC)
        payload = memoryview(data)[head + 32:]     # not a copy: entries reach 100 MB
        if (not data.startswith(MAGIC)
                or hashlib.blake2b(payload, digest_size=32).digest() != data[head:head + 32]):
            self._warn(f"{path.name} is damaged; dropped and rebuilt")
            self._remove(path)
            return None
        try:
            value = pickle.loads(payload)
        except Exception:
            self._warn(f"{path.name} cannot be read; dropped and rebuilt")
            self._remove(path)
            return None
        try:
            os.utime(path)           # recently used: trimmed last
        except OSError:
            pass
        return value

    def put(self, key: str, value) -> bool:
        """Store ``value`` under ``key``, atomically; False if the folder cannot take it."""
        if self.broken:
            return False
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        data = MAGIC + hashlib.blake2b(payload, digest_size=32).digest() + payload
        temp = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.folder, prefix=".part-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, self._path(key))
        except OSError as exc:
            if temp is not None:
                self._remove(Path(temp))
            self.broken = True
            self._warn(f"cannot write to {self.folder} ({exc.strerror or exc}); "
                       "instances are loaded without it")
            return False
        self.trim()
        return True

    def trim(self) -> None:
        """Remove the least recently used entries until the folder is under its cap."""
        entries = []
        try:
            for path in self.folder.iterdir():
                if path.name.endswith(SUFFIX):
                    stat = path.stat()
                    entries.append((stat.st_mtime, stat.st_size, path))
        except OSError:
            return
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries, key=lambda e: e[0]):
            if total <= self.cap_bytes:
                break
            self._remove(path)
            total -= size

    @staticmethod
    def _remove(path: Path) -> None:
        try:
            path.unlink()
        except OSError:
            pass
