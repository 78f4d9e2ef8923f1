"""``run_compare.py bench``: the benchmark, one comparison run per part, then bench.md.

Parts (run in this order; ``--parts`` picks some):

* ``9x9``: backtracking (fast) against CP-SAT (1 worker), mode ``first``, on
  the five standard sets (the two big ones sampled, 1,000 puzzles each);
* ``lexfirst``: fast in ``lexfirst`` mode on the same puzzles;
* ``overhead``: 5,000 easy puzzles, fast only, the harness's own cost;
* ``big``: 16x16 and 25x25 (public sets plus generated ones), fast against
  CP-SAT; last, because it is the longest and its timeouts set its length.

Each part goes through ``compare.cli.run`` exactly as ``python run_compare.py``
would (its command is in its summary.md), so every answer is checked and
cross-checked, and the results land in ``OUT/<part>/``. Exit codes: 0 every
answer verified and the engines agree (targets that fail are reported, not
errors); 1 a wrong answer or disagreement in some part; 2 bad usage or a
missing dataset; 130 interrupted.
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import engines
from compare.api import Interrupted, run_comparison
from compare.cli.common import Exit, OneLineParser, UsageError, positive, say
from compare.harness.plan import SettingsError, WorkersFailed, check_out, reports_root
from compare.harness.store import Store
from compare.reporting import bench, summary
from compare.reporting.report import build_report
from puzzles.default_set import DATA
from puzzles.generator import file_text, generate

BAD_USAGE, INTERRUPTED = Exit.USAGE, Exit.INTERRUPTED
REPO = Path(__file__).resolve().parents[2]
DATASETS = REPO.parent / "shared" / "datasets"
NINE = ("norvig_easy50", "norvig_top95", "norvig_hardest", "royle_17clue_49158",
        "forum_hardest_1905_11plus")
BIG = ("gecode_16x16_janko", "vu_kr_16x16", "gecode_25x25")
EASY = "kaggle_1m_first9999"
GENERATED_16 = ("gen-16x16-easy.txt", "gen-16x16-hard.txt")    # the embedded default set
ORDER = ("9x9", "lexfirst", "overhead", "big")
FAST, CPSAT = "backtracking", "cpsat"
PLOTS, PLOTTED = ("cactus.png", "scatter.png"), ("9x9", "big")     # shown in bench.md


@dataclass(frozen=True)
class Scale:
    """How much each part runs: the full benchmark, or ``--quick``'s smoke test."""
    nine_sample: int
    easy_sample: int
    big_sample: int | None
    timeout: float
    big_timeout: float
    gen25: tuple[int, int]       # generated 25x25 puzzles: (count, clues)


FULL = Scale(1000, 5000, None, 10.0, 20.0, (4, 340))
QUICK = Scale(8, 200, 2, 5.0, 5.0, (1, 420))


@dataclass(frozen=True)
class Part:
    name: str
    engines: tuple[str, ...]
    mode: str
    puzzles: tuple[str, ...]
    sample: int | None
    timeout: float
    repeat: int = 1


