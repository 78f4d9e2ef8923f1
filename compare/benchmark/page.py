"""bench.md: what became of each part, written as the file's targets ask.

The headings and columns come from the benchmark file; nothing here knows an
engine or a puzzle set by name.
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import engines
from compare.benchmark.spec import Part
from compare.judge.verdict import VERIFIED, WRONG
from compare.reporting import bench
from compare.store.files import RunFile
from compare.store.folder import RunFolder

PLOTS = (RunFile.CACTUS, RunFile.SCATTER)
# What became of a part: the judge's VERIFIED or WRONG over its answers, or one of
# these when it could not run.
BAD_INPUT, NOT_STARTED = "bad input", "not started"
# Why a table's ratios mean more than its times, ahead of the definitions.
READING = ("Each part interleaves its engines puzzle by puzzle, so a change in the machine's "
           "speed falls on all of them alike: compare the ratios within one report, not "
           "absolute times across reports or machines.")
# The repository: a page's commands run from its root.
_ROOT = Path(__file__).resolve().parents[2]
# The machine's load when bench.md was written, as bench.machine_lines words it:
# a fact of one moment, which a page of current tables leaves out.
_LOAD_LINE = "- load average"
# An absolute path in a report: a slash that starts a word (not a ratio such as
# "results/s" or "/2") followed by a name.
_ABSOLUTE = re.compile(r"(?<![\w./:~-])/[A-Za-z_.][^\s`'\"()\[\]<>|,;]*")


@dataclass
class Outcome:
    part: Part
    status: str                 # VERIFIED, WRONG, BAD_INPUT or NOT_STARTED
    seconds: float
    folder: Path
    error: str | None = None    # why a part could not run
    run: RunFolder | None = None    # the part's run, as its report read it


def _tasks(outcome: Outcome):
    """A part's tasks in the order its puzzles and engines were given, not finish
    order; its run records, settings and stored results."""
    run = outcome.run or RunFolder(outcome.folder)
    with run:
        tasks, runs, config, frame = run.tasks, run.runs, run.config, run.results
        puzzles = {pid: i for i, pid in enumerate(run.puzzles)}
    engines = {label: i for i, label in enumerate(config.get("engines_run", []))}
    rank = tasks["puzzle_id"].map(puzzles) * len(engines) + tasks["engine"].map(engines)
    return tasks.iloc[rank.argsort(kind="stable")].reset_index(drop=True), runs, config, frame


def report(outcomes: list[Outcome], command: str, total_s: float,
           title: str = "Benchmark", libraries: dict[str, str] | None = None) -> str:
    """bench.md: the targets per part, the machine, and how long everything took."""
    data = {o.part.name: (o, *_tasks(o)) for o in outcomes}
    parts = [f"# {title}", "", f"- command: `{command.strip()}`"]
    parts += [f"- {line}" for line in bench.machine_lines(libraries or {})]
    parts += [f"- benchmark time: {total_s:.0f} s in all ("
              + ", ".join(f"{o.part.name} {o.seconds:.0f} s" for o in outcomes) + ")", ""]
    sections = {"ratio": _ratio_section, "lexfirst": _lex_section, "wall": _wall_section,
                "overhead": _overhead_section, "coverage": _big_section,
                "throughput": _throughput_section, "none": _plain_section}
    for o in outcomes:
        parts += sections[o.part.target["kind"]](data[o.part.name], data) + [""]
    parts += ["## Parts", "", "Each part is one comparison run; its folder holds "
              "its results (CSV and SQLite), summary.md (with verdicts) and plots.", ""]
    for o, _, _, config, _ in data.values():
        verdict = {VERIFIED: "all answers verified, engines agree",
                   WRONG: "WRONG ANSWERS OR DISAGREEMENTS (see its summary.md)"}.get(o.status, "?")
        parts.append(f"- `{o.part.name}/`: {verdict}; {o.seconds:.0f} s; "
                     f"`{config.get('command', '')}`")
    parts += ["", "## How to read it", "", READING, "",
              bench.definitions([_terms(o.part) for o in outcomes]), ""]
    return "\n".join(parts)


def libraries(parts: list[Part]) -> dict[str, str]:
    """The libraries of the engines the parts ran, with their versions."""
    found = {}
    for spec in dict.fromkeys(e for p in parts for e in p.engines):
        try:
            engine = engines.get_engine(spec)
        except ValueError:
            continue
        if engine.library:
            found[engine.library] = engine.version()
    return found


def _terms(part: Part) -> dict:
    """A part's target with the names the report gives its engines."""
    return {**part.target, "name": part.name, "engine": part.label(part.subject),
            "baseline": part.label(part.baseline or "")}


