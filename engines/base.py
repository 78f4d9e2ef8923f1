"""The template every engine follows (after CPMpy's solver adapters).

An engine subclass supplies ``translate`` (model -> its own form) and
``search`` (its form -> ``Outcome``). ``Engine.solve`` wraps both: it checks
that the mode and constraint kinds are supported, times translation and search
apart, turns exceptions into an ``error`` result, and never lets an engine
answer a mode it declared unsupported.

Time limits: ``solve`` passes an absolute ``deadline`` (``time.perf_counter()``
scale) that engines check wherever their library lets them. That is a courtesy;
the harness enforces limits from outside by killing the worker.
"""
from __future__ import annotations

import difflib
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, ClassVar

from puzzles.model import AllDifferent, Model

MODES = ("first", "lexfirst", "count")
KEEP_SOLUTIONS = 16   # solutions kept for checking in count mode


class Status(str, Enum):
    SOLVED = "solved"
    UNSAT = "unsatisfiable"
    TIMEOUT = "timeout"
    ERROR = "error"
    UNSUPPORTED = "unsupported"
    CRASHED = "crashed"       # set by the harness when a worker dies
    MEMOUT = "memout"         # out of memory: a MemoryError, or past the harness's limit

    def __str__(self) -> str:
        return self.value


# The statuses that carry an answer the checker can judge; every other one is
# unverified but never wrong.
ANSWERED = (Status.SOLVED, Status.UNSAT)
ANSWERED_WORDS = tuple(s.value for s in ANSWERED)   # as stored in tables
# The statuses of an engine or worker that failed: no answer, and nothing learnt about
# the engine, so a run with any of them fails unless errors are allowed.
FAILED = (Status.ERROR, Status.CRASHED, Status.MEMOUT)
FAILED_WORDS = tuple(s.value for s in FAILED)


def status_word(status) -> str:
    """A status as the tables store it: an engine's ``Status``, a word already, or
    another enum's member. Read off ``_value_``: ``str`` goes through the enum's
    ``value`` property, a microsecond a call, and the parent asks of every result."""
    return status._value_ if type(status) is Status else str(getattr(status, "value", status))


class Unsupported(Exception):
    """Raised by an engine for a mode, option or constraint it cannot do correctly."""


class EngineOptionError(ValueError):
    """An engine option the engine does not know, or a bad value for one."""


@dataclass
class Outcome:
    """What ``search`` reports; ``solve`` adds timings and identity."""
    status: Status
    solutions: list[tuple[int, ...]] = field(default_factory=list)
    count: int | None = None
    nodes: int = 0
    backtracks: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""


@dataclass
class Result:
    """One engine's answer for one model and mode."""
    engine: str
    library: str
    version: str
    mode: str
    status: Status
    solutions: list[tuple[int, ...]] = field(default_factory=list)
    count: int | None = None
    build_s: float = 0.0
    solve_s: float = 0.0
    nodes: int = 0
    backtracks: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    traceback: str = ""                 # where an engine fault was raised, for --debug
    # Measured around the solve by the harness's worker, not by the engine.
    cpu_s: float | None = None          # CPU time of the process (every thread)
    peak_rss_mb: float | None = None    # peak resident memory of the process
    host: str | None = None             # the machine that ran it (a cluster's worker)

    @property
    def total_s(self) -> float:
        return self.build_s + self.solve_s

    @property
    def solution(self) -> tuple[int, ...] | None:
        return self.solutions[0] if self.solutions else None


