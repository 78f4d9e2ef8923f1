"""The benchmark file: its format, read and checked key by key.

Every fault is a ``BenchmarkError`` that names the file and the key, raised
before anything runs; docs/performance/README.md describes the format.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from compare.errors import CompareError
from compare.limits import check_setting, range_text
from compare.run.plan import SettingsError
from engines import EngineOptionError, EngineSpec
from puzzles.errors import PuzzleInputError
from puzzles.reading import read_text

# Limit groups: the parts of a group take one override (``run_benchmark``'s
# ``timeout`` for "default", ``big_timeout`` for "big").
TIMEOUT_GROUPS = ("default", "big")
# Target kinds, their keys and which of them must be given.
TARGETS = {"ratio": ({"engine": str, "mean": float, "max": float}, ()),
           "lexfirst": ({"within": float, "against": str}, ("within", "against")),
           "overhead": ({"factor": float, "slack": float}, ("factor", "slack")),
           "coverage": ({"engine": str, "scaling_with": str, "margin": float}, ()),
           "wall": ({"against": str, "within": float}, ("against",)),
           "throughput": ({}, ()),
           "none": ({}, ())}
# Settings a part may give its run, beyond those every part has.
RUN_SETTINGS = {"executor": str, "cluster": str, "chunk": int, "workers": int}


class BenchmarkError(CompareError, ValueError):
    """A malformed benchmark file or a request it cannot serve: one line, nothing run."""


@dataclass(frozen=True)
class Generated:
    size: int
    count: int
    clues: int
    counter: str = ""           # the engine that proves uniqueness ("" = the part's first)


@dataclass(frozen=True)
class Part:
    """One part as the file gives it (``puzzles`` are group names, specs or paths)."""
    name: str
    engines: tuple[EngineSpec, ...]
    mode: str
    puzzles: tuple[str, ...]
    sample: int | None
    timeout: float
    repeat: int = 1
    baseline: str | None = None
    timeout_group: str = "default"
    repeatable: bool = False             # the file sets ``repeat``: --repeat applies
    embedded: tuple[str, ...] = ()
    generated: Generated | None = None
    target: dict = field(default_factory=lambda: {"kind": "none"})
    quick: dict = field(default_factory=dict)
    title: str = ""                      # the report's heading for the part ("" = made up)
    labels: dict = field(default_factory=dict)      # engine spec -> name in the report
    settings: dict = field(default_factory=dict)    # RUN_SETTINGS for its run

    def label(self, engine: str) -> str:
        """How the report names an engine of this part."""
        return self.labels.get(engine, engine)

    @property
    def subject(self) -> str:
        """The engine the part's target is about: the target's, else the first
        engine other than the baseline."""
        return self.target.get("engine") or next(
            (e for e in self.engines if e != self.baseline), self.engines[0])


@dataclass(frozen=True)
class Benchmark:
    path: Path
    title: str
    datasets: dict[str, tuple[str, ...]]
    parts: tuple[Part, ...]

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)


def load(path: Path) -> Benchmark:
    """The benchmark file, checked key by key; any fault is a BenchmarkError naming it."""
    try:
        data = tomllib.loads(read_text(str(path)))     # the input caps apply here too
    except PuzzleInputError as err:
        raise BenchmarkError(f"{err} (the benchmark file)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BenchmarkError(f"{path}: not valid TOML: {exc}") from None
    where = _Where(path)
    where.keys(data, "", {"title": str, "datasets": dict, "parts": list}, required=("parts",))
    datasets = {}
    for group, names in data.get("datasets", {}).items():
        datasets[group] = tuple(where.strings(names, f"datasets.{group}"))
    parts = [_part(where, raw, i, datasets) for i, raw in enumerate(data["parts"])]
    if not parts:
        where.fail("parts", "no parts")
    names = [p.name for p in parts]
    for i, p in enumerate(parts):
        if names.count(p.name) > 1:
            where.fail(f"parts[{i}].name", f"{p.name!r} appears twice")
        ref = p.target.get("against") or p.target.get("scaling_with")
        if ref is not None and ref not in names:
            where.fail(f"parts[{i}].target", f"no part named {ref!r}")
    return Benchmark(path, data.get("title", "Benchmark"), datasets, tuple(parts))


PART_KEYS = {"name": str, "title": str, "engines": list, "labels": dict, "mode": str,
             "puzzles": list, "sample": int, "timeout": float, "repeat": int, "baseline": str,
             "timeout_group": str, "settings": dict, "embedded": list, "generated": dict,
             "target": dict, "quick": dict}
QUICK_KEYS = {"sample": int, "timeout": float, "repeat": int, "generated": dict}
GENERATED_KEYS = {"size": int, "count": int, "clues": int, "counter": str}


def _part(where: "_Where", raw, i: int, datasets: dict) -> Part:
    at = f"parts[{i}]"
    if not isinstance(raw, dict):
        where.fail(at, "must be a table")
    where.keys(raw, at, PART_KEYS, required=("name", "engines", "puzzles", "timeout"))
    engines_ = tuple(_spec(where, text, f"{at}.engines")
                     for text in where.strings(raw["engines"], f"{at}.engines"))
    puzzles = tuple(where.strings(raw["puzzles"], f"{at}.puzzles"))
    if not engines_:
        where.fail(f"{at}.engines", "no engines")
    if not puzzles and not raw.get("embedded") and not raw.get("generated"):
        where.fail(f"{at}.puzzles", "no puzzles")
    baseline = raw.get("baseline")
    if baseline is not None and baseline not in engines_:
        where.fail(f"{at}.baseline", f"{baseline!r} is not one of its engines")
    group = raw.get("timeout_group", "default")
    if group not in TIMEOUT_GROUPS:
        where.fail(f"{at}.timeout_group", f"choose from {', '.join(TIMEOUT_GROUPS)}")
    labels = dict(raw.get("labels", {}))
    where.keys(labels, f"{at}.labels", {e: str for e in engines_})
    settings = dict(raw.get("settings", {}))
    where.keys(settings, f"{at}.settings", RUN_SETTINGS)
    _check_numbers(where, raw, at)
    target = dict(raw.get("target", {"kind": "none"}))
    kind = target.get("kind")
    if kind not in TARGETS:
        where.fail(f"{at}.target.kind", f"choose from {', '.join(TARGETS)}")
    keys, required = TARGETS[kind]
    where.keys(target, f"{at}.target", {"kind": str, **keys}, required=("kind", *required))
    if kind in ("ratio", "coverage") and (baseline is None or len(engines_) < 2):
        where.fail(f"{at}.target", f"a {kind} target needs two engines and a baseline")
    if kind == "ratio" and not {"mean", "max"} & set(target):
        where.fail(f"{at}.target", "a ratio target needs mean, max or both")
    if not 0 < target.get("margin", 1) <= 1:
        where.fail(f"{at}.target.margin", "must be a share of the time limit, above 0 and "
                                          "at most 1")
    if target.get("engine", engines_[0]) not in engines_:
        where.fail(f"{at}.target.engine", f"{target['engine']!r} is not one of its engines")
    quick = dict(raw.get("quick", {}))
    where.keys(quick, f"{at}.quick", QUICK_KEYS)
    _check_numbers(where, quick, f"{at}.quick")
    generated = _generated_spec(where, raw.get("generated"), f"{at}.generated")
    if "generated" in quick:
        quick["generated"] = _generated_spec(where, quick["generated"], f"{at}.quick.generated")
    return Part(raw["name"], engines_, raw.get("mode", "first"), puzzles, raw.get("sample"),
                float(raw["timeout"]), raw.get("repeat", 1), baseline, group, "repeat" in raw,
                tuple(where.strings(raw.get("embedded", []), f"{at}.embedded")), generated,
                target, quick, raw.get("title", ""), labels, settings)


def _spec(where: "_Where", text: str, at: str) -> EngineSpec:
    """An engine spec of the file, read where it enters (``EngineSpec.parse``)."""
    try:
        return EngineSpec.parse(text)
    except EngineOptionError as err:
        where.fail(at, str(err))


def _generated_spec(where: "_Where", raw, at: str) -> Generated | None:
    if raw is None:
        return None
    where.keys(raw, at, GENERATED_KEYS, required=("size", "count", "clues"))
    return Generated(raw["size"], raw["count"], raw["clues"], raw.get("counter", ""))


class _Where:
    """Checks on the parsed file; each fault names the file and the key."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, message: str):
        raise BenchmarkError(f"{self.path}: {key}: {message}")

    def keys(self, table: dict, at: str, types: dict, required=()) -> None:
        prefix = f"{at}." if at else ""
        for key, value in table.items():
            if key not in types:
                self.fail(f"{prefix}{key}", f"unknown key (known: {', '.join(types)})")
            want = types[key]
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
                  if want is float else isinstance(value, want)
                  and not (want is int and isinstance(value, bool)))
            if not ok:
                self.fail(f"{prefix}{key}", f"must be {_TYPE_NAMES[want]}, "
                                            f"not {type(value).__name__} {value!r}")
        for key in required:
            if key not in table:
                self.fail(f"{prefix}{key}", "missing")

    def strings(self, value, at: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(at, "must be a list of strings")
        return value


_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list",
               dict: "a table"}


def _check_numbers(where, table: dict, at: str) -> None:
    """A part's (or its quick form's) sample, timeout and repeat, each in its range."""
    for key in ("sample", "timeout", "repeat"):
        if key in table:
            try:
                check_setting(key, table[key])
            except SettingsError:
                where.fail(f"{at}.{key}", f"must be a number in {range_text(key)}")
