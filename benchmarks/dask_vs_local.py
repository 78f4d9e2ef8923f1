"""The Dask executor against the local one, and where a Dask run would saturate.

The local executor against a local:N cluster alone is the benchmark file
``benchmarks/dask.toml`` (``python run_compare.py bench benchmarks/dask.toml``);
this script adds a cluster already running and the scaling figures of the
parts underneath (the store's rate, the parent's cost per result, Dask's
cost per chunk). It imports the installed package (``pip install -e .``).

    python benchmarks/dask_vs_local.py                # 5,000 easy 9x9 puzzles, three ways
    python benchmarks/dask_vs_local.py --big 20000    # and a 20,000-puzzle Dask run
    python benchmarks/dask_vs_local.py --scaling      # and the zero-time-task figures

The three ways, each ``--repeat`` times in turn (the median run reported): the
local executor with ``--workers`` processes; ``cluster="local:N"`` (the run
starts and stops its own Dask cluster, in its own process); and a Dask
cluster already running (``dask scheduler`` and ``dask worker`` processes
this script starts on 127.0.0.1 before timing anything), which is how a real
cluster is used. Every run has the same explicit settings (``SETTINGS``: one
repeat, the default mode, limit and time limit), whatever the defaults.
The datasets are read from ``shared/datasets`` beside the repository;
the figures in docs/cluster.md come from it. Every run writes to a
temporary folder that is removed afterwards.
"""
from __future__ import annotations

import argparse
import random
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from compare import run_comparison
from compare.benchmark import DATASETS
from compare.executors.tasks import PuzzleRecord, Task
from compare.run.runner import result_row
from compare.store.folder import RunFolder
from engines import get_engine
from puzzles.kinds.generator import full_grid
from puzzles.kinds.sudoku import Sudoku

EASY = DATASETS / "kaggle_1m_first9999.txt"
MANY = DATASETS / "royle_17clue_49151.txt"
# What every run computes, given explicitly: a run's defaults (repeats) may change.
SETTINGS = dict(mode="first", limit=2, timeout=10.0, repeat=1, seed=0)


def timed(label: str, folder: Path, puzzles, **settings) -> dict:
    started = time.perf_counter()
    comparison = run_comparison(puzzles, ["backtracking"], out=folder / label,
                                **SETTINGS, **settings)
    call_s = time.perf_counter() - started
    run = comparison.runs[-1]
    frame = comparison.results
    return {"run": label, "rows": len(frame), "distinct": frame["puzzle_id"].nunique(),
            "statuses": {k: int(v) for k, v in frame["status"].value_counts().items()}, "call_s": call_s,
            "wall_s": run["wall_s"], "first_s": run["first_s"],
            "after_first_s": run["wall_s"] - run["first_s"], "parent_cpu_s": run["parent_cpu_s"]}


@contextmanager
def running_cluster(workers: int):
    """A scheduler and ``workers`` single-threaded workers on 127.0.0.1, as a user starts them."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    dask = str(Path(sys.executable).parent / "dask")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    local = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    procs = [subprocess.Popen([dask, "scheduler", "--port", address.rsplit(":", 1)[1], *local],
                              **quiet)]
    procs += [subprocess.Popen([dask, "worker", address, "--nthreads", "1", *local], **quiet)
              for _ in range(workers)]
    try:
        import distributed
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for group in (procs[1:], procs[:1]):
            for proc in group:
                proc.terminate()
            for proc in group:
                proc.wait(30)


def compare_executors(folder: Path, sample: int, workers: int, repeat: int,
                      address: str) -> list[dict]:
    common = dict(sample=sample, workers=workers)
    runs: dict[str, list[dict]] = {}
    for i in range(repeat):
        for label, extra in (("local", {}),
                             ("dask local:N", dict(executor="dask", cluster=f"local:{workers}")),
                             ("dask running", dict(executor="dask", scheduler=address))):
            runs.setdefault(label, []).append(
                timed(f"{label.replace(' ', '-').replace(':', '')}-{i}", folder, [EASY],
                      **common, **extra))
    for label, found in runs.items():
        print(f"{label}: wall / first result / after it, s: "
              + ", ".join(f"{r['wall_s']:.2f}/{r['first_s']:.2f}/{r['after_first_s']:.2f}"
                          for r in found))
    return [median(label, found) for label, found in runs.items()]


def median(label: str, runs: list[dict]) -> dict:
    """The run with the median wall time (its figures stay consistent with each other)."""
    middle = sorted(runs, key=lambda r: r["wall_s"])[len(runs) // 2]
    return dict(middle, run=f"{label} (median of {len(runs)})")


def solved_grids(count: int, folder: Path) -> Path:
    """Full 9x9 grids: tasks that cost next to nothing to solve."""
    path = folder / "full.txt"
    path.write_text("".join("".join(map(str, full_grid(9, random.Random(i)))) + "\n"
                            for i in range(count)))
    return path


@contextmanager
def writing(folder: Path):
    """A new run folder's store, made and locked as a run makes it."""
    run = RunFolder.new(folder)
    run.prepare(resume=False)
    with run:
        yield run.store


