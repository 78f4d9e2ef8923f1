"""How fast the command line starts: each case in fresh processes, median and spread.

    python benchmarks/startup.py                         # five runs of each case
    python benchmarks/startup.py --quick                 # two runs of each
    python benchmarks/startup.py --publish docs/performance   # its current page

A user who tries formulations in a loop pays the start-up on every call, so
each case is a whole process, timed from its start to its exit, as a shell
would time it:

- ``--help``: the parser alone (no pandas, plotting, solver library or plan);
- ``solve`` of one 9x9 (puzzles/samples/boj2239.txt);
- a one-task run: the same puzzle, the backtracker, ``--repeat 1``, with its
  report written (one worker is started, not one per core);
- 5,000 easy puzzles on 2 workers: the time the run's tasks took ("work",
  its own task-time sum from meta.json) against the wall, so the harness's
  fixed costs and its cost per task show apart from the engine's.

Each case's median is checked against its goal; the spread (min-max) says
how much a shared machine moved it.
"""
from __future__ import annotations

import argparse
import platform
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compare.store.folder import RunFolder

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "puzzles/samples/boj2239.txt"
DATASET = ROOT.parent / "shared" / "datasets" / "kaggle_1m_first9999.txt"
EASY = 5000
WORKERS = 2
MACHINE = "2 cores, 24 GB, shared"


@dataclass
class Case:
    """One command, timed whole; ``goal(work)`` is the bound on its median wall."""
    name: str
    args: list[str]
    goal_text: str
    goal: callable
    walls: list[float] = field(default_factory=list)
    works: list[float] = field(default_factory=list)    # the run's task-time sum, if a run

    def median(self) -> float:
        return statistics.median(self.walls)

    def bound(self) -> float:
        return self.goal(statistics.median(self.works) if self.works else 0.0)

    def passed(self) -> bool:
        return self.median() <= self.bound()


def cases(easy_file: str) -> list[Case]:
    run = ["--engines", "backtracking", "--repeat", "1"]
    return [
        Case("`--help`", ["--help"], "<= 0.3 s", lambda _: 0.3),
        Case("`solve` of a 9x9", ["solve", SAMPLE], "<= 0.5 s", lambda _: 0.5),
        Case("a one-task run", ["--puzzles", SAMPLE, *run], "<= 2 s", lambda _: 2.0),
        Case(f"{EASY:,} easy puzzles on {WORKERS} workers",
             ["--puzzles", easy_file, "--sample", str(EASY), *run, "--workers", str(WORKERS)],
             f"<= 1.25 x work / {WORKERS} + 3 s",
             lambda work: 1.25 * work / WORKERS + 3.0),
    ]


