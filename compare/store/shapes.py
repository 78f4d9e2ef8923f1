"""What a run's stored data may look like, checked where a folder is read.

The results file is data a user can edit, copy or forge; the report, the
comparison of two runs and their history read it as if this code wrote it.
So its meta rows (``check_meta``) and its result rows (``check_results``)
are checked when they are read, against one description of their shapes,
kept beside the schema version (``schema.VERSION``): types, ranges, finite
numbers and a bounded nesting. A value of another shape is refused as a
``StoreError`` in one line naming the file, the key or column and what was
expected, before a report, a plot or a verdict meets it.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from compare.errors import SettingsError, StoreError
from compare.limits import RANGES, check_setting
from engines import SEARCH_STATS, Status

if TYPE_CHECKING:
    import pandas as pd

MAX_DEPTH = 32            # nesting of a stored JSON value (the run writes 4 at most)
MAX_NUMBER = 1e18         # any stored number: beyond it, no count or time this code makes
MAX_SECONDS = 1e7         # a stored time (s): beyond four months, a forged value
MAX_MB = 1e9              # a stored memory peak (MB)
MAX_COUNT = 2 ** 63 - 1   # nodes, backtracks, search statistics, solutions: SQLite's integers


def parse(text, key: str, path) -> Any:
    """A meta row's JSON text as a value, or a ``StoreError`` naming the key."""
    def no_constant(name):
        raise ValueError(f"{name} where a finite number is expected")
    try:
        value = json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise StoreError(f"{path}: the run's stored {key!r} is nested deeper than "
                         f"{MAX_DEPTH} levels; the file was edited or damaged") from None
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{path}: the run's stored {key!r} is not valid JSON "
                         f"({exc}); the file was edited or damaged") from None
    return check_meta(key, value, path)


# ----- meta rows -------------------------------------------------------------------------
class _Refused(Exception):
    """A value of the wrong shape: ``where`` (a dotted key) and what was expected."""

    def __init__(self, where: str, value, expected: str):
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        super().__init__(f"{where}: {shown}, expected {expected}")


def check_meta(key: str, value, path) -> Any:
    """``value`` as stored under ``key``, if it has the shape the run writes there."""
    try:
        _plain(value, key)
        check = _META.get(key)
        if check is not None:
            check(value, key)
    except _Refused as refused:
        raise StoreError(f"{path}: the run's stored {refused}; the file was edited or "
                         "damaged") from None
    return value