def scaling(folder: Path, workers: int, address: str) -> dict:
    """The parent's cost per result, the store's rate, and Dask's cost per chunk, both with
    the scheduler and workers in the client's process (local:N) and elsewhere (running)."""
    figures = {}
    # the store alone: rows per second, committed as a run commits them
    rows = [{"puzzle_id": f"p:{i}", "engine": "x", "formulation": "alldiff", "mode": "first",
             "repeat": 0, "status": "solved", "answer": "1" * 81, "total_s": 0.001}
            for i in range(50_000)]
    with writing(folder / "store") as store:
        started = time.perf_counter()
        for row in rows:
            store.add(row)
        store.flush()
        figures["store_rows_per_s"] = len(rows) / (time.perf_counter() - started)
    # the parent's whole share of a result: checking it and flattening it into a row
    engine = get_engine("backtracking")
    grids = [full_grid(9, random.Random(i)) for i in range(2000)]
    records, results = [], []
    for i, grid in enumerate(grids):
        puzzle = Sudoku(9, tuple(v if (i + k) % 3 else 0 for k, v in enumerate(grid)))
        records.append(PuzzleRecord(f"g:{i}", puzzle, "g", "g.txt", i))
        results.append(engine.solve(puzzle.to_model("alldiff"), "first", 2, 10.0))
    started = time.perf_counter()
    with writing(folder / "parent") as store:
        for i, (rec, result) in enumerate(zip(records, results)):
            task = Task(i, rec.puzzle_id, "alldiff", engine.label, "first", 2, 10.0, 0)
            store.add(result_row(task, rec, result, ("builtin", "")))
    figures["parent_ms_per_result"] = 1000 * (time.perf_counter() - started) / len(records)
    # Dask end to end on zero-time tasks: adaptive chunks, then one task per chunk
    full = solved_grids(4000, folder)
    for where, cluster in (("local:N", dict(cluster=f"local:{workers}")),
                           ("running", dict(scheduler=address))):
        for kind, chunk, count in (("adaptive", None, 4000), ("chunk1", 1, 400)):
            label = f"zero-{kind} {where}"
            figures[label] = timed(label.replace(" ", "-").replace(":", ""), folder, [full],
                                   sample=count, workers=workers, executor="dask", chunk=chunk,
                                   **cluster)
        one = figures[f"zero-chunk1 {where}"]
        figures[f"ms_per_chunk {where}"] = (1000 * one["after_first_s"] * workers
                                            / max(1, one["rows"] - 1))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", type=int, default=0, metavar="N",
                        help="also a Dask run of N 17-clue puzzles (e.g. 20000)")
    parser.add_argument("--scaling", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, running_cluster(args.workers) as address:
        folder = Path(tmp)
        runs = compare_executors(folder, args.sample, args.workers, args.repeat, address)
        if args.big:
            runs.append(timed("dask-big", folder, [MANY], sample=args.big, workers=args.workers,
                              executor="dask", cluster=f"local:{args.workers}"))
        print("| run | rows | distinct puzzles | statuses | call s | wall s | first result s "
              "| after first s | parent CPU s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in runs:
            print(f"| {r['run']} | {r['rows']} | {r['distinct']} | {r['statuses']} "
                  f"| {r['call_s']:.2f} | {r['wall_s']:.2f} | {r['first_s']:.2f} "
                  f"| {r['after_first_s']:.2f} | {r['parent_cpu_s']:.2f} |")
        local = runs[0]
        print()
        for dask in runs[1:3]:
            print(f"{dask['run']} / local: wall {dask['wall_s'] / local['wall_s']:.2f}x, after "
                  f"the first result {dask['after_first_s'] / local['after_first_s']:.2f}x")
        if args.scaling:
            fig = scaling(folder, args.workers, address)
            print(f"\nstore: {fig['store_rows_per_s']:,.0f} rows/s; parent: "
                  f"{fig['parent_ms_per_result']:.3f} ms per result (check + row + store)")
            for where in ("local:N", "running"):
                for kind in ("adaptive", "chunk1"):
                    r = fig[f"zero-{kind} {where}"]
                    rate = (r["rows"] - 1) / max(r["after_first_s"], 1e-9)
                    print(f"zero-{kind} {where}: {r['rows']} tasks, {rate:,.0f} results/s after "
                          f"the first, parent CPU {1000 * r['parent_cpu_s'] / r['rows']:.3f} ms "
                          "per result")
                print(f"Dask {where}: {fig[f'ms_per_chunk {where}']:.2f} ms per chunk per "
                      "worker (one-task chunks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
