"""``run_compare.py report --out DIR``: rebuild a report from its SQLite file.

Nothing is run: results.csv (and .parquet), summary.md and the plots are
written again from ``DIR/results.sqlite``, for example after a killed run or
with another ``--baseline``. Exit codes as for a run: 0 clean, 1 a wrong
answer or disagreement, 2 bad usage.
"""
from __future__ import annotations

import sys
from pathlib import Path

from compare.cli.common import Exit, OneLineParser
from compare.harness.store import DB_NAME, Store, StoreError
from compare.reporting.report import build_report

BAD_USAGE = Exit.USAGE


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="run_compare.py report",
        description="Rebuild summary.md, results.csv and the plots from a run's "
                    "SQLite file without running anything.")
    parser.add_argument("--out", required=True, metavar="DIR", help="the run's output folder")
    parser.add_argument("--baseline", metavar="ENGINE",
                        help="engine label the speed ratios refer to (default: as the run)")
    parser.add_argument("--quiet", action="store_true", help="print no tables")
    args = parser.parse_args(argv)
    if not Store.exists(args.out):
        print(f"error: {Path(args.out) / DB_NAME}: no such results file", file=sys.stderr)
        return BAD_USAGE
    try:
        with Store(args.out) as store:
            labels = set(store.frame()["engine"])
    except StoreError as err:
        print(f"error: {err}", file=sys.stderr)
        return BAD_USAGE
    if args.baseline and args.baseline not in labels:
        print(f"error: --baseline {args.baseline} is not among the engines of this run "
              f"({', '.join(sorted(labels))})", file=sys.stderr)
        return BAD_USAGE
    report = build_report(args.out, args.baseline, args.quiet)
    return Exit.OK if report.clean else Exit.PROBLEMS
