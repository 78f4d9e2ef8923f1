"""The report step: from the SQLite file to results.csv, summary.md, meta.json and plots.

It reads only the store, so ``run_compare.py report --out DIR`` rebuilds a
report without running anything (mzn-bench style separate steps).

What could make the figures misleading is said first, at the top of
summary.md and on the terminal: tasks that errored or crashed, kinds the
checker could judge only against the model, and a store holding fewer
results than the run planned (then engines are compared only on the puzzle
runs every one of them finished). The environment follows, then the tables.
"""
from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from compare.judge.verdict import failures, findings, model_only
from compare.reporting import page, paired, plots, summary
from compare.reporting.headline import RUN_OK, RUN_WRONG, Verdict, verdict_of
from compare.reporting.loading import loading_section
from compare.reporting.prose import controls_shown, one_line, spreadsheet_safe
from compare.run.provenance import describe
from compare.run.runner import not_repeated
from compare.store import schema
from compare.store.files import RunFile, atomic_write, write_text
from compare.store.folder import RunFolder
from compare.store.schema import COLUMNS

WIDTH = 100            # terminal output stays within this many columns
CONSOLE_COUNTS = 20     # count mode: per-puzzle lines on the terminal up to this many puzzles


@dataclass
class Report:
    """What a report found: the command line turns it into an exit code."""
    folder: Path
    problems: list = field(default_factory=list)      # wrong answers and disagreements
    failures: list = field(default_factory=list)      # verdict.Failure: errored, crashed, memout
    incomplete: dict = field(default_factory=dict)    # engine -> (done, planned), when short
    model_only: list = field(default_factory=list)    # kinds judged against the model only
    not_repeated: int = 0       # timeouts recorded for later repeats without running
    empty: bool = False
    verdict: Verdict = field(default_factory=Verdict)  # the first line, counted

    @property
    def clean(self) -> bool:
        return not self.problems


def build_report(data: RunFolder, baseline: str | None = None,
                 quiet: bool = False, shift_s: float | None = None,
                 plotter: plots.Plotter | None = None) -> Report:
    """Write every report file into the run's folder and print the summary; ``shift_s``
    None: the run's own (``summary.run_shift``); ``plotter`` draws the PNGs meanwhile."""
    folder = data.path
    frame = data.results
    if frame.empty:
        print(f"{folder}: no results yet", file=sys.stderr)
        return Report(folder, empty=True)
    report = Report(folder, findings(frame, data.puzzles, data.config.get("plugin_env")),
                    failures(frame), data.shortfall(), model_only(frame["kind"].dropna()),
                    not_repeated(frame))
    tasks = data.tasks
    report.verdict = verdict_of(frame, wrong=len(report.problems), planned=data.planned,
                                compared=len(tasks), runs=data.runs)
    base = summary.choose_baseline(tasks, baseline or data.config.get("baseline")) if len(
        tasks) else None
    order = {"engine": data.config.get("engines_run", []) + [summary.VIRTUAL_BEST],
             "source": [p["source"] for p in data.puzzles.values()]}
    given = shift_s is not None
    if not given:
        shift_s = summary.run_shift(tasks, base) if len(tasks) else paired.DEFAULT_SHIFT_S
    drawn = _plots(tasks, base, data, order["engine"], shift_s, plotter)
    tables = _tables(tasks, base, order, shift_s)
    _export(frame, data)
    pictures = drawn()
    shown = summary.baseline_label(tasks, base) if len(tasks) else "none"
    shift = summary.shift_text(shift_s, given)
    text = _markdown(data, report, tables, shown, pictures, shift_s, len(tasks), order, shift)
    write_text(data.file(RunFile.SUMMARY), text)
    page.write(data.file(RunFile.PAGE), _page(data, report, tables, tasks, base, order,
                                              pictures, shift_s, shift))
    _write_meta(data, report, base, shift_s, given)
    _write_json(data, report, tables, shown)
    _print_alerts(report, len(tasks))
    if not quiet:
        _print(tables, shown, folder, data.runs, shift)
    _print_problems(report.problems)
    return report