def _heading(part: Part, made_up: str, details: str = "") -> list[str]:
    """The part's heading (its title, else ``made_up``; then ``details``), and what
    its target claims, naming its engine."""
    said = bench.claim(_terms(part))
    return [f"## {part.title or made_up}{details}"] + (
        [] if said is None else ["", f"Target: {said}."])


def _plot_files(folder: Path) -> list[str]:
    """The plots bench.md shows from a part (the parts with two or more engines)."""
    return [name for name in PLOTS if (folder / name).exists()]


def _plots(name: str, folder: Path) -> list[str]:
    return [f"![{name} {png[:-4]}]({name}/{png})" for png in _plot_files(folder)]


def _other(data: dict, name: str | None):
    """The tasks of the part a target compares with, when it ran in this invocation."""
    return data[name][1] if name in data else None


def _ratio_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part, target = outcome.part, outcome.part.target
    engine, baseline = part.subject, part.baseline
    table = bench.ratio_table(tasks, engine, baseline, target.get("mean"), target.get("max"))
    columns = bench.ratio_columns(part.label(engine), part.label(baseline), target.get("mean"),
                                  target.get("max"))
    verdicts = [c for c in ("mean_pass", "max_pass") if c in columns]
    met = int(sum(table[c].sum() for c in verdicts))
    sampled = f", samples of {part.sample} from the big sets" if part.sample else ""
    return [*_heading(part, f"{part.name}: {part.label(engine)} against {part.label(baseline)}",
                      f" (mode {part.mode}, limit {part.timeout:g} s{sampled}"
                      f"{_repeats(outcome)})"), "",
            bench.markdown(bench.shown(table, columns)), "",
            f"Targets met: {met} of {len(verdicts) * len(table)}.", "",
            *_plots(part.name, outcome.folder)]


def _repeats(outcome: Outcome) -> str:
    repeat = outcome.part.repeat
    return f"; each time the median of {repeat} runs" if repeat > 1 else ""


def _lex_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part, target = outcome.part, outcome.part.target
    table = bench.lexfirst_table(tasks, _other(data, target["against"]), part.subject,
                                 target["within"])
    return [*_heading(part, f"{part.name}: {part.label(part.subject)} in mode {part.mode}",
                      f" (limit {part.timeout:g} s{_repeats(outcome)})"), "",
            bench.markdown(bench.shown(table, bench.lex_columns(target["against"],
                                                                target["within"])))]


def _overhead_section(mine, data) -> list[str]:
    outcome, _, runs, *_ = mine
    part, target = outcome.part, outcome.part.target
    heading = _heading(part, f"{part.name}: harness overhead")
    if not runs:
        return [*heading, "", "No run record."]
    o = bench.overhead(runs[-1], target["factor"], target["slack"])
    sources = ", ".join(Path(p).stem for p in part.puzzles)
    return [*heading, "",
            f"{o['tasks']} puzzles ({sources}), {part.label(part.subject)}, {o['workers']} "
            f"workers: run phase "
            f"{o['wall_s']:.2f} s wall; task times sum to {o['task_s']:.2f} s, "
            f"/{o['workers']} = {o['ideal_s']:.2f} s; limit "
            f"{target['factor']} x {o['ideal_s']:.2f} + {target['slack']:g} = "
            f"{o['limit_s']:.2f} s: **{bench.verdict(o['pass'])}**. The whole command "
            f"(loading, run, checking, report and plots) took {outcome.seconds:.2f} s."]


def _wall_section(mine, data) -> list[str]:
    """This part's run against another's on the same tasks: the whole run's wall
    time and the time after the first result (workers warm)."""
    outcome, _, runs, *_ = mine
    part, target = outcome.part, outcome.part.target
    other = data.get(target["against"])
    rows = [(part.name, part.settings, runs)] + (
        [(target["against"], other[0].part.settings, other[2])] if other else [])
    table = bench.wall_table(rows, target.get("within"))
    return [*_heading(part, f"{part.name}: wall time against {target['against']}",
                      f" (limit {part.timeout:g} s)"), "",
            bench.markdown(bench.shown(table, bench.wall_columns(target["against"],
                                                                 target.get("within"))))]


def _throughput_section(mine, data) -> list[str]:
    """Puzzles per second of each engine by its own clocks and by the wall: the
    run's results from the first to the last, and the whole part (workers'
    start-up and warm-up too)."""
    outcome, _, runs, _, frame = mine
    part = outcome.part
    run = runs[-1] if runs else {}
    table = bench.throughput(frame, run, outcome.seconds, part.labels)
    workers = run.get("workers", "?")
    return [*_heading(part, f"{part.name}: throughput", f" ({workers} "
                      f"worker{'s' if workers != 1 else ''}, limit {part.timeout:g} s)"), "",
            bench.markdown(table)]


