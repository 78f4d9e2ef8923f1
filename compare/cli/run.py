"""``python run_compare.py``: run engines on puzzles, check every answer, report.

Exit codes (``compare.cli.common.Exit``): 0 every answer verified and the
engines agree (timeouts are not disagreements); 1 a wrong answer or a
disagreement; 2 bad usage or input; 3 no worker could start; 4 tasks errored,
crashed or ran out of memory (unless ``--allow-errors``); 6 storage fault;
130 interrupted.
Everything is validated before the output folder is touched, so a bad
command line never overwrites anything.
"""
from __future__ import annotations

import argparse
import shlex
import sys

import engines
from compare.api import Interrupted, run_comparison
from compare.cli.common import (
    Exit,
    OneLineParser,
    add_fail_on,
    add_settings,
    report_exit,
    say,
    setting,
)
from compare.harness.dask_executor import ClusterError
from compare.harness.plan import RUN_SETTINGS, SettingsError, WorkersFailed
from compare.harness.plugins import PluginError
from compare.harness.store import StorageError, StoreError
from compare.reporting.report import build_report
from puzzles.errors import PuzzleInputError

NUMBERS = [
    ("--limit", "limit", "N", "count mode: count up to N (default 2, the uniqueness check)"),
    ("--timeout", "timeout", "S", "time limit per task in seconds, model build included "
                                  "(default 10)"),
    ("--repeat", "repeat", "K", "run each task K times; the summary uses the median "
                                "(default 3)"),
    ("--workers", "workers", "N", "worker processes (default: the number of cores; never "
                                  "more than there are tasks or memory allows)"),
    ("--sample", "sample", "K", "take K puzzles from each file (reproducible with --seed)"),
    ("--seed", "seed", "S", "seed for --sample (default 0)"),
    ("--memory-limit", "memory_limit", "MB", "resident memory a worker may hold while "
                                             "solving; past it the task is memout and the "
                                             "worker is replaced (default: none)"),
]


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="run_compare.py",
        description="Compare engines on puzzles: every answer is checked, engines are "
                    "cross-checked, timings go to a report. Exit codes: 0 all verified "
                    "and agreeing, 1 wrong answer or disagreement, 2 bad usage or input, "
                    "3 no worker could start, 4 tasks errored or crashed, 6 storage fault "
                    "(disk full or read-only), 130 interrupted. Sub-commands: solve, "
                    "generate, engines, kinds, report, bench (each has --help).")
    p.add_argument("--puzzles", nargs="+", action="extend", metavar="FILE|SPEC",
                   help="puzzle files or specs (default: the embedded default set)")
    p.add_argument("--format", choices=("auto", "boj2239", "boj2580", "line"),
                   help="puzzle file format (default: detected)")
    p.add_argument("--engines", metavar="LIST",
                   help="comma-separated engine specs, e.g. backtracking:variant=seed,"
                        "backtracking,cpsat:workers=8 (default: every installed engine)")
    p.add_argument("--mode", choices=engines.MODES, help="first (default), lexfirst or count")
    add_settings(p, NUMBERS)
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
    p.add_argument("--allow-errors", action="store_true",
                   help="exit 0 even when tasks errored, crashed or ran out of memory")
    add_fail_on(p)
    p.add_argument("--shift-ms", type=setting("shift_ms"), default=1.0, metavar="MS",
                   help="shift added to every time in the paired ratios (default 1 ms)")
    p.add_argument("--executor", choices=("local", "dask"),
                   help="where tasks run: local worker processes (default) or a Dask cluster")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler to use, e.g. tcp://10.0.0.5:8786 (default: "
                        "$DASK_SCHEDULER_ADDRESS); implies --executor dask")
    p.add_argument("--cluster", metavar="local:N",
                   help="start a Dask scheduler and N workers in this process for this run "
                        "(a solver process each); implies --executor dask")
    p.add_argument("--chunk", type=setting("chunk"), metavar="N",
                   help="tasks per Dask task (default: adaptive, about 1 s of work)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    given = {k: getattr(args, k) for k in RUN_SETTINGS}
    try:
        comparison = run_comparison(
            given["puzzles"], given["engines"], **_settings(given), out=args.out,
            resume=args.resume, workers=args.workers, baseline=args.baseline,
            executor=args.executor, scheduler=args.scheduler, cluster=args.cluster,
            chunk=args.chunk, progress=not args.quiet, announce=not args.quiet,
            command="python run_compare.py " + " ".join(shlex.quote(a) for a in argv))
    except (SettingsError, PuzzleInputError, StoreError, PluginError, ClusterError) as err:
        say(f"error: {err}")
        return Exit.USAGE
    except Interrupted as stop:
        say(f"interrupted: finished results are kept; continue with "
            f"--out {stop.folder} --resume")
        return Exit.INTERRUPTED
    except WorkersFailed as err:
        say(f"error: {err}; nothing was run")
        return Exit.FAILED
    except StorageError as err:
        say(f"error: {err}; every result stored before is kept")
        return Exit.STORAGE
    try:
        report = build_report(comparison.folder, comparison.baseline, args.quiet,
                              args.shift_ms / 1000)
    except StorageError as err:
        say(f"error: {err}; every result is kept in {comparison.folder / 'results.sqlite'}")
        return Exit.STORAGE
    except KeyboardInterrupt:
        say(f"interrupted while writing the report: every result is kept; rebuild it with "
            f"run_compare.py report --out {comparison.folder}")
        return Exit.INTERRUPTED
    return report_exit(report, args.allow_errors, args.fail_on)


def _settings(given: dict) -> dict:
    """The flags the user gave; on --resume the stored run fills in the rest."""
    return {k: v for k, v in given.items() if k not in ("puzzles", "engines") and v is not None}
