"""Benchmarks as data: a TOML file of parts, each one comparison run, then bench.md.

    from compare.benchmark import run_benchmark
    run = run_benchmark("benchmarks/sudoku.toml", parts=["lexfirst"], quick=True)
    run.text            # bench.md, also written to run.folder / "bench.md"
    run.outcomes        # per part: its folder and whether every answer held

The file (default ``<repo>/benchmarks/sudoku.toml``) names the dataset
groups, and for each part its engines (and how the report labels them),
mode, puzzles, sample, limit, repeat, baseline, run settings, quick-scale
overrides and target; docs/performance/README.md describes the format. The
report's headings and columns come from the file: nothing here knows an
engine or a puzzle set by name. Parts run in the file's order. Each part goes through
``compare.api.run_comparison`` as ``python run_compare.py`` would (its
command is in its summary.md), so every answer is checked and cross-checked,
and the results land in ``OUT/<part>/``. ``run_compare.py bench`` is a thin
layer on ``run_benchmark``.
"""
from __future__ import annotations

import shutil
import sys
import time
import tomllib
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

import engines
from compare.api import Interrupted, run_comparison
from compare.harness.folder import RunFolder, check_out, reports_root
from compare.harness.limits import check_setting, range_text
from compare.harness.plan import SettingsError, WorkersFailed
from compare.harness.plugins import PluginError
from compare.harness.store import StoreError
from compare.reporting import bench
from compare.reporting.report import build_report
from puzzles.default_set import DATA
from puzzles.errors import PuzzleInputError
from puzzles.generator import file_text, generate
from puzzles.reading import read_text

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
DEFAULT_FILE = REPO / "benchmarks" / "sudoku.toml"
PLOTS = ("cactus.png", "scatter.png")
# Limit groups: the parts of a group take one override (``run_benchmark``'s
# ``timeout`` for "default", ``big_timeout`` for "big").
TIMEOUT_GROUPS = ("default", "big")
# Target kinds, their keys and which of them must be given.
TARGETS = {"ratio": ({"engine": str, "mean": float, "max": float}, ()),
           "lexfirst": ({"within": float, "against": str}, ("within", "against")),
           "overhead": ({"factor": float, "slack": float}, ("factor", "slack")),
           "coverage": ({"engine": str, "scaling_with": str}, ()),
           "wall": ({"against": str, "within": float}, ("against",)),
           "throughput": ({}, ()),
           "none": ({}, ())}
# Settings a part may give its run, beyond those every part has.
RUN_SETTINGS = {"executor": str, "cluster": str, "chunk": int, "workers": int}
# What became of a part: every answer held, or not, or it could not run.
VERIFIED, WRONG, BAD_INPUT, NOT_STARTED = "verified", "wrong", "bad input", "not started"


class BenchmarkError(ValueError):
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
    engines: tuple[str, ...]
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


@dataclass
class Outcome:
    part: Part
    status: str                 # VERIFIED, WRONG, BAD_INPUT or NOT_STARTED
    seconds: float
    folder: Path
    error: str | None = None    # why a part could not run
    run: RunFolder | None = None    # the part's run, as its report read it


@dataclass
class BenchmarkRun:
    folder: Path
    outcomes: list[Outcome]
    text: str | None            # bench.md; None when a part could not run


def run_benchmark(file: Path | str | None = None, *, parts: list[str] | None = None,
                  datasets: Path | str = DATASETS, out: Path | str | None = None,
                  quick: bool = False, workers: int = 2, repeat: int | None = None,
                  seed: int = 0, timeout: float | None = None,
                  big_timeout: float | None = None, publish_to: Path | str | None = None,
                  quiet: bool = True, command: str | None = None) -> BenchmarkRun:
    """Run the file's parts (or those named) in order and write bench.md.

    Raises ``BenchmarkError`` before anything runs when the file, the parts,
    the datasets or ``out`` are wrong. A part that cannot run (bad input, no
    worker) ends the benchmark there, with ``text`` None; wrong answers do
    not. ``timeout``/``big_timeout`` replace the limits of the parts in the
    "default"/"big" ``timeout_group``; ``repeat`` applies to parts that set one.
    """
    started = time.perf_counter()
    spec = load(Path(file) if file is not None else _default_file())
    chosen = chosen_parts(spec, parts)
    folder = Path(out) if out is not None else (
        reports_root() / datetime.now().strftime("bench-%Y%m%d-%H%M%S"))
    try:
        check_out(folder, resume=False)
    except SettingsError as err:
        raise BenchmarkError(str(err)) from None
    files = dataset_files(spec, Path(datasets), chosen)
    _make(folder)
    scale = {"quick": quick, "timeouts": {"default": timeout, "big": big_timeout},
             "repeat": repeat, "seed": seed}
    outcomes: list[Outcome] = []
    for part in chosen:
        outcomes.append(run_part(resolved(part, spec, files, folder, **scale), folder,
                                 workers=workers, seed=seed, quiet=quiet))
        if outcomes[-1].status not in (VERIFIED, WRONG):
            return BenchmarkRun(folder, outcomes, None)
    text = report(outcomes, command or "python run_compare.py bench",
                  time.perf_counter() - started, spec.title, _libraries(chosen))
    (folder / "bench.md").write_text(text, encoding="utf-8")
    if publish_to is not None:
        publish(folder, Path(publish_to), outcomes, spec.path.stem)
    return BenchmarkRun(folder, outcomes, text)


