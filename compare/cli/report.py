"""``run_compare.py report``: rebuild a report, or compare two runs.

``report --out DIR`` runs nothing: results.csv (and .parquet), summary.md,
meta.json and the plots are written again from the run's results file, for
example after a killed run or with another ``--baseline``; with ``--json`` the
tables are not printed but summary.json is (the verdict and the per-engine
table), as ``--compare --json`` prints compare.json. A results file
written by older code is migrated first (the one write ``report`` makes to a
results file); one written in a schema this code does not know, or one that
is not a run's, is refused (exit 2). ``--compare`` and ``--history`` only read
the folders they are given (an older file migrated in memory), and every
output is written beside its name and renamed over it, so a link in its
place is replaced, never followed. Exit codes as for
a run: 0 clean, 1 a wrong answer or disagreement, 2 bad usage, 4 tasks
errored or crashed (unless ``--allow-errors``).

``report --compare A B`` compares run B with run A per engine (paired
ratio B/A with its bootstrap CI, tasks whose status or verdict changed); its
first line says whether the runs are comparable at all (same settings,
engines and plugin code). It is printed, and written to B's folder as
compare.md and compare.json (``--json`` prints the JSON instead). It exits 5
when ``--fail-above X`` is given and some engine's ratio is above X with
confidence (its CI's lower bound), else 0.

``report --history RUN... [--out DIR]`` puts runs in commit order and
writes history.csv and history.html (default folder ``reports/history``):
per engine and source, each run's headline ratio with its CI, and the
steps where a run differs with confidence from the run before it on the
same machine. It exits 0 whatever the steps say (2 on bad usage; ``--json``
does not go with it: history.csv is its table for tools).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from compare.cli.common import (
    Exit,
    OneLineParser,
    add_report_options,
    report_exit,
    seconds_of_ms,
    setting,
)
from compare.errors import CompareError
from compare.store.files import RunFile, write_text
from compare.store.store import READ, REBUILD

if TYPE_CHECKING:
    from compare.store.folder import RunFolder

BAD_USAGE = Exit.USAGE


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="run_compare.py report",
        description="Rebuild summary.md, results.csv and the plots from a run's SQLite file "
                    "without running anything (--out DIR), compare two runs "
                    "(--compare A B; with --out DIR it writes compare.md there), or follow a series of runs (--history RUN...). "
                    "Exit codes: 0 clean, 1 wrong answer or disagreement, "
                    "2 bad usage, 4 tasks errored or crashed, 5 slower than --fail-above.")
    parser.add_argument("--out", metavar="DIR",
                        help="the run's output folder (with --history: where history.csv and "
                             "history.html go, default reports/history)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"),
                       help="compare run B with run A (output folders), per engine")
    which.add_argument("--history", nargs="+", metavar="RUN",
                       help="runs' output folders: the headline and its steps over the runs, "
                            "in commit order")
    parser.add_argument("--relative", action="store_true",
                        help="with --history: test steps on each task's time relative to the "
                             "baseline's in the same run (robust to a machine's load; runs "
                             "of every machine in one series)")
    parser.add_argument("--baseline", metavar="ENGINE",
                        help="engine label the speed ratios refer to (default: as the run)")
    add_report_options(parser)
    parser.add_argument("--fail-above", type=setting("fail_above"), metavar="X",
                        help="with --compare: exit 5 when an engine's ratio B/A is above X "
                             "with confidence (the lower end of its 95%% CI)")
    parser.add_argument("--quiet", action="store_true", help="print no tables")
    parser.add_argument("--json", action="store_true",
                        help="print the JSON written (summary.json, or compare.json with "
                             "--compare) instead of the tables; not with --history")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.fail_above is not None and not args.compare:
        parser.error("--fail-above needs --compare")
    if args.relative and not args.history:
        parser.error("--relative needs --history")
    if args.json and args.history:
        parser.error("--json does not go with --history (history.csv is its table for tools)")
    if not (args.out or args.compare or args.history):
        parser.error("one of --out, --compare or --history is required")
    # lazy, for start-up: the report's modules import pandas, which the parser never needs
    from compare.reporting.report import build_report
    from compare.store.folder import RunFolder
    folders = args.compare or args.history or [args.out]
    access = READ if args.compare or args.history else REBUILD
    runs = [RunFolder(folder, access) for folder in folders]
    for run in runs:
        if not run.exists():
            print(f"error: {run.results_file}: no such results file", file=sys.stderr)
            return BAD_USAGE
    try:
        out = Path(args.out or "reports/history") if args.history else (
            Path(args.out) if args.compare and args.out else None)
        if out is not None and out.exists() and not out.is_dir():
            print(f"error: --out {out}: exists and is not a folder", file=sys.stderr)
            return BAD_USAGE
        if args.compare:
            return _compare(*runs, seconds_of_ms(args.shift_ms), args.fail_above,
                            args.json, out)
        if args.history:
            return _history(runs, out, args.baseline,
                            seconds_of_ms(args.shift_ms), args.quiet, args.relative)
        run, = runs
        labels = set(run.results["engine"])
    except CompareError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    with run:
        if args.baseline and args.baseline not in labels:
            print(f"error: --baseline {args.baseline} is not among the engines of this run "
                  f"({', '.join(sorted(labels))})", file=sys.stderr)
            return BAD_USAGE
        report = build_report(run, args.baseline, args.quiet or args.json,
                              seconds_of_ms(args.shift_ms))
        if args.json and not report.empty:
            print(run.file(RunFile.SUMMARY_JSON).read_text(encoding="utf-8"), end="")
    return report_exit(report, args.allow_errors, args.fail_on)


def _compare(a: RunFolder, b: RunFolder, shift_s: float | None, fail_above: float | None,
             as_json: bool = False, out: Path | None = None) -> int:
    """The runs are only read; compare.md and compare.json go to ``out`` when given."""
    from compare.reporting.runs import compare_runs  # lazy, for start-up: pandas
    diff = compare_runs(a, b, shift_s)
    text = json.dumps(diff.as_dict(), indent=2) + "\n"
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_text(out / RunFile.COMPARE_JSON, text)
        write_text(out / RunFile.COMPARE, diff.markdown())
    print(text if as_json else diff.text(), end="" if as_json else "\n")
    slower = diff.slower_than(fail_above) if fail_above is not None else []
    if slower:
        print(f"SLOWER: {', '.join(slower)}: ratio B/A above {fail_above:g} with 95% "
              "confidence", file=sys.stderr)
        return Exit.SLOWER
    return Exit.OK


def _history(folders: list[RunFolder], out: Path, baseline: str | None, shift_s: float | None,
             quiet: bool, relative: bool = False) -> int:
    from compare.reporting import history  # lazy, for start-up: pandas
    series = history.history(folders, baseline, shift_s, relative)   # a fault: main says it
    csv, html = history.write(series, out)
    if not quiet:
        print(series.text())
    print(f"History: {html} and {csv}")
    return Exit.OK