class Engine:
    """Base class: subclasses set the class attributes and the two hooks."""

    name: ClassVar[str] = "abstract"
    library: ClassVar[str] = ""           # the PyPI distribution, "" for our own code
    modes: ClassVar[frozenset[str]] = frozenset(MODES)
    constraint_kinds: ClassVar[frozenset[type]] = frozenset({AllDifferent})
    option_defaults: ClassVar[dict[str, Any]] = {}
    option_choices: ClassVar[dict[str, tuple]] = {}   # options with a closed set of values
    # Whether a comparison with no --engines runs this engine. A gateway to
    # many solvers (cpmpy) is named explicitly instead, with the backend wanted.
    in_default_set: ClassVar[bool] = True
    # Whether a report with no --baseline measures the others against this engine:
    # the preferred engine (variant) with the best PAR2 is the baseline; with none
    # preferred, the best of all.
    baseline_preferred: ClassVar[bool] = False

    def __init__(self, **options: Any):
        self.options = self.parse_options(options)

    # ----- identity -------------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        """Whether the engine's library can be imported here."""
        return True

    @classmethod
    def version(cls) -> str:
        return library_version(cls.library)

    @classmethod
    def default_variants(cls) -> list[str]:
        """The option strings (``key=value:...``; "" for the defaults) a comparison with
        no --engines runs this engine with, in order: one run per variant worth
        comparing."""
        return [""]

    @classmethod
    def details(cls) -> dict[str, Any]:
        """Extra facts for ``engines.installed()``, for engines that wrap several
        solvers (CPMpy lists its backends); the common keys stay the base's."""
        return {}

    @property
    def label(self) -> str:
        """``name`` plus non-default options, as the harness prints it."""
        extra = [f"{k}={v}" for k, v in self.options.items()
                 if v != self.option_defaults.get(k)]
        return ":".join([self.name] + extra)

    @classmethod
    def parse_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Known options with values coerced to the default's type."""
        parsed = dict(cls.option_defaults)
        for key, raw in options.items():
            if key not in cls.option_defaults:
                known = ", ".join(sorted(cls.option_defaults)) or "none"
                close = difflib.get_close_matches(key, list(cls.option_defaults), n=1)
                raise EngineOptionError(
                    f"engine {cls.name!r} has no option {key!r}"
                    + (f" (did you mean {close[0]}?)" if close else "") + f" (known: {known})")
            parsed[key] = cls.coerce_option(key, raw)
        for key, choices in cls.option_choices.items():
            if parsed[key] not in choices:
                raise EngineOptionError(
                    f"engine {cls.name!r}: {key}={parsed[key]!r} is not one of "
                    f"{', '.join(map(str, choices))}")
        cls.validate_options(parsed)
        return parsed

    @classmethod
    def coerce_option(cls, key: str, raw: Any) -> Any:
        default = cls.option_defaults[key]
        if not isinstance(raw, str) or isinstance(default, str) or default is None:
            return raw
        try:
            if isinstance(default, bool):
                if raw.lower() in ("1", "true", "yes", "on"):
                    return True
                if raw.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError(raw)
            return type(default)(raw)
        except ValueError:
            raise EngineOptionError(
                f"engine {cls.name!r}: option {key}={raw!r} is not a valid "
                f"{type(default).__name__}") from None

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        """Subclasses reject bad option values here with ``EngineOptionError``."""

    @classmethod
    def require_ints(cls, options: dict[str, Any], keys, at_least: dict[str, int]) -> None:
        """Whole-number options and their floors: ``coerce_option`` converts only
        strings, so options passed from Python (``workers=1.5``) arrive unchecked."""
        for key in keys:
            value, floor = options[key], at_least.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise EngineOptionError(
                    f"engine {cls.name!r}: option {key}={value!r} is not an int")
            if floor is not None and value < floor:
                raise EngineOptionError(
                    f"engine {cls.name!r}: {key}={value} (need at least {floor})")

    @classmethod
    def require_ranges(cls, options: dict[str, Any], ranges: dict[str, tuple[int, int]]) -> None:
        """Whole-number options within their ranges, both ends included, checked when the
        spec is parsed: a seed the library refuses must not wait for the first solve."""
        cls.require_ints(options, tuple(ranges), {})
        for key, (low, high) in ranges.items():
            if not low <= options[key] <= high:
                raise EngineOptionError(
                    f"engine {cls.name!r}: {key}={options[key]} is out of range ({low}..{high})")

    # ----- support --------------------------------------------------------
    def unsupported_reason(self, model: Model, mode: str) -> str | None:
        """Why this engine will not answer, or None when it can."""
        if mode not in MODES:
            return f"unknown mode {mode!r}"
        if mode not in self.modes:
            return f"{self.label} does not support mode {mode!r}"
        if model.structure.unsupported:
            return f"{self.label}: {model.structure.unsupported}"
        missing = model.kinds() - self.constraint_kinds
        if missing:
            names = ", ".join(sorted(k.__name__ for k in missing))
            return f"{self.label} does not support constraint kind(s) {names}"
        return None

    # ----- one-off preparation -------------------------------------------
    def preparation(self) -> str | None:
        """What ``prepare`` would do on this machine now, in a few words; None: nothing.

        For work every process running the engine would otherwise repeat, and
        that leaves something the next process can use: a JIT compile into a
        disk cache, say. The harness asks in the parent, before the engine's
        worker processes start; for a name it calls ``prepare`` once, in one
        process of its own, and the workers start when it is done. Engines whose
        instances share the work give the same name, so it runs once for all of
        them. Asking must be cheap (no compiling), and the answer should be None
        once the work is done (a warm cache), so a warm run pays nothing.
        """
        return None

    def prepare(self) -> None:
        """Do the work ``preparation`` names; its time is reported as warm-up, untimed.

        It may run in several processes at once (two runs, the Dask workers of
        one machine): one should do the work while the others wait, then find
        it done. A failure or a kill here costs nothing but the time: the
        workers then meet the work themselves, in their own warm-up.
        """

    # ----- the template ---------------------------------------------------
    def solve(self, model: Model, mode: str = "first", limit: int = 2,
              timeout: float | None = None) -> Result:
        """Translate, then search; timings apart; never raises for engine faults."""
        result = Result(self.label, self.library or "builtin", self.version(),
                        mode, Status.ERROR)
        reason = self.unsupported_reason(model, mode)
        if reason:
            result.status, result.message = Status.UNSUPPORTED, reason
            return result
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        try:
            translated = self.translate(model)
            built = time.perf_counter()
            result.build_s = built - start
            outcome = self.search(translated, mode, limit, deadline)
            result.solve_s = time.perf_counter() - built
        except Unsupported as exc:
            result.status, result.message = Status.UNSUPPORTED, str(exc)
            return result
        except Exception as exc:  # an engine fault is a result, not a crash
            result.solve_s = time.perf_counter() - start - result.build_s
            if isinstance(exc, MemoryError):     # not the engine's logic: the machine's limit
                result.status = Status.MEMOUT
            result.message = describe(exc)
            result.traceback = traceback.format_exc(limit=8)
            return result
        self._fill(result, outcome, mode, limit)
        return result

    @staticmethod
    def _fill(result: Result, outcome: Outcome, mode: str, limit: int) -> None:
        result.status = outcome.status
        result.solutions = [tuple(s) for s in outcome.solutions[:KEEP_SOLUTIONS]]
        result.count = outcome.count
        if mode == "count" and result.count is None and outcome.status in (
                Status.SOLVED, Status.UNSAT, Status.TIMEOUT):
            # A timeout before any enumeration (a slow build, a spent deadline)
            # leaves no count; the solutions found so far are the partial count.
            result.count = len(outcome.solutions)
        result.nodes, result.backtracks = outcome.nodes, outcome.backtracks
        result.stats.update(outcome.stats)
        result.message = outcome.message

    # ----- hooks ----------------------------------------------------------
    def translate(self, model: Model) -> Any:
        raise NotImplementedError

    def search(self, translated: Any, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        """Return an ``Outcome``. Contract per mode:

        * ``first``: SOLVED with one solution, or UNSAT.
        * ``lexfirst``: SOLVED with the lexicographically smallest solution in
          variable order, or UNSAT.
        * ``count``: ``count = min(#solutions, limit)``; SOLVED when it is at
          least 1 (with the first ``KEEP_SOLUTIONS`` solutions), else UNSAT.
        * TIMEOUT when ``deadline`` passed first; in ``count`` mode the count
          is then the solutions found so far (a lower bound, 0 when the
          deadline passed before any were).
        """
        raise NotImplementedError


@lru_cache(maxsize=None)
def library_version(library: str) -> str:
    """Cached: a metadata lookup costs about a millisecond, once per solve otherwise."""
    if not library:
        return "builtin"
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(library)
    except PackageNotFoundError:
        return "missing"


def describe(exc: BaseException) -> str:
    """``Type: message``, or the type alone when the exception says nothing more."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def timed_out(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


HOST_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM")
                     if hasattr(signal, name))


@contextmanager
def host_signals_kept():
    """Solver-library code inside leaves the host process's Ctrl-C and SIGTERM as they were.

    Some libraries take these signals when they load or solve: OR-Tools resets
    SIGINT to the default action (the process dies on Ctrl-C with no word),
    Exact installs handlers of its own for both (the process ignores them).
    The process that runs the tool decides what an interrupt does, so each
    handler is put back afterwards, at the C level too (``signal.signal``
    reinstalls it even where Python still believes it is in place), and the
    two signals are unblocked. Only the main thread may set handlers; from
    another thread the code runs unguarded.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in HOST_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, HOST_SIGNALS)