def _tables(tasks, base, order, shift_s) -> dict[str, pd.DataFrame]:
    if tasks.empty:
        return {}
    tables = {"engine": summary.in_order(summary.engine_table(tasks, base, shift_s=shift_s),
                                         order),
              "source": summary.in_order(summary.engine_table(
                  tasks, base, by=["source"], shift_s=shift_s), order)}
    families = tasks["puzzle_id"].map(summary.family)
    if 1 < families.nunique() < tasks["puzzle_id"].nunique():
        tables["family"] = summary.in_order(summary.engine_table(
            tasks.assign(family=families), base, by=["family"], shift_s=shift_s), order)
    if tasks["formulation"].nunique() > 1:
        tables["formulations"] = summary.in_order(summary.formulation_table(tasks, shift_s),
                                                  order)
    if tasks["mode"].eq("count").any():
        tables["counts"] = summary.count_table(tasks)
    return tables


def _plots(tasks, base, data: RunFolder, engines: list[str], shift_s: float,
           plotter: plots.Plotter | None) -> Callable[[], list[Path]]:   # gives those made
    if tasks.empty:
        return list
    files = (data.file(RunFile.CACTUS), data.file(RunFile.SCATTER), data.file(RunFile.PROFILE))
    args = (tasks, base, files, engines, time_limit(data), shift_s)
    if plotter is None:
        return lambda: plots.draw_all(*args)
    plotter.ask(*args)            # a child draws while the rest of the report is written
    return plotter.drawn


def _page(data: RunFolder, report: Report, tables, tasks, base, order, pictures,
          shift_s: float, shift: str) -> page.PageInputs:
    """The first line of the page tells the whole truth: the report's verdict line."""
    tone = {RUN_WRONG: "bad", RUN_OK: "ok"}.get(report.verdict.word, "warn")
    settings = {**(data.config.get("settings") or {}),
                "baseline": base, "workers": data.config.get("workers"),
                "engines run": data.config.get("engines_run"),
                "shift": shift, "tie band": f"{paired.TIE:.0%}",
                "bootstrap": f"{paired.RESAMPLES} resamples, seed {paired.SEED}"}
    return page.PageInputs(
        title="Engine comparison", verdict=report.verdict.line(), verdict_class=tone,
        alerts=alert_lines(report, len(tasks)), problems=report.problems, frame=data.results,
        tasks=tasks, tables=tables, baseline=base, engines=order["engine"],
        puzzles=data.puzzles, environment=_environment(data), settings=settings,
        shift_s=shift_s, note=" ".join(headline_note("this page")),
        plugin_env=data.config.get("plugin_env"), pictures=pictures,
        timeout_s=time_limit(data))


def time_limit(data: RunFolder) -> float:
    """The run's time limit (s), as its settings say: the line the plots draw, and
    where they put the tasks that did not finish."""
    return float(data.settings["timeout"])


def _export(frame, data: RunFolder) -> None:
    frame = frame[list(COLUMNS)]
    cells = spreadsheet_safe(frame)        # no text cell a spreadsheet runs as a formula
    atomic_write(data.file(RunFile.CSV), lambda tmp: cells.to_csv(tmp, index=False))
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return
    atomic_write(data.file(RunFile.PARQUET), lambda tmp: frame.to_parquet(tmp, index=False))


def _write_meta(data: RunFolder, report: Report, base, shift_s: float, given: bool) -> None:
    """meta.json: the run's settings, environment and completeness, for other tools."""
    meta = {"schema_version": schema.VERSION, "config": data.config, "environment": data.sessions, "planned": data.planned,
            "stored": {k: int(v) for k, v in data.results.groupby("engine").size().items()},
            "complete": not report.incomplete, "runs": data.runs, "skipped": data.skipped,
            "calibration": data.calibration,   # None: the run holds no calibration
            "plugins": data.sessions[-1].get("plugins", {}) if data.sessions else {},
            "report": {"baseline": base, "shift_s": shift_s,
                       "shift_from": "--shift-ms" if given else "run", "tie": paired.TIE,
                       "bootstrap_seed": paired.SEED, "resamples": paired.RESAMPLES}}
    write_text(data.file(RunFile.META), json.dumps(meta, indent=2, default=str) + "\n")


def _write_json(data: RunFolder, report: Report, tables: dict, base) -> None:
    """summary.json: the verdict and the headline table, for CI and other tools."""
    engine = tables.get("engine")
    rows = [] if engine is None else json.loads(engine.to_json(orient="records"))
    text = json.dumps({"verdict": report.verdict.as_dict(), "baseline": base,
                       "engines": rows}, indent=2) + "\n"
    write_text(data.file(RunFile.SUMMARY_JSON), text)


