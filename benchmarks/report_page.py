"""report.html on a large run: its size and how long the report step takes.

    python benchmarks/report_page.py                   # 100,000 tasks: 50,000 puzzles x 2 engines
    python benchmarks/report_page.py --puzzles 5000 --engines 4 --keep DIR
    python benchmarks/report_page.py --publish docs/performance   # its current table

A run of that size takes hours, so the run folder is made up: a results
store written directly, with per-puzzle times drawn from a seeded lognormal
spread (a few timeouts among them), as a real run would leave it. Then the
ordinary report step (``build_report``: every table, the PNGs, summary.md
and report.html) runs on it, timed as a whole and, apart, the page alone.
The page must stay small enough to open at once in a browser: the plots
aggregate what cannot be drawn point by point, and the task table and the
failure lists keep their most telling rows.

``synthetic_run`` is shared with the history tests, which need runs whose
speed is set exactly rather than left to a loaded machine.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from compare.store.files import RunFile
from compare.store.folder import RunFolder

LIMIT_S = 10.0


def synthetic_run(folder: Path | str, puzzles: int = 200, engines: dict[str, float] | None = None,
                  extra_s: dict[str, float] | None = None, seed: int = 0, run_seed: int = 0,
                  noise: float = 0.03, started: str = "2026-01-01T00:00:00+00:00",
                  host: str = "bench-host", sources: int = 2, baseline: str | None = None,
                  failed_every: int = 0) -> Path:
    """A finished run's folder: ``engines`` maps labels to a speed factor; each puzzle's
    time is a seeded draw (the same for every run of ``seed``) times the factor, plus
    ``extra_s`` per engine, times this run's noise (``run_seed``)."""
    run = RunFolder.new(folder)
    run.prepare(resume=False)          # made and locked, its store open, as a run's
    engines = engines or {"fast": 1.0, "slow": 3.0}
    puzzle_rng, run_rng = np.random.default_rng(seed), np.random.default_rng(run_seed + 1000)
    base = puzzle_rng.lognormal(np.log(0.004), 1.2, puzzles)
    ids = [f"set{i % sources}-{i % 7}x:{i}" for i in range(puzzles)]
    with run:
        store = run.store
        store.add_puzzles([{"puzzle_id": pid, "source": pid.split("-")[0], "origin": "synthetic",
                            "line": i, "kind": "sudoku", "size": 9, "clues": 25,
                            "formulations": "alldiff", "text": f"puzzle {pid}", "digest": pid}
                           for i, pid in enumerate(ids)])
        for engine, factor in engines.items():
            times = (base * factor + (extra_s or {}).get(engine, 0.0)) * run_rng.lognormal(
                0.0, noise, puzzles)
            for i, (pid, t) in enumerate(zip(ids, times)):
                status = "timeout" if t >= LIMIT_S else "solved"
                if failed_every and i % failed_every == 0 and engine != baseline:
                    status = "error"
                store.add({"puzzle_id": pid, "source": pid.split("-")[0], "kind": "sudoku",
                           "size": 9, "clues": 25, "engine": engine, "formulation": "alldiff",
                           "mode": "first", "limit": 2, "timeout": LIMIT_S, "repeat": 0,
                           "status": status, "verified": 1 if status == "solved" else None,
                           "build_s": 0.0, "solve_s": min(t, LIMIT_S),
                           "total_s": min(t, LIMIT_S), "nodes": 100, "library": "synthetic",
                           "version": "0", "message": "synthetic failure" if status == "error"
                           else None, "traceback": "Traceback (most recent call last):\n  ..."
                           if status == "error" else None, "finished_at": started})
        store.set_meta("config", {"engines_run": list(engines), "repeat": 1, "mode": "first",
                                  "timeout": LIMIT_S, "workers": 2, "baseline": baseline,
                                  "command": "synthetic", "started": started,
                                  "settings": {"engines": ",".join(engines),
                                               "timeout": LIMIT_S}})
        store.set_meta("environment", [{"cpu": "Synthetic CPU", "cores": 2, "memory_gb": 24.0,
                                        "os": "Linux", "python": "CPython 3.11", "host": host,
                                        "code": "git 0000000 (clean)", "started": started}])
        store.set_meta("planned", {e: puzzles for e in engines})
    return run.path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--puzzles", type=int, default=50_000)
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--keep", metavar="DIR", help="write the run here and keep it")
    parser.add_argument("--publish", metavar="DIR", help="also write the figures as "
                        "DIR/report_page.md (e.g. docs/performance: its current table)")
    args = parser.parse_args(argv)
    from compare.reporting import page
    from compare.reporting.report import build_report
    engines = {f"engine{k}": 1.0 + k for k in range(args.engines)}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp) / "run"
        synthetic_run(folder, args.puzzles, engines, baseline="engine0", failed_every=997)
        tasks = args.puzzles * args.engines
        rendered = []
        original = page.render

        def timed_render(inputs):
            start = time.perf_counter()
            text = original(inputs)
            rendered.append(time.perf_counter() - start)
            return text
        page.render = timed_render
        start = time.perf_counter()
        with RunFolder(folder) as run:
            build_report(run, quiet=True)
        whole = time.perf_counter() - start
        size = run.file(RunFile.PAGE).stat().st_size
        print(f"{tasks:,} tasks ({args.puzzles:,} puzzles x {args.engines} engines): "
              f"report step {whole:.1f} s, of which report.html {rendered[0]:.1f} s; "
              f"report.html {size / 2**20:.1f} MiB")
    if args.publish:
        command = " ".join(["python benchmarks/report_page.py",
                            *map(shlex.quote, argv if argv is not None else sys.argv[1:])])
        library = page.plotly_js()
        plotly = "" if library is None else (
            f" (plotly.js is {len(library.encode()) / 2**20:.1f} MiB of it)")
        publish(Path(args.publish), command, [
            ("the report step, all of it", f"{whole:.1f} s"),
            ("of which report.html", f"{rendered[0]:.1f} s"),
            ("report.html", f"{size / 2**20:.1f} MiB{plotly}")], tasks, args)


def publish(folder: Path, command: str, rows: list[tuple[str, str]], tasks: int, args) -> Path:
    """DIR/report_page.md: the figures with the command, the machine and the commit."""
    from compare.benchmark.page import page_text
    from compare.reporting.bench import machine_lines
    text = "\n".join([
        f"# Benchmark: the report step on {tasks:,} tasks", "",
        f"- command: `{command}`", *(f"- {line}" for line in machine_lines()), "",
        "| what | figure |", "|---|---|", *(f"| {what} | {figure} |" for what, figure in rows),
        "", "## How to read it", "",
        f"The script makes up a finished run of {tasks:,} tasks ({args.puzzles:,} puzzles x "
        f"{args.engines} engines, seeded lognormal times, an error every 997th task) and "
        "times the ordinary report step on it: every table, the PNGs, summary.md and "
        "report.html. What the page does not draw point by point (each scatter panel's "
        "puzzles, the curves, the task table) is aggregated as [harness.md](../harness.md) "
        "describes under report.html, so the page's size grows slowly with the run's.", ""])
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / "report_page.md"
    written.write_text(page_text(text, written_by="`benchmarks/report_page.py --publish`"),
                       encoding="utf-8")
    return written


if __name__ == "__main__":
    main()
