"""Engines behind one interface, looked up by name (after CPMpy's ``SolverLookup``).

``get_engine("cpsat:workers=8")`` builds an engine from a spec: a registered
name, then ``:key=value`` options. Engines are imported lazily so a missing
library only disables its own engine. Engines from outside the repository
call ``register`` when their module is imported (the harness imports the
modules named in ``COMPARE_PLUGINS``).
"""
from __future__ import annotations

import difflib
import importlib

from engines.base import Engine, EngineOptionError
from engines.contract import (
    ANSWERED,
    ANSWERED_WORDS,
    FAILED,
    FAILED_WORDS,
    MODES,
    Outcome,
    Result,
    Status,
    Unsupported,
    describe,
    status_word,
)

# name -> "module:Class"; third-party engines may be added with register().
_REGISTRY: dict[str, str] = {
    "backtracking": "engines.backtracking:BacktrackingEngine",
    "python-constraint": "engines.python_constraint:PythonConstraintEngine",
    "cpsat": "engines.cpsat:CpSatEngine",
    "cpmpy": "engines.cpmpy.engine:CpmpyEngine",
}


class UnknownEngine(ValueError):
    """A spec names an engine that is not registered."""


def register(name: str, target: "str | type[Engine]") -> None:
    """Add an engine: a class, or a ``module:Class`` path imported on first use."""
    _REGISTRY[name] = target


def names() -> list[str]:
    return list(_REGISTRY)


def engine_class(name: str) -> type[Engine]:
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=1, cutoff=0.6)
        raise UnknownEngine(
            f"unknown engine {name!r}" + (f" (did you mean {close[0]}?)" if close else "")
            + f" (known: {', '.join(_REGISTRY)})")
    target = _REGISTRY[name]
    if isinstance(target, str):
        module, _, cls = target.partition(":")
        target = getattr(importlib.import_module(module), cls)
        _REGISTRY[name] = target
    return target


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"cpsat:workers=8:seed=3"`` -> ``("cpsat", {"workers": "8", "seed": "3"})``."""
    name, *parts = spec.strip().split(":")
    options = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise EngineOptionError(
                f"engine spec {spec!r}: option {part!r} is not key=value")
        options[key.strip()] = value.strip()
    return name.strip(), options


def get_engine(spec: str) -> Engine:
    name, options = parse_spec(spec)
    return engine_class(name)(**options)


def solution_counter(spec: str):
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
        except ImportError as exc:
            table[name] = {"available": False, "version": "", "modes": [],
                           "constraints": [], "error": str(exc)}
    return table


def default_specs() -> list[str]:
    """What a comparison with no engines named runs: every installed engine that
    belongs in the default set (``Engine.in_default_set``), once per variant it
    names (``Engine.default_variants``), in the registry's order."""
    specs = []
    for name, info in installed().items():
        if not info["available"] or not engine_class(name).in_default_set:
            continue
        specs += [f"{name}:{options}" if options else name
                  for options in engine_class(name).default_variants()]
    return specs


def baseline_preferred(label: str) -> bool:
    """Whether the engine of ``label`` asks to be the baseline (``Engine.baseline_preferred``);
    False for a label no registered engine here answers to."""
    try:
        return engine_class(parse_spec(label)[0]).baseline_preferred
    except (UnknownEngine, EngineOptionError, ImportError):
        return False


__all__ = ["ANSWERED", "ANSWERED_WORDS", "FAILED", "FAILED_WORDS", "MODES", "Engine",
           "EngineOptionError", "Outcome", "Result", "Status",
           "Unsupported", "UnknownEngine", "register", "names", "engine_class",
           "get_engine", "parse_spec", "installed", "solution_counter", "default_specs",
           "baseline_preferred", "describe", "status_word"]
