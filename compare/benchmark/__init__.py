"""Benchmarks as data: a TOML file of parts, each one comparison run, then bench.md.

    from compare.benchmark import run_benchmark
    run = run_benchmark("benchmarks/sudoku.toml", parts=["lexfirst"], quick=True)
    run.text            # bench.md, also written into run.folder
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

import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import engines
from compare.api import Interrupted, run_comparison
from compare.benchmark.page import (
    BAD_INPUT,
    NOT_STARTED,
    PLOTS,
    VERIFIED,
    WRONG,
    Outcome,
    libraries,
    publish,
    report,
)
from compare.benchmark.spec import (
    RUN_SETTINGS,
    TARGETS,
    TIMEOUT_GROUPS,
    Benchmark,
    BenchmarkError,
    Generated,
    Part,
    load,
)
from compare.errors import StoreError
from compare.plugins import PluginError
from compare.reporting.prose import controls_shown
from compare.reporting.report import build_report
from compare.run.plan import SettingsError, WorkersFailed
from compare.store.files import RunFile
from compare.store.folder import check_out, reports_root
from puzzles.errors import PuzzleInputError
from puzzles.kinds.default_set import DATA
from puzzles.kinds.generator import file_text, generate

__all__ = ["BAD_INPUT", "DATASETS", "DEFAULT_FILE", "NOT_STARTED", "PLOTS", "REPO",
           "RUN_SETTINGS", "TARGETS", "TIMEOUT_GROUPS", "VERIFIED", "WRONG", "Benchmark",
           "BenchmarkError", "BenchmarkRun", "Generated", "Outcome", "Part", "chosen_parts",
           "dataset_files", "load", "publish", "report", "resolved", "run_benchmark", "run_part"]

REPO = Path(__file__).resolve().parents[2]
DATASETS = REPO.parent / "shared" / "datasets"
DEFAULT_FILE = REPO / "benchmarks" / "sudoku.toml"


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
    text = controls_shown(report(outcomes, command or "python run_compare.py bench",
                                 time.perf_counter() - started, spec.title, libraries(chosen)))
    (folder / RunFile.BENCH).write_text(text, encoding="utf-8")
    if publish_to is not None:
        publish(folder, Path(publish_to), outcomes, spec.path.stem)
    return BenchmarkRun(folder, outcomes, text)


def _default_file() -> Path:
    if not DEFAULT_FILE.is_file():
        raise BenchmarkError(f"{DEFAULT_FILE}: no default benchmark file (an installed copy of "
                         "the package does not ship one); give FILE")
    return DEFAULT_FILE


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
    repeats = repeat if part.repeatable and repeat else scale.get("repeat", part.repeat)
    return _by_label(replace(part, puzzles=tuple(puzzles), sample=scale.get("sample", part.sample),
                             timeout=flag or float(scale.get("timeout", part.timeout)),
                             repeat=repeats, generated=generated))


def _by_label(part: Part) -> Part:
    """The part with its engines named as their results name them (a spec that
    gives an option its default value is named without it), so its tables find
    their rows. A spec the registry does not take is left for the run to refuse
    in its own words."""
    try:
        label = {spec: engines.get_engine(spec).spec for spec in part.engines}
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