def _plain(value, key: str) -> None:
    """Nesting bounded and every number finite and of a size this code writes."""
    stack = [(value, key, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _Refused(key, "...", f"at most {MAX_DEPTH} levels of nesting")
        if isinstance(item, dict):
            stack.extend((v, f"{where}.{k}", depth + 1) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            if abs(item) > MAX_NUMBER or (isinstance(item, float) and not math.isfinite(item)):
                raise _Refused(where, item, f"a finite number of at most {MAX_NUMBER:g}")


def _kind(value, kinds, where: str, expected: str) -> None:
    """``value`` is of ``kinds`` (a bool counts as a number only where one is asked)."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise _Refused(where, value, expected)


def _texts(value, where: str, single: bool = False) -> None:
    """None, a list of texts (or, with ``single``, one text)."""
    if value is None or (single and isinstance(value, str)):
        return
    _kind(value, list, where, "a list of texts")
    for i, item in enumerate(value):
        _kind(item, str, f"{where}[{i}]", "a text")


def _setting(name: str, value, where: str) -> None:
    if value is None:
        return
    try:
        check_setting(name, value)
    except SettingsError as exc:
        raise _Refused(where, value, f"a number in {_range(name)}") from exc


def _range(name: str) -> str:
    kind, low, high = RANGES[name]
    return f"{low:g}..{high:g}" + (", whole" if kind is int else "")


def _settings(settings, where: str) -> None:
    _kind(settings, dict, where, "an object of settings")
    for name in ("limit", "timeout", "repeat", "sample", "seed", "memory_limit"):
        _setting(name, settings.get(name), f"{where}.{name}")
    for name in ("mode", "format"):
        if settings.get(name) is not None:
            _kind(settings[name], str, f"{where}.{name}", "a text")
    _texts(settings.get("puzzles"), f"{where}.puzzles")
    _texts(settings.get("engines"), f"{where}.engines", single=True)
    _texts(settings.get("formulations"), f"{where}.formulations", single=True)
    if settings.get("repeat_timeouts") is not None:
        _kind(settings["repeat_timeouts"], bool, f"{where}.repeat_timeouts", "true or false")


def _config(config, key: str) -> None:
    _kind(config, dict, key, "an object (the run's settings and command)")
    if "settings" in config:
        _settings(config["settings"], f"{key}.settings")
    _settings({n: config[n] for n in ("mode", "timeout", "repeat") if n in config}, key)
    _setting("workers", config.get("workers"), f"{key}.workers")
    _texts(config.get("engines_run"), f"{key}.engines_run")
    for name in ("baseline", "command", "started", "machine"):
        if config.get(name) is not None:
            _kind(config[name], str, f"{key}.{name}", "a text")


def _objects(value, key: str) -> None:
    _kind(value, list, key, "a list of objects")
    for i, item in enumerate(value):
        _kind(item, dict, f"{key}[{i}]", "an object")


def _planned(value, key: str) -> None:
    _kind(value, dict, key, "an object of engine: task count")
    for engine, count in value.items():
        _kind(count, int, f"{key}.{engine}", "a whole number of tasks")
        if not 0 <= count <= MAX_NUMBER:
            raise _Refused(f"{key}.{engine}", count, f"a task count from 0 to {MAX_NUMBER:g}")


def _optional_object(value, key: str) -> None:
    if value is not None:
        _kind(value, dict, key, "an object")


def _list(value, key: str) -> None:
    _kind(value, list, key, "a list")


_META = {"config": _config, "runs": _objects, "environment": _objects,
         "calibration": _optional_object, "skipped": _list, "planned": _planned}


# ----- result rows -----------------------------------------------------------------------
# column -> (low, high, whole, expected): a number in range, or NULL
NUMBERS = {
    **{c: (0.0, MAX_SECONDS, False, "seconds") for c in
       ("timeout", "build_s", "solve_s", "total_s", "cpu_s", "parse_s", "translate_s")},
    "peak_rss_mb": (0.0, MAX_MB, False, "megabytes"),
    **{c: (0, MAX_COUNT, True, "a count") for c in (*SEARCH_STATS, "backtracks", "count")},
    **{c: (0, 1e9, True, "a whole number") for c in ("size", "clues", "limit")},
    "repeat": (0, RANGES["repeat"][2], True, "a repeat's number"),
    "verified": (0, 1, True, "0 or 1"),
}
TEXTS = ("puzzle_id", "engine", "mode", "formulation", "source")   # never NULL
STATUSES = frozenset(s.value for s in Status)


def check_results(frame: pd.DataFrame, path) -> pd.DataFrame:
    """The result rows as read, if each column holds what the run writes there.

    Columns SQLite handed over as numbers are checked as arrays; only a column
    of mixed values (a text where a number belongs) is looked at value by value.
    """
    import numpy as np
    import pandas as pd
    for column in TEXTS:
        if column in frame and pd.api.types.infer_dtype(frame[column],
                                                        skipna=False) != "string":
            bad = frame[column].map(lambda v: not isinstance(v, str))
            _refuse_rows(frame, column, bad, "a text", path)
    if "status" in frame:
        bad = ~frame["status"].isin(STATUSES)
        _refuse_rows(frame, "status", bad, "one of " + ", ".join(sorted(STATUSES)), path)
    numeric = (int, float, np.integer, np.floating)
    for column, (low, high, whole, unit) in NUMBERS.items():
        if column not in frame:
            continue
        given = frame[column]
        if given.dtype == object:
            given = given.map(lambda v: v if v is None or (
                isinstance(v, numeric) and not isinstance(v, bool)) else np.nan)
            stored = frame[column].notna()
        else:
            stored = given.notna()
        numbers = pd.to_numeric(given, errors="coerce").astype("float64")
        bad = stored & (numbers.isna() | ~np.isfinite(numbers.fillna(0))
                        | (numbers < low) | (numbers > high))
        if whole:
            bad |= stored & numbers.notna() & (numbers % 1 != 0)
        _refuse_rows(frame, column, bad,
                     f"{unit} from {low:g} to {high:g}{', whole' if whole else ''} or NULL",
                     path)
    return frame


def _refuse_rows(frame: pd.DataFrame, column: str, bad: pd.Series, expected: str,
                 path) -> None:
    if not bad.any():
        return
    at = int(bad.to_numpy().nonzero()[0][0])
    value = frame[column].iloc[at]
    shown = repr(value.item() if hasattr(value, "item") else value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    raise StoreError(f"{path}: column {column!r} of result row {at + 1} holds {shown}, "
                     f"expected {expected}; the file was edited or damaged")