def easy_puzzles(folder: Path, count: int = EASY, seed: int = 0) -> str:
    """The dataset where it is, else ``count`` easy 9x9 puzzles made here: a solved grid
    relabelled and shuffled within its bands and stacks, 36 cells emptied (their
    answers are checked as any other's; a puzzle with several is counted)."""
    if DATASET.is_file():
        return str(DATASET)
    rng = random.Random(seed)
    base = [[(3 * (r % 3) + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]
    lines = []
    for _ in range(count):
        digits = rng.sample(range(1, 10), 9)
        rows = [3 * b + r for b in rng.sample(range(3), 3) for r in rng.sample(range(3), 3)]
        cols = [3 * b + c for b in rng.sample(range(3), 3) for c in rng.sample(range(3), 3)]
        cells = [str(digits[base[r][c] - 1]) for r in rows for c in cols]
        for i in rng.sample(range(81), 36):
            cells[i] = "."
        lines.append("".join(cells))
    path = folder / "easy.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def timed(case: Case, scratch: Path, index: int) -> None:
    """One fresh process; a run writes into its own new folder."""
    args = list(case.args)
    out = scratch / f"run{id(case)}-{index}"
    if args[0] not in ("--help", "solve"):
        args += ["--out", str(out)]
    command = [sys.executable, "run_compare.py", *args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    case.walls.append(time.perf_counter() - started)
    if done.returncode != 0:
        raise SystemExit(f"{case.name}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    if out.is_dir():
        with RunFolder(out) as run:          # the store's door, read only
            case.works.append(sum(r["task_s"] for r in run.runs))


def table(measured: list[Case]) -> list[str]:
    rows = ["| case | goal | median | spread (min-max) | work (median) | verdict |",
            "|---|---|---|---|---|---|"]
    for case in measured:
        work = f"{statistics.median(case.works):.2f} s" if case.works else ""
        goal = case.goal_text + (f" = {case.bound():.2f} s" if "work" in case.goal_text else "")
        rows.append(f"| {case.name} | {goal} | {case.median():.2f} s | "
                    f"{min(case.walls):.2f}-{max(case.walls):.2f} s | {work} | "
                    f"{'PASS' if case.passed() else 'FAIL'} |")
    return rows


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "?"
    return head + (" with uncommitted changes" if git("status", "--porcelain") else "")


def publish(folder: Path, command: str, measured: list[Case], repeats: int,
            generated: bool) -> Path:
    """DIR/startup.md: the table with its command, commit and machine, and how to read it."""
    easy = ("puzzles made by the script (the dataset was absent)" if generated
            else f"`--sample {EASY}` of `../shared/datasets/{DATASET.name}`")
    text = "\n".join([
        "# Benchmark: start-up of the command line", "",
        "Written by `benchmarks/startup.py --publish`: the command below regenerates "
        "this page.", "",
        f"- command: `{command}`",
        f"- code: git {commit()}",
        f"- machine: {MACHINE}; Python {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.system()}",
        f"- runs: {repeats} of each case, each a fresh process", "",
        *table(measured), "",
        "## How to read it", "",
        "Each case is one whole `python run_compare.py ...` process, timed from its start to "
        "its exit as a shell would, run several times; the median is checked against the "
        "goal and the spread (fastest-slowest) says how much the shared machine moved it. "
        "Python itself starts in a few hundredths of a second; the rest is what the "
        "command imports and does.", "",
        "- `--help` builds the parser only: pandas, plotting, the solver libraries, numba "
        "and the plan are imported where they are used, never to print help "
        "(`tests/cli/test_startup_imports.py` keeps it so).",
        f"- `solve` reads and solves `{SAMPLE}` in the process itself, with the "
        "backtracker's python kernel (numba is imported only for `kernel=numba`).",
        "- the one-task run is the same puzzle as a comparison: one worker started (a pool "
        "is never larger than the tasks), the answer checked and stored, the report "
        "written (summary.md, results.csv, report.html, the plot).",
        f"- {EASY:,} easy puzzles on {WORKERS} workers: {easy}, `--engines backtracking "
        f"--repeat 1 --workers {WORKERS}`. Work is the run's own task-time sum (meta.json); "
        f"the goal allows the harness a quarter on top of the work spread over the workers, "
        f"plus 3 s for start-up and the report.", "",
        "A run pays what `--help` and `solve` do not: pandas and the plan, imported while "
        "the workers' forkserver imports the harness's modules in its own process, and after "
        "the run the report (results.csv, report.html); matplotlib is imported by a child "
        "forked before the run, which draws the PNG plot while the parent writes the rest. "
        "On a shared machine these compete with every other process for the 2 cores, which "
        "the spread shows.",
        ""])
    from compare.benchmark.page import page_text
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / "startup.md"
    written.write_text(page_text(text, written_by=None).rstrip() + "\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two runs of each case, not five")
    parser.add_argument("--publish", metavar="DIR", help="write DIR/startup.md")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 5
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        scratch = Path(tmp)
        easy_file = easy_puzzles(scratch)
        measured = cases(easy_file)
        for index in range(repeats):          # rounds, so a busy spell touches every case
            for case in measured:
                timed(case, scratch, index)
    print("\n".join(table(measured)))
    if args.publish:
        command = "python benchmarks/startup.py" + "".join(
            f" {shlex.quote(a)}" for a in (argv if argv is not None else sys.argv[1:]))
        page = publish(Path(args.publish), command, measured, repeats,
                       easy_file != str(DATASET))
        print(f"written: {page}")
    return 0 if all(case.passed() for case in measured) else 1


if __name__ == "__main__":
    sys.exit(main())
