"""Engines behind one interface, looked up by name (after CPMpy's ``SolverLookup``).

``get_engine(EngineSpec.parse("cpsat:workers=8"))`` builds an engine from a
spec: a registered name, then ``:key=value`` options (``engines.spec``).
Engines are imported lazily so a missing
library only disables its own engine. Engines from outside the repository
call ``register`` when their module is imported (the harness imports the
modules named in ``COMPARE_PLUGINS``).
"""
from __future__ import annotations

import difflib
import importlib

from engines.base import Engine
from engines.contract import (
    ANSWERED,
    ANSWERED_WORDS,
    FAILED,
    FAILED_WORDS,
    MODES,
    SEARCH_STATS,
    Outcome,
    Result,
    Status,
    Unsupported,
    describe,
    status_word,
)
from engines.spec import EngineOptionError, EngineSpec
from engines.support.lifetime import describe_exit, libc_prctl, set_parent_death_signal
from engines.support.structure_cache import forget_structures

# name -> "module:Class"; third-party engines may be added with register().
_REGISTRY: dict[str, str] = {
    "backtracking": "engines.backtracking:BacktrackingEngine",
    "python-constraint": "engines.python_constraint:PythonConstraintEngine",
    "cpsat": "engines.cpsat:CpSatEngine",
    "cpmpy": "engines.cpmpy.engine:CpmpyEngine",
    "ace": "engines.ace.engine:AceEngine",
    "minizinc": "engines.minizinc.engine:MinizincEngine",
    "gecode": "engines.minizinc.engine:GecodeEngine",
}


class UnknownEngine(ValueError):
    """A spec names an engine that is not registered; ``suggestion`` is the registered
    name closest to it, if one is close."""

    def __init__(self, name: str, suggestion: str | None = None):
        super().__init__(f"unknown engine {name!r}"
                         + (f" (did you mean {suggestion}?)" if suggestion else "")
                         + f" (known: {', '.join(_REGISTRY)})")
        self.name = name
        self.suggestion = suggestion


def register(name: str, target: "str | type[Engine]") -> None:
    """Add an engine: a class, or a ``module:Class`` path imported on first use."""
    _REGISTRY[name] = target


def names() -> list[str]:
    return list(_REGISTRY)


def engine_class(name: str) -> type[Engine]:
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=1, cutoff=0.6)
        raise UnknownEngine(name, close[0] if close else None)
    target = _REGISTRY[name]
    if isinstance(target, str):
        module, _, cls = target.partition(":")
        target = getattr(importlib.import_module(module), cls)
        _REGISTRY[name] = target
    return target


def get_engine(spec: EngineSpec | str) -> Engine:
    """The engine ``spec`` names, built with its options (text is read by
    ``EngineSpec.parse``, for callers holding a spec's text)."""
    spec = EngineSpec.of(spec)
    return engine_class(spec.name)(**spec.option_dict)


def solution_counter(spec: EngineSpec | str):
    """``count_solutions(model, limit)`` on an engine, for the puzzle generator.

    A result without an answer (timeout, error) raises: a generator that took
    it for "no solution" would write puzzles that are not unique.
    """
    engine = get_engine(spec)

    def count_solutions(model, limit: int) -> int:
        result = engine.solve(model, "count", limit)
        if result.status not in ANSWERED:
            raise RuntimeError(f"{engine.label} could not count: {result.status} {result.message}")
        return result.count or 0
    return count_solutions


def installed() -> dict[str, dict]:
    """Every registered engine: whether it is usable here, its version and modes,
    plus what the engine adds of its own (``Engine.details``, e.g. CPMpy's backends)."""
    table = {}
    for name in names():
        try:
            cls = engine_class(name)
            ok = cls.available()
            table[name] = {"available": ok, "version": cls.version() if ok else "",
                           "modes": sorted(cls.modes),
                           "constraints": sorted(k.__name__ for k in cls.constraint_kinds)}
            for key, value in (cls.details() if ok else {}).items():
                table[name].setdefault(key, value)
            if not ok and cls.unavailable_reason():
                table[name]["error"] = cls.unavailable_reason()
        except ImportError as exc:
            table[name] = {"available": False, "version": "", "modes": [],
                           "constraints": [], "error": str(exc)}
    return table


def default_specs() -> list[EngineSpec]:
    """What a comparison with no engines named runs: every installed engine that
    belongs in the default set (``Engine.in_default_set``), once per variant it
    names (``Engine.default_variants``), in the registry's order."""
    specs = []
    for name, info in installed().items():
        if not info["available"] or not engine_class(name).in_default_set:
            continue
        specs += [EngineSpec.parse(f"{name}:{options}" if options else name)
                  for options in engine_class(name).default_variants()]
    return specs


def baseline_preferred(label: EngineSpec | str) -> bool:
    """Whether the engine of ``label`` (a stored result's) asks to be the baseline
    (``Engine.baseline_preferred``); False for a label no registered engine here
    answers to."""
    try:
        return engine_class(EngineSpec.of(label).name).baseline_preferred
    except (UnknownEngine, EngineOptionError, ImportError):
        return False


__all__ = ["ANSWERED", "ANSWERED_WORDS", "FAILED", "FAILED_WORDS", "MODES", "SEARCH_STATS",
           "Engine",
           "EngineOptionError", "EngineSpec", "Outcome", "Result", "Status",
           "Unsupported", "UnknownEngine", "register", "names", "engine_class",
           "get_engine", "installed", "solution_counter", "default_specs",
           "baseline_preferred", "describe", "status_word", "describe_exit", "libc_prctl",
           "set_parent_death_signal", "forget_structures"]
