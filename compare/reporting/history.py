"""Results across runs: the headline over a series of runs, and the steps in it.

``run_compare.py report --history RUN...`` (and ``compare.history``) reads
run folders, puts them in commit order (the commit time each run recorded,
then its start time; runs of the same code stay in the order they ran), and
gives per engine, over all sources and per source:

* each run's headline ratio to the baseline with its 95% bootstrap CI,
  exactly as that run's own report computes it;
* for each run, the paired comparison with the run before it on the same
  machine, over their common tasks, with the test of ``report --compare``
  (``paired.compare``: the shifted geometric mean of per-task ratios and
  its bootstrap CI; a change is called only when the whole interval lies
  outside the tie band). Timeouts are censored, not measurements: a task
  both runs solved gives a ratio; one that timed out in both proves nothing
  and is left out; one that timed out in one run only gives a direction
  but no size, so those are counted (newly timed out / newly solved) and
  tested apart with a sign test (``scipy.stats.binomtest``). A step is
  flagged only when one of the two tests calls a change. As in
  ``--compare``, the later run's solved times are divided by the machine's
  drift between the two runs' calibrations, and a change must clear the
  noise floor (``compare.run.calibration.drift``); ``work`` says whether the
  nodes the engine reports changed. Runs made with other settings or
  plugin code (``runs.compatibility``) are not compared: the step says
  "not compared" and in what they differ, and the verdict never counts it
  as "no change".

Absolute times from different machines are not comparable, so runs are
grouped by machine (CPU, cores, memory, system, host name): steps are tested
only between consecutive runs of one machine, and the headline ratios,
being ratios to a baseline engine measured in the same run, are the only
figures set side by side across machines. The page says which was done.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from compare.errors import CompareError
from compare.reporting import figures as plotly_figures
from compare.reporting import page, paired, plots, summary
from compare.reporting import runs as two_runs
from compare.reporting.prose import plot_text, spreadsheet_safe
from compare.reporting.runs import ALL, TASK, censored_step
from compare.run.calibration import Drift, drift, series_line
from compare.run.provenance import commit
from compare.store.files import atomic_write, write_text
from compare.store.folder import RunFolder

NOT_COMPARED = "not compared: "     # how the step of two runs that cannot be compared begins
COLUMNS = ["run", "order", "machine", "commit", "started", "engine", "source", "baseline",
           "pairs", "ratio", "ci_low", "ci_high", "previous", "common", "both_solved",
           "step_ratio", "step_ci_low", "step_ci_high", "newly_timed_out", "newly_solved",
           "both_timed_out", "sign_p", "step", "flagged", "drift", "noise_floor", "work"]


class HistoryError(CompareError, ValueError):
    """A series that cannot be followed as asked: one line says why."""


@dataclass
class RunInfo:
    """One run of the series: where it is, what code, which machine, its tasks."""
    folder: Path
    name: str
    commit: str
    committed: str
    started: str
    machine: str
    tasks: pd.DataFrame
    texts: dict                 # puzzle id -> puzzle text, to pair only the same puzzles
    baseline: str | None = None     # the baseline the run was given
    identity: dict = field(default_factory=dict)   # settings and plugin code (runs.run_identity)
    calibration: dict | None = None     # the machine's speed during the run, if recorded


@dataclass
class History:
    """The series, as tables a notebook can plot: ``table`` has one row per run,
    engine and source (``source == "all"`` over every source)."""
    runs: pd.DataFrame
    table: pd.DataFrame
    baseline: str | None
    machines: list[str]
    shift_s: float = paired.DEFAULT_SHIFT_S
    notes: list[str] = field(default_factory=list)
    relative: bool = False       # steps tested on each task's ratio to the baseline

    @property
    def steps(self) -> pd.DataFrame:
        """The flagged steps: run, engine, source and what changed."""
        return self.table[self.table["flagged"]].reset_index(drop=True)

    @property
    def machines_note(self) -> str:
        if self.relative:
            return (f"Steps are tested on each task's time relative to the baseline "
                    f"({self.baseline or 'none'}) in the same run, which a machine's speed "
                    f"and load cancel out of, so the runs ({len(self.machines)} machine(s)) "
                    "form one series.")
        if len(self.machines) <= 1:
            return ("All runs are from one machine: each run is compared with the one "
                    "before it on their common tasks.")
        return (f"The runs are from {len(self.machines)} machines, kept apart: each run is "
                "compared only with the run before it on the same machine; across machines "
                "only the headline ratios to the baseline "
                f"({self.baseline or 'none'}) are set side by side.")

    def to_csv(self, path: Path | str) -> Path:
        path = Path(path)
        frame = spreadsheet_safe(self.table[COLUMNS])     # names never run as formulas
        atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
        return path

    @property
    def drift_note(self) -> str:
        """How the machine's drift between runs was taken into account, and the floor."""
        if self.relative:
            return series_line(relative=True)
        steps = self.table[self.table["previous"].fillna("") != ""]
        steps = steps[~steps["step"].fillna("").str.startswith(NOT_COMPARED)]
        return series_line(list(steps["drift"].dropna()), list(steps["noise_floor"].dropna()),
                           sorted(set(steps.loc[steps["drift"].isna(), "run"])))

    def verdict(self) -> tuple[str, str]:
        """The page's banner tone and line: green only when every step was compared and
        none changed; a step that could not be compared is named, never "no change"."""
        steps, runs = self.steps, len(self.runs)
        if len(steps):
            return "bad", (f"{len(steps)} step change(s) over {runs} runs: "
                           + ", ".join(dict.fromkeys(steps["run"])))
        stepped = self.table[self.table["previous"].fillna("") != ""]
        said = stepped.drop_duplicates("run")["step"].fillna("")
        skipped = said[said.str.startswith(NOT_COMPARED)]
        compared = len(said) - len(skipped)
        if not len(said):
            return "warn", (f"No step tested over {runs} run(s): no run has an earlier one "
                            "on the same machine.")
        why = "; ".join(dict.fromkeys(s[len(NOT_COMPARED):] for s in skipped))
        if not compared:
            return "warn", (f"No step compared over {runs} runs: {len(skipped)} step(s) "
                            f"not compared: {why}")
        if len(skipped):
            return "warn", (f"No step change in the {compared} step(s) compared over {runs} "
                            f"runs; {len(skipped)} step(s) not compared: {why}")
        return "ok", (f"No step change over {runs} runs: no run differs from the one before "
                      "it with confidence.")

    def text(self) -> str:
        """The console's view: the runs, the verdict, then each flagged step."""
        lines = [f"{len(self.runs)} runs in commit order (baseline {self.baseline or 'none'}):"]
        lines += [f"  {r.order}. {r.run}  {r.commit or 'no commit'}  started {r.started}  "
                  f"machine {r.machine}" for r in self.runs.itertuples(index=False)]
        lines += [self.machines_note, self.drift_note, self.verdict()[1]]
        lines += [f"  {step_line(r)}" for r in self.steps.itertuples(index=False)]
        return "\n".join([line for line in lines if line] + self.notes)


