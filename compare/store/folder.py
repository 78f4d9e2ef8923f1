"""A run's output folder: chosen, checked, made and linked in one place, and read once.

Everything that reads or writes a run goes through a ``RunFolder``: the plan
makes it, the runner writes through its one store connection, and the
report, the Python API, the comparison of two runs and the benchmark report
read the settings, puzzles, sessions, results and tasks from it. So there is
one rule for which tasks are compared (``tasks``: the puzzle runs every
engine finished), and readers of one folder cannot disagree.

The connection opens on first use and stays open until ``close`` (or the
end of a ``with`` block); reads are cached, behind a lock, so a folder read
from several threads is read once.

A folder is only read unless a run prepares to write it: its results file
opens read-only (``Store``'s ``READ``), so a report, a comparison or a
history of folders it did not write changes nothing in them, and what the
file holds is checked on the way in (``compare.store.shapes``).
"""
from __future__ import annotations

import errno
import os
import threading
from datetime import datetime
from functools import cached_property
from pathlib import Path

import pandas as pd

from compare.errors import SettingsError, StorageError, StoreError
from compare.store.files import STORAGE_ERRNOS, RunFile, storage_fault
from compare.store.lock import FolderLock
from compare.store.store import READ, WRITE, ClosedOnExit, Store
from engines import ANSWERED_WORDS, SEARCH_STATS, Status

LATEST = "latest"      # reports/latest links to the newest run made under reports/

TASK_KEYS = ["puzzle_id", "source", "formulation", "engine", "mode"]
PAIR_KEYS = ["puzzle_id", "formulation", "mode"]     # one puzzle run, engine aside
# Making the folder: the disk's own faults are storage faults; any other refusal (no
# permission, /sys, a missing or file parent) means the place cannot hold a folder.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EIO})


def reports_root() -> Path:
    """Reports go under the current directory, wherever the package is installed."""
    return Path.cwd() / "reports"


def default_out(resume: bool) -> Path:
    """The command line's output folder when none is named: ``reports/<date-time>``,
    or the last run's (``reports/latest``) to resume."""
    if resume:
        return reports_root() / LATEST
    return reports_root() / datetime.now().strftime("%Y%m%d-%H%M%S")


def normal_out(out: Path | str) -> Path:
    """``--out`` with its ``.`` and ``..`` steps taken as written (``a/../r5/../r5b`` is
    ``r5b``), before anything is made: making the folder creates no stray ``a`` or ``r5``."""
    return Path(os.path.normpath(os.fspath(out)))


def check_out(out: Path, resume: bool) -> None:
    """An output folder a run may write: new, empty, or (resuming) its own."""
    if out.exists() and not out.is_dir():
        raise SettingsError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not resume:
        raise SettingsError(f"--out {out}: folder is not empty (use --resume to continue "
                            "a run there, or choose another folder)")


