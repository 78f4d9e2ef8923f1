"""``python run_compare.py``: run engines on puzzles, check every answer, report.

Exit codes: 0 every answer verified and the engines agree (timeouts are not
disagreements); 1 a wrong answer or a disagreement; 2 bad usage or input.
Everything is validated before the output folder is touched, so a bad
command line never overwrites anything.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import engines
from compare.executor import LocalExecutor
from compare.runner import execute, puzzle_row
from compare.solve_cli import UsageError
from compare.solve_cli import positive
from compare.store import Store, StoreError
from compare.tasks import PuzzleRecord, build_tasks, sample_per_origin
from puzzles.default_set import default_puzzle_files
from puzzles.errors import PuzzleInputError
from puzzles.loader import load_puzzles

BAD_USAGE = 2
REPORTS = Path(__file__).resolve().parent.parent / "reports"
# Options that define what a run computes; --resume takes them from the store.
RUN_SETTINGS = {"puzzles": None, "format": "auto", "engines": None, "mode": "first",
                "limit": 2, "timeout": 10.0, "repeat": 1, "sample": None, "seed": 0,
                "formulations": None}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="run_compare.py",
        description="Compare engines on puzzles: every answer is checked, engines are "
                    "cross-checked, timings go to a report. Exit codes: 0 all verified "
                    "and agreeing, 1 wrong answer or disagreement, 2 bad usage or input. "
                    "Sub-commands: solve, generate, engines, report, bench (each has --help).")
    p.add_argument("--puzzles", nargs="+", action="extend", metavar="FILE|SPEC",
                   help="puzzle files or specs (default: the embedded default set)")
    p.add_argument("--format", choices=("auto", "boj2239", "boj2580", "line"),
                   help="puzzle file format (default: detected)")
    p.add_argument("--engines", metavar="LIST",
                   help="comma-separated engine specs, e.g. backtracking:variant=seed,"
                        "backtracking,cpsat:workers=8 (default: every installed engine)")
    p.add_argument("--mode", choices=engines.MODES, help="first (default), lexfirst or count")
    p.add_argument("--limit", type=positive(int), metavar="N",
                   help="count mode: count up to N (default 2, the uniqueness check)")
    p.add_argument("--timeout", type=positive(float), metavar="S",
                   help="time limit per task in seconds (default 10)")
    p.add_argument("--repeat", type=positive(int), metavar="K",
                   help="run each task K times; the summary uses the median (default 1)")
    p.add_argument("--workers", type=positive(int), default=os.cpu_count() or 1, metavar="N",
                   help="worker processes (default: the number of cores)")
    p.add_argument("--sample", type=positive(int), metavar="K",
                   help="take K puzzles from each file (reproducible with --seed)")
    p.add_argument("--seed", type=int, metavar="S", help="seed for --sample (default 0)")
    p.add_argument("--formulations", metavar="LIST",
                   help="comma-separated formulations to run, e.g. alldiff,pairwise "
                        "(default: each puzzle's first); puzzles lacking one skip it")
    p.add_argument("--out", metavar="DIR",
                   help="output folder (default: reports/<date-time>, linked as reports/latest)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out (default reports/latest): only missing tasks run")
    p.add_argument("--baseline", metavar="ENGINE",
                   help="engine the speed ratios refer to (default: fastest backtracker)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no tables")
    return p


@dataclass
class Plan:
    """A validated run: what to compute, where, and the workers already starting."""
    args: argparse.Namespace
    settings: dict
    stored: bool                 # settings came from the store (--resume)
    labels: list[str]
    identities: dict
    baseline: str | None
    executor: LocalExecutor
    started: float
    records: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    tasks: list = field(default_factory=list)
    folder: Path | None = None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        plan = _plan(args)
    except (UsageError, PuzzleInputError, StoreError) as err:
        print(f"error: {err}", file=sys.stderr)
        return BAD_USAGE
    try:
        _run(plan, argv)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished results are kept; continue with "
              f"--out {plan.folder} --resume", file=sys.stderr)
        return 130
    from compare.report import build_report      # pandas and matplotlib: only now
    return build_report(plan.folder, plan.baseline, args.quiet)


def _plan(args) -> Plan:
    """Validate everything before the output folder is touched."""
    out, settings, stored = _output_and_settings(args)
    labels, identities = _engines(settings["engines"])
    baseline = _baseline(args.baseline, labels)
    _check_out(out, args.resume)
    formulations = _split(settings["formulations"])
    executor = LocalExecutor(args.workers, labels, settings["mode"], settings["limit"],
                             formulations or ("alldiff",))
    plan = Plan(args, settings, stored, labels, identities, baseline, executor,
                time.perf_counter())
    executor.start()                 # workers warm up while the puzzles load
    try:
        plan.records, plan.skipped = _records(settings)
        plan.tasks = build_tasks(plan.records, labels, settings["mode"], settings["limit"],
                                 settings["timeout"], settings["repeat"], formulations)
        if not plan.tasks:
            raise UsageError(f"--formulations {settings['formulations']}: "
                             "no puzzle has any of them")
        plan.folder = _prepare(out, args.resume)
    except BaseException:
        executor.close()
        raise
    return plan


def _run(plan: Plan, argv) -> None:
    """Run the missing tasks; every finished result is in the store at once."""
    with Store(plan.folder) as store:
        if not plan.stored:
            store.set_meta("config", _config(plan, argv))
            store.set_meta("skipped", plan.skipped)
        store.add_puzzles([puzzle_row(r) for r in plan.records])
        todo = [t for t in plan.tasks if t.key not in store.done_keys()]
        _announce(plan, todo)
        timing = execute(todo, {r.puzzle_id: r for r in plan.records}, plan.executor,
                         store, plan.identities, not plan.args.quiet, plan.started)
        timing["workers"] = min(plan.executor.workers, max(1, len(todo)))
        store.set_meta("runs", store.meta("runs", []) + [timing])


# ----- settings and output folder ---------------------------------------------------
def _output_and_settings(args) -> tuple[Path, dict, bool]:
    """The output folder and the run settings (from the store when resuming)."""
    given = {k: getattr(args, k) for k in RUN_SETTINGS if getattr(args, k) is not None}
    if args.resume:
        out = Path(args.out) if args.out else REPORTS / "latest"
        if not Store.exists(out):
            raise UsageError(f"--resume: {out} holds no run to continue")
        with Store(out) as store:
            saved = store.meta("config", {}).get("settings", {})
        clash = [k for k, v in given.items() if k in saved and _norm(v) != _norm(saved[k])]
        if clash:
            raise UsageError(f"--resume: {', '.join('--' + k for k in clash)} differ from "
                             f"the run in {out}; drop them or use another --out")
        return out, {**RUN_SETTINGS, **saved}, True
    out = Path(args.out) if args.out else REPORTS / datetime.now().strftime("%Y%m%d-%H%M%S")
    return out, {**RUN_SETTINGS, **given}, False


def _norm(value):
    return list(value) if isinstance(value, tuple) else value


def _check_out(out: Path, resume: bool) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not resume:
        raise UsageError(f"--out {out}: folder is not empty (use --resume to continue "
                         "a run there, or choose another folder)")


def _prepare(out: Path, resume: bool) -> Path:
    _check_out(out, resume)          # again: time has passed since the first check
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create folder ({exc.strerror})") from None
    if out.parent.resolve() == REPORTS.resolve() and out.name != "latest":
        _link_latest(out)
    return out


def _link_latest(out: Path) -> None:
    latest = REPORTS / "latest"
    try:
        if latest.is_symlink():
            latest.unlink()
        if not latest.exists():
            latest.symlink_to(out.name)
    except OSError:
        pass


# ----- engines --------------------------------------------------------------------------
def _split(text: str | None) -> list[str] | None:
    return [p.strip() for p in text.split(",") if p.strip()] if text else None


def default_engine_specs() -> list[str]:
    """Every installed engine; the backtracker twice, as its seed and fast variants."""
    specs = []
    for name, info in engines.installed().items():
        if not info["available"]:
            continue
        specs += ["backtracking:variant=seed", "backtracking"] if name == "backtracking" else [name]
    return specs


def _engines(listed: str | None) -> tuple[list[str], dict]:
    """Canonical labels of the engines, validated here so a typo costs nothing."""
    if listed is not None and not _split(listed):
        raise UsageError(f"--engines {listed!r}: no engine named")
    specs = _split(listed) or default_engine_specs()
    labels, identities = [], {}
    for spec in specs:
        try:
            engine = engines.get_engine(spec)
        except (engines.UnknownEngine, engines.EngineOptionError) as err:
            raise UsageError(str(err)) from None
        except ImportError as exc:
            raise UsageError(f"engine {spec!r} is not installed here ({exc})") from None
        if not engine.available():
            raise UsageError(f"engine {spec!r} is not installed here")
        if engine.label not in identities:
            labels.append(engine.label)
            identities[engine.label] = (engine.library or "builtin", engine.version())
    if not labels:
        raise UsageError("no engine to run")
    return labels, identities


def _baseline(wanted: str | None, labels: list[str]) -> str | None:
    if not wanted:
        return None
    try:
        label = engines.get_engine(wanted).label
    except (engines.UnknownEngine, engines.EngineOptionError, ImportError) as err:
        raise UsageError(f"--baseline: {err}") from None
    if label not in labels:
        raise UsageError(f"--baseline {wanted} is not among the engines run ({', '.join(labels)})")
    return label


# ----- puzzles ----------------------------------------------------------------------------
def _records(settings: dict) -> tuple[list[PuzzleRecord], list[str]]:
    """Every valid puzzle (sampled); bad lines are reported, kept for the report, skipped."""
    good, skipped, seen = [], [], {}
    for arg in dict.fromkeys(settings["puzzles"] or default_puzzle_files()):
        for entry in load_puzzles(arg, settings["format"] or "auto"):
            if entry.error is None:
                good.append((arg, entry))
                continue
            skipped.append(str(entry.error))
            print(f"skipped: {entry.error}", file=sys.stderr)
    records = []
    for arg, entry in sample_per_origin(good, settings["sample"], settings["seed"]):
        pid = _unique_id(entry.id, arg, seen)
        source = entry.puzzle.source or pid if entry.line else arg
        records.append(PuzzleRecord(pid, entry.puzzle, source, arg, entry.line))
    if not records:
        raise UsageError("no valid puzzle to run")
    return records, skipped


def _unique_id(pid: str, origin: str, seen: dict[str, str]) -> str:
    """``stem:line``, told apart when two files share a stem (``a/x.txt``, ``b/x.txt``)."""
    candidate, number = pid, 1
    while candidate in seen and seen[candidate] != origin:
        number += 1
        candidate = f"{pid}#{number}"
    seen[candidate] = origin
    return candidate


# ----- bookkeeping --------------------------------------------------------------------------
def _config(plan: Plan, argv) -> dict:
    argv = sys.argv[1:] if argv is None else argv
    settings = plan.settings
    return {"settings": settings, "baseline": plan.baseline, "workers": plan.args.workers,
            "engines_run": plan.labels,
            "mode": settings["mode"], "timeout": settings["timeout"],
            "repeat": settings["repeat"],
            "command": "python run_compare.py " + " ".join(shlex.quote(a) for a in argv),
            "started": datetime.now().isoformat(timespec="seconds"),
            "machine": f"{platform.platform()}, {os.cpu_count()} cores, "
                       f"Python {platform.python_version()}"}


def _announce(plan: Plan, todo) -> None:
    if plan.args.quiet:
        return
    done = len(plan.tasks) - len(todo)
    print(f"{len(plan.records)} puzzles x {len(plan.labels)} engines "
          f"({', '.join(plan.labels)}): {len(plan.tasks)} tasks"
          + (f", {done} already done" if done else "")
          + f"; {plan.args.workers} workers; output {plan.folder}", file=sys.stderr)
