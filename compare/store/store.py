"""Results in an SQLite file in the output folder, one row per finished task.

Rows are committed in small batches, at most ``FLUSH_S`` apart (WAL journal,
so a commit is a cheap append): a killed run loses at most that last fraction
of a second of results, and ``--resume`` runs only the tasks whose key is
missing. The key is unique in the table, so a
resumed run cannot add duplicates even if asked twice.
"""
from __future__ import annotations

import json
import sqlite3
import stat
import time
from contextlib import closing, contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Self
from urllib.parse import quote

from compare.errors import StorageError, StoreError
from compare.store import schema, shapes
from compare.store.files import (  # noqa: F401  (importers find them here too)
    STORAGE_ERRNOS,
    RunFile,
    atomic_write,
    storage_fault,
    write_probe,
)
from compare.store.schema import COLUMNS, KEY, PUZZLE_COLUMNS
from engines import Status

DB_NAME = RunFile.RESULTS      # the file in the run folder
FLUSH_S = 0.25
WRITE, READ, REBUILD = "write", "read", "rebuild"     # a ``Store``'s access


def _regular_file(path: Path) -> None:
    """A results file is a regular file (or a link to one): a device, a FIFO or a
    folder in its place is refused before SQLite opens it."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise StoreError(f"{path}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "a device, FIFO or socket"
        raise StoreError(f"{path}: {what}, not a run's results database; nothing was "
                         "read or written")


def _migrated_in_memory(uri: str, version: int, threads: bool) -> sqlite3.Connection:
    """A copy of the file in memory, brought up to this code's schema: an older run is
    read as this code reads runs, and its file stays as it was."""
    memory = sqlite3.connect(":memory:", check_same_thread=not threads)
    with closing(sqlite3.connect(uri, uri=True)) as source:
        source.backup(memory)
    schema.bring_up(memory, version)
    return memory
_IN_ORDER = itemgetter(*COLUMNS)   # a row's values in column order, in one C call


class ClosedOnExit:
    """``with`` closes it. When a fault is already on its way out, a fault of the
    closing itself (``CLOSE_FAULTS``) is dropped, so the first one is the one seen."""

    CLOSE_FAULTS: tuple[type[BaseException], ...] = (StorageError,)

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.close()
            return
        try:
            self.close()
        except self.CLOSE_FAULTS:
            pass


class Store(ClosedOnExit):
    CLOSE_FAULTS = (StorageError, sqlite3.Error)

    def __init__(self, folder: Path | str, threads: bool = False, access: str = WRITE):
        """``threads``: the connection may be used from another thread than the one that
        opened it (its owner serialises the use, as ``RunFolder`` does). ``access``:
        ``WRITE`` for a run (the file made or migrated in place), ``READ`` for a reader
        (the file only read; an older schema migrated in memory), ``REBUILD`` for
        ``report --out`` (an older schema migrated in place, then only read)."""
        self.path = Path(folder) / RunFile.RESULTS
        self.access = access
        try:
            if access == WRITE:
                self._open(threads)
            else:
                self._open_reading(threads, migrate=access == REBUILD)
        except sqlite3.OperationalError as exc:
            if access == WRITE:
                raise self._fault(exc) from None
            raise StoreError(f"{self.path}: cannot be read ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a readable results database ({exc})") from None

    def _fault(self, exc: BaseException) -> StorageError:
        """A write SQLite could not make; says why, from the OS where SQLite is vague."""
        if isinstance(exc, sqlite3.Error):
            probe = write_probe(self.path.parent)
            if probe is not None:
                return storage_fault(self.path, probe)
        return storage_fault(self.path, exc)

    @contextmanager
    def _writing(self):
        """SQLite and OS write errors become one ``StorageError``; the batch is rolled back."""
        try:
            yield
        except (sqlite3.OperationalError, OSError) as exc:
            try:
                self.db.rollback()
            except sqlite3.Error:
                pass
            raise self._fault(exc) from None

    def _open(self, threads: bool) -> None:
        existed = self.path.exists()
        if existed:
            _regular_file(self.path)
            existed = self.path.stat().st_size > 0
        self.db = sqlite3.connect(self.path, check_same_thread=not threads)
        if existed:
            self._check_intact()
        version = schema.stamped(self.db)
        try:
            if existed:
                schema.check_tables(self.db, self.path, new=version == 0)
            schema.check(version, self.path)
        except StoreError:
            self.db.close()
            raise
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        schema.bring_up(self.db, version)
        self._ready()
        if existed:
            try:
                self._check_meta()
            except BaseException:
                self.db.close()
                raise

    def _open_reading(self, threads: bool, migrate: bool) -> None:
        """Open the file read-only (SQLite's ``mode=ro``): nothing is created or written,
        not even its journal, unless ``migrate`` finds an older schema to bring up.

        The file must be a regular file holding a run's tables: a device, a FIFO, an
        empty file or another program's database is refused in one line. A file
        closed cleanly (no ``-wal`` or ``-journal`` beside it) is opened ``immutable``,
        so SQLite makes no ``-shm`` file either; one left by a killed or running run
        is read with its journal, which must be a regular file (not a link).
        """
        path = self.path
        _regular_file(path)
        if path.stat().st_size == 0:
            raise StoreError(f"{path}: an empty file (0 bytes), not a run's results "
                             "database; nothing was written to it")
        real = path.resolve()
        journals = [Path(f"{real}{end}") for end in ("-wal", "-journal", "-shm")]
        for side in journals:
            if side.is_symlink() or (side.exists() and not side.is_file()):
                raise StoreError(f"{side}: the results database's journal is not a regular "
                                 "file; nothing was read or written")
        live = any(side.exists() for side in journals[:2])
        uri = f"file:{quote(str(real))}?mode=ro" + ("" if live else "&immutable=1")
        self.db = sqlite3.connect(uri, uri=True, check_same_thread=not threads)
        try:
            self._check_intact()
            version = schema.stamped(self.db)
            schema.check_tables(self.db, path)
            schema.check(version, path)
        except BaseException:
            self.db.close()
            raise
        if version < schema.VERSION:
            self.db.close()
            if migrate:        # report --out: the folder's file brought up, once
                try:
                    with closing(sqlite3.connect(path)) as db:
                        schema.bring_up(db, version)
                except sqlite3.OperationalError as exc:
                    raise self._fault(exc) from None
                self._open_reading(threads, migrate=False)
                return
            self.db = _migrated_in_memory(uri, version, threads)
        self._ready()
        try:
            self._check_meta()
        except BaseException:
            self.db.close()
            raise

    def _check_meta(self) -> None:
        """Every meta row of the shape the run writes (``shapes``), checked once at the
        door, so no reader meets a forged value later, half-way through a report."""
        with self._reading():
            rows = self.db.execute("SELECT key, value FROM meta").fetchall()
        for key, value in rows:
            shapes.parse(value, key, self.path)

    def _ready(self) -> None:
        names = ", ".join(f'"{c}"' for c in COLUMNS)
        marks = ", ".join("?" * len(COLUMNS))
        self._insert = f"INSERT OR IGNORE INTO results ({names}) VALUES ({marks})"
        self._buffer: list[list] = []
        self._puzzle_buffer: list[list] = []
        # An upsert, not a replace: a stored puzzle keeps its place (rowid), so the
        # table stays in input order while a resumed run stores its rows again.
        self._insert_puzzle = "INSERT INTO puzzles ({}) VALUES ({}) ON CONFLICT ({}) DO " \
            "UPDATE SET {}".format(
                ", ".join(f'"{c}"' for c in PUZZLE_COLUMNS), ", ".join("?" * len(PUZZLE_COLUMNS)),
                '"puzzle_id"', ", ".join(f'"{c}" = excluded."{c}"' for c in PUZZLE_COLUMNS[1:]))
        self._flushed = time.perf_counter()

    def _check_intact(self) -> None:
        """A damaged file is refused before anything is written to it or read from it.

        ``PRAGMA quick_check`` reads every page: a file garbled in its middle
        otherwise opens fine and fails on the first read that reaches the
        damage, after a report had begun. A fault of the disk itself
        (``OperationalError``) is left to the caller, as a storage fault.
        """
        try:
            found = [row[0] for row in self.db.execute("PRAGMA quick_check(3)")]
        except sqlite3.OperationalError:
            raise                  # the disk, not the file: a storage fault (exit 6)
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise self._damaged(exc) from None
        if found != ["ok"]:
            self.db.close()
            detail = " ".join("; ".join(map(str, found)).split())
            detail = detail if len(detail) <= 160 else detail[:157] + "..."
            raise StoreError(f"{self.path}: damaged results database ({detail}); "
                             "nothing was written to it")

    def _damaged(self, exc: BaseException) -> StoreError:
        return StoreError(f"{self.path}: not a readable results database ({exc})")

    @contextmanager
    def _reading(self):
        """A read that meets damage is a ``StoreError`` naming the file, not a traceback."""
        try:
            yield
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    @staticmethod
    def exists(folder: Path | str) -> bool:
        return (Path(folder) / RunFile.RESULTS).exists()

    # ----- writing -------------------------------------------------------------
    def add(self, row: dict) -> None:
        """One finished task; committed with the others of the last ``FLUSH_S``."""
        try:
            values = _IN_ORDER(row)       # every column named: the runner's rows
        except KeyError:                  # a partial row: the missing columns are NULL
            values = [row.get(c) for c in COLUMNS]
        self._buffer.append(values)
        if time.perf_counter() - self._flushed >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        if self._buffer or self._puzzle_buffer:
            with self._writing():       # puzzles first: a stored result's puzzle is stored
                if self._puzzle_buffer:
                    self.db.executemany(self._insert_puzzle, self._puzzle_buffer)
                if self._buffer:
                    self.db.executemany(self._insert, self._buffer)
                self.db.commit()
            self._buffer, self._puzzle_buffer = [], []
        self._flushed = time.perf_counter()

    def add_puzzles(self, rows: list[dict]) -> None:
        """Puzzle rows, stored now (with whatever results wait)."""
        self.stage_puzzles(rows)
        self.flush()

    def stage_puzzles(self, rows: list[dict]) -> None:
        """Puzzle rows, committed with the next results, in the same transaction.

        A sweep's 100,000 puzzle rows took the parent over a second; stored
        ahead of the run, the workers waited for them.
        """
        self._puzzle_buffer.extend([r.get(c) for c in PUZZLE_COLUMNS] for r in rows)

    def refute(self, puzzle_id: str, reason: str) -> list[str]:
        """Mark stored "unsatisfiable" claims on a puzzle wrong; the engines that made them."""
        self.flush()
        claims = "FROM results WHERE puzzle_id = ? AND status = ? AND verified = 1"
        unsat = (puzzle_id, Status.UNSAT.value)
        engines = [r[0] for r in self.db.execute(f"SELECT engine {claims}", unsat)]
        if engines:
            with self._writing():
                self.db.execute(f"UPDATE results SET verified = 0, reason = ? "
                                f"WHERE rowid IN (SELECT rowid {claims})", (reason, *unsat))
                self.db.commit()
        return engines

    def set_meta(self, key: str, value) -> None:
        with self._writing():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                            (key, json.dumps(value)))
            self.db.commit()

    # ----- reading -------------------------------------------------------------
    def meta(self, key: str, default=None):
        with self._reading():
            found = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if found is None:
            return default
        return shapes.parse(found[0], key, self.path)

    def done_keys(self) -> set[tuple]:
        self.flush()
        keys = ", ".join(f'"{k}"' for k in KEY)
        return {tuple(r) for r in self.db.execute(f"SELECT {keys} FROM results")}

    def solved_puzzles(self) -> dict[str, str]:
        """Puzzle id -> an engine whose stored answer to it was verified."""
        self.flush()
        return dict(self.db.execute(
            "SELECT puzzle_id, MIN(engine) FROM results WHERE status = ? "
            "AND verified = 1 GROUP BY puzzle_id", (Status.SOLVED.value,)))

    def unsat_claims(self) -> set[str]:
        """Puzzles with a stored "unsatisfiable" claim that still stands (verified)."""
        self.flush()
        return {r[0] for r in self.db.execute(
            "SELECT DISTINCT puzzle_id FROM results WHERE status = ? "
            "AND verified = 1", (Status.UNSAT.value,))}

    def timeouts(self) -> list[dict]:
        """The stored timeouts, earliest repeat first (to resume without repeating them)."""
        self.flush()
        cursor = self.db.execute("SELECT * FROM results WHERE status = ? "
                                 "ORDER BY \"repeat\"", (Status.TIMEOUT.value,))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def count(self) -> int:
        self.flush()
        return self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def frame(self):
        """All results as a long-format DataFrame, in the order they finished."""
        import pandas as pd
        self.flush()
        try:
            frame = pd.read_sql_query("SELECT * FROM results ORDER BY rowid", self.db)
        except Exception as exc:     # pandas wraps SQLite's error in its own
            cause = exc.__cause__ or exc.__context__ or exc
            if isinstance(cause, sqlite3.DatabaseError) and \
                    not isinstance(cause, sqlite3.OperationalError):
                raise self._damaged(cause) from None
            raise
        shapes.check_results(frame, self.path)
        frame["verified"] = frame["verified"].map({1: True, 0: False}).astype("boolean")
        return frame

    def puzzles(self) -> dict[str, dict]:
        with self._reading():
            cur = self.db.execute("SELECT * FROM puzzles")
            names = [d[0] for d in cur.description]
            return {row[0]: dict(zip(names, row)) for row in cur}

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.db.close()