@dataclass
class Outcome:
    part: Part
    code: int
    seconds: float
    folder: Path


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="run_compare.py bench",
        description="The benchmark: backtracking against CP-SAT on the public Sudoku "
                    "sets, lexfirst, the harness overhead and 16x16/25x25 scaling; writes "
                    "OUT/bench.md. Exit codes: 0 all answers verified (targets are reported "
                    "PASS/FAIL), 1 a wrong answer or disagreement, 2 bad usage or a missing "
                    "dataset.")
    p.add_argument("--datasets", default=str(DATASETS), metavar="DIR",
                   help="folder with the public sets (default: <repo>/../shared/datasets)")
    p.add_argument("--parts", default=",".join(ORDER), metavar="LIST",
                   help=f"comma-separated parts to run (default: {','.join(ORDER)})")
    p.add_argument("--timeout", type=positive(float), metavar="S",
                   help="time limit per task in the 9x9, lexfirst and overhead parts "
                        f"(default {FULL.timeout:g} s)")
    p.add_argument("--big-timeout", type=positive(float), metavar="S",
                   help=f"time limit per task in the big part (default {FULL.big_timeout:g} s)")
    p.add_argument("--workers", type=positive(int), default=2, metavar="N",
                   help="worker processes (default 2)")
    p.add_argument("--repeat", type=positive(int), default=1, metavar="K",
                   help="run each 9x9 and lexfirst task K times and use the median "
                        "(steadier maxima on a busy machine; default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of the samples and of the generated 25x25 puzzles (default 0)")
    p.add_argument("--out", metavar="DIR",
                   help="output folder, new or empty (default: reports/bench-<date-time>)")
    p.add_argument("--publish", metavar="DIR",
                   help="also copy bench.md and the plots there (e.g. docs/performance)")
    p.add_argument("--quick", action="store_true",
                   help=f"a smoke test: {QUICK.nine_sample} puzzles per 9x9 set, "
                        f"{QUICK.easy_sample} easy ones, {QUICK.big_sample} per big set, "
                        f"{QUICK.timeout:g} s limits")
    p.add_argument("--quiet", action="store_true", help="no progress bars and no tables")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.perf_counter()
    try:
        names = _part_names(args.parts)
        out = Path(args.out or reports_root() / datetime.now().strftime("bench-%Y%m%d-%H%M%S"))
        check_out(out, resume=False)
        files = _dataset_files(Path(args.datasets), names)
        _make(out)
    except (UsageError, SettingsError) as err:
        print(f"error: {err}", file=sys.stderr)
        return BAD_USAGE
    outcomes = []
    try:
        for part in _parts(names, files, _scale(args), out, args):
            outcomes.append(_run_part(part, out, args))
            if outcomes[-1].code not in (0, 1):
                return outcomes[-1].code
    except KeyboardInterrupt:
        print("\ninterrupted: the parts that finished are in their folders", file=sys.stderr)
        return INTERRUPTED
    text = report(outcomes, argv, time.perf_counter() - started)
    (out / "bench.md").write_text(text, encoding="utf-8")
    if args.publish:
        publish(out, Path(args.publish), outcomes)
    if not args.quiet:
        print(text)
    print(f"Benchmark report: {out / 'bench.md'}", file=sys.stderr)
    return max(o.code for o in outcomes)


# ----- what to run ------------------------------------------------------------------
def _make(out: Path) -> None:
    """The output folder (not linked as reports/latest: that is for comparison runs)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create folder ({exc.strerror})") from None


def _part_names(listed: str) -> list[str]:
    names = [n.strip() for n in listed.split(",") if n.strip()]
    unknown = [n for n in names if n not in ORDER]
    if unknown or not names:
        raise UsageError(f"--parts {listed}: choose from {','.join(ORDER)}")
    return [n for n in ORDER if n in names]


def _dataset_files(folder: Path, names: list[str]) -> dict[str, Path]:
    """The public sets the chosen parts read; the first missing one is a usage error."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such datasets folder; the benchmark needs the public "
                         "Sudoku sets listed in README.md (Performance), pass their folder "
                         "with --datasets DIR")
    stems = set()
    if {"9x9", "lexfirst"} & set(names):
        stems.update(NINE)
    if "overhead" in names:
        stems.add(EASY)
    if "big" in names:
        stems.update(BIG)
    for stem in sorted(stems):
        path = folder / f"{stem}.txt"
        if not path.is_file():
            raise UsageError(f"{path}: dataset not found; the benchmark needs the public Sudoku "
                             "sets listed in README.md (Performance), pass their folder with "
                             "--datasets DIR")
    return {stem: folder / f"{stem}.txt" for stem in stems}


def _scale(args) -> Scale:
    scale = QUICK if args.quick else FULL
    return Scale(scale.nine_sample, scale.easy_sample, scale.big_sample,
                 args.timeout or scale.timeout, args.big_timeout or scale.big_timeout,
                 scale.gen25)


def _parts(names, files, scale: Scale, out: Path, args) -> list[Part]:
    nine = tuple(str(files[s]) for s in NINE if s in files)
    made = {
        "9x9": lambda: Part("9x9", (FAST, CPSAT), "first", nine, scale.nine_sample,
                            scale.timeout, args.repeat),
        "lexfirst": lambda: Part("lexfirst", (FAST,), "lexfirst", nine, scale.nine_sample,
                                 scale.timeout, args.repeat),
        "overhead": lambda: Part("overhead", (FAST,), "first", (str(files.get(EASY)),),
                                 scale.easy_sample, scale.timeout),
        "big": lambda: Part("big", (FAST, CPSAT), "first",
                            tuple(str(files[s]) for s in BIG) + _generated(scale, out, args),
                            scale.big_sample, scale.big_timeout),
    }
    return [made[name]() for name in names]


