"""The backtracker's general search, compiled against its Python reference and ACE.

    python benchmarks/general_search.py                       # the subset below, 10 s, 3 repeats
    python benchmarks/general_search.py --quick               # 2 s per task, 1 repeat
    python benchmarks/general_search.py --publish docs/performance   # its current page
    python benchmarks/general_search.py queens:40 my.xml      # other instances instead

Three engines on general models (any constraint besides AllDifferent, where
the backtracker takes its general search): ``backtracking:kernel=numba``
(the compiled general search; on a model it does not take, the Python one),
``backtracking`` (the Python reference) and ``ace``. One comparison run
through ``compare.api.run_comparison``, as ``python run_compare.py`` makes
it: ``first`` mode, every task in a worker, warm (each worker's first shape
is untimed), every answer checked and the engines cross-checked, each task
``--repeat`` times (a timed-out task is not run again), times the medians.

The fixed subset (``XCSP3`` and ``PROJECT``): eleven small XCSP3 2024 instances of
``--datasets``/xcsp3_2024_csp, one or two per family, each parsed and
translated in well under a second, and four of the project's own general
models. The HyperSudoku instances are AllDifferent-only (the Sudoku search,
not the general one) and WordSquare takes seconds to load, so neither is in
it. A missing dataset file is skipped with one line saying so.

Reported per engine: instances answered (solved or proved unsatisfiable,
verified), the median time to answer over those, nodes per second (the sum
of nodes over the sum of search time, ``solve_s``, over every task that
reports nodes, timed-out ones included; ACE reports none: n/a), and the time
against the Python reference on the instances both answered; per instance,
each engine's time and nodes per second. Exit codes are the run's: 0 every
answer verified, 1 a wrong answer or a disagreement, 2 bad usage, 3 no
worker could start, 130 interrupted.
"""
from __future__ import annotations

import argparse
import math
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

import puzzles
from compare.api import Interrupted, run_comparison
from compare.benchmark import DATASETS
from compare.benchmark.page import page_text
from compare.errors import FAULTS, Exit, exit_code
from compare.reporting.bench import machine_lines

NUMBA, PYTHON, ACE = "backtracking:kernel=numba", "backtracking", "ace"
ENGINES = (NUMBA, PYTHON, ACE)
LABELS = {NUMBA: "numba", PYTHON: "python", ACE: "ACE"}
XCSP3_FOLDER = "xcsp3_2024_csp"
# The subset: XCSP3 instances by file name (without .xml.lzma) and project puzzle specs.
XCSP3 = ("PoolBallTriangle-05_c24", "PoolBallTriangle-10_c24", "Takuzu-custom",
         "Takuzu-030_c24", "Pentominoes-03-20_c24", "Pentominoes-06-10_c24",
         "Subisomorphism-g10-g27_c24", "Hamming-20-10-03-05_c24", "AverageAvoiding-20_c24",
         "SocialGolfers-cnt-08-04-07_c24", "FRB-40-19-3-mgd_c18")
EXAMPLES = Path(puzzles.__file__).resolve().parent / "examples"
# (spec, the file it reads or None)
PROJECT = (("queens:80", None), ("cryptarithm:CROSS+ROADS=DANGER", None),
           (f"killer:{EXAMPLES / 'killer9.killer'}", EXAMPLES / "killer9.killer"),
           (f"coloring:{EXAMPLES / 'myciel3.col'}:colors=3",      # unsatisfiable
            EXAMPLES / "myciel3.col"))
READING = (
    "Each engine ran every instance in `first` mode in the harness's workers, the "
    "instances and engines interleaved, each task repeated (a timed-out one is not run "
    "again); a time is the median of a task's repeats, its `total_s` (the model's "
    "translation by the engine and the search; loading the file is not timed), and "
    "`timeout` means no answer within the limit. Every answer was checked against the "
    "instance's own constraints. Nodes per second is the engine's node count over its "
    "search time (`solve_s`), summed over every task that reports nodes, timed-out ones "
    "included: the rate of the search, whatever its outcome. Both backtracker columns "
    "are its `fast` variant; the bracketed node counts show whether the two walked the "
    "same tree, so a rate is read with them. ACE counts no nodes (n/a), and its times "
    "include starting Java, once per task. `vs python` is the geometric mean, over the "
    "instances both answered (their number in brackets), of the engine's time over the "
    "Python reference's. `kernel=numba` runs the compiled general search on the models "
    "it takes and the Python one on the others: where both backtracker columns count "
    "the same nodes at about the same rate, it ran the Python search.")


def subset(datasets: Path) -> tuple[list[str], list[str]]:
    """The subset's inputs that exist, and the names of those that do not."""
    folder = datasets / XCSP3_FOLDER
    present, missing = [], []
    for name in XCSP3:
        path = folder / f"{name}.xml.lzma"
        (present if path.is_file() else missing).append(str(path) if path.is_file() else name)
    for spec, path in PROJECT:
        (present if path is None or path.is_file() else missing).append(spec)
    return present, missing


def short(name: str) -> str:
    """An input as the tables name it: an XCSP3 file by its instance's name, a
    project example by its path in the package."""
    if name.endswith(".xml.lzma"):
        return Path(name).name.removesuffix(".xml.lzma")
    return name.replace(str(EXAMPLES), "puzzles/examples")


def seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.0f} µs"


def rate(nodes: float, solve_s: float) -> str:
    return f"{nodes / solve_s:,.0f}" if solve_s > 0 and nodes > 0 else "n/a"


def table(headers: list[str], rows: list[list]) -> list[str]:
    return ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers),
            *("| " + " | ".join(str(c) for c in row) + " |" for row in rows)]


