"""Benchmark of the numba kernel (``engines/backtracking/compiled/entry.py``), warm, in one process.

The same comparisons through the harness (every task in a worker, every
answer checked, the figures from the stored results) are the benchmark file
``benchmarks/numba.toml`` (``python run_compare.py bench benchmarks/numba.toml``);
this script adds what only one process can measure: the kernel call's own
rate, its node counts against the Python seed, and the compile cost. It
imports the installed package (``pip install -e .``).

A numba time is the wall time of one ``numba_kernel.solve`` call as an engine
would make it: the givens tuple of the model in, value tuples out (so the
Python-side conversion is included; building the ``Model`` is not). CP-SAT
(``cpsat:workers=1``) runs on the same puzzles in the same process, timed
as ``Result.total_s`` (translation plus search). The 9x9 ratios to CP-SAT
are like for like: ``backtracking:kernel=numba`` runs through its engine
too, and ``total_s`` is set against ``total_s`` (and ``solve_s`` against
``solve_s`` beside it). Every answer is checked by
``compare.judge.checker.check`` outside the timed region.

Parts (``--parts``, default all):

* ``nine``: seeded samples of royle_17clue_49158 and forum_hardest_1905_11plus,
  ``first``: puzzles/s and mean against targets, and against CP-SAT;
* ``lexfirst``: the same samples in ``lexfirst``: mean against ``first``'s;
* ``big``: gecode_16x16_janko, vu_kr_16x16, gecode_25x25, one limit per puzzle;
* ``seed``: numba ``seed`` against the Python ``seed`` on puzzles both finish
  (the Python one under a time limit), node counts compared;
* ``compile``: fresh processes: compile time with an empty cache, then the
  cost of loading it.

Usage: ``python benchmarks/numba_kernel.py [--sample 1000] [--seed 0]
[--limit 20] [--parts nine,lexfirst,big,seed,compile] [--no-cpsat] [--quick]``.
"""
from __future__ import annotations

import argparse
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORTS_FROM = time.perf_counter()   # the compile part's probe times the imports below

from compare.judge.checker import check  # noqa: E402
from engines import get_engine  # noqa: E402
from engines.backtracking.compiled import entry as nk  # noqa: E402
from puzzles.kinds.sudoku import Sudoku  # noqa: E402

IMPORTED = time.perf_counter()

from compare.benchmark import DATASETS  # noqa: E402  (pandas and more: not the kernel's cost)
from compare.benchmark.page import page_text  # noqa: E402
from compare.reporting.bench import machine_lines  # noqa: E402

ALPHABET = "123456789ABCDEFGHIJKLMNOP"
NINE = ("royle_17clue_49158", "forum_hardest_1905_11plus")
BIG = ("gecode_16x16_janko", "vu_kr_16x16", "gecode_25x25")
SEED_SETS = ("norvig_easy50", "norvig_top95")
PARTS = ("nine", "lexfirst", "big", "seed", "compile")
NINE_LIMIT = 10.0
# The page's closing words: what its figures are and are not.
READING = ("A `numba` time is the kernel call alone, warm, in this one process: no worker, "
           "no harness round trip, so it is the kernel's own rate, faster than the same "
           "engine's tasks in a comparison run. The ratios to CP-SAT are like for like, both "
           "through their engines in this process (`total_s` against `total_s`; the search "
           "ratio sets `solve_s` against `solve_s`). Every answer is checked outside the "
           "timed region. The compile table times fresh processes: an empty numba cache, "
           "then the cache the first one wrote.")


def puzzles(name: str, sample: int | None, seed: int) -> list[Sudoku]:
    lines = (DATASETS / f"{name}.txt").read_text().split()
    if sample is not None and sample < len(lines):
        lines = random.Random(seed).sample(lines, sample)
    side = {81: 9, 256: 16, 625: 25}
    return [Sudoku(side[len(line)], tuple(0 if ch == "." else ALPHABET.index(ch) + 1
                                          for ch in line), f"{name}:{k}")
            for k, line in enumerate(lines, 1)]


class Kernel:
    """The numba kernel as an engine would call it; one shape per grid size."""

    def __init__(self):
        self.shapes = {}

    def solve(self, puzzle: Sudoku, mode: str, limit: float, variant: str = "fast"):
        model = puzzle.to_model()
        kshape = self.shapes.get(model.structure.key)
        if kshape is None:
            kshape = self.shapes[model.structure.key] = nk.compile_structure(model.structure)
        givens = model.givens
        start = time.perf_counter()
        result = nk.solve(kshape, givens, variant, mode, deadline=start + limit)
        seconds = time.perf_counter() - start
        return result.status.value, result.solutions[0] if result.solutions else None, \
            seconds, result.nodes


