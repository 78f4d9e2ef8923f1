"""Two runs side by side: did an engine get slower, and did any answer change?

``run_compare.py report --compare A B`` (and ``compare.compare_runs``), in
the spirit of ``pyperf compare_to``. Per engine, over the tasks both runs
finished (same puzzle, formulation, engine label and mode; repeats folded
into per-task medians), the paired ratio B/A is the shifted geometric mean of
per-task time ratios, with a bootstrap CI over puzzles, exactly as the
headline of a single report. A change is called only when the whole
interval lies outside the tie band (``paired.TIE``): a run on a busy machine
drifts a few percent, and that is no finding. When both runs hold a
calibration (``compare.run.calibration``), B's solved times are first divided
by the machine's drift between them, and the band widens to the noise
floor, so a busier machine does not read as slower code. Beside each
engine's time, ``work`` says whether the work it reports (nodes,
backtracks and the other search statistics) changed on the tasks both runs
solved: "same" nodes and a slower time is a slower machine. Tasks whose status or verdict changed are
listed one by one.

Runs made with different settings (mode, limit, time limit, sample,
formulations, engines and their options) or different plugin code measure
different things: the first line then says ``INCOMPATIBLE`` and names each
difference (``compatibility``, which any comparison of runs should use).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from compare.judge.verdict import UNANSWERED, VERIFIED, WRONG
from compare.reporting import paired, summary
from compare.reporting.prose import controls_shown
from compare.run.calibration import Drift, drift
from compare.store.folder import RunFolder
from engines import ANSWERED_WORDS, SEARCH_STATS, Status

TASK = ["puzzle_id", "formulation", "engine", "mode"]
ALL = "all"                 # the source of the rows over every source (history)
# the deterministic work an engine may report: nodes first, then the other counts
WORK = ["nodes", "backtracks", *SEARCH_STATS[1:]]


@dataclass
class RunDiff:
    a: Path
    b: Path
    engines: pd.DataFrame        # per engine: tasks, ratio B/A, CI, W/T/L, verdict
    changed: pd.DataFrame        # tasks whose status or verdict differs
    shift_s: float | None = None      # None: per engine, a tenth of its median time in A
    notes: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)   # settings or code that differ
    empty: str | None = None     # why nothing could be compared (a run without results)
    drift: Drift = field(default_factory=lambda: Drift(False, why="not read"))

    @property
    def compatible(self) -> bool:
        return not self.differences

    def readings(self) -> list[str]:
        """Engines whose time moved with the machine: beyond the tie band before the
        drift was taken out, within the floor after."""
        if not self.drift.applied or "raw_ratio" not in self.engines:
            return []
        said = []
        for row in self.engines.itertuples(index=False):
            moved = row.raw_ratio > 0 and abs(np.log(row.raw_ratio)) > np.log1p(paired.TIE)
            if moved and row.verdict not in ("slower", "faster"):
                how = "slower" if row.raw_ratio > 1 else "faster"
                with_machine = (row.raw_ratio > 1) == (self.drift.ratio > 1)
                work = (f"same work ({row.work}): a {how} machine, not {how} code"
                        if row.work.startswith("same") and with_machine else f"work {row.work}")
                said.append(f"{row.engine}: raw ratio {summary.sig3(row.raw_ratio)}, within "
                            f"the noise floor; {work}.")
        return said

    def first_line(self) -> str:
        if self.empty:
            return self.empty
        if self.differences:
            return ("INCOMPATIBLE: the runs differ in " + "; ".join(self.differences)
                    + ": the ratios below compare unlike runs")
        slower = [e for e, v in zip(self.engines["engine"], self.engines["verdict"])
                  if v == "slower"]
        faster = [e for e, v in zip(self.engines["engine"], self.engines["verdict"])
                  if v == "faster"]
        said = [f"slower: {', '.join(slower)}" if slower else "",
                f"faster: {', '.join(faster)}" if faster else "",
                f"{len(self.changed)} task(s) changed status or verdict" if len(self.changed)
                else ""]
        return "COMPATIBLE: same settings and plugin code; " + (
            "; ".join(p for p in said if p) or "no engine changed with confidence") + (
            f" (machine drift x{self.drift.ratio:.3g}; changes called beyond its noise "
            f"floor ±{self.drift.tie:.1%})" if self.drift.applied else
            " (no drift correction: " + self.drift.why + ")")

    def as_dict(self) -> dict:
        return {"a": str(self.a), "b": str(self.b), "compatible": self.compatible,
                "line": self.first_line(), "differences": self.differences,
                "shift_s": self.shift_s, "drift": self.drift.as_dict(),
                "engines": json.loads(self.engines.to_json(orient="records")),
                "changed": json.loads(self.changed.to_json(orient="records")),
                "notes": [n for n in self.notes if n]}

    def markdown(self) -> str:
        """compare.md: the same comparison as the console's, as a page."""
        return controls_shown("\n".join(["# Run comparison", "", self.first_line(), "",
                                         "```", self.text(), "```", ""]))

    def slower_than(self, above: float) -> list[str]:
        """Engines whose ratio B/A (normalised by the drift) is above ``above`` with
        confidence (CI low above it) and beyond the noise floor."""
        rows = self.engines[self.engines["ci_low"] > max(above, 1 + self.drift.tie)]
        return list(rows["engine"])

    def text(self) -> str:
        if self.empty:
            return self.first_line()
        lines = [self.first_line(), f"A: {self.a}", f"B: {self.b}", ""]
        if self.engines.empty:
            lines.append("no engine has a task in both runs")
        else:
            shown = summary.formatted(self.engines.rename(columns={"ratio": "ratio B/A",
                                                                     "raw_ratio": "raw ratio"}))
            shift = (f"shift {summary.duration(self.shift_s)}, set by --shift-ms"
                     if self.shift_s is not None else
                     "shift: a tenth of the engine's median time in A, column shift")
            lines += [shown.to_string(index=False), "",
                      f"ratio B/A: shifted geometric mean of the per-task time ratios ({shift}),",
                      "with its 95% bootstrap CI over puzzles; W/T/L: tasks where B is faster / "
                      f"within {paired.TIE:.0%} / slower;",
                      "a change is called only when the whole CI lies outside that band "
                      "(or the noise floor, if wider).",
                      "work: whether the nodes and backtracks the engine reports changed on the "
                      "tasks both runs solved.", "", self.drift.line(), *self.readings()]
        if len(self.changed):
            lines += ["", f"{len(self.changed)} task(s) changed status or verdict:"]
            lines += [f"  {r.engine} {r.puzzle_id} [{r.formulation}, {r.mode}]: "
                      f"{r.status_a} ({r.verdict_a}) -> {r.status_b} ({r.verdict_b})"
                      for r in self.changed.itertuples(index=False)]
        else:
            lines += ["", "no task changed status or verdict"]
        return "\n".join(lines + self.notes)


