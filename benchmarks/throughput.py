"""Puzzles per second, each engine alone over whole files: by its own clock and by the wall.

    python benchmarks/throughput.py                      # 1,000 17-clue puzzles, three engines
    python benchmarks/throughput.py --sample 5000 --engines backtracking:kernel=numba
    python benchmarks/throughput.py ../shared/datasets/forum_hardest_1905_11plus.txt

In a comparison run the engines take turns puzzle by puzzle, so no engine
has a wall-clock time of its own; here each engine runs alone, one ordinary
comparison run (every answer checked) per engine and file, and three rates
are put side by side:

* by ``solve_s``: solved puzzles / the sum of the engines' own search times;
* by ``total_s``: the same with the model build, both timed in the worker;
* wall: results (of any status: a timeout counts) from the first to the
  last, over the wall time between them (workers warm; the parent's round
  trip and its check of every answer included), and the whole call (worker
  start-up and warm-up too). With the default one worker these are one
  core's rates, like the engines' clocks; with ``--workers N``, N cores'.

For solves of microseconds the wall rate is the harness's rate, not the
engine's: the gap between the columns is the harness's overhead per puzzle.
The default file is read from ``shared/datasets`` beside the repository;
each run writes to a temporary folder that is removed afterwards.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from compare import run_comparison  # noqa: E402
from compare.benchmark import DATASETS  # noqa: E402
from compare.harness.plan import WorkersFailed, engine_labels, split_engines  # noqa: E402
from compare.reporting.summary import rate, to_markdown, wall_rate  # noqa: E402

FILES = [DATASETS / "royle_17clue_49158.txt"]
ENGINES = ["backtracking:kernel=numba", "backtracking", "cpsat:workers=1"]


def measure(engine: str, file: str, sample: int | None, workers: int, folder: Path) -> dict:
    start = time.perf_counter()
    run = run_comparison([file], [engine], sample=sample, workers=workers, repeat=1,
                         out=folder)
    whole = time.perf_counter() - start
    table = run.throughput
    solved = int(table["solved"].sum()) if len(table) else 0
    puzzles = len(run.results)
    wrong = int(run.results["verified"].eq(False).sum())
    return {"engine": engine, "file": Path(file).stem, "puzzles": puzzles, "solved": solved,
            "wrong": wrong,
            "by solve_s": table["by solve_s"].iloc[0] if len(table) else "-",
            "by total_s": table["by total_s"].iloc[0] if len(table) else "-",
            "wall (results of any status)": wall_rate(run.runs[-1]) or "-",
            "whole call": rate(puzzles, whole)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", help="puzzle files (default: royle_17clue_49158)")
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help="comma-separated engine specs, each run alone")
    parser.add_argument("--sample", type=int, default=1000,
                        help="puzzles per file (0: all; default 1000)")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes (default 1)")
    args = parser.parse_args(argv)
    files = args.files or [str(f) for f in FILES]
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        print(f"throughput: no such puzzle file: {missing[0]}", file=sys.stderr)
        return 2
    try:                                      # every spec checked before any runs
        engines = split_engines(args.engines)
        engine_labels(engines)
    except ValueError as err:
        print(f"throughput: {err}", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for file in files:
            for k, engine in enumerate(engines):
                folder = Path(tmp) / f"{Path(file).stem}-{k}"
                try:
                    rows.append(measure(engine, file, args.sample or None, args.workers,
                                        folder))
                except (ValueError, WorkersFailed) as err:   # the run's own one-line reasons
                    print(f"throughput: {engine} on {file}: {err}", file=sys.stderr)
                    return 3 if isinstance(err, WorkersFailed) else 2
                print(f"{engine} on {Path(file).name}: done", file=sys.stderr, flush=True)
    print(f"### Throughput, {args.workers} worker{'s' if args.workers != 1 else ''}, "
          f"{'all' if not args.sample else args.sample} puzzles per file\n")
    print(to_markdown(pd.DataFrame(rows), raw=True))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