def tally(items: list[Sudoku], outcomes) -> dict:
    """Times, which puzzles were solved, and any answer the checker rejects."""
    times, ok, wrong = [], [], []
    for puzzle, (status, answer, seconds) in zip(items, outcomes):
        times.append(seconds)
        ok.append(status == "solved")
        if ok[-1] and check(puzzle, answer) is not None:
            wrong.append(puzzle.name)
    return {"times": times, "ok": ok, "solved": sum(ok), "wrong": wrong}


def run_kernel(kernel: Kernel, items: list[Sudoku], mode: str, limit: float) -> dict:
    return tally(items, [kernel.solve(p, mode, limit)[:3] for p in items])


def run_engine(spec: str, items: list[Sudoku], limit: float) -> dict:
    """Through the engine, as a harness task runs it: ``times`` are ``total_s``
    (translation and search), ``search`` the ``solve_s`` of each."""
    engine = get_engine(spec)
    models = [p.to_model() for p in items]                # untimed, as in a worker
    for model in models[:10]:                             # warm: nothing compiles in a timed call
        engine.solve(model, "first", timeout=limit)
    results = [engine.solve(m, "first", timeout=limit) for m in models]
    got = tally(items, [(str(r.status), r.solution, r.total_s) for r in results])
    got["search"] = [r.solve_s for r in results]
    return got


