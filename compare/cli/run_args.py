"""The comparison's command line (``run_compare.py`` with no sub-command).

Kept apart from ``compare.cli.run`` so the top-level parser (``--help``,
shell completion) is built without importing the API, pandas or matplotlib.
"""
from __future__ import annotations

import argparse

from compare.cli.common import OneLineParser, add_report_options, add_settings, setting
from compare.settings import CHOICES

# What runs when --engines is not given (``engines.default_specs``), said exactly.
DEFAULT_SET = ("the backtracker as backtracking:variant=seed, backtracking and, with numba, "
               "backtracking:kernel=numba, then python-constraint and cpsat, each where "
               "installed; the CPMpy backends run only when named, e.g. cpmpy:solver=z3")

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


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 1 <= value <= 1 << 24:
        raise argparse.ArgumentTypeError(f"{text!r}: a size in MB from 1 to 16777216")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="run_compare.py",
        description="Compare engines on puzzles: every answer is checked, engines are "
                    "cross-checked, timings go to a report. Exit codes: 0 all verified "
                    "and agreeing, 1 wrong answer or disagreement, 2 bad usage or input, "
                    "3 no worker could start, 4 tasks errored or crashed, 6 storage fault "
                    "(disk full or read-only), 130 interrupted. With a COMMAND, that "
                    "command runs instead (each has --help).")
    p.add_argument("--puzzles", nargs="+", action="extend", metavar="FILE|SPEC",
                   help="puzzle files or specs (default: the embedded default set)")
    p.add_argument("--format", choices=CHOICES["format"],
                   help="puzzle file format (default: detected)")
    p.add_argument("--engines", metavar="LIST",
                   help="comma-separated engine specs, e.g. backtracking:variant=seed,"
                        "backtracking,cpsat:workers=8 (default: " + DEFAULT_SET + ")")
    p.add_argument("--mode", choices=CHOICES["mode"], help="first (default), lexfirst or count")
    add_settings(p, NUMBERS)
    p.add_argument("--repeat-timeouts", action="store_true", default=None,
                   help="run every repeat of a task that timed out (default: its later "
                        "repeats are recorded as timeouts without running)")
    p.add_argument("--formulations", metavar="LIST",
                   help="comma-separated formulations to run, e.g. alldiff,pairwise "
                        "(default: each puzzle's first); puzzles lacking one skip it")
    p.add_argument("--cache", metavar="DIR",
                   help="folder of translated instances (XCSP3 files), shared by runs and "
                        "workers (default: the user's cache folder, csp-compare/instances)")
    p.add_argument("--no-cache", action="store_true",
                   help="parse and translate every instance file again, keeping nothing for "
                        "later runs (the run's workers share a folder removed at its end)")
    p.add_argument("--cache-size", type=_megabytes, metavar="MB",
                   help="the instance cache's size cap; the least recently used entries "
                        "go past it (default 2048)")
    p.add_argument("--out", metavar="DIR",
                   help="output folder (default: reports/<date-time>, linked as reports/latest)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out (default reports/latest): only missing tasks run")
    p.add_argument("--baseline", metavar="ENGINE",
                   help="engine the speed ratios refer to (default: fastest backtracker)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no tables")
    add_report_options(p)
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