# ----- the alerts that come first ---------------------------------------------------
def alert_lines(report: Report, compared: int) -> list[str]:
    """Failures, an incomplete store and model-only kinds, one line each."""
    lines = []
    if report.incomplete:
        shown = ", ".join(f"{e} {d}/{p}" for e, (d, p) in report.incomplete.items())
        lines.append(f"INCOMPLETE: fewer results than planned ({shown} task runs done/planned); "
                     f"engines are compared only on the {compared} puzzle runs every engine "
                     "finished; continue with --resume")
    for failure in report.failures:
        lines.append(f"FAILED: {failure.line()}")
    if report.model_only:
        lines.append(f"MODEL ONLY: kind {', '.join(report.model_only)} has no rules of its "
                     "own; its answers were checked against the CSP model the engines "
                     "solved, so a wrong model would pass")
    return lines


def note_lines(report: Report) -> list[str]:
    """What the reader should know about how the figures were taken."""
    if not report.not_repeated:
        return []
    return [f"{report.not_repeated} timeout(s) not repeated: a task that timed out once is "
            "recorded as a timeout on its later repeats without running again "
            "(--repeat-timeouts runs them)"]


def _print_alerts(report: Report, compared: int) -> None:
    """The verdict line first; errors and crashes are no wrong answers, but they must
    not go unseen."""
    for line in [report.verdict.line(), *alert_lines(report, compared), *note_lines(report)]:
        print(line, file=sys.stderr)


def _print_problems(problems) -> None:
    if not problems:
        return
    bar = "!" * 72
    print(f"\n{bar}\n!!! {len(problems)} WRONG ANSWER(S) / DISAGREEMENT(S)\n{bar}", file=sys.stderr)
    for found in problems:
        print(f"!!! {found.line()}\n    reproduce: {found.reproduce}", file=sys.stderr)
    print(bar, file=sys.stderr)


# ----- the terminal --------------------------------------------------------------------
def harness_line(run: dict) -> str:
    """Wall time against the ideal (task time spread evenly over the workers)."""
    ideal = run["task_s"] / run["workers"]
    ratio = run["wall_s"] / ideal if ideal > 0 else float("nan")
    return (f"{run['tasks']} task runs in {run['wall_s']:.2f} s wall on {run['workers']} workers "
            f"(first result after {run.get('first_s', 0):.2f} s); task times sum to "
            f"{run['task_s']:.2f} s, /{run['workers']} = {ideal:.2f} s (wall/ideal {ratio:.2f}); "
            f"parent CPU {run['parent_cpu_s']:.2f} s"
            + (f", peak memory {run['parent_peak_rss_mb']:.0f} MB"
               if isinstance(run.get("parent_peak_rss_mb"), (int, float)) else ""))


def headline_title(shown: str, shift: str) -> str:
    """The headline's title: the baseline, and the shift beside it."""
    return f"baseline: {shown}; {shift}"


def headline_note(where: str = "summary.md") -> list[str]:
    """What the compact table's columns mean, in lines that fit a terminal (the shift
    is in the title above the table)."""
    return ["ratio: shifted geometric mean of the per-puzzle time ratios to the baseline,",
            f"with its 95% bootstrap CI; W/T/L: puzzles faster / within {paired.TIE:.0%} / "
            "slower than the baseline;", "an unsolved task counts as twice the time limit "
            f"(PAR2). Definitions at the end of {where}."]


def _print(tables, shown: str, folder: Path, runs, shift: str) -> None:
    if "engine" in tables:
        print(f"\nPer engine ({headline_title(shown, shift)}):")
        print(summary.to_text(summary.compact(tables["engine"])))
        print("\n".join(headline_note()))
    if "formulations" in tables:
        print(f"\nFormulations, each engine against itself (shifted geometric mean time, "
              f"x ratio to the engine's own {_reference(tables)}, * fastest):")
        print(summary.to_text(summary.formulation_grid(tables["formulations"]), raw=True))
    if "counts" in tables:
        print("\nCounts:")
        print("\n".join(count_lines(tables["counts"])))
    for run in runs[-1:]:
        print("\n" + textwrap.fill(f"Harness: {harness_line(run)}", WIDTH,
                                   subsequent_indent="  "))
    print(f"Report: {folder / RunFile.SUMMARY} (full tables, per source, environment)")