def _generated(scale: Scale, out: Path, args) -> tuple[str, ...]:
    """The embedded 16x16 puzzles, and 25x25 ones generated now (seeded) into OUT/inputs."""
    count, clues = scale.gen25
    seed = args.seed + 1
    found = generate(25, count, clues, seed, engines.solution_counter(FAST))
    path = out / "inputs" / "gen-25x25.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_text(file_text(found, 25, count, clues, seed, 1), encoding="utf-8")
    return tuple(str(DATA / name) for name in GENERATED_16) + (str(path),)


def _run_part(part: Part, out: Path, args) -> Outcome:
    """One ordinary comparison run through the Python API, timed as a whole."""
    folder = out / part.name
    print(f"\n== bench part {part.name}: {' '.join(part.engines)}, mode {part.mode}, "
          f"limit {part.timeout:g} s ==", file=sys.stderr)
    started = time.perf_counter()
    try:
        comparison = run_comparison(
            part.puzzles, list(part.engines), mode=part.mode, timeout=part.timeout,
            workers=args.workers, seed=args.seed, sample=part.sample, repeat=part.repeat,
            out=folder, baseline=CPSAT if CPSAT in part.engines else None,
            progress=not args.quiet, announce=not args.quiet,
            command=f"python run_compare.py bench --parts {part.name}")
    except Interrupted:
        raise KeyboardInterrupt from None
    except WorkersFailed as err:
        say(f"error: bench part {part.name}: {err}")
        return Outcome(part, Exit.FAILED, time.perf_counter() - started, folder)
    clean = build_report(comparison.folder, comparison.baseline, args.quiet).clean
    code = Exit.OK if clean else Exit.PROBLEMS
    return Outcome(part, code, time.perf_counter() - started, folder)


# ----- bench.md ---------------------------------------------------------------------
def _tasks(outcome: Outcome):
    """A part's tasks in the order its puzzles and engines were given, not finish order."""
    with Store(outcome.folder) as store:
        frame, runs, config = store.frame(), store.meta("runs", []), store.meta("config", {})
        puzzles = {pid: i for i, pid in enumerate(store.puzzles())}
    engines = {label: i for i, label in enumerate(config.get("engines_run", []))}
    tasks = summary.per_task(frame)
    rank = tasks["puzzle_id"].map(puzzles) * len(engines) + tasks["engine"].map(engines)
    return tasks.iloc[rank.argsort(kind="stable")].reset_index(drop=True), runs, config


def report(outcomes: list[Outcome], argv, total_s: float) -> str:
    """bench.md: the targets per part, the machine, and how long everything took."""
    data = {o.part.name: (o, *_tasks(o)) for o in outcomes}
    command = "python run_compare.py bench " + " ".join(
        shlex.quote(a) for a in (sys.argv[2:] if argv is None else argv))
    parts = ["# Benchmark: backtracking against CP-SAT", "",
             f"- command: `{command.strip()}`"]
    parts += [f"- {line}" for line in bench.machine_lines()]
    parts += [f"- benchmark time: {total_s:.0f} s in all ("
              + ", ".join(f"{o.part.name} {o.seconds:.0f} s" for o in outcomes) + ")", ""]
    first = data["9x9"][1] if "9x9" in data else None
    sections = {"9x9": _nine_section, "lexfirst": lambda d: _lex_section(d, first),
                "overhead": _overhead_section, "big": lambda d: _big_section(d, first)}
    for name in ORDER:
        if name in data:
            parts += sections[name](data[name]) + [""]
    parts += ["## Parts", "", "Each part is one comparison run; its folder holds "
              "results.csv, results.sqlite, summary.md (with verdicts) and plots.", ""]
    for o, _, _, config in data.values():
        verdict = {0: "all answers verified, engines agree",
                   1: "WRONG ANSWERS OR DISAGREEMENTS (see its summary.md)"}.get(o.code, "?")
        parts.append(f"- `{o.part.name}/`: {verdict}; {o.seconds:.0f} s; "
                     f"`{config.get('command', '')}`")
    parts += ["", "## Definitions", "", bench.definitions(), ""]
    return "\n".join(parts)