def figures(comparison, engines: list[str], order: dict[str, int]) -> tuple[list, list]:
    """The tables: per engine, then per instance (times, then nodes per second), the
    instances in ``order`` (puzzle id -> rank)."""
    tasks, results = comparison.tasks, comparison.results
    ids = sorted(dict.fromkeys(tasks["puzzle_id"]), key=lambda p: order.get(p, len(order)))
    cell = {(row.puzzle_id, row.engine): row for row in tasks.itertuples()}
    counted = results[results["nodes"].notna() & results["solve_s"].notna()]
    answered = {e: {p for p in ids if (p, e) in cell and cell[p, e].solved} for e in engines}
    per_engine = []
    for engine in engines:
        times = [cell[p, engine].total_s for p in answered[engine]]
        mine = counted[counted["engine"] == engine]
        ratios = [cell[p, engine].total_s / cell[p, PYTHON].total_s
                  for p in answered[engine] & answered.get(PYTHON, set())
                  if cell[p, PYTHON].total_s > 0 and cell[p, engine].total_s > 0]
        versus = ("reference" if engine == PYTHON else "n/a" if not ratios else
                  f"{math.exp(statistics.fmean(map(math.log, ratios))):.3g}x ({len(ratios)})")
        per_engine.append([LABELS.get(engine, engine), f"{len(answered[engine])}/{len(ids)}",
                           seconds(statistics.median(times)) if times else "n/a",
                           rate(mine["nodes"].sum(), mine["solve_s"].sum()), versus])
    time_rows, rate_rows = [], []
    for puzzle in ids:
        times, rates = [short(puzzle)], [short(puzzle)]
        for engine in engines:
            row = cell.get((puzzle, engine))
            times.append("missing" if row is None else
                         seconds(row.total_s) if row.solved else row.status)
            runs = counted[(counted["puzzle_id"] == puzzle) & (counted["engine"] == engine)]
            speed = rate(runs["nodes"].sum(), runs["solve_s"].sum())
            rates.append(speed if speed == "n/a" else
                         f"{speed} ({runs['nodes'].median():,.0f} nodes)")
        time_rows.append(times)
        rate_rows.append(rates)
    names = [LABELS.get(e, e) for e in engines]
    return (table(["engine", "answered", "median time to answer", "nodes/s",
                   "vs python (instances)"], per_engine),
            [*table(["instance", *names], time_rows), "",
             "Nodes per second (in brackets the median nodes of a task's repeats):", "",
             *table(["instance", *names], rate_rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("puzzles", nargs="*", help="files or specs instead of the subset")
    parser.add_argument("--engines", default=",".join(ENGINES),
                        help=f"comma-separated engine specs (default {','.join(ENGINES)})")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="limit per task, seconds (default 10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per task (default 3)")
    parser.add_argument("--workers", type=int, help="worker processes (default one per core)")
    parser.add_argument("--datasets", type=Path, default=DATASETS,
                        help=f"the folder holding {XCSP3_FOLDER}/ (default ../shared/datasets)")
    parser.add_argument("--out", help="the run's folder, new or empty (default a temporary one)")
    parser.add_argument("--quick", action="store_true", help="2 s per task, 1 repeat")
    parser.add_argument("--publish", metavar="DIR", help="also write DIR/general_search.md")
    args = parser.parse_args(argv)
    if args.quick:
        args.timeout, args.repeat = 2.0, 1
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if args.puzzles:
        inputs, missing = args.puzzles, []
    else:
        inputs, missing = subset(args.datasets)
    if missing:
        print(f"skipped, absent: {', '.join(missing)}", file=sys.stderr)
    if not inputs:
        print("error: no instance to run", file=sys.stderr)
        return Exit.USAGE
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="general-search-") as scratch:
        try:
            comparison = run_comparison(
                inputs, engines, mode="first", timeout=args.timeout, repeat=args.repeat,
                workers=args.workers, baseline=PYTHON if PYTHON in engines else None,
                out=args.out or Path(scratch) / "run")
            order = {short(i): k for k, i in enumerate(inputs)}
            order.update({i: k for k, i in enumerate(inputs)})
            engine_rows, instance_rows = figures(comparison, engines, order)
            problems = comparison.problems
        except Interrupted:
            print("interrupted", file=sys.stderr)
            return Exit.INTERRUPTED
        except FAULTS as err:
            print(f"error: {err}", file=sys.stderr)
            return exit_code(err)
    command = " ".join(["python benchmarks/general_search.py",
                        *map(shlex.quote, argv if argv is not None else sys.argv[1:])])
    text = "\n".join([
        "# Benchmark: the backtracker's general search, compiled, Python and ACE", "",
        f"- command: `{command}`",
        *(f"- {line}" for line in machine_lines()),
        f"- instances: {len(inputs)} ({', '.join(map(short, inputs))})"
        + (f"; skipped, absent: {', '.join(missing)}" if missing else ""),
        f"- engines: {', '.join(f'{LABELS.get(e, e)} = `{e}`' for e in engines)}",
        f"- mode `first`, limit {args.timeout:g} s per task, {args.repeat} repeat(s), "
        f"{time.perf_counter() - started:.0f} s in all", "",
        "## Per engine", "", *engine_rows, "",
        "## Per instance", "", "Time to answer (median of the repeats):", "",
        *instance_rows, "",
        *(["## Problems", "", *(f"- {p.line()}" for p in problems), ""] if problems else []),
        "## How to read it", "", READING, ""])
    print(text)
    if args.publish:
        folder = Path(args.publish)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "general_search.md").write_text(page_text(
            text, written_by="`benchmarks/general_search.py --publish`"), encoding="utf-8")
    return Exit.PROBLEMS if problems else Exit.OK


if __name__ == "__main__":
    sys.exit(main())