def step_line(row) -> str:
    where = "all sources" if row.source == ALL else f"source {row.source}"
    return (f"{row.run} ({row.engine}, {where}): {row.step} against {row.previous}, "
            f"ratio {summary.sig3(row.step_ratio)} [{summary.sig3(row.step_ci_low)}, "
            f"{summary.sig3(row.step_ci_high)}] over {row.both_solved} tasks both solved"
            + (f"; {row.newly_timed_out} newly timed out, {row.newly_solved} newly solved"
               if row.newly_timed_out or row.newly_solved else "")
            + (f"; work {row.work}" if isinstance(row.work, str) and row.work else ""))


# ----- reading the runs --------------------------------------------------------------
def machine_of(record: dict) -> str:
    """The machine a run was measured on, as one short name."""
    memory = record.get("memory_gb")
    parts = [record.get("host") or "", record.get("cpu", "?"), f"{record.get('cores', '?')} cores",
             f"{memory:.0f} GiB" if memory else "", record.get("os", "")]
    return ", ".join(p for p in parts if p)


def read_run(data: RunFolder) -> RunInfo:
    with data:                  # read once; the connection is not kept
        return _run_info(data)


def _run_info(data: RunFolder) -> RunInfo:
    folder = data.path
    session = data.sessions[-1] if data.sessions else {}
    found = {"commit": session.get("commit"), "committed": session.get("committed")}
    code = str(session.get("code", ""))
    if not found["commit"] and code.startswith("git "):     # recorded before commits were
        found = commit(ref=code.split()[1]) or found           # stored: ask git, if it knows
    started = session.get("started") or data.config.get("started") or ""
    if code.startswith("git ") and not found.get("commit"):
        found["commit"] = code.split()[1]
    tasks = data.tasks if len(data.results) else data.results
    texts = {pid: p.get("text") for pid, p in data.puzzles.items()}
    return RunInfo(folder, folder.name, found.get("commit") or "", found.get("committed") or "",
                   str(started), machine_of(session) if session else
                   str(data.config.get("machine", "unknown")), tasks, texts,
                   data.config.get("baseline"), {**two_runs.run_identity(data), "engines": []},
                   data.calibration)