class RunFolder(ClosedOnExit):
    """One run's folder and its store connection (see the module docstring)."""

    CLOSE_FAULTS = (StorageError, StoreError)

    def __init__(self, path: Path | str, access: str = READ):
        """``access``: how the store opens until ``prepare`` makes it a run's to write:
        ``READ`` (nothing in the folder is written) or ``REBUILD`` (``report --out``: a
        file of an older schema is migrated in place)."""
        self.path = Path(path)
        self._access = access
        self._store: Store | None = None
        self._writer: FolderLock | None = None   # held from ``prepare`` to ``close``
        self._lock = threading.RLock()

    # ----- choosing and making ------------------------------------------------------------
    @classmethod
    def new(cls, out: Path | str | None) -> RunFolder:
        """The folder of a new run: ``out``, or reports/<date-time>; it must be free."""
        folder = cls(normal_out(out) if out else default_out(resume=False))
        check_out(folder.path, resume=False)
        return folder

    @classmethod
    def resumed(cls, out: Path | str | None) -> RunFolder:
        """The folder of a run to continue: ``out``, or reports/latest, with its settings."""
        folder = cls(normal_out(out) if out else default_out(resume=True))
        if not folder.exists() or _empty(folder.results_file):
            raise SettingsError(f"--resume: {folder.path} holds no run to continue")
        try:
            settings = folder.settings
        except BaseException:      # a damaged store: closed, so the folder stays as found
            folder.close()
            raise
        if not settings:
            folder.close()
            raise SettingsError(f"--resume: {folder.path} holds no run to continue (its "
                                "results file has no saved settings)")
        return folder

    @classmethod
    def existing(cls, path: Path | str) -> RunFolder:
        """A folder that holds a run's results file, to read back."""
        folder = cls(path)
        if not folder.exists():
            raise SettingsError(f"{path}: no results file there")
        return folder

    def exists(self) -> bool:
        return Store.exists(self.path)

    @property
    def results_file(self) -> Path:
        return self.path / RunFile.RESULTS

    def file(self, name: RunFile) -> Path:
        """Where one of the folder's files is (``RunFile.SUMMARY``, ...)."""
        return self.path / name

    def prepare(self, resume: bool) -> None:
        """Make the folder, lock it for this run alone (``FolderBusy`` if another writes
        it) and open its store; a folder that cannot take the results fails here, early.
        A new run under reports/ becomes reports/latest."""
        check_out(self.path, resume)       # again: time has passed since the first check
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:             # a full or read-only disk is storage (exit 6);
            if exc.errno in DISK_ERRNOS:   # a place the OS refuses for a folder is usage
                raise storage_fault(self.path, exc) from None
            raise SettingsError(f"--out {self.path}: cannot create folder "
                                f"({exc.strerror})") from None
        try:
            self._writer = FolderLock(self.path).acquire()
        except OSError as exc:
            if exc.errno in STORAGE_ERRNOS:
                raise storage_fault(self.path, exc) from None
            raise SettingsError(f"--out {self.path}: cannot create folder "
                                f"({exc.strerror})") from None
        with self._lock:       # a store opened to read (by ``resumed``) opens again to write
            reader, self._store = self._store, None
        if reader is not None:
            reader.close()
        try:
            _ = self.store
        except BaseException:
            self.close()
            raise
        root = reports_root()
        if self.path.parent.resolve() == root.resolve() and self.path.name != LATEST:
            _link_latest(root, self.path)

    def discard(self) -> None:
        """Remove a folder this run made and filled with nothing but an empty store, so a
        run that could not start (no cluster, no engine) leaves no trace behind."""
        try:
            with self:
                if self.store.count():
                    return
            out = self.path
            for path in out.iterdir():
                if not path.name.startswith(RunFile.RESULTS) and path.name != RunFile.LOCK:
                    return
            for path in out.iterdir():
                path.unlink()
            out.rmdir()
            latest = reports_root() / LATEST
            if latest.is_symlink() and not latest.exists():
                latest.unlink()
        except (OSError, StoreError, StorageError):
            pass

    # ----- the store ----------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """The run's one connection to its results file, opened on first use: to write
        once ``prepare`` holds the folder, read-only before (and for every reader)."""
        with self._lock:
            if self._store is None:
                access = WRITE if self._writer is not None else self._access
                self._store = Store(self.path, threads=True, access=access)
            return self._store

    def close(self) -> None:
        """Commit what is buffered, close the connection and let other writers in
        (reads stay cached)."""
        with self._lock:
            store, self._store = self._store, None
            writer, self._writer = self._writer, None
        try:
            if store is not None:
                store.close()
        finally:
            if writer is not None:
                writer.release()

    # ----- reading ------------------------------------------------------------------------
    def meta(self, key: str, default=None):
        with self._lock:
            return self.store.meta(key, default)

    @cached_property
    def results(self) -> pd.DataFrame:
        """Every stored task result, one row each, in the order they finished."""
        with self._lock:
            return self.store.frame()

    @cached_property
    def puzzles(self) -> dict[str, dict]:
        with self._lock:
            return self.store.puzzles()

    @cached_property
    def config(self) -> dict:
        """The run's settings and how it was started (written once, by its first session)."""
        return self.meta("config", {}) or {}

    @property
    def settings(self) -> dict:
        """What the run computes (the run settings as its first session saved them)."""
        return self.config.get("settings", {})

    @cached_property
    def runs(self) -> list[dict]:
        """The timing of each session, oldest first."""
        return self.meta("runs", [])

    @cached_property
    def sessions(self) -> list[dict]:
        """The environment of each invocation (machine, libraries, load, command)."""
        return self.meta("environment", [])

    @cached_property
    def calibration(self) -> dict | None:
        """The machine's speed sampled during the run (``compare.run.calibration``);
        None for a folder that holds none."""
        return self.meta("calibration") or None

    @cached_property
    def skipped(self) -> list[str]:
        """Input lines the run skipped as bad input."""
        return self.meta("skipped", [])

    @cached_property
    def planned(self) -> dict[str, int]:
        """Tasks planned per engine."""
        return self.meta("planned", {})

    def shortfall(self) -> dict[str, tuple[int, int]]:
        """Engines with fewer stored results than planned: engine -> (done, planned)."""
        done = self.results.groupby("engine").size()
        return {engine: (int(done.get(engine, 0)), int(n))
                for engine, n in self.planned.items() if done.get(engine, 0) < n}

    @cached_property
    def tasks(self) -> pd.DataFrame:
        """One row per task, repeats folded into medians, over the puzzle runs every
        engine finished (all of them, unless the run was cut short)."""
        return per_task(common_runs(self.results, self.settings.get("repeat"),
                                    len(self.config.get("engines_run", []))))