# ----- the benchmark file -------------------------------------------------------------
def _default_file() -> Path:
    if not DEFAULT_FILE.is_file():
        raise BenchmarkError(f"{DEFAULT_FILE}: no default benchmark file (an installed copy of "
                         "the package does not ship one); give FILE")
    return DEFAULT_FILE


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
QUICK_KEYS = {"sample": int, "timeout": float, "generated": dict}
GENERATED_KEYS = {"size": int, "count": int, "clues": int, "counter": str}


def _part(where: "_Where", raw, i: int, datasets: dict) -> Part:
    at = f"parts[{i}]"
    if not isinstance(raw, dict):
        where.fail(at, "must be a table")
    where.keys(raw, at, PART_KEYS, required=("name", "engines", "puzzles", "timeout"))
    engines_ = tuple(where.strings(raw["engines"], f"{at}.engines"))
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
    for key in ("sample", "timeout", "repeat"):
        if key in raw:
            try:
                check_setting(key, raw[key])
            except SettingsError:
                where.fail(f"{at}.{key}", f"must be a number in {range_text(key)}")
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
    if target.get("engine", engines_[0]) not in engines_:
        where.fail(f"{at}.target.engine", f"{target['engine']!r} is not one of its engines")
    quick = dict(raw.get("quick", {}))
    where.keys(quick, f"{at}.quick", QUICK_KEYS)
    generated = _generated_spec(where, raw.get("generated"), f"{at}.generated")
    if "generated" in quick:
        quick["generated"] = _generated_spec(where, quick["generated"], f"{at}.quick.generated")
    return Part(raw["name"], engines_, raw.get("mode", "first"), puzzles, raw.get("sample"),
                float(raw["timeout"]), raw.get("repeat", 1), baseline, group, "repeat" in raw,
                tuple(where.strings(raw.get("embedded", []), f"{at}.embedded")), generated,
                target, quick, raw.get("title", ""), labels, settings)


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


# ----- what to run ------------------------------------------------------------------
def _make(out: Path) -> None:
    """The output folder (not linked as reports/latest: that is for comparison runs)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchmarkError(f"--out {out}: cannot create folder ({exc.strerror})") from None


def chosen_parts(spec: Benchmark, names: list[str] | None) -> list[Part]:
    """The parts named, in the file's order (all of them when none are named)."""
    if names is None:
        return list(spec.parts)
    listed = ",".join(names)
    names = [n.strip() for n in names if n.strip()]
    known = [p.name for p in spec.parts]
    if not names or any(n not in known for n in names):
        raise BenchmarkError(f"--parts {listed}: choose from {','.join(known)} "
                         f"(the parts of {spec.path})")
    return [p for p in spec.parts if p.name in names]


def dataset_files(spec: Benchmark, folder: Path, parts: list[Part]) -> dict[str, Path]:
    """The dataset files the chosen parts read; the first missing one is a usage error."""
    names = sorted({name for p in parts for group in p.puzzles
                    for name in spec.datasets.get(group, ())})
    if names and not folder.is_dir():
        raise BenchmarkError(f"{folder}: no such datasets folder; the benchmark needs the public "
                         "Sudoku sets listed in docs/performance/README.md, pass their folder "
                         "with --datasets DIR")
    for name in names:
        if not (folder / name).is_file():
            raise BenchmarkError(f"{folder / name}: dataset not found; the benchmark needs the "
                             "public Sudoku sets listed in docs/performance/README.md, pass their "
                             "folder with --datasets DIR")
    return {name: folder / name for name in names}