def in_commit_order(runs: list[RunInfo]) -> list[RunInfo]:
    """Commit time first (a run without one goes by its start), then start time."""
    return sorted(runs, key=lambda r: (r.committed or r.started, r.started))


# ----- the series ----------------------------------------------------------------------
def history(folders: list[RunFolder], baseline: str | None = None,
            shift_s: float | None = None, relative: bool = False) -> History:
    step_shift = shift_s        # None: each step's engine by its own times, as --compare does
    shift_s = paired.DEFAULT_SHIFT_S if shift_s is None else shift_s   # one for the series
    runs = in_commit_order([read_run(f) for f in folders])
    names = [r.name for r in runs]
    if len(set(names)) < len(names):           # two folders of the same name: say which
        for r in runs:
            r.name = str(r.folder)
    if baseline and not all(baseline in set(r.tasks["engine"]) for r in runs if len(r.tasks)):
        missing = [r.name for r in runs if len(r.tasks) and baseline not in set(r.tasks["engine"])]
        raise HistoryError(f"--baseline {baseline} did not run in {', '.join(missing)}")
    base = baseline or _common_baseline(runs)
    machines = list(dict.fromkeys(r.machine for r in runs))
    notes = []
    if base is None:
        notes.append("no engine ran in every run: no headline ratio to show")
    if relative and base is None:
        raise HistoryError("relative steps need a baseline that ran in every run")
    rows, previous = [], {}
    for order, run in enumerate(runs, 1):
        series = "all" if relative else run.machine
        before = previous.get(series)
        for row in _headline(run, base, shift_s):
            row.update(run=run.name, order=order, machine=machines.index(run.machine) + 1,
                       commit=run.commit[:12], started=run.started)
            moved = Drift(False, why="relative steps") if relative or before is None else \
                drift(before.calibration, run.calibration, (before.name, run.name))
            if not (relative and row["engine"] == base):
                row.update(_step(before, run, row["picks"], row["source"],
                                 shift_s if relative else step_shift,
                                 base if relative else None, moved))
            rows.append(row)
        previous[series] = run
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["flagged"] = table["flagged"].fillna(False).astype(bool)
    for column in ("pairs", "common", "both_solved", "newly_timed_out", "newly_solved",
                   "both_timed_out"):
        table[column] = table[column].astype("Int64")
    listing = pd.DataFrame([{"order": k, "run": r.name, "folder": str(r.folder),
                             "commit": r.commit[:12], "committed": r.committed,
                             "started": r.started, "machine": machines.index(r.machine) + 1,
                             "machine_name": r.machine, "tasks": len(r.tasks),
                             "calibration": _calibration(r.calibration)}
                            for k, r in enumerate(runs, 1)])
    return History(listing, table, base, machines, shift_s, notes, relative)


def _calibration(stored: dict | None) -> str:
    """A run's calibration as the runs table shows it."""
    if not stored or not stored.get("median_s"):
        return "none (times not normalised)"
    return f"{stored['median_s'] * 1000:.1f} ms, median of {stored.get('count', 0)} samples"


def _common_baseline(runs: list[RunInfo]) -> str | None:
    """The baseline the first run was given or would choose, when every run has it."""
    if not runs or runs[0].tasks.empty:
        return None
    chosen = summary.choose_baseline(runs[0].tasks, runs[0].baseline)
    return chosen if all(chosen in set(r.tasks["engine"]) for r in runs if len(r.tasks)) \
        else None


def _headline(run: RunInfo, base: str | None, shift_s: float) -> list[dict]:
    """Per engine, over every source and per source: the run's own headline ratio."""
    tasks = run.tasks
    if tasks.empty:
        return []
    engines = list(dict.fromkeys(tasks["engine"]))
    overall = summary.engine_table(tasks, base, shift_s=shift_s, virtual_best=False)
    rows = [_ratio_row(r, ALL, base) for r in overall.to_dict("records")]
    if tasks["source"].nunique() > 1:
        per = summary.engine_table(tasks, base, by=["source"], shift_s=shift_s,
                                   virtual_best=False)
        rows += [_ratio_row(r, r["source"], base) for r in per.to_dict("records")]
    order = {e: i for i, e in enumerate(engines)}
    return sorted(rows, key=lambda r: (order.get(r["engine"], len(order)), r["source"] != ALL))