# What must match for two runs' times to be comparable: setting -> how it is named.
SAME = {"mode": "mode", "limit": "limit", "timeout": "time limit", "repeat": "repeats",
        "sample": "sample", "seed": "sample seed", "formulations": "formulations",
        "memory_limit": "memory limit", "format": "puzzle format"}


def run_identity(run: RunFolder) -> dict:
    """What a run was: its settings, the engines it ran and its plugins' code hashes."""
    config = run.config
    plugins = {}
    for session in run.sessions:
        plugins.update(session.get("plugins") or {})
    return {"settings": config.get("settings", {}), "engines": config.get("engines_run", []),
            "plugins": plugins}


def compatibility(a: dict, b: dict) -> list[str]:
    """Each way in which runs ``a`` and ``b`` (``run_identity``) measure different things."""
    found = []
    for key, name in SAME.items():
        one, two = a["settings"].get(key), b["settings"].get(key)
        if one != two:
            found.append(f"{name} {_shown(one)} vs {_shown(two)}")
    if set(a["engines"]) != set(b["engines"]) and a["engines"] and b["engines"]:
        only_a = sorted(set(a["engines"]) - set(b["engines"]))
        only_b = sorted(set(b["engines"]) - set(a["engines"]))
        found.append("engines or engine options ("
                     + "; ".join(p for p in (f"A only: {', '.join(only_a)}" if only_a else "",
                                             f"B only: {', '.join(only_b)}" if only_b else "")
                                 if p) + ")")
    changed = sorted(Path(f).name for f in set(a["plugins"]) | set(b["plugins"])
                     if a["plugins"].get(f) != b["plugins"].get(f))
    if changed:
        found.append(f"plugin code ({', '.join(changed)})")
    return found