def resolved(part: Part, spec: Benchmark, files: dict[str, Path], out: Path, *,
             quick: bool = False, timeouts: dict | None = None, repeat: int | None = None,
             seed: int = 0) -> Part:
    """The part as it runs: scale, limits, dataset paths and generated inputs applied."""
    scale = part.quick if quick else {}
    flag = (timeouts or {}).get(part.timeout_group)
    puzzles = []
    for item in part.puzzles:
        if item in spec.datasets:
            puzzles += [str(files[name]) for name in spec.datasets[item]]
        else:
            local = spec.path.parent / item
            puzzles.append(str(local) if ":" not in item and local.exists() else item)
    puzzles += [str(DATA / name) for name in part.embedded]
    generated = scale.get("generated", part.generated)
    if generated is not None:
        puzzles.append(_generate(generated, generated.counter or part.engines[0], part.name,
                                 out, seed))
    repeats = repeat if part.repeatable and repeat else part.repeat
    return _by_label(replace(part, puzzles=tuple(puzzles), sample=scale.get("sample", part.sample),
                             timeout=flag or float(scale.get("timeout", part.timeout)),
                             repeat=repeats, generated=generated))


def _by_label(part: Part) -> Part:
    """The part with its engines named as their results name them (a spec that
    gives an option its default value is named without it), so its tables find
    their rows. A spec the registry does not take is left for the run to refuse
    in its own words."""
    try:
        label = {spec: engines.get_engine(spec).label for spec in part.engines}
    except ValueError:
        return part
    target = dict(part.target)
    if "engine" in target:
        target["engine"] = label.get(target["engine"], target["engine"])
    return replace(part, engines=tuple(label.values()),
                   baseline=label.get(part.baseline, part.baseline), target=target,
                   labels={label[spec]: name for spec, name in part.labels.items()})


def _generate(spec: Generated, counter: str, part: str, out: Path, seed: int) -> str:
    """Puzzles generated now (seeded) into OUT/inputs."""
    found = generate(spec.size, spec.count, spec.clues, seed + 1,
                     engines.solution_counter(counter))
    path = out / "inputs" / f"gen-{spec.size}x{spec.size}.txt"
    path.parent.mkdir(exist_ok=True)
    if path.exists():
        path = path.with_name(f"{part}-{path.name}")
    path.write_text(file_text(found, spec.size, spec.count, spec.clues, seed + 1, 1),
                    encoding="utf-8")
    return str(path)


def run_part(part: Part, out: Path, *, workers: int = 2, seed: int = 0,
             quiet: bool = True) -> Outcome:
    """One ordinary comparison run through the Python API, timed as a whole."""
    folder = out / part.name
    if not quiet:
        print(f"\n== bench part {part.name}: {' '.join(part.engines)}, mode {part.mode}, "
              f"limit {part.timeout:g} s ==", file=sys.stderr)
    started = time.perf_counter()
    try:
        comparison = run_comparison(
            part.puzzles, list(part.engines), mode=part.mode, timeout=part.timeout,
            **{"workers": workers, **part.settings}, seed=seed, sample=part.sample, repeat=part.repeat,
            out=folder, baseline=part.baseline, progress=not quiet, announce=not quiet,
            command=f"python run_compare.py bench --parts {part.name}")
    except Interrupted:
        raise KeyboardInterrupt from None
    except (SettingsError, PuzzleInputError, StoreError, PluginError) as err:
        return Outcome(part, BAD_INPUT, time.perf_counter() - started, folder, str(err))
    except WorkersFailed as err:
        return Outcome(part, NOT_STARTED, time.perf_counter() - started, folder, str(err))
    with comparison.run as run:      # read once: the report, then bench.md
        clean = build_report(run, comparison.baseline, quiet).clean
    return Outcome(part, VERIFIED if clean else WRONG, time.perf_counter() - started, folder,
                   run=run)


# ----- bench.md ---------------------------------------------------------------------
def _tasks(outcome: Outcome):
    """A part's tasks in the order its puzzles and engines were given, not finish
    order; its run records, settings and stored results."""
    run = outcome.run or RunFolder(outcome.folder)
    with run:
        tasks, runs, config, frame = run.tasks, run.runs, run.config, run.results
        puzzles = {pid: i for i, pid in enumerate(run.puzzles)}
    engines = {label: i for i, label in enumerate(config.get("engines_run", []))}
    rank = tasks["puzzle_id"].map(puzzles) * len(engines) + tasks["engine"].map(engines)
    return tasks.iloc[rank.argsort(kind="stable")].reset_index(drop=True), runs, config, frame