def _ratio_row(record: dict, source: str, base: str | None) -> dict:
    """One row of the table; ``picks`` (the engine's label and formulation, kept apart
    from the name shown) finds its tasks again."""
    engine, form = record["engine"], record.get("formulation")
    return {"engine": f"{engine} [{form}]" if form else engine, "picks": (engine, form),
            "source": source, "baseline": base,
            "pairs": record.get("pairs", 0), "ratio": record.get("ratio", math.nan),
            "ci_low": record.get("ci_low", math.nan), "ci_high": record.get("ci_high", math.nan)}


def _step(before: RunInfo | None, run: RunInfo, picks: tuple[str, str | None], source: str,
          shift_s: float | None, relative_to: str | None = None,
          moved: Drift | None = None) -> dict:
    """This run against the one before it on the same machine, on their common tasks
    (with ``relative_to``, on each task's time relative to that engine's in its run);
    ``shift_s`` None: a tenth of the engine's median in the earlier run, as --compare."""
    if before is None:
        return {"previous": "", "flagged": False, "step": ""}
    differences = two_runs.compatibility(before.identity, run.identity)   # paired by label
    if differences:
        return {"previous": before.name, "flagged": False,
                "step": NOT_COMPARED + "the runs differ in " + "; ".join(differences)}
    pick = two_runs.tasks_of(*picks, source)
    a, b = pick(before.tasks), pick(run.tasks)
    if relative_to is not None:
        base = two_runs.tasks_of(relative_to, None, source)
        a = two_runs.relative_to_baseline(a, base(before.tasks), shift_s)
        b = two_runs.relative_to_baseline(b, base(run.tasks), shift_s)
        shift_s = 0.0                       # the ratios carry the shift already
    same = [pid for pid in set(a["puzzle_id"]) & set(b["puzzle_id"])
            if before.texts.get(pid) == run.texts.get(pid)]
    columns = TASK + ["total_s", "solved", "status"]
    columns += [c for c in two_runs.WORK if c in a and c in b]
    both = a[columns].merge(b[columns], on=TASK, suffixes=("_a", "_b"))
    both = both[both["puzzle_id"].isin(same)]
    if shift_s is None:
        shift_s = paired.run_shift(both["total_s_a"])
    return {"previous": before.name, "common": len(both), **censored_step(both, shift_s, moved)}


