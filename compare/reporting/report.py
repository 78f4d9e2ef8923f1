"""The report step: from the SQLite file to results.csv, summary.md and plots.

It reads only the store, so ``run_compare.py report --out DIR`` rebuilds a
report without running anything (mzn-bench style separate steps).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from compare.harness.store import COLUMNS, Store, atomic_write
from compare.judge.verdict import findings
from compare.reporting import plots, summary


@dataclass
class Report:
    """What a report found: the command line turns it into an exit code."""
    folder: Path
    problems: list = field(default_factory=list)      # wrong answers and disagreements
    failures: dict = field(default_factory=dict)      # (engine, status) -> tasks errored/crashed
    empty: bool = False

    @property
    def clean(self) -> bool:
        return not self.problems


def build_report(folder: Path | str, baseline: str | None = None, quiet: bool = False) -> Report:
    """Write every report file and print the summary."""
    folder = Path(folder)
    with Store(folder) as store:
        frame = store.frame()
        puzzles = store.puzzles()
        config = store.meta("config", {})
        skipped = store.meta("skipped", [])
        runs = store.meta("runs", [])
    if frame.empty:
        print(f"{folder}: no results yet", file=sys.stderr)
        return Report(folder, empty=True)
    tasks = summary.per_task(frame)
    base = summary.choose_baseline(tasks, baseline or config.get("baseline"))
    order = {"engine": config.get("engines_run", []),
             "source": [p["source"] for p in puzzles.values()]}
    by_engine = summary.in_order(summary.engine_table(tasks, base), order)
    by_source = summary.in_order(summary.engine_table(tasks, base, by=["source"]), order)
    problems = findings(frame, puzzles, config.get("plugin_env"))
    _export(frame, folder)
    pictures = [p for p in (plots.cactus(tasks, folder / "cactus.png"),
                            plots.scatter(tasks, base, folder / "scatter.png")) if p]
    text = _markdown(config, frame, by_engine, by_source, base, problems, skipped, pictures,
                     runs)
    atomic_write(folder / "summary.md", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    if not quiet:
        _print(by_engine, by_source, base, folder, runs)
    _print_problems(problems)
    failures = _failures(frame)
    _print_failures(failures)
    return Report(folder, problems, failures)


def _failures(frame) -> dict:
    failed = frame[frame["status"].isin(["error", "crashed"])]
    return {key: int(n) for key, n in failed.groupby(["engine", "status"]).size().items()}


def _print_failures(failures: dict) -> None:
    """Errors and crashes are no wrong answers, but they must not go unseen."""
    if not failures:
        return
    listed = ", ".join(f"{engine} {status} x{n}" for (engine, status), n in failures.items())
    print(f"note: tasks without an answer: {listed} (see 'message' in results.csv)",
          file=sys.stderr)


def _export(frame, folder: Path) -> None:
    frame = frame[list(COLUMNS)]
    atomic_write(folder / "results.csv", lambda tmp: frame.to_csv(tmp, index=False))
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return
    atomic_write(folder / "results.parquet", lambda tmp: frame.to_parquet(tmp, index=False))


def harness_line(run: dict) -> str:
    """Wall time against the ideal (task time spread evenly over the workers)."""
    ideal = run["task_s"] / run["workers"]
    ratio = run["wall_s"] / ideal if ideal > 0 else float("nan")
    return (f"{run['tasks']} tasks in {run['wall_s']:.2f} s wall on {run['workers']} workers "
            f"(first result after {run.get('first_s', 0):.2f} s); task times sum to "
            f"{run['task_s']:.2f} s, /{run['workers']} = {ideal:.2f} s (wall/ideal {ratio:.2f}); "
            f"parent CPU {run['parent_cpu_s']:.2f} s")


def _print(by_engine, by_source, base, folder: Path, runs) -> None:
    print(f"\nPer engine (baseline: {base or 'none'}):")
    print(summary.to_text(by_engine))
    if by_source["source"].nunique() > 1:
        print("\nPer source:")
        print(summary.to_text(by_source))
    for run in runs[-1:]:
        print(f"\nHarness: {harness_line(run)}")
    print(f"Report: {folder / 'summary.md'}")


def _print_problems(problems) -> None:
    if not problems:
        return
    bar = "!" * 72
    print(f"\n{bar}\n!!! {len(problems)} WRONG ANSWER(S) / DISAGREEMENT(S)\n{bar}", file=sys.stderr)
    for found in problems:
        print(f"!!! {found.line()}\n    reproduce: {found.reproduce}", file=sys.stderr)
    print(bar, file=sys.stderr)


def _markdown(config, frame, by_engine, by_source, base, problems, skipped, pictures,
              runs) -> str:
    versions = frame.drop_duplicates("engine")[["engine", "library", "version"]]
    parts = ["# Engine comparison", ""]
    if config:
        parts += [f"- command: `{config.get('command', '')}`",
                  f"- started: {config.get('started', '?')}",
                  f"- machine: {config.get('machine', '?')}",
                  f"- mode: {config.get('mode')}, time limit {config.get('timeout')} s, "
                  f"repeats {config.get('repeat')}, workers {config.get('workers')}"]
        parts += [f"- harness: {harness_line(run)}" for run in runs]
        parts.append("")
    parts += ["## Engines", "",
              summary.to_markdown(versions.reset_index(drop=True)), ""]
    parts += [f"## Per engine (baseline: {base or 'none'})", "",
              summary.to_markdown(by_engine), ""]
    if by_source["source"].nunique() > 1:
        parts += ["## Per source", "", summary.to_markdown(by_source), ""]
    parts += ["## Verdicts", ""]
    if problems:
        for found in problems:
            parts += [f"- **{found.kind}**: `{found.puzzle_id}` ({found.mode}), "
                      f"{', '.join(found.engines)}: {found.detail}",
                      f"  - reproduce: `{found.reproduce}`"]
    else:
        parts.append("Every answer passed the checker and the engines agree "
                     "(timeouts and unsupported modes carry no answer).")
    parts.append("")
    if skipped:
        parts += ["## Puzzles skipped (bad input)", ""]
        parts += [f"- {line}" for line in skipped] + [""]
    if pictures:
        parts += ["## Plots", ""]
        parts += [f"![{p.stem}]({p.name})" for p in pictures] + [""]
    parts += ["## Definitions", "", summary.DEFINITIONS.strip(), ""]
    return "\n".join(parts)
