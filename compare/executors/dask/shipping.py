"""Instance files for Dask workers that cannot read them where the client does.

A puzzle given by reference (an XCSP3 file: ``path``, ``nbytes``, ``digest``)
is loaded by the worker that runs it. Where the file system is shared the
worker reads the file at the client's path. Otherwise the file's bytes go to
the cluster once:

* **Client** (``Shipments``): when the run starts, every worker is asked once
  (``client.run``, at most ``CHECK_S``) which of the run's files it can read at
  that path with the same size. A file some worker cannot read (or every file,
  if the answer does not come) is read here and scattered to the cluster when
  its first chunk is submitted: one Dask future per instance, released once all
  of its tasks are answered, or when the run ends. The chunks of such an
  instance carry the future's key.
* **Worker** (``localized``): a worker that can read the path uses it. One that
  cannot fetches the bytes (once per instance), checks their digest, writes them
  into ``FOLDER`` in its Dask local directory (removed with the worker) under
  the file's own name, and loads a copy of the reference pointed there: the
  name, digest and family are the file's, so rows, verdicts and cache entries
  are what a shared file system gives. Bytes that cannot be fetched or whose
  digest differs leave the reference as it was: its tasks fail on loading with
  the path's own error.
"""
from __future__ import annotations

import copy
import hashlib
import os
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CHECK_S = 30.0        # longest wait for the workers to say which files they can read
FETCH_S = 600.0       # longest wait for a worker to fetch one instance's bytes
FOLDER = "csp-compare-shipped"

_LOCAL: dict[tuple[str, str], str] = {}    # (worker folder, digest) -> path to load from
_LOCK = threading.Lock()


def is_reference(puzzle) -> bool:
    """A puzzle its worker loads from a file (it has ``load_input``, a path, a digest)."""
    return all(hasattr(puzzle, name) for name in ("load_input", "path", "digest", "nbytes"))


def readable(path: str, nbytes: int) -> bool:
    try:
        return os.stat(path).st_size == nbytes
    except OSError:
        return False


def unreadable(files: list[tuple[str, int]]) -> list[int]:
    """Which of ``(path, size)`` this worker cannot read (``Client.run`` calls it)."""
    return [index for index, (path, nbytes) in enumerate(files) if not readable(path, nbytes)]


class Shipments:
    """The client's side: which instances travel as bytes, their futures, their release."""

    def __init__(self, client, token: str, tasks: list, puzzles: dict, check_s: float = CHECK_S):
        self.client = client
        self.token = token
        self.sent: dict[str, int] = {}          # digest -> bytes scattered
        self._futures: dict[str, object] = {}
        self._left: Counter = Counter()        # unanswered tasks per shipped puzzle id
        self.ship: set[str] = set()             # puzzle ids whose bytes travel
        refs = {pid: puzzles[pid] for pid in {t.puzzle_id for t in tasks}
                if is_reference(puzzles[pid])}
        if not refs:
            return
        files = sorted({(p.path, p.nbytes) for p in refs.values()})
        lacking = {files[i] for i in self._ask(files, check_s)}
        self.ship = {pid for pid, p in refs.items() if (p.path, p.nbytes) in lacking}
        self._left.update(t.puzzle_id for t in tasks if t.puzzle_id in self.ship)

    def _ask(self, files: list, check_s: float) -> set[int]:
        """Indexes of the files some worker cannot read; all of them without an answer."""
        pool = ThreadPoolExecutor(1)
        try:
            found = pool.submit(self.client.run, unreadable, files, on_error="return")
            answers = found.result(timeout=check_s).values()
        except Exception:              # no answer in time, or none at all
            return set(range(len(files)))
        finally:
            pool.shutdown(wait=False)
        lacking = set()
        for answer in answers:
            lacking.update(range(len(files)) if isinstance(answer, BaseException) else answer)
        return lacking

    def keys(self, tasks: list, puzzles: dict) -> dict[str, str]:
        """``digest -> key`` of the shipped instances of ``tasks``, scattered at first need."""
        keys = {}
        for pid in {t.puzzle_id for t in tasks} & self.ship:
            puzzle = puzzles[pid]
            if puzzle.digest not in self._futures:
                try:
                    data = Path(puzzle.path).read_bytes()
                except OSError:          # gone here too: its tasks fail on loading
                    self.ship.discard(pid)
                    continue
                key = f"csp-file-{self.token}-{puzzle.digest}"
                self._futures[puzzle.digest] = self.client.scatter({key: data}, hash=False)[key]
                self.sent[puzzle.digest] = len(data)
            keys[puzzle.digest] = self._futures[puzzle.digest].key
        return keys

    def answered(self, task, puzzles: dict) -> None:
        """One task is answered: its instance's bytes go once none of its tasks is left."""
        if task.puzzle_id not in self._left:
            return
        self._left[task.puzzle_id] -= 1
        if self._left[task.puzzle_id] <= 0:
            del self._left[task.puzzle_id]
            digest = puzzles[task.puzzle_id].digest
            if not any(puzzles[pid].digest == digest for pid in self._left):
                future = self._futures.pop(digest, None)
                if future is not None:
                    future.release()

    def close(self) -> None:
        for future in self._futures.values():
            future.release()
        self._futures = {}


def localized(puzzles: dict, keys: dict[str, str], folder: str, fetch) -> dict:
    """``puzzles`` with each shipped reference this worker cannot read pointed at its
    copy in ``folder`` (``fetch(key)`` gives the bytes, on first need)."""
    if not keys:
        return puzzles
    out = dict(puzzles)
    for pid, puzzle in puzzles.items():
        key = keys.get(getattr(puzzle, "digest", None))
        if key is None or readable(puzzle.path, puzzle.nbytes):
            continue
        local = _copy_of(puzzle, key, folder, fetch)
        if local is not None:
            moved = copy.copy(puzzle)       # the reference's state, the cache setting with it
            object.__setattr__(moved, "path", local)
            out[pid] = moved
    return out


def _copy_of(puzzle, key: str, folder: str, fetch) -> str | None:
    """The path of this worker's copy of the file, written on first need."""
    with _LOCK:      # the workers of one process (``local:N``) fetch each file once
        local = _LOCAL.get((folder, puzzle.digest))
        if local is not None:
            return local
        try:
            data = fetch(key)
        except Exception:
            return None
        if len(data) != puzzle.nbytes or hashlib.blake2b(
                data, digest_size=len(puzzle.digest) // 2).hexdigest() != puzzle.digest:
            return None
        target = Path(folder, FOLDER, puzzle.digest, os.path.basename(puzzle.path))
        part = target.with_name(target.name + ".part")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            part.write_bytes(data)
            os.replace(part, target)
        except OSError:
            return None
        _LOCAL[(folder, puzzle.digest)] = str(target)
        return str(target)