def report(outcomes: list[Outcome], command: str, total_s: float,
           title: str = "Benchmark", libraries: dict[str, str] | None = None) -> str:
    """bench.md: the targets per part, the machine, and how long everything took."""
    data = {o.part.name: (o, *_tasks(o)) for o in outcomes}
    parts = [f"# {title}", "", f"- command: `{command.strip()}`"]
    parts += [f"- {line}" for line in bench.machine_lines(libraries or {})]
    parts += [f"- benchmark time: {total_s:.0f} s in all ("
              + ", ".join(f"{o.part.name} {o.seconds:.0f} s" for o in outcomes) + ")", ""]
    sections = {"ratio": _ratio_section, "lexfirst": _lex_section, "wall": _wall_section,
                "overhead": _overhead_section, "coverage": _big_section,
                "throughput": _throughput_section, "none": _plain_section}
    for o in outcomes:
        parts += sections[o.part.target["kind"]](data[o.part.name], data) + [""]
    parts += ["## Parts", "", "Each part is one comparison run; its folder holds "
              "results.csv, results.sqlite, summary.md (with verdicts) and plots.", ""]
    for o, _, _, config, _ in data.values():
        verdict = {VERIFIED: "all answers verified, engines agree",
                   WRONG: "WRONG ANSWERS OR DISAGREEMENTS (see its summary.md)"}.get(o.status, "?")
        parts.append(f"- `{o.part.name}/`: {verdict}; {o.seconds:.0f} s; "
                     f"`{config.get('command', '')}`")
    parts += ["", "## Definitions", "", bench.definitions([_terms(o.part) for o in outcomes]), ""]
    return "\n".join(parts)


def _libraries(parts: list[Part]) -> dict[str, str]:
    """The libraries of the engines the parts ran, with their versions."""
    found = {}
    for spec in dict.fromkeys(e for p in parts for e in p.engines):
        try:
            engine = engines.get_engine(spec)
        except ValueError:
            continue
        if engine.library:
            found[engine.library] = engine.version()
    return found


def _terms(part: Part) -> dict:
    """A part's target with the names the report gives its engines."""
    return {**part.target, "name": part.name, "engine": part.label(part.subject),
            "baseline": part.label(part.baseline or "")}


def _heading(part: Part, made_up: str) -> str:
    return f"## {part.title or made_up}"


def _plot_files(folder: Path) -> list[str]:
    """The plots bench.md shows from a part (the parts with two or more engines)."""
    return [name for name in PLOTS if (folder / name).exists()]


def _plots(name: str, folder: Path) -> list[str]:
    return [f"![{name} {png[:-4]}]({name}/{png})" for png in _plot_files(folder)]


def _other(data: dict, name: str | None):
    """The tasks of the part a target compares with, when it ran in this invocation."""
    return data[name][1] if name in data else None


def _ratio_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part, target = outcome.part, outcome.part.target
    engine, baseline = part.subject, part.baseline
    table = bench.ratio_table(tasks, engine, baseline, target.get("mean"), target.get("max"))
    columns = bench.ratio_columns(part.label(engine), part.label(baseline), target.get("mean"),
                                  target.get("max"))
    verdicts = [c for c in ("mean_pass", "max_pass") if c in columns]
    met = int(sum(table[c].sum() for c in verdicts))
    sampled = f", samples of {part.sample} from the big sets" if part.sample else ""
    return [_heading(part, f"{part.name}: {part.label(engine)} against {part.label(baseline)}")
            + f" (mode {part.mode}, limit {part.timeout:g} s{sampled}{_repeats(outcome)})", "",
            bench.markdown(bench.shown(table, columns)), "",
            f"Targets met: {met} of {len(verdicts) * len(table)}.", "",
            *_plots(part.name, outcome.folder)]


def _repeats(outcome: Outcome) -> str:
    repeat = outcome.part.repeat
    return f"; each time the median of {repeat} runs" if repeat > 1 else ""


def _lex_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part, target = outcome.part, outcome.part.target
    table = bench.lexfirst_table(tasks, _other(data, target["against"]), part.subject,
                                 target["within"])
    return [_heading(part, f"{part.name}: {part.label(part.subject)} in mode {part.mode}")
            + f" (limit {part.timeout:g} s{_repeats(outcome)})", "",
            bench.markdown(bench.shown(table, bench.lex_columns(target["against"],
                                                                target["within"])))]


