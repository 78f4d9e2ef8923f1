"""The results database's schema: its version, its tables, and how older files are brought up.

The version is written into every file (SQLite's ``user_version``), and a
file is opened by its version, as pyperf dispatches its loader on the format
version of its files: the current version is used as it is, an older one is
migrated one step at a time before anything else reads it (in place by a
writer, in a copy in memory by a reader, which writes nothing), and one this
code does not know (written by newer code) is refused in one line that names
both versions, before anything is written to it. A file that is not a run's
(``check_tables``) is refused the same way; what its tables hold is checked
against ``compare.store.shapes``.

Version 1 is the file as it was written before versions were stamped
(``user_version`` 0). Version 2 stores what the harness knows of how a
result came about as data (``fact``: a warm-up kill, a stand-in for a
timeout's later repeat), where version 1 had it only in the message text.
Version 3 stores how a task's input was loaded, untimed, by the worker
(``parse_s``, ``translate_s``, ``loaded_from``: memory, cache or file), for
inputs loaded where they run (XCSP3 files); NULL for the others.
Version 4 stores the search statistics beyond nodes and backtracks
(``engines.SEARCH_STATS``: ``failures``, ``propagations``, ``restarts``,
``nogoods``), NULL where the engine does not report them and in the rows of
older files.
"""
from __future__ import annotations

import sqlite3
from typing import Callable

from compare.errors import SchemaError

VERSION = 4              # what this code writes
UNSTAMPED = 1            # a file with tables but no version stamp

# Column order of the table and of results.csv.
COLUMNS = (
    "puzzle_id", "source", "kind", "size", "clues", "engine", "formulation", "mode",
    "limit", "timeout", "repeat", "status", "verified", "build_s", "solve_s",
    "total_s", "nodes", "backtracks", "library", "version", "count", "answer",
    "reason", "message", "stats", "finished_at", "cpu_s", "peak_rss_mb", "host", "traceback",
    "fact", "parse_s", "translate_s", "loaded_from",
    "failures", "propagations", "restarts", "nogoods",
)
KEY = ("puzzle_id", "formulation", "engine", "mode", "repeat")
PUZZLE_COLUMNS = ("puzzle_id", "source", "origin", "line", "kind", "size", "clues",
                  "formulations", "text", "digest")

TYPES = {"size": "INTEGER", "clues": "INTEGER", "limit": "INTEGER", "repeat": "INTEGER",
         "verified": "INTEGER", "nodes": "INTEGER", "backtracks": "INTEGER",
         "count": "INTEGER", "timeout": "REAL", "build_s": "REAL", "solve_s": "REAL",
         "total_s": "REAL", "line": "INTEGER", "cpu_s": "REAL", "peak_rss_mb": "REAL",
         "parse_s": "REAL", "translate_s": "REAL",
         **dict.fromkeys(("failures", "propagations", "restarts", "nogoods"), "INTEGER")}


def _ddl(table: str, columns, extra: str) -> str:
    cols = ", ".join(f'"{c}" {TYPES.get(c, "TEXT")}' for c in columns)
    return f"CREATE TABLE IF NOT EXISTS {table} ({cols}, {extra})"


TABLES = (
    _ddl("results", COLUMNS, "UNIQUE ({})".format(", ".join(f'"{k}"' for k in KEY))),
    _ddl("puzzles", PUZZLE_COLUMNS, 'PRIMARY KEY ("puzzle_id")'),
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
)


def stamped(db: sqlite3.Connection) -> int:
    """The file's schema version: its stamp, ``UNSTAMPED`` for a file written before
    stamps, or 0 for a file with no tables yet (a new one)."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version:
        return version
    tables = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
                        "AND name = 'results'").fetchone()[0]
    return UNSTAMPED if tables else 0


# What makes a file a run's: its tables, each with the columns every version has.
RUN_TABLES = {"results": set(KEY) | {"status"}, "meta": {"key", "value"},
              "puzzles": {"puzzle_id"}}


def check_tables(db: sqlite3.Connection, path, new: bool = False) -> None:
    """Refuse a file that is not a run's (another program's database), before anything
    reads it as one or adds a table to it. ``new``: a file with no tables yet is
    welcome (a run about to make them)."""
    found = {name: {row[1] for row in db.execute(f'PRAGMA table_info("{name}")')}
             for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite%'")}
    if new and not found:
        return
    foreign = sorted(set(found) - set(RUN_TABLES))
    missing = [t for t in ("results", "meta") if t not in found]
    lacking = [f"{table}.{column}" for table, columns in RUN_TABLES.items() if table in found
               for column in sorted(columns - found[table])]
    if foreign or missing or lacking:
        why = "; ".join(filter(None, (
            foreign and "tables a run does not have: " + ", ".join(foreign[:5]),
            missing and "no table " + " or ".join(missing),
            lacking and "no column " + ", ".join(lacking[:5]))))
        raise SchemaError(f"{path}: not a run's results database ({why}); nothing was "
                          "written to it")


def check(version: int, path) -> None:
    """Refuse a version this code cannot read, before anything touches the file."""
    if version > VERSION:
        raise SchemaError(f"{path}: results schema version {version}, but this code reads "
                          f"version {VERSION} (and migrates older ones); read it with the "
                          "code that wrote it")


def bring_up(db: sqlite3.Connection, version: int) -> None:
    """Create a new file's tables, or migrate an older file's to ``VERSION``; commits."""
    if version == 0:
        for table in TABLES:
            db.execute(table)
    else:
        for step in range(version, VERSION):
            MIGRATIONS[step](db)
    if version != VERSION:
        db.execute(f"PRAGMA user_version = {VERSION}")
    db.commit()


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Tables and columns the file lacks are added (NULL in the rows it holds)."""
    for table in TABLES:
        db.execute(table)
    for table, columns in (("results", COLUMNS), ("puzzles", PUZZLE_COLUMNS)):
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for column in columns:
            if column not in have:
                db.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" '
                           f'{TYPES.get(column, "TEXT")}')


# The message texts that carried these facts in version 1, read once, here, to store them.
_V1_FACTS = {"warmup_killed": "% while its shape was warming up%",
             "not_repeated": "not run again: timed out on repeat%"}


def _v1_to_v2(db: sqlite3.Connection) -> None:
    _add_missing_columns(db)
    for fact, text in _V1_FACTS.items():
        db.execute("UPDATE results SET fact = ? WHERE fact IS NULL AND message LIKE ?",
                   (fact, text))


# version -> the step that brings a file of that version to the next one
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    UNSTAMPED: _v1_to_v2, 2: _add_missing_columns, 3: _add_missing_columns}
