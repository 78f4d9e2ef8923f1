"""The base class every engine subclasses (after CPMpy's solver adapters), and its options.

``TEMPLATE.py`` names each hook a subclass may fill; the answers it gives are
the types of ``contract``. An engine subclass supplies ``translate`` (model -> its own form) and
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
import time
import traceback
from functools import lru_cache
from typing import Any, ClassVar

from engines.contract import KEEP_SOLUTIONS, MODES, Outcome, Result, Status, Unsupported, describe
from engines.spec import EngineOptionError, EngineSpec
from puzzles.model import AllDifferent, Model


class Engine:
    """Base class: subclasses set the class attributes and the two hooks
    (every hook is listed, with when it is called, in ``engines/TEMPLATE.py``)."""

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
    # The values the engine takes, as ``(bits, whose limit)``: a model stating a value
    # beyond ±2^bits (a domain value, coefficient, constant or given) is n/a for it,
    # decided before translation. By default the tool's own limit: every answer
    # crosses the worker's boundary as 64-bit integers.
    value_range: ClassVar[tuple[int, str]] = (63, "the tool's range (answers are carried "
                                                  "as 64-bit integers)")
    # Whether the engine compiles on its first use of a shape (a JIT such as numba's):
    # only such an engine's warm-up gets the long warm-up limit, untimed; any other
    # engine's warm-up runs under the task's own limit plus grace, so a hang there is
    # the task's timeout. An instance may answer by its options (a property).
    compiles_on_first_use: ClassVar[bool] = False

    def __init__(self, **options: Any):
        self.options = self.parse_options(options)

    # ----- identity -------------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        """Whether the engine's library can be imported here."""
        return True

    @classmethod
    def unavailable_reason(cls) -> str:
        """Why ``available`` is False, in one line, for the engines listing; "" when
        there is nothing to add (an engine running an executable says which is missing:
        ``engines.external.missing_reason``)."""
        return ""

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
    def spec(self) -> EngineSpec:
        """This engine as a spec: its name and non-default options, the canonical
        form of every spec that builds it."""
        return EngineSpec(self.name, [(k, v) for k, v in self.options.items()
                                      if v != self.option_defaults.get(k)])

    @property
    def label(self) -> str:
        """``name`` plus non-default options, as the harness prints it."""
        return self.spec.label

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
        if model.structure.unsupported:      # the input's translation, not this engine
            return f"translation: {model.structure.unsupported}"
        bits, whose = self.value_range
        if model.magnitude() >= 1 << bits:
            return f"{self.label}: values beyond ±2^{bits}: outside {whose}"
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
        result.failures, result.propagations = outcome.failures, outcome.propagations
        result.restarts, result.nogoods = outcome.restarts, outcome.nogoods
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