def run_cpsat(items: list[Sudoku], limit: float) -> dict:
    return run_engine("cpsat:workers=1", items, limit)


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def sec(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return us(seconds)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def table(headers: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# ----- parts -----------------------------------------------------------------

def part_nine(args, kernel, report, firsts):
    """Kernel times for the rates and the lexfirst part; the ratios to CP-SAT like
    for like, both engines timed by the engine layer: ``total_s`` against
    ``total_s`` (the targets) and ``solve_s`` against ``solve_s`` (beside)."""
    rows, targets = [], []
    goal = {"royle_17clue_49158": 50_000, "forum_hardest_1905_11plus": 5_000}
    for name in NINE:
        items = puzzles(name, args.sample, args.seed)
        got = run_kernel(kernel, items, "first", NINE_LIMIT)
        firsts[name] = got
        mean, top = statistics.mean(got["times"]), max(got["times"])
        rate = len(items) / sum(got["times"])
        row = [name, len(items), got["solved"], f"{rate:,.0f}/s", us(mean),
               us(statistics.median(got["times"])), sec(top)]
        targets.append([f"{name}: puzzles/s >= {goal[name]:,}", f"{rate:,.0f}",
                        verdict(rate >= goal[name] and got["solved"] == len(items))])
        if args.cpsat:
            ours = run_engine("backtracking:kernel=numba", items, NINE_LIMIT)
            cp = run_cpsat(items, NINE_LIMIT)
            emean, etop = statistics.mean(ours["times"]), max(ours["times"])
            cmean, ctop = statistics.mean(cp["times"]), max(cp["times"])
            search = statistics.mean(ours["search"]) / statistics.mean(cp["search"])
            row += [us(emean), sec(cmean), sec(ctop), f"{emean / cmean:.4f}",
                    f"{etop / ctop:.3f}", f"{search:.4f}"]
            targets.append([f"{name}: mean <= 0.01 x CP-SAT mean", f"{emean / cmean:.4f}",
                            verdict(emean <= 0.01 * cmean)])
            targets.append([f"{name}: max <= 0.1 x CP-SAT max", f"{etop / ctop:.3f}",
                            verdict(etop <= 0.1 * ctop)])
            for engine, found in (("CP-SAT", cp), ("numba engine", ours)):
                if found["wrong"]:
                    report.append(f"WRONG {engine} answers: {found['wrong']}")
        if got["wrong"]:
            report.append(f"WRONG numba answers: {got['wrong']}")
        rows.append(row)
    headers = ["set", "puzzles", "solved", "numba puzzles/s", "numba mean", "numba median",
               "numba max"]
    if args.cpsat:
        headers += ["numba total_s mean", "CP-SAT total_s mean", "CP-SAT max", "mean ratio",
                    "max ratio", "search ratio"]
    report.append("## 9x9, `first`, fast\n\n" + table(headers, rows) + (
        "\n\n`numba` columns: the kernel call (the rate target). Ratios like for like, "
        "both through their engines: `mean ratio` and `max ratio` of `total_s` "
        "(translation and search, as a harness task is timed; the targets), `search "
        "ratio` of the mean `solve_s` (the search alone)." if args.cpsat else ""))
    return targets


def part_lexfirst(args, kernel, report, firsts):
    rows, targets = [], []
    for name in NINE:
        items = puzzles(name, args.sample, args.seed)
        got = run_kernel(kernel, items, "lexfirst", NINE_LIMIT)
        mean, top = statistics.mean(got["times"]), max(got["times"])
        first = statistics.mean(firsts[name]["times"]) if name in firsts else None
        ratio = f"{mean / first:.2f}" if first else "n/a"
        rows.append([name, len(items), got["solved"], us(mean), us(first) if first else "n/a",
                     ratio, sec(top)])
        ok = got["solved"] == len(items) and top <= NINE_LIMIT and (
            first is None or mean <= 3 * first)
        targets.append([f"{name}: lexfirst mean <= 3 x first, none over 10 s",
                        f"{ratio}, max {sec(top)}", verdict(ok)])
        if got["wrong"]:
            report.append(f"WRONG numba lexfirst answers: {got['wrong']}")
    report.append("## 9x9, `lexfirst`, fast\n\n" + table(
        ["set", "puzzles", "solved", "lexfirst mean", "first mean", "ratio", "lexfirst max"],
        rows))
    return targets


def part_big(args, kernel, report):
    rows, detail, targets = [], [], []
    for name in BIG:
        items = puzzles(name, None, args.seed)
        got = run_kernel(kernel, items, "first", args.limit)
        cp = run_cpsat(items, args.limit) if args.cpsat else None
        ours = got["times"]
        row = [name, len(items), got["solved"], sec(statistics.mean(ours)), sec(max(ours))]
        if cp:
            row += [cp["solved"], sec(statistics.mean(cp["times"])), sec(max(cp["times"]))]
        rows.append(row)
        if name.startswith("gecode_25"):
            for k in range(len(items)):
                line = [k + 1, sec(got["times"][k]) if got["ok"][k] else "timeout"]
                if cp:
                    line.append(sec(cp["times"][k]) if cp["ok"][k] else "timeout")
                detail.append(line)
        if cp and "16x16" in name:
            ratio = max(ours) / max(cp["times"])
            targets.append([f"{name}: max <= 0.2 x CP-SAT max", f"{ratio:.3f}",
                            verdict(ratio <= 0.2 and got["solved"] == len(items))])
        if cp and name.startswith("gecode_25"):
            missing = [k + 1 for k, (a, b) in enumerate(zip(got["ok"], cp["ok"])) if b and not a]
            targets.append([f"{name}: solves every puzzle CP-SAT solves "
                            f"(moonshot: all {len(items)})",
                            f"numba {got['solved']}, CP-SAT {cp['solved']}"
                            + (f", missing lines {missing}" if missing else ""),
                            verdict(not missing)])
        for label, res in (("numba", got), ("CP-SAT", cp)):
            if res and res["wrong"]:
                report.append(f"WRONG {label} answers on {name}: {res['wrong']}")
    headers = ["set", "puzzles", "numba solved", "numba mean", "numba max"]
    if args.cpsat:
        headers += ["CP-SAT solved", "CP-SAT mean", "CP-SAT max"]
    report.append(f"## 16x16 and 25x25, `first`, fast, limit {args.limit:g} s per puzzle "
                  "(times over all puzzles, a timeout counts as the limit)\n\n"
                  + table(headers, rows))
    report.append("gecode_25x25 per line:\n\n" + table(
        ["line", "numba"] + (["CP-SAT"] if args.cpsat else []), detail))
    return targets


def part_seed(args, kernel, report):
    python_seed = get_engine("backtracking:variant=seed")
    pairs, same_effort, skipped = [], 0, 0
    for name in SEED_SETS:
        for puzzle in puzzles(name, None, args.seed)[:args.seed_count]:
            theirs = python_seed.solve(puzzle.to_model(), "first", timeout=args.seed_limit)
            if theirs.status != "solved":
                skipped += 1
                continue
            status, answer, seconds, nodes = kernel.solve(puzzle, "first", args.limit, "seed")
            assert status == "solved" and check(puzzle, answer) is None
            same_effort += nodes == theirs.nodes
            pairs.append((theirs.total_s, seconds, nodes))
    python_total = sum(p for p, _, _ in pairs)
    numba_total = sum(n for _, n, _ in pairs)
    ratios = [p / n for p, n, _ in pairs]
    nodes = sum(k for _, _, k in pairs)
    report.append("## seed: numba against the Python reference\n\n" + table(
        ["puzzles (both finish)", "Python seed", "numba seed", "total ratio", "median ratio",
         "nodes (total)", "same nodes", f"skipped (Python > {args.seed_limit:g} s)"],
        [[len(pairs), sec(python_total), sec(numba_total),
          f"{python_total / numba_total:.0f}x", f"{statistics.median(ratios):.0f}x",
          f"{nodes:,}", f"{same_effort}/{len(pairs)}", skipped]]))
    return [["seed: numba >= 30 x Python on puzzles both finish",
             f"{python_total / numba_total:.0f}x", verdict(python_total >= 30 * numba_total)]]


def probe(grid: str) -> None:
    """The compile part's child process: this file's own imports, then one solve
    and the warm-up, so the probe cannot drift from the kernel the parts use."""
    model = Sudoku(9, tuple(int(c) for c in grid)).to_model()
    before = time.perf_counter()
    nk.solve(nk.compile_structure(model.structure), model.givens)
    first = time.perf_counter() - before
    print(IMPORTED - IMPORTS_FROM, first, nk.warm_up())


BOJ = ("103000509002109400000704000300502006060000050700803004000401000009205800"
       "804000107")


def part_compile(args, report):
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("empty cache (compiles)", "cache from the run above"):
            done = subprocess.run([sys.executable, __file__, "--probe", BOJ], env=env,
                                  capture_output=True, text=True)
            if done.returncode:   # the parts above are still reported
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                rows.append([label, f"failed: {last}", "", ""])
                continue
            imported, first, warm = (float(x) for x in done.stdout.split())
            rows.append([label, sec(imported), sec(first), sec(warm)])
    report.append("## compile and cache (fresh processes, `NUMBA_CACHE_DIR` a new folder)"
                  "\n\n" + table(["process", "imports", "first solve (9x9 fast)",
                                  "then warm_up() (the other kernels)"], rows))
    return []


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sample", type=int, default=1000, help="9x9 sample size (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--limit", type=float, default=20.0, help="per-puzzle limit for 16x16 "
                   "and 25x25, seconds (default 20)")
    p.add_argument("--parts", default=",".join(PARTS), help="comma-separated parts")
    p.add_argument("--no-cpsat", dest="cpsat", action="store_false", help="skip CP-SAT")
    p.add_argument("--seed-count", type=int, default=30,
                   help="puzzles per set tried for the seed part (default 30)")
    p.add_argument("--seed-limit", type=float, default=3.0,
                   help="time limit of the Python seed per puzzle (default 3 s)")
    p.add_argument("--quick", action="store_true", help="smoke test: 50 9x9 puzzles, "
                   "2 s limits, 5 seed puzzles per set")
    p.add_argument("--publish", metavar="DIR", help="also write the report to "
                   "DIR/numba_kernel.md (e.g. docs/performance: its current table)")
    p.add_argument("--probe", metavar="GRID", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.probe:
        probe(args.probe)
        return 0
    if args.quick:
        args.sample, args.limit, args.seed_count = 50, 2.0, 5
    parts = args.parts.split(",")
    if not nk.available():
        print(f"numba kernel unavailable: {nk.unavailable_reason()}")
        return 2
    started = time.perf_counter()
    warm = nk.warm_up()
    kernel = Kernel()
    report, targets, firsts = [], [], {}
    if "nine" in parts:
        targets += part_nine(args, kernel, report, firsts)
    if "lexfirst" in parts:
        targets += part_lexfirst(args, kernel, report, firsts)
    if "big" in parts:
        targets += part_big(args, kernel, report)
    if "seed" in parts:
        targets += part_seed(args, kernel, report)
    if "compile" in parts:
        targets += part_compile(args, report)
    command = " ".join(["python benchmarks/numba_kernel.py",
                        *map(shlex.quote, argv if argv is not None else sys.argv[1:])])
    out = ["# Benchmark: the numba kernel, warm, in one process\n",
           "\n".join([f"- command: `{command}`",
                      *(f"- {line}" for line in machine_lines({"numba": nk.numba.__version__})),
                      f"- benchmark time: {time.perf_counter() - started:.0f} s in all "
                      f"(warm-up {sec(warm)})"]) + "\n"]
    if targets:
        out.append("## Targets\n\n" + table(["target", "measured", "verdict"], targets) + "\n")
    out.append("\n\n".join(report))
    out.append("\n## How to read it\n\n" + READING)
    text = "\n".join(out)
    print(text)
    if args.publish:
        folder = Path(args.publish)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "numba_kernel.md").write_text(page_text(
            text + "\n", written_by="`benchmarks/numba_kernel.py --publish`"), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