def _reference(tables: dict) -> str:
    """The formulation the formulation table's ratios refer to, per engine."""
    first = tables["formulations"].drop_duplicates("engine")["formulation"]
    forms = sorted(set(first))
    return forms[0] if len(forms) == 1 else "first formulation (" + ", ".join(forms) + ")"


def count_lines(table: pd.DataFrame) -> list[str]:
    """Count mode on the terminal: one line per puzzle, or a tally for many puzzles."""
    engines = [c for c in table.columns if c not in ("puzzle_id", "agree")]
    disagree = table[table["agree"] == "NO"]
    if len(table) > CONSOLE_COUNTS:
        return [f"{len(table)} puzzles; engines disagree on {len(disagree)} "
                "(per-puzzle counts in summary.md)"]
    lines = []
    for row in table.itertuples(index=False):
        values = dict(zip(table.columns, row))
        by_count: dict[str, list[str]] = {}
        for engine in engines:
            if values[engine] != "-":
                by_count.setdefault(values[engine], []).append(engine)
        if len(by_count) == 1:
            (count, names), = by_count.items()
            said = f"{count} (all {len(names)} that finished agree)"
        elif by_count:
            said = "DISAGREE: " + "; ".join(f"{c} by {', '.join(n)}" for c, n in by_count.items())
        else:
            said = "no engine finished"
        lines.append(f"  {values['puzzle_id']}: {said}")
    return lines


# ----- summary.md ------------------------------------------------------------------------
def _markdown(data: RunFolder, report: Report, tables, shown: str, pictures, shift_s,
              compared: int, order: dict, shift: str) -> str:
    parts = ["# Engine comparison", ""]
    alerts = alert_lines(report, compared)
    if report.problems:
        alerts.insert(0, f"WRONG: {len(report.problems)} wrong answer(s) or disagreement(s); "
                         "see Verdicts")
    verdict = one_line(report.verdict.line())     # names inside: each line stays one line
    parts += [verdict, ""] if alerts else [verdict]
    parts += [f"- **{line.split(':', 1)[0]}**:{line.split(':', 1)[1]}"
              for line in map(one_line, alerts)]
    parts += [f"- Note: {one_line(line)}" for line in note_lines(report)]
    parts += ["", "## Environment", ""] + [f"- {one_line(line)}"
                                           for line in _environment(data)] + [""]
    if not tables:
        parts += ["No puzzle run was finished by every engine yet: nothing to compare.", ""]
    else:
        parts += [f"## Headline ({headline_title(shown, shift)})", "",
                  summary.to_markdown(summary.compact(tables["engine"])), "",
                  " ".join(headline_note()), ""]
    if "formulations" in tables:
        parts += ["## Formulations", "", "Each engine against itself: the shifted geometric "
                  "mean time over the puzzles it ran in every formulation, x ratio to the "
                  f"engine's own {_reference(tables)}, `*` the fastest.", "",
                  summary.to_markdown(summary.formulation_grid(tables["formulations"]), raw=True),
                  ""]
    if "counts" in tables:
        parts += ["## Counts", "", "`N+`: counting stopped at the limit N.", "",
                  summary.to_markdown(tables["counts"], raw=True), ""]
    versions = data.results.drop_duplicates("engine")[["engine", "library", "version"]]
    parts += ["## Engines", "", summary.to_markdown(versions.reset_index(drop=True)), ""]
    warmup = warmup_table(data.runs)
    if len(warmup):
        parts += ["## Warm-up (untimed)", "", "Paid once per worker before its first timed "
                  "task: an engine's start-up, then each new shape (engine x model structure); "
                  "an engine's preparation (0 workers: a first compile, say) ran once, in a "
                  "process of its own, before that engine's workers started. "
                  "No task's time includes it.", "", summary.to_markdown(warmup, raw=True), ""]
    if tables:
        parts += [f"## Per engine (baseline: {shown})", "",
                  summary.to_markdown(tables["engine"]), ""]
        if tables["source"]["source"].nunique() > 1:
            parts += ["## Per source", "", summary.to_markdown(tables["source"]), ""]
    parts += throughput_section(data, order)
    parts += loading_section(data.results, summary.to_markdown)
    parts += _verdicts(report)
    if data.skipped:
        parts += ["## Puzzles skipped (bad input)", ""]
        parts += [f"- {one_line(line)}" for line in data.skipped] + [""]
    if pictures:
        parts += ["## Plots", ""]
        parts += [f"![{p.stem}]({p.name})" for p in pictures] + [""]
    parts += ["## Definitions", "", summary.definitions(shift_s).strip(), ""]
    return controls_shown("\n".join(parts))   # no control character reorders the text


