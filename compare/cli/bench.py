"""``run_compare.py bench [FILE]``: a thin layer on ``compare.benchmark.run_benchmark``.

Exit codes: 0 every answer verified, the engines agree and every target was
met; 1 a wrong answer or disagreement in some part; 2 bad usage, a malformed
benchmark file or a missing dataset; 3 no worker could start; 5 a target
failed (``FAIL`` in bench.md); 130 interrupted.
"""
from __future__ import annotations

import argparse
import re
import shlex
import sys

from compare.benchmark import (
    BAD_INPUT,
    DATASETS,
    NOT_STARTED,
    VERIFIED,
    WRONG,
    BenchmarkError,
    run_benchmark,
)
from compare.cli.common import Exit, OneLineParser, add_settings, say
from compare.store.files import RunFile

CODES = {VERIFIED: Exit.OK, WRONG: Exit.PROBLEMS, BAD_INPUT: Exit.USAGE,
         NOT_STARTED: Exit.FAILED}


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="run_compare.py bench",
        description="A benchmark described by a TOML file (default: benchmarks/sudoku.toml, "
                    "backtracking against CP-SAT on the public Sudoku sets, lexfirst, the "
                    "harness overhead and 16x16/25x25 scaling); writes OUT/bench.md. Exit "
                    "codes: 0 all answers verified and every target met, 1 a wrong answer or "
                    "disagreement, 2 bad usage, a malformed file or a missing dataset, 5 a "
                    "target failed (FAIL in bench.md).")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="the benchmark file (default: <repo>/benchmarks/sudoku.toml; an "
                        "installed copy of the package needs FILE given)")
    p.add_argument("--datasets", default=str(DATASETS), metavar="DIR",
                   help="folder with the files of the benchmark's [datasets] "
                        "(default: <repo>/../shared/datasets)")
    p.add_argument("--parts", metavar="LIST",
                   help="comma-separated parts of the file to run (default: all, in file order)")
    add_settings(p, [
        ("--timeout", "timeout", "S", "time limit per task in the parts of the file's "
                                      "timeout_group 'default' (the default group; in "
                                      "sudoku.toml 9x9, lexfirst, overhead)"),
        ("--big-timeout", "timeout", "S", "time limit per task in the parts of the file's "
                                          "timeout_group 'big' (in sudoku.toml: big "
                                          "and 25x25)"),
        ("--workers", "workers", "N", "worker processes (default 2)", 2),
        ("--repeat", "repeat", "K", "run each task of the parts that set repeat (9x9 and "
                                    "lexfirst) K times and use the median (steadier maxima "
                                    "on a busy machine)"),
        ("--seed", "seed", "S", "seed of the samples and of the generated puzzles (default 0)",
         0),
    ])
    p.add_argument("--out", metavar="DIR",
                   help="output folder, new or empty (default: reports/bench-<date-time>)")
    p.add_argument("--publish", metavar="DIR",
                   help="also write the report there as <file name>.md, with its plots "
                        "under <file name>/ (e.g. docs/performance: the benchmark's current "
                        "table)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke test: each part's quick overrides (smaller samples, "
                        "shorter limits)")
    p.add_argument("--quiet", action="store_true", help="no progress bars and no tables")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command = "python run_compare.py bench " + " ".join(
        shlex.quote(a) for a in (sys.argv[2:] if argv is None else argv))
    try:
        run = run_benchmark(
            args.file, parts=args.parts.split(",") if args.parts is not None else None,
            datasets=args.datasets, out=args.out, quick=args.quick, workers=args.workers,
            repeat=args.repeat, seed=args.seed, timeout=args.timeout,
            big_timeout=args.big_timeout, publish_to=args.publish, quiet=args.quiet,
            command=command)
    except BenchmarkError as err:
        say(f"error: {err}")
        return Exit.USAGE
    except KeyboardInterrupt:
        print("\ninterrupted: the parts that finished are in their folders", file=sys.stderr)
        return Exit.INTERRUPTED
    for outcome in run.outcomes:
        if outcome.error is not None:
            say(f"error: bench part {outcome.part.name}: {outcome.error}")
    if run.text is None:
        return CODES[run.outcomes[-1].status]
    if not args.quiet:
        print(run.text)
    print(f"Benchmark report: {run.folder / RunFile.BENCH}", file=sys.stderr)
    code = max(CODES[o.status] for o in run.outcomes)
    missed = failed_targets(run.text)
    if missed and code == Exit.OK:
        say(f"FAIL: {missed} target(s) not met (see {run.folder / RunFile.BENCH})")
        return Exit.MISSED
    return code


def failed_targets(text: str) -> int:
    """Targets bench.md marks failed: ``FAIL`` cells of the target tables, ``**FAIL**``
    verdicts and ``**FAIL: ...`` checks."""
    return len(re.findall(r"\|\s*FAIL\s*(?=\|)|\*\*FAIL", text))