def _empty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size == 0
    except OSError:
        return False


def _link_latest(root: Path, out: Path) -> None:
    latest = root / LATEST
    try:
        if latest.is_symlink():
            latest.unlink()
        if not latest.exists():
            latest.symlink_to(out.name)
    except OSError:
        pass


# ----- the task set -----------------------------------------------------------------------
def common_runs(frame: pd.DataFrame, repeat: int | None = None,
                engines: int | None = None) -> pd.DataFrame:
    """Only the puzzle runs every engine finished (all repeats), so engines are
    compared on the same tasks even when a run was cut short. ``engines``: how
    many the run planned (default: those with any stored result)."""
    engines = max(engines or 0, frame["engine"].nunique())
    repeat = repeat or int(frame["repeat"].max() + 1 if len(frame) else 1)
    rows = frame.groupby(PAIR_KEYS, sort=False)["engine"].transform("size")
    return frame[rows == engines * repeat]


def per_task(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per task, repeats folded into medians (and their spread, ``iqr_s``)."""
    frame = frame.assign(wrong=frame["verified"].eq(False).fillna(False).astype(bool),
                         **{s: pd.to_numeric(frame[s]) for s in SEARCH_STATS if s in frame})
    if frame["repeat"].nunique() <= 1:
        return _mark_solved(frame.copy())
    grouped = frame.groupby(TASK_KEYS, sort=False)
    folded = grouped.agg(kind=("kind", "first"), size=("size", "first"),
                         clues=("clues", "first"), limit=("limit", "first"),
                         timeout=("timeout", "first"), build_s=("build_s", "median"),
                         solve_s=("solve_s", "median"), total_s=("total_s", "median"),
                         iqr_s=("total_s", lambda s: s.quantile(0.75) - s.quantile(0.25)),
                         **{s: (s, "median") for s in SEARCH_STATS if s in frame},
                         count=("count", "first"),
                         cpu_s=("cpu_s", "median"), peak_rss_mb=("peak_rss_mb", "max"),
                         wrong=("wrong", "any"), repeats=("repeat", "size"),
                         status=("status", fold_status))
    return _mark_solved(folded.reset_index())


def fold_status(statuses: pd.Series) -> str:
    """A task's status over its repeats: the most common one, but answered only when
    every repeat answered. A repeat that timed out or failed (a worker killed while
    compiling, say) is a fact about the task that the majority must not outvote."""
    unanswered = statuses[~statuses.isin(ANSWERED_WORDS)]
    return (unanswered if len(unanswered) else statuses).mode().iloc[0]


def _mark_solved(tasks: pd.DataFrame) -> pd.DataFrame:
    tasks["solved"] = tasks["status"].isin(ANSWERED_WORDS) & ~tasks["wrong"]
    tasks["attempted"] = tasks["status"] != Status.UNSUPPORTED.value
    tasks["par2_s"] = tasks["total_s"].where(tasks["solved"], 2 * tasks["timeout"])
    return tasks