def _plot_files(folder: Path) -> list[str]:
    """The plots bench.md shows from a part (the two-engine parts, 9x9 and big)."""
    return [name for name in PLOTS if (folder / name).exists()]


def _plots(name: str, folder: Path) -> list[str]:
    return [f"![{name} {png[:-4]}]({name}/{png})" for png in _plot_files(folder)]


def _nine_section(data) -> list[str]:
    outcome, tasks, _, _ = data
    table = bench.ratio_table(tasks, FAST, CPSAT)
    met = int(table["mean_pass"].sum() + table["max_pass"].sum())
    return [f"## 9x9: fast against CP-SAT (mode first, limit {outcome.part.timeout:g} s, "
            f"samples of {outcome.part.sample} from the big sets{_repeats(outcome)})", "",
            bench.markdown(bench.shown(table, bench.RATIO_COLUMNS, bench.RATIO_HEADERS)), "",
            f"Targets met: {met} of {2 * len(table)}.", "", *_plots("9x9", outcome.folder)]


def _repeats(outcome: Outcome) -> str:
    repeat = outcome.part.repeat
    return f"; each time the median of {repeat} runs" if repeat > 1 else ""


def _lex_section(data, first) -> list[str]:
    outcome, tasks, _, _ = data
    table = bench.lexfirst_table(tasks, first, FAST)
    return [f"## lexfirst: fast in BOJ 2239 mode (limit {outcome.part.timeout:g} s"
            f"{_repeats(outcome)})", "",
            bench.markdown(bench.shown(table, bench.LEX_COLUMNS, bench.LEX_HEADERS))]


def _overhead_section(data) -> list[str]:
    outcome, _, runs, _ = data
    if not runs:
        return ["## Harness overhead", "", "No run record."]
    o = bench.overhead(runs[-1])
    return ["## Harness overhead", "",
            f"{o['tasks']} easy puzzles ({EASY}), fast, {o['workers']} workers: run phase "
            f"{o['wall_s']:.2f} s wall; task times sum to {o['task_s']:.2f} s, "
            f"/{o['workers']} = {o['ideal_s']:.2f} s; limit "
            f"{bench.OVERHEAD_FACTOR} x {o['ideal_s']:.2f} + {bench.OVERHEAD_SLACK_S:g} = "
            f"{o['limit_s']:.2f} s: **{bench.verdict(o['pass'])}**. The whole command "
            f"(loading, run, checking, report and plots) took {outcome.seconds:.2f} s."]


def _big_section(data, first) -> list[str]:
    outcome, tasks, _, _ = data
    missing = bench.not_covered(tasks, FAST, CPSAT)
    sized = tasks if first is None else _concat(first, tasks)
    check = ("PASS: the backtracker solved every puzzle CP-SAT solved" if not missing else
             f"FAIL: CP-SAT solved {len(missing)} puzzle(s) the backtracker did not: "
             + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    return [f"## Larger grids: time per puzzle against size (limit {outcome.part.timeout:g} s"
            + ("" if first is None else "; 9x9 rows from the 9x9 part") + ")", "",
            bench.scaling_markdown(bench.scaling_table(sized, ["size"])), "",
            "Per dataset:", "",
            bench.scaling_markdown(bench.scaling_table(tasks, ["source", "size"])), "",
            f"**{check}.**", "", *_plots("big", outcome.folder)]


def _concat(*frames):
    import pandas as pd
    return pd.concat(frames, ignore_index=True)


def publish(out: Path, target: Path, outcomes: list[Outcome]) -> None:
    """Copy bench.md and the plots, keeping their relative links."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(out / "bench.md", target / "bench.md")
    for o in outcomes:
        for png in _plot_files(o.folder) if o.part.name in PLOTTED else ():
            (target / o.part.name).mkdir(exist_ok=True)
            shutil.copy2(o.folder / png, target / o.part.name / png)