def _overhead_section(mine, data) -> list[str]:
    outcome, _, runs, *_ = mine
    part, target = outcome.part, outcome.part.target
    heading = _heading(part, f"{part.name}: harness overhead")
    if not runs:
        return [heading, "", "No run record."]
    o = bench.overhead(runs[-1], target["factor"], target["slack"])
    sources = ", ".join(Path(p).stem for p in part.puzzles)
    return [heading, "",
            f"{o['tasks']} puzzles ({sources}), {part.label(part.subject)}, {o['workers']} "
            f"workers: run phase "
            f"{o['wall_s']:.2f} s wall; task times sum to {o['task_s']:.2f} s, "
            f"/{o['workers']} = {o['ideal_s']:.2f} s; limit "
            f"{target['factor']} x {o['ideal_s']:.2f} + {target['slack']:g} = "
            f"{o['limit_s']:.2f} s: **{bench.verdict(o['pass'])}**. The whole command "
            f"(loading, run, checking, report and plots) took {outcome.seconds:.2f} s."]


def _wall_section(mine, data) -> list[str]:
    """This part's run against another's on the same tasks: the whole run's wall
    time and the time after the first result (workers warm)."""
    outcome, _, runs, *_ = mine
    part, target = outcome.part, outcome.part.target
    other = data.get(target["against"])
    rows = [(part.name, part.settings, runs)] + (
        [(target["against"], other[0].part.settings, other[2])] if other else [])
    table = bench.wall_table(rows, target.get("within"))
    return [_heading(part, f"{part.name}: wall time against {target['against']}")
            + f" (limit {part.timeout:g} s)", "",
            bench.markdown(bench.shown(table, bench.wall_columns(target["against"],
                                                                 target.get("within"))))]


def _throughput_section(mine, data) -> list[str]:
    """Puzzles per second of each engine by its own clocks and by the wall: the
    run's results from the first to the last, and the whole part (workers'
    start-up and warm-up too)."""
    outcome, _, runs, _, frame = mine
    part = outcome.part
    run = runs[-1] if runs else {}
    table = bench.throughput(frame, run, outcome.seconds, part.labels)
    workers = run.get("workers", "?")
    return [_heading(part, f"{part.name}: throughput")
            + f" ({workers} worker{'s' if workers != 1 else ''}, limit {part.timeout:g} s)", "",
            bench.markdown(table)]


def _big_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part = outcome.part
    with_ = part.target.get("scaling_with")
    first = _other(data, with_)
    engine, baseline = part.label(part.subject), part.label(part.baseline)
    missing = bench.not_covered(tasks, part.subject, part.baseline)
    sized = tasks if first is None else _concat(first, tasks)
    check = (f"PASS: {engine} solved every puzzle {baseline} solved" if not missing else
             f"FAIL: {baseline} solved {len(missing)} puzzle(s) {engine} did not: "
             + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    return [_heading(part, f"{part.name}: time per puzzle against size")
            + f" (limit {part.timeout:g} s"
            + ("" if first is None else f"; with the rows of the {with_} part") + ")", "",
            bench.scaling_markdown(bench.scaling_table(_named(part, sized), ["size"])), "",
            "Per dataset:", "",
            bench.scaling_markdown(bench.scaling_table(_named(part, tasks), ["source", "size"])),
            "",
            f"**{check}.**", "", *_plots(part.name, outcome.folder)]


def _plain_section(mine, data) -> list[str]:
    """A part without a target: its times per dataset and engine."""
    outcome, tasks, *_ = mine
    part = outcome.part
    return [_heading(part, f"{part.name}: {', '.join(part.engines)}")
            + f" (mode {part.mode}, limit {part.timeout:g} s{_repeats(outcome)})", "",
            bench.scaling_markdown(bench.scaling_table(_named(part, tasks), ["source", "size"])),
            "", *_plots(part.name, outcome.folder)]


def _named(part: Part, tasks):
    """The tasks with their engines named as the benchmark file names them."""
    return tasks.assign(engine=[part.label(e) for e in tasks["engine"]])


def _concat(*frames):
    import pandas as pd
    return pd.concat(frames, ignore_index=True)


def publish(out: Path, target: Path, outcomes: list[Outcome], name: str) -> Path:
    """The benchmark's current table in ``target``: ``<name>.md`` (bench.md with
    its plot links pointing into ``<name>/``) and the plots under ``<name>/``.
    Returns the page written."""
    target.mkdir(parents=True, exist_ok=True)
    text = (out / "bench.md").read_text(encoding="utf-8")
    for o in outcomes:
        for png in _plot_files(o.folder):
            (target / name / o.part.name).mkdir(parents=True, exist_ok=True)
            shutil.copy2(o.folder / png, target / name / o.part.name / png)
            text = text.replace(f"]({o.part.name}/{png})", f"]({name}/{o.part.name}/{png})")
    page = target / f"{name}.md"
    page.write_text(text, encoding="utf-8")
    return page