def _big_section(mine, data) -> list[str]:
    outcome, tasks, *_ = mine
    part = outcome.part
    with_ = part.target.get("scaling_with")
    first = _other(data, with_)
    engine, baseline = part.label(part.subject), part.label(part.baseline)
    margin = part.target.get("margin")
    missing = bench.not_covered(tasks, part.subject, part.baseline, margin)
    sized = tasks if first is None else _concat(first, tasks)
    under = "" if margin is None else f" in under {margin * part.timeout:g} s"
    check = (f"PASS: {engine} solved every puzzle {baseline} solved{under}" if not missing else
             f"FAIL: {baseline} solved {len(missing)} puzzle(s){under} that {engine} did not: "
             + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    return [*_heading(part, f"{part.name}: time per puzzle against size",
                      f" (limit {part.timeout:g} s"
                      + ("" if first is None else f"; with the rows of the {with_} part") + ")"),
            "",
            bench.scaling_markdown(bench.scaling_table(_named(part, sized), ["size"])), "",
            "Per dataset:", "",
            bench.scaling_markdown(bench.scaling_table(_named(part, tasks), ["source", "size"])),
            "",
            f"**{check}.**", "", *_plots(part.name, outcome.folder)]


def _plain_section(mine, data) -> list[str]:
    """A part without a target: its times per dataset and engine."""
    outcome, tasks, *_ = mine
    part = outcome.part
    return [*_heading(part, f"{part.name}: {', '.join(part.engines)}",
                      f" (mode {part.mode}, limit {part.timeout:g} s{_repeats(outcome)})"), "",
            bench.scaling_markdown(bench.scaling_table(_named(part, tasks), ["source", "size"])),
            "", *_plots(part.name, outcome.folder)]


def _named(part: Part, tasks):
    """The tasks with their engines named as the benchmark file names them."""
    return tasks.assign(engine=[part.label(e) for e in tasks["engine"]])


def _concat(*frames):
    import pandas as pd
    return pd.concat(frames, ignore_index=True)


def publish(out: Path, target: Path, outcomes: list[Outcome], name: str) -> Path:
    """The benchmark's current table in ``target``: ``<name>.md`` (bench.md with
    its plot links pointing into ``<name>/``, in its reference form: see
    ``page_text``) and the plots under ``<name>/``. Returns the page written."""
    target.mkdir(parents=True, exist_ok=True)
    text = (out / RunFile.BENCH).read_text(encoding="utf-8")
    for o in outcomes:
        for png in _plot_files(o.folder):
            (target / name / o.part.name).mkdir(parents=True, exist_ok=True)
            shutil.copy2(o.folder / png, target / name / o.part.name / png)
            text = text.replace(f"]({o.part.name}/{png})", f"]({name}/{o.part.name}/{png})")
    page = target / f"{name}.md"
    page.write_text(page_text(text, out, "`run_compare.py bench --publish`"), encoding="utf-8")
    return page


def page_text(text: str, out: Path | None = None, written_by: str | None = None) -> str:
    """A report as a page kept in the repository: the same tables, without what
    belongs to one machine at one moment. Paths under the repository's folder
    become relative to the repository (the commands run from its root; the plot
    links are relative to the page already), the run's output folder becomes
    ``OUT`` and any other absolute path ``DIR/<its name>``; the date keeps its
    day, and the load average is left out. The run's own bench.md keeps all
    of it. ``written_by``: what writes the page, said under its title."""
    outs = {str(p) for p in (out, out.resolve())} if out is not None else set()

    def relative(match: re.Match) -> str:
        path = match.group(0)
        for folder in sorted(outs, key=len, reverse=True):
            if path == folder or path.startswith(folder + "/"):
                return "OUT" + path[len(folder):]
        if Path(path).is_relative_to(_ROOT.parent):
            return os.path.relpath(path, _ROOT)
        return f"DIR/{Path(path).name}"

    lines, given = [], text.splitlines()
    if written_by is not None and given:
        given[1:1] = ["", f"Written by {written_by}: the command below regenerates this page."]
    for line in given:
        if line.startswith(_LOAD_LINE):
            continue
        line = re.sub(r"^(- date: \d{4}-\d{2}-\d{2}) \d{2}:\d{2}\b", r"\1", line)
        lines.append(_ABSOLUTE.sub(relative, line))
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")