def throughput_section(data: RunFolder, order: dict) -> list[str]:
    """Puzzles per second by the engines' clocks, and the run's own by the wall
    clock: side by side, because a solve of microseconds is a small part of a
    task's round trip through the harness."""
    table = summary.in_order(summary.throughput_table(data.results), order)
    if table.empty:
        return []
    lines = ["## Throughput", "", "Puzzles solved per second by the engines' own clocks "
             "(`solve_s`: the search; `total_s`: model build and search), over every stored "
             "run, repeats included.", "", summary.to_markdown(table, raw=True), ""]
    for k, run in enumerate(data.runs, 1):
        wall = summary.wall_rate(run)
        if wall:
            which = "this run" if len(data.runs) == 1 else f"session {k}"
            lines.append(f"- by the wall clock, {which}: {wall}, {run['tasks']} results of "
                         f"any status from the first to the last in "
                         f"{run['last_s'] - run['first_s']:.2f} s on {run['workers']} workers, "
                         "every answer checked as it came"
                         + ("" if data.results["engine"].nunique() == 1 else
                            " (all engines together: for one engine's own figure, run it "
                            "alone, as `run_compare.py bench benchmarks/throughput.toml` does)"))
    return lines + [""]


def warmup_table(runs: list[dict]) -> pd.DataFrame:
    """The one-off costs the workers paid untimed, so that warming up hides nothing."""
    rows = []
    for run in runs:
        warmup = run.get("warmup") or {}
        for part, entries in (("start-up", warmup.get("start-up", [])),
                              ("shape", warmup.get("shapes", []))):
            for entry in entries:
                rows.append({"engine": entry["engine"],
                             "what": entry.get("shape") or part,
                             "workers": entry["workers"],
                             "max per worker": summary.duration(entry["max_s"]),
                             "total": summary.duration(entry["total_s"])})
        for entry in warmup.get("prepared", []):     # once per run, before the workers
            outcome = entry.get("outcome", "done")
            rows.append({"engine": ", ".join(entry["engines"]),
                         "what": entry["preparation"] + ("" if outcome == "done"
                                                         else f" ({outcome})"),
                         "workers": 0, "max per worker": "-",
                         "total": summary.duration(entry["seconds"])})
    return pd.DataFrame(rows, columns=["engine", "what", "workers", "max per worker", "total"])


def _environment(data: RunFolder) -> list[str]:
    """The machine, libraries, code, load and command, per invocation of the run."""
    config, sessions = data.config, data.sessions
    lines = [f"command: `{config.get('command', '?')}`"]
    if not sessions:        # a store written before environments were recorded
        lines += [f"started: {config.get('started', '?')}",
                  f"machine: {config.get('machine', '?')}"]
    else:
        lines += describe(sessions[-1])
        if len(sessions) > 1:       # resumed: each invocation's command, times and load
            lines += [f"invocation {i} of {len(sessions)}: `{one.get('command', '?')}`; "
                      + "; ".join(describe(one)[-2:]) for i, one in enumerate(sessions, 1)]
    settings = data.settings
    lines.append(f"settings: mode {settings.get('mode')}, time limit {settings.get('timeout')} s, "
                 f"repeats {settings.get('repeat')}, workers {config.get('workers')}")
    lines += [f"harness: {harness_line(run)}" for run in data.runs]
    return lines


def _verdicts(report: Report) -> list[str]:
    parts = ["## Verdicts", ""]
    if report.problems:
        for found in report.problems:
            parts += [one_line(f"- **{found.kind}**: `{found.puzzle_id}` ({found.mode}), "
                               f"{', '.join(found.engines)}: {found.detail}"),
                      one_line(f"  - reproduce: `{found.reproduce}`")]
    else:
        judged = ("the checker" if not report.model_only else
                  "the checker (kind " + ", ".join(report.model_only)
                  + ": against the model only)")
        if report.failures:
            failed = sum(f.count for f in report.failures)
            parts.append(f"No answer given was wrong and the engines agree, but {failed} "
                         "task(s) gave no answer because the engine or its worker failed:")
        else:
            parts.append(f"Every answer passed {judged} and the engines agree "
                         "(timeouts and unsupported modes carry no answer).")
    parts += [f"- failed: {one_line(failure.line())}" for failure in report.failures]
    return parts + [""]
