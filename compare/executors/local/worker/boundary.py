"""The engine boundary: a result is checked and normalised before it leaves the worker.

An engine is code from anywhere (a plugin, a wrapper around a solver binary),
and what it returns is stored in SQLite, written to CSV and parquet, sorted,
summed and compared by the parent. A count of ``10**30`` does not fit an
SQLite INTEGER, a NaN node count or a numpy integer upsets pandas and
pyarrow, a lone surrogate in a message cannot be encoded as UTF-8, and stats
with keys of mixed types cannot be sorted into JSON. One such result used to
end the whole run in a traceback.

So each field is checked here, in the worker, and normalised where the
meaning is plain (numpy scalars to Python numbers, text to valid UTF-8, stats
to JSON with string keys). A field that cannot be made valid turns the result
into an ``error`` result that names the field, and the run goes on. What
is sent is always a plain ``Result`` built afresh, so nothing an engine
attached to its own result object travels with it.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

from engines import Result, Status

INT_MAX = 2 ** 63 - 1          # the largest SQLite INTEGER
VALUE_MAX = 2 ** 63 - 1        # a value in an answer: a 64-bit integer
SECONDS_MAX = 1e9              # no task runs for 30 years
MEGABYTES_MAX = 1e12
TEXT_MAX = 65_536              # characters kept of a message or a traceback
STATS_DEPTH = 16               # nesting kept in stats; deeper values become their repr
SOLUTIONS_MAX = 1_000          # solutions a result may carry (engines keep 16)


class InvalidField(ValueError):
    """A field of a result that cannot be made valid; ``field`` names it."""

    def __init__(self, field: str, why: str):
        super().__init__(f"{field}: {why}")
        self.field = field


def checked_result(result: Any) -> Result:
    """``result`` with every field valid, or an ``error`` result naming the bad field."""
    if not isinstance(result, Result):
        return Result("", "", "", "", Status.ERROR,
                      message=f"the engine returned {_kind(result)}, not a Result")
    try:
        return _normalised(result)
    except InvalidField as bad:
        return invalid_result(result, bad)


def invalid_result(result: Result, bad: InvalidField) -> Result:
    """The error result that replaces one with a field that cannot be stored."""
    fallback = Result(_text_or(result.engine, ""), _text_or(result.library, ""),
                      _text_or(result.version, ""), _text_or(result.mode, ""), Status.ERROR,
                      message=f"invalid result from the engine: {bad}")
    for name in ("build_s", "solve_s"):
        setattr(fallback, name, _or_default(_seconds, getattr(result, name, 0.0), name, 0.0))
    for name in ("cpu_s", "peak_rss_mb"):
        setattr(fallback, name, _or_default(_optional_number, getattr(result, name, None),
                                            name, None))
    fallback.host = _text_or(getattr(result, "host", None), None)
    return fallback


def _normalised(result: Result) -> Result:
    """A plain ``Result`` built afresh from the checked fields (a subclass's extras stay)."""
    return Result(
        engine=text(result.engine, "engine"), library=text(result.library, "library"),
        version=text(result.version, "version"), mode=text(result.mode, "mode"),
        status=status(result.status), solutions=solutions(result.solutions),
        count=None if result.count is None else whole(result.count, "count"),
        build_s=_seconds(result.build_s, "build_s"),
        solve_s=_seconds(result.solve_s, "solve_s"),
        nodes=whole(result.nodes, "nodes"), backtracks=whole(result.backtracks, "backtracks"),
        stats=json_safe_stats(result.stats), message=text(result.message, "message"),
        traceback=text(result.traceback, "traceback"),
        cpu_s=_optional_number(result.cpu_s, "cpu_s"),
        peak_rss_mb=_optional_number(result.peak_rss_mb, "peak_rss_mb"),
        host=None if result.host is None else text(result.host, "host"),
        failures=_optional_whole(result.failures, "failures"),
        propagations=_optional_whole(result.propagations, "propagations"),
        restarts=_optional_whole(result.restarts, "restarts"),
        nogoods=_optional_whole(result.nogoods, "nogoods"))


# ----- fields -----------------------------------------------------------------------------
def status(value: Any) -> Status:
    """One of the known statuses (``engines.Status``), given as the enum or its word."""
    if isinstance(value, Status):
        return value
    if isinstance(value, str):
        try:
            return Status(value)
        except ValueError:
            pass
    known = ", ".join(s.value for s in Status)
    raise InvalidField("status", f"{_shown(value)} is not a status (known: {known})")


def whole(value: Any, field: str, low: int = 0, high: int = INT_MAX) -> int:
    """A whole number from ``low`` to ``high`` (numpy integers become ``int``)."""
    if type(value) is int and low <= value <= high:
        return value          # the common case, without the ABC check below
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidField(field, f"expected a whole number, got {_kind(value)}")
    number = int(value)
    if not low <= number <= high:
        raise InvalidField(field, f"{_shown(number)} is out of range "
                                  f"({_bound(low)}..{_bound(high)})")
    return number


def _optional_whole(value: Any, field: str) -> int | None:
    """A search statistic (``engines.SEARCH_STATS``): a whole number from 0, or None
    where the engine does not report it."""
    return None if value is None else whole(value, field)


def number(value: Any, field: str, high: float) -> float:
    """A finite real number from 0 to ``high`` (numpy floats become ``float``)."""
    if type(value) is float and 0 <= value <= high:
        return value          # the common case (NaN and infinity fail the comparison)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidField(field, f"expected a number, got {_kind(value)}")
    real = float(value)
    if not math.isfinite(real):
        raise InvalidField(field, f"{real} is not a finite number")
    if not 0 <= real <= high:
        raise InvalidField(field, f"{real:g} is out of range (0..{high:g})")
    return real


def _seconds(value: Any, field: str) -> float:
    return number(value, field, SECONDS_MAX)


def _optional_number(value: Any, field: str) -> float | None:
    if value is None:
        return None
    return number(value, field, MEGABYTES_MAX if field.endswith("_mb") else SECONDS_MAX)


def solutions(value: Any) -> list[tuple[int, ...]]:
    """A list of solutions, each a tuple of 64-bit whole numbers."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not _iterable(value):
        raise InvalidField("solutions", f"expected a list of solutions, got {_kind(value)}")
    found = list(value)
    if len(found) > SOLUTIONS_MAX:
        raise InvalidField("solutions", f"{len(found):,} solutions (at most "
                                        f"{SOLUTIONS_MAX:,} are kept)")
    out = []
    for index, solution in enumerate(found):
        if type(solution) is tuple and _plain_ints(solution):
            out.append(solution)      # the common case, checked in C-level passes
            continue
        where = f"solutions[{index}]"
        if isinstance(solution, (str, bytes)) or not _iterable(solution):
            raise InvalidField(where, f"expected a sequence of values, got {_kind(solution)}")
        out.append(tuple(whole(v, where, -VALUE_MAX - 1, VALUE_MAX) for v in solution))
    return out


def _plain_ints(values: tuple) -> bool:
    """Every value a plain ``int`` within 64 bits: what ``whole`` would accept unchanged.

    The per-value ``whole`` costs a microsecond a value, most of a fast engine's
    task on a 9x9 grid; ``map(type, ...)``, ``bytes`` and ``min``/``max`` run in C.
    """
    if not values:
        return True
    if set(map(type, values)) != {int}:
        return False
    try:
        bytes(values)         # every value from 0 to 255 (a Sudoku's): one C pass,
        return True           # a quarter of the cost of ``min`` and ``max``
    except ValueError:
        return -VALUE_MAX - 1 <= min(values) and max(values) <= VALUE_MAX


def text(value: Any, field: str) -> str:
    """Valid UTF-8 text of at most ``TEXT_MAX`` characters (lone surrogates escaped)."""
    if type(value) is str and value.isascii() and len(value) <= TEXT_MAX \
            and "\x00" not in value:
        return value          # the common case: ASCII encodes as it is
    if value is None:
        return ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "backslashreplace")
    elif not isinstance(value, str):
        raise InvalidField(field, f"expected text, got {_kind(value)}")
    value = value[:TEXT_MAX]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value.replace("\x00", "\\x00")


def json_safe_stats(value: Any) -> dict[str, Any]:
    """Stats as JSON can hold them: string keys, finite numbers, valid text, lists."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidField("stats", f"expected a dict, got {_kind(value)}")
    if not value:
        return {}
    return _json_safe(value, 0)


def _json_safe(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return text(value, "stats")
    if isinstance(value, numbers.Integral):
        number_ = int(value)
        return number_ if -INT_MAX - 1 <= number_ <= INT_MAX else _safe_repr(number_)
    if isinstance(value, numbers.Real):
        real = float(value)
        return real if math.isfinite(real) else str(real)
    if depth >= STATS_DEPTH:
        return _safe_repr(value)
    if isinstance(value, dict):
        return {_key(k): _json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [_json_safe(v, depth + 1) for v in items]
    if hasattr(value, "item") and hasattr(value, "dtype"):     # a numpy scalar or array
        try:
            return _json_safe(value.tolist(), depth + 1)
        except Exception:
            pass
    return _safe_repr(value)


def _key(key: Any) -> str:
    return text(key if isinstance(key, str) else _safe_repr(key), "stats")


def _safe_repr(value: Any) -> str:
    try:
        return text(repr(value), "stats")
    except Exception:
        return f"<{type(value).__name__} without a repr>"


# ----- helpers ----------------------------------------------------------------------------
def _bound(value: int) -> str:
    return {INT_MAX: "2^63-1", -INT_MAX - 1: "-2^63"}.get(value, str(value))


def _iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {_shown(value)}"


def _shown(value: Any) -> str:
    try:
        shown = repr(value)
    except Exception:
        shown = f"<{type(value).__name__}>"
    shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _text_or(value: Any, default):
    try:
        return text(value, "")
    except InvalidField:
        return default


def _or_default(check, value: Any, field: str, default):
    try:
        return check(value, field)
    except InvalidField:
        return default
