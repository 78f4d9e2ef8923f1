"""What a run computes, as one typed value: ``RunSettings``, checked once when made.

The command line, the Python API and a benchmark file each make one from
what they were given; from there the plan, the executors and the report read
its fields. Engine specs are parsed here, where they enter
(``EngineSpec.parse_list``), and travel as ``EngineSpec`` objects. A run
folder keeps its settings in meta.json (``to_stored``); ``--resume`` reads
them back (``from_stored``), from this version's folders and earlier ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Iterable

import engines
from compare.limits import RANGES, SettingsError, check_setting
from engines import EngineOptionError, EngineSpec

# The choices of the settings that have a fixed few, as the command line offers them.
CHOICES = {"mode": tuple(engines.MODES), "format": ("auto", "boj2239", "boj2580", "line")}


@dataclass(frozen=True)
class RunSettings:
    """The settings that define what a run computes (``--resume`` takes them from the
    store). None: the default (every installed engine, the embedded puzzles, each
    puzzle's first formulation, no sample, no memory limit)."""
    puzzles: tuple[str, ...] | None = None
    format: str = "auto"
    engines: tuple[EngineSpec, ...] | None = None
    mode: str = "first"
    limit: int = 2
    timeout: float = 10.0
    repeat: int = 3
    sample: int | None = None
    seed: int = 0
    formulations: tuple[str, ...] | None = None
    memory_limit: float | None = None
    repeat_timeouts: bool = False
    # The settings the caller named; a resumed run must agree with them (not stored).
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in RANGES:
            value = getattr(self, name, None)
            if value is not None:
                object.__setattr__(self, name, check_setting(name, value))
        for name, choices in CHOICES.items():
            if getattr(self, name) not in choices:
                raise SettingsError(f"{name} {getattr(self, name)!r}: choose one of "
                                    f"{', '.join(choices)}")
        if self.engines is not None and not all(isinstance(e, EngineSpec)
                                                for e in self.engines):
            raise SettingsError("engines: EngineSpec objects (RunSettings.make reads text)")
        object.__setattr__(self, "repeat_timeouts", bool(self.repeat_timeouts))

    @classmethod
    def make(cls, **values: Any) -> RunSettings:
        """Settings from what a caller gave, in the API's forms (None: not given, the
        default): ``engines`` a comma list (``a:x=1,y=2,b``) or a sequence of specs,
        ``formulations`` a comma list or a sequence, ``puzzles`` a sequence."""
        unknown = sorted(set(values) - set(NAMES))
        if unknown:
            raise SettingsError(f"unknown setting(s): {', '.join(unknown)}")
        given = {k: v for k, v in values.items() if v is not None}
        if "engines" in given:
            given["engines"] = _engine_specs(given["engines"])
        if "formulations" in given:
            given["formulations"] = _words(given["formulations"]) or None
        if "puzzles" in given:
            given["puzzles"] = tuple(str(p) for p in given["puzzles"]) or None
        given = {k: v for k, v in given.items() if v is not None}
        return cls(**given, given=frozenset(given))

    # ----- the run folder's form ------------------------------------------------------
    def to_stored(self) -> dict:
        """The settings as meta.json keeps them (``config.settings``): plain JSON, every
        name present, engines as their specs' text, formulations as a comma list."""
        stored = {f.name: getattr(self, f.name) for f in fields(self) if f.name in NAMES}
        stored["puzzles"] = list(self.puzzles) if self.puzzles is not None else None
        stored["engines"] = [e.label for e in self.engines] if self.engines is not None else None
        stored["formulations"] = ",".join(self.formulations) if self.formulations else None
        return stored

    @classmethod
    def from_stored(cls, stored: dict | None) -> RunSettings:
        """The settings a run folder keeps, as any version wrote them (an engine list
        as one comma text or a list; a name missing takes its default)."""
        known = {k: v for k, v in (stored or {}).items() if k in NAMES and v is not None}
        return replace(cls.make(**known), given=frozenset())

    def differences(self, asked: RunSettings) -> list[str]:
        """The settings ``asked`` names with another value than these have."""
        return [name for name in NAMES
                if name in asked.given and getattr(asked, name) != getattr(self, name)]

    @property
    def formulations_run(self) -> tuple[str, ...]:
        """The formulations the workers warm up: those named, else ``alldiff``."""
        return self.formulations or ("alldiff",)


# The settings' names, as the command line's options and meta.json name them.
NAMES = tuple(f.name for f in fields(RunSettings) if f.name != "given")


def _engine_specs(listed) -> tuple[EngineSpec, ...]:
    """The specs named, each parsed once (an ``EngineSpec`` is taken as it is)."""
    try:
        if isinstance(listed, str):
            specs = EngineSpec.parse_list(listed)
            if not specs:
                raise SettingsError(f"--engines {listed!r}: no engine named")
            return tuple(specs)
        return tuple(EngineSpec.of(spec) for spec in listed)
    except EngineOptionError as err:
        raise SettingsError(str(err)) from None


def _words(value: str | Iterable[str]) -> tuple[str, ...]:
    parts = value.split(",") if isinstance(value, str) else value
    return tuple(p.strip() for p in parts if p and p.strip())