def write(hist: History, out: Path | str) -> tuple[Path, Path]:
    """history.csv and history.html in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv = hist.to_csv(out / "history.csv")
    text = page_html(hist)
    html = out / "history.html"
    write_text(html, text)
    return csv, html


# ----- the page ----------------------------------------------------------------------------
def page_html(hist: History) -> str:
    """history.html: the flagged steps first, the two plots, the tables, the runs."""
    library = page.plotly_js()
    plotted = _figures(hist) if library is not None else {}
    table = hist.table
    parts = ["<h1>History across runs</h1>"]
    steps = hist.steps
    tone, line = hist.verdict()
    parts.append(f'<p class="verdict {tone}" id="verdict">{page.esc(line)}</p>')
    if len(steps):
        parts.append('<ul class="alerts" id="steps">' + "".join(
            f"<li>{page.esc(step_line(r))}</li>" for r in steps.itertuples(index=False))
            + "</ul>")
    parts.append(f'<p class="note" id="machines">{page.esc(hist.machines_note)}</p>')
    parts.append(f'<p class="note" id="drift">{page.esc(hist.drift_note)}</p>')
    parts += [f'<p class="note">{page.esc(n)}</p>' for n in hist.notes if n]
    if not table.empty:
        parts.append(page.filter_bar(list(dict.fromkeys(table["engine"])),
                                     list(dict.fromkeys(table["source"]))))
    if plotted:
        parts += ['<h2 id="plots">Plots</h2>', '<div class="plots">']
        parts += [f'<div class="plot" id="{key}"></div>' for key in plotted]
        parts.append("</div>")
    shown = table.assign(ratio=[summary.sig3(v) for v in table["ratio"]],
                         ci=[_interval(lo, hi) for lo, hi in zip(table["ci_low"],
                                                                  table["ci_high"])],
                         step_ratio=[summary.sig3(v) for v in table["step_ratio"]],
                         drift=[summary.sig3(v) for v in table["drift"]],
                         noise_floor=["-" if pd.isna(v) else f"±{v:.1%}"
                                      for v in table["noise_floor"]],
                         step_ci=[_interval(lo, hi) for lo, hi in
                                  zip(table["step_ci_low"], table["step_ci_high"])])
    view = ["order", "run", "commit", "machine", "engine", "source", "pairs", "ratio", "ci",
            "previous", "both_solved", "step_ratio", "step_ci", "newly_timed_out",
            "newly_solved", "drift", "noise_floor", "work", "step"]
    raw = table.assign(ci=table["ci_low"], step_ci=table["step_ci_low"])[view]
    rows = [{"engine": e, "source": s, "status": "flagged" if f else ""}
            for e, s, f in zip(table["engine"], table["source"], table["flagged"])]
    parts += [f'<h2 id="table">Per run, engine and source (baseline: '
              f'{page.esc(hist.baseline or "none")})</h2>',
              page.table_html(raw, "table-history", shown[view].astype(object).fillna("-"), rows,
                              caption="ratio and 95% CI: the run's headline against the "
                              "baseline; step ratio: this run against the previous one on the "
                              "same machine, over the tasks both solved (timeouts censored: "
                              "counted as newly timed out / newly solved, tested apart), the "
                              "later run's times divided by drift (its calibration over the "
                              "previous run's), a change called only beyond the noise floor; "
                              "work: whether the nodes the engine reports changed. "
                              "history.csv holds the same rows."),
              '<h2 id="runs">Runs, in commit order</h2>',
              page.table_html(hist.runs, "table-runs", hist.runs.astype(object).fillna("-"))]
    return page.document("History across runs", parts, plotted, library)


def _interval(low, high) -> str:
    return "-" if pd.isna(low) else f"[{summary.sig3(low)}, {summary.sig3(high)}]"


def _figures(hist: History) -> dict[str, dict]:
    table = hist.table
    if table.empty:
        return {}
    labels = {r.order: plot_text(f"{r.order}. {r.run}") for r in hist.runs.itertuples(index=False)}
    overall = table[table["source"] == ALL]
    colours = {e: plots.hex_colour(c) for e, c in plots.engine_colours(table["engine"]).items()}
    made = {"plot-history-ratio": _series(
        overall, "ratio", "ci_low", "ci_high", labels, colours,
        f"Headline ratio to {plot_text(hist.baseline or 'the baseline')} per run (95% CI)",
        "ratio to the baseline (log)", hist.machines)}
    stepped = overall[overall["previous"].fillna("") != ""]
    if len(stepped):
        made["plot-history-step"] = _series(
            stepped, "step_ratio", "step_ci_low", "step_ci_high", labels, colours,
            "Each run against the one before it on the same machine (ratio, 95% CI; "
            "ringed: a flagged step)", "ratio to the previous run (log)", hist.machines)
    return made


def _series(rows: pd.DataFrame, value: str, low: str, high: str, labels: dict, colours: dict,
            title: str, ytitle: str, machines: list[str]) -> dict:
    data = []
    for (engine, machine), part in rows.groupby(["engine", "machine"], sort=False):
        name = plot_text(engine if len(machines) == 1 else f"{engine} (machine {machine})")
        y = part[value].to_numpy(float)
        data.append({"type": "scatter", "mode": "lines+markers", "name": name,
                     "x": [labels[o] for o in part["order"]], "y": [_num(v) for v in y],
                     "error_y": {"type": "data", "symmetric": False,
                                 "array": [_num(h - v) for h, v in zip(part[high], y)],
                                 "arrayminus": [_num(v - lo) for lo, v in zip(part[low], y)]},
                     "line": {"color": colours[engine]},
                     "marker": {"size": [13 if f else 7 for f in part["flagged"]],
                                "line": {"width": [2.5 if f else 0 for f in part["flagged"]],
                                         "color": "#c62828"}},
                     "text": [plot_text(r) for r in part["step"].fillna("")],
                     "hovertemplate": "%{x}<br>%{y:.3g}<br>%{text}" + plotly_figures.NAMED})
    layout = {"title": plotly_figures.heading(title), "height": 400,
              "margin": plotly_figures.margin(b=90),
              "xaxis": {"type": "category", "tickangle": -30, "automargin": True},
              "yaxis": {"type": "log", "title": {"text": ytitle}, "exponentformat": "none"},
              "legend": {"orientation": "h", "y": -0.35, "x": 0}, "hovermode": "closest",
              "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1,
                          "line": {"color": "grey", "dash": "dash", "width": 1}}]}
    return {"data": data, "layout": layout}


def _num(v) -> float | None:
    return float(f"{v:.4g}") if v is not None and math.isfinite(v) else None