def _shown(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def compare_runs(run_a: RunFolder, run_b: RunFolder, shift_s: float | None = None) -> RunDiff:
    """Run B against run A, engine by engine, on the tasks both finished."""
    with run_a, run_b:
        empty = [f"{name} ({run.path})" for name, run in (("A", run_a), ("B", run_b))
                 if run.results.empty]
        if empty:     # an interrupted run may have stored nothing yet: nothing to pair
            nothing = pd.DataFrame(columns=["engine", "tasks", "ratio", "ci_low", "ci_high",
                                            "median_ratio", "wins", "ties", "losses",
                                            "verdict"])
            return RunDiff(run_a.path, run_b.path, nothing, pd.DataFrame(), shift_s,
                           empty=f"{' and '.join(empty)} stored no result yet (interrupted "
                                 "early?): nothing to compare")
        tasks_a, tasks_b = run_a.tasks, run_b.tasks
        puzzles_a, puzzles_b = run_a.puzzles, run_b.puzzles
        engines_a, engines_b = set(run_a.results["engine"]), set(run_b.results["engine"])
        identity_a, identity_b = run_identity(run_a), run_identity(run_b)
        moved = drift(run_a.calibration, run_b.calibration)
    notes = []
    other = {pid for pid in set(puzzles_a) & set(puzzles_b)
             if puzzles_a[pid].get("text") != puzzles_b[pid].get("text")}
    if other:
        notes.append(f"left out: {len(other)} puzzle id(s) name different puzzles in A and B "
                     f"(e.g. {sorted(other)[0]})")
    only = sorted(engines_a ^ engines_b)
    if only:
        notes.append("engines in one run only (not compared): " + ", ".join(only))
    return RunDiff(run_a.path, run_b.path, _engines(tasks_a, tasks_b, other, shift_s, moved),
                   _changed(tasks_a, tasks_b, other), shift_s, ["", *notes] if notes else [],
                   compatibility(identity_a, identity_b), drift=moved)


def _engines(tasks_a, tasks_b, other: set, shift_s: float | None,
             moved: Drift) -> pd.DataFrame:
    """Per engine, B against A; B's solved times divided by the drift when it applies."""
    columns = TASK + ["par2_s", "attempted", "solved"]
    columns += [c for c in WORK if c in tasks_a and c in tasks_b]
    both = tasks_a[columns].merge(tasks_b[columns], on=TASK, suffixes=("_a", "_b"))
    both = both[both["attempted_a"] & both["attempted_b"] & ~both["puzzle_id"].isin(other)]
    rows = []
    for engine, group in both.groupby("engine", sort=False):
        shift = paired.run_shift(group["par2_s_a"]) if shift_s is None else shift_s
        raw_b, times_a = group["par2_s_b"].to_numpy(), group["par2_s_a"].to_numpy()
        times_b = np.where(group["solved_b"], moved.normalised(raw_b), raw_b)
        figures = paired.compare(times_b, times_a, shift, tie=moved.tie)
        row = {"engine": engine, "tasks": figures.pop("pairs"), **figures,
               "verdict": paired.verdict(figures["ci_low"], figures["ci_high"], moved.tie),
               "shift_s": shift}
        if moved.applied:
            row["raw_ratio"] = paired.compare(raw_b, times_a, shift)["ratio"]
        rows.append({**row, "work": work_change(group[group["solved_a"] & group["solved_b"]])})
    columns = ["engine", "tasks", "ratio", "ci_low", "ci_high", "median_ratio", "wins",
               "ties", "losses", "verdict"] + (["raw_ratio"] if moved.applied else []) + [
               "work"] + (["shift_s"] if shift_s is None else [])
    return pd.DataFrame(rows, columns=columns)


def work_change(both: pd.DataFrame) -> str:
    """Whether the work an engine reports (``WORK``: nodes, backtracks, ...) differs
    between runs A and B on these tasks (``<column>_a`` and ``<column>_b``): "same",
    "changed on k of n tasks" with the geometric mean ratio of nodes, or "not reported".
    A statistic one run does not report at all (stored before it was) is left out."""
    columns = [c for c in WORK if f"{c}_a" in both and f"{c}_b" in both and (
        c == "nodes" or both[f"{c}_a"].notna().any() and both[f"{c}_b"].notna().any())]
    if both.empty or not columns:
        return "not reported"
    a = both[[f"{c}_a" for c in columns]].to_numpy(float)
    b = both[[f"{c}_b" for c in columns]].to_numpy(float)
    reported = (np.nan_to_num(a) > 0).any(axis=1) | (np.nan_to_num(b) > 0).any(axis=1)
    if not reported.any():
        return "not reported"
    a, b = a[reported], b[reported]
    differs = ~((a == b) | (np.isnan(a) & np.isnan(b))).all(axis=1)
    if not differs.any():
        return f"same on {len(a)} tasks"
    nodes = np.log1p(np.nan_to_num(b[:, 0])) - np.log1p(np.nan_to_num(a[:, 0]))
    return (f"changed on {int(differs.sum())} of {len(a)} tasks "
            f"(nodes x{float(np.exp(nodes.mean())):.3g})")


def _changed(tasks_a, tasks_b, other: set) -> pd.DataFrame:
    """Tasks whose status (the most common over repeats) or verdict differs."""
    def verdicts(tasks):
        answered = tasks["status"].isin(ANSWERED_WORDS)
        said = pd.Series(UNANSWERED, index=tasks.index).mask(answered, VERIFIED)
        return tasks[TASK + ["status"]].assign(verdict=said.mask(tasks["wrong"], WRONG))
    both = verdicts(tasks_a).merge(verdicts(tasks_b), on=TASK, suffixes=("_a", "_b"))
    both = both[~both["puzzle_id"].isin(other)]
    moved = (both["status_a"] != both["status_b"]) | (both["verdict_a"] != both["verdict_b"])
    return both[moved].reset_index(drop=True)


SIGN_LEVEL = 0.05           # the sign test's level for tasks that timed out in one run only


def censored_step(both: pd.DataFrame, shift_s: float, moved: Drift | None = None) -> dict:
    """The paired test of ``report --compare`` on the tasks both runs solved (B's times
    divided by the drift, a change called beyond its floor), and a sign test on those
    that timed out in one run only (B is the later run); ``report --history``'s step."""
    moved = moved or Drift(False, why="no calibration read")
    solved = both[both["solved_a"] & both["solved_b"]]
    timeout = Status.TIMEOUT.value
    out_a, out_b = both["status_a"].eq(timeout), both["status_b"].eq(timeout)
    newly_out = int((both["solved_a"] & out_b).sum())
    newly_in = int((out_a & both["solved_b"]).sum())
    figures = paired.compare(moved.normalised(solved["total_s_b"].to_numpy()),
                             solved["total_s_a"].to_numpy(), shift_s, tie=moved.tie)
    said = paired.verdict(figures["ci_low"], figures["ci_high"], moved.tie)
    flips = newly_out + newly_in
    # scipy.stats here, where it is used: it costs most of a second of start-up
    from scipy import stats
    sign_p = stats.binomtest(newly_out, flips).pvalue if flips else math.nan
    step = said if said in ("slower", "faster") else ""
    if not step and flips and sign_p < SIGN_LEVEL:
        step = "slower (more timeouts)" if newly_out > newly_in else "faster (fewer timeouts)"
    return {"both_solved": len(solved), "step_ratio": figures["ratio"],
            "step_ci_low": figures["ci_low"], "step_ci_high": figures["ci_high"],
            "newly_timed_out": newly_out, "newly_solved": newly_in,
            "both_timed_out": int((out_a & out_b).sum()), "sign_p": sign_p,
            "step": step or said, "flagged": bool(step),
            "drift": moved.ratio if moved.applied else math.nan,
            "noise_floor": moved.floor if moved.applied else math.nan,
            "work": work_change(solved)}


def relative_to_baseline(tasks: pd.DataFrame, base: pd.DataFrame, shift_s: float) -> pd.DataFrame:
    """Each task's shifted time ratio to the baseline's on the same puzzle run; solved
    when both solved, timed out (censored) when either did."""
    keys = ["puzzle_id", "formulation", "mode"]
    base = base.drop_duplicates(["puzzle_id", "mode"])[["puzzle_id", "mode", "total_s",
                                                          "solved", "status"]]
    both = tasks[keys + ["engine", "total_s", "solved", "status"]].merge(
        base, on=["puzzle_id", "mode"], suffixes=("", "_base"))
    return both.assign(
        total_s=(both["total_s"] + shift_s) / (both["total_s_base"] + shift_s),
        solved=both["solved"] & both["solved_base"],
        status=both["status"].where(both["status_base"] != Status.TIMEOUT.value,
                                    Status.TIMEOUT.value))


def tasks_of(engine: str, form: str | None, source: str):
    """A picker of one engine's tasks (in one formulation, from one source or ``ALL``)."""
    def pick(tasks: pd.DataFrame) -> pd.DataFrame:
        rows = tasks[tasks["engine"] == engine]
        if form:
            rows = rows[rows["formulation"] == form]
        return rows if source == ALL else rows[rows["source"] == source]
    return pick
