"""Does an engine's measured time depend on its company? One comparison run per row.

    python benchmarks/isolation.py                       # 300 17-clue puzzles, 1 worker
    python benchmarks/isolation.py --workers 2 --rounds 2

For each target engine (the Python backtracker and its numba kernel) it
measures the mean ``solve_s`` over the same puzzles three ways, in this
order, round after round so that the machine's load falls on all alike:

* in-process: ``engine.solve`` in a loop in this process (models built
  beforehand, the engine warmed up on the first 20), no harness at all;
* alone: a comparison run of that engine only;
* in company: one comparison run of both targets with CP-SAT and
  python-constraint.

and the largest ``peak_rss_mb`` of each engine alone and in company. Every
row prints the command line that makes the same run. Times are means over
the rounds' means; the ratios are each round's (its runs minutes apart)
and their median, as the machine's speed drifts from round to round.
"""
from __future__ import annotations

import argparse
import gc
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

import engines
from compare import run_comparison
from compare.benchmark import DATASETS
from compare.executors.tasks import sample_per_origin
from puzzles.loader import load_puzzles

FILE = DATASETS / "royle_17clue_49158.txt"
TARGETS = ["backtracking", "backtracking:kernel=numba"]
COMPANY = ["cpsat", "python-constraint"]


def in_process(label: str, models: list) -> float:
    """The loop, with what is alive frozen out of the collector's sight as a worker
    does (this process holds the whole puzzle file: a collection would walk it)."""
    engine = engines.get_engine(label)
    for model in models[:20]:
        engine.solve(model, "first", 2, 10.0)
    gc.collect()
    gc.freeze()
    return statistics.mean(engine.solve(m, "first", 2, 10.0).solve_s for m in models)


def harness(labels: list[str], args, folder: Path) -> dict[str, tuple[float, float]]:
    run = run_comparison([str(args.file)], labels, sample=args.sample, seed=args.seed,
                         workers=args.workers, repeat=1, timeout=args.timeout, out=folder)
    rows = run.results
    figures = {}
    for label in labels:
        mine = rows[rows["engine"] == label]
        solved = mine[mine["verified"].eq(True)]
        figures[label] = (solved["solve_s"].mean(), mine["peak_rss_mb"].max())
    return figures


def ratios(top: list[float], bottom: list[float]) -> str:
    """The ratio of each round (measured minutes apart, not hours), and their median."""
    each = [t / b for t, b in zip(top, bottom)]
    if len(each) == 1:
        return f"{each[0]:.2f}"
    return (f"{statistics.median(each):.2f} (median of the rounds: "
            + ", ".join(f"{r:.2f}" for r in each) + ")")


def command(labels: list[str], args) -> str:
    return " ".join(["python run_compare.py", "--puzzles", shlex.quote(str(args.file)),
                     "--sample", str(args.sample), "--seed", str(args.seed), "--engines",
                     ",".join(labels), "--workers", str(args.workers), "--repeat", "1",
                     "--timeout", f"{args.timeout:g}"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=FILE, help="puzzle file (default: "
                        "royle_17clue_49158 from the shared datasets)")
    parser.add_argument("--sample", type=int, default=300, help="puzzles (default 300)")
    parser.add_argument("--seed", type=int, default=7, help="sample seed (default 7)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=0.2,
                        help="time limit per task (default 0.2 s: python-constraint needs "
                             "seconds on many 17-clue puzzles, the backtrackers and CP-SAT "
                             "milliseconds)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (default 1)")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        print(f"isolation: no such puzzle file: {args.file}", file=sys.stderr)
        return 2
    entries = [(str(args.file), e) for e in load_puzzles(str(args.file)) if e.error is None]
    models = [e.puzzle.to_model("alldiff")
              for _, e in sample_per_origin(entries, args.sample, args.seed)]
    del entries
    rows: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for label in TARGETS:
                rows.setdefault(f"{label} | in-process", []).append((in_process(label, models),
                                                                     None))
            # odd rounds run the company first, so a drift of the machine within a
            # round does not always favour the same side
            for step in (("alone", "company") if round_ % 2 == 0 else ("company", "alone")):
                if step == "alone":
                    for index, label in enumerate(TARGETS):
                        alone = harness([label], args, Path(tmp) / f"alone-{round_}-{index}")
                        rows.setdefault(f"{label} | alone", []).append(alone[label])
                        print(f"# {command([label], args)}", flush=True)
                    continue
                company = harness(TARGETS + COMPANY, args, Path(tmp) / f"company-{round_}")
                print(f"# {command(TARGETS + COMPANY, args)}", flush=True)
                for label in TARGETS + COMPANY:
                    rows.setdefault(f"{label} | with the others", []).append(company[label])
    print(f"\n{args.sample} puzzles, {args.workers} worker(s), {args.rounds} round(s)")
    print("| engine | run | mean solve_s | peak_rss_mb |")
    print("|---|---|---|---|")
    for name, values in rows.items():
        mean = statistics.mean(v[0] for v in values)
        rss = [v[1] for v in values if v[1] is not None]
        engine, how = name.split(" | ")
        print(f"| {engine} | {how} | {mean * 1e6:.1f} µs | "
              f"{f'{max(rss):.0f} MB' if rss else '-'} |")
    for label in TARGETS:
        alone = [v[0] for v in rows[f"{label} | alone"]]
        company = [v[0] for v in rows[f"{label} | with the others"]]
        loop = [v[0] for v in rows[f"{label} | in-process"]]
        print(f"{label}: with the others / alone {ratios(company, alone)}; "
              f"alone / in-process {ratios(alone, loop)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
