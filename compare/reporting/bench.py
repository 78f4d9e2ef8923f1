"""The benchmark's figures, read from the results of its parts.

Each part of ``run_compare.py bench`` is an ordinary comparison run with its
own folder (its results file, summary.md, plots), so every answer was checked and
cross-checked there. This module turns the parts' per-task tables into the
benchmark's targets. It knows no engine by name: the engines, the names the
report gives them and the targets come from the benchmark file, and every
table's headers are made from them.
"""
from __future__ import annotations

import textwrap
from datetime import datetime

import pandas as pd

from compare.reporting import summary
from compare.run import provenance as environment
from engines import Status

COMMON = """\
* time: ``total_s``, model build plus search, timed inside the worker;
* a task without a verified answer (timeout, crash, error, wrong answer)
  counts at the time limit in means and maxima, a lower bound of its real
  time; a target about an engine fails whenever that engine left a task
  unsolved;"""
# What each kind of target claims, naming the engine it is about: said under the
# part's heading and among the definitions. A ratio target's clauses are its own.
RATIO_CLAIMS = {
    "mean": "{engine}'s mean <= {mean:g} x {baseline}'s mean",
    "max": "{engine}'s maximum <= {max:g} x {baseline}'s maximum",
}
CLAIMS = {
    "lexfirst": "{engine} in mode lexfirst leaves no task unsolved, and its median is within "
                "{within:g} x {engine}'s median in mode ``first`` in the {against} part of the "
                "same invocation, per dataset",
    "coverage": "{engine} solves every puzzle {baseline} solves{margin_text}",
    "overhead": "the harness, running {engine}: the run phase's wall time (workers start -> "
                "last result stored; puzzle loading and worker warm-up included) <= "
                "{factor:g} x (sum of task times / workers) + {slack:g} s",
    "wall": "{engine}'s run phase's wall time (workers start -> last result stored) "
            "against the {against} part's on the same tasks{within_text}",
}


# ----- figures -----------------------------------------------------------------------
def timed(tasks: pd.DataFrame) -> pd.DataFrame:
    """Each task's time ``t``: its own when solved, else its limit (a lower bound)."""
    return tasks.assign(t=tasks["total_s"].where(tasks["solved"], tasks["timeout"]),
                        unsolved=~tasks["solved"])


def per_source(tasks: pd.DataFrame, engine: str) -> pd.DataFrame:
    """Puzzles, unsolved, mean, median and max time of one engine, one row per source."""
    mine = timed(tasks[tasks["engine"] == engine])
    return mine.groupby("source", sort=False).agg(
        puzzles=("t", "size"), unsolved=("unsolved", "sum"), mean=("t", "mean"),
        median=("t", "median"), max=("t", "max"))


def ratio_table(tasks: pd.DataFrame, engine: str, baseline: str, mean_target: float | None,
                max_target: float | None) -> pd.DataFrame:
    """Per dataset: ``engine``'s mean and max against ``baseline``'s, and whether
    each ratio is within its target (None: that target is not set)."""
    a, b = per_source(tasks, engine), per_source(tasks, baseline)
    b = b.reindex(a.index)
    table = pd.DataFrame({"dataset": a.index, "puzzles": a["puzzles"].to_numpy(),
                          "mean": a["mean"].to_numpy(), "baseline_mean": b["mean"].to_numpy(),
                          "max": a["max"].to_numpy(), "baseline_max": b["max"].to_numpy()})
    table["mean_ratio"] = table["mean"] / table["baseline_mean"]
    table["max_ratio"] = table["max"] / table["baseline_max"]
    clean = a["unsolved"].to_numpy() == 0
    for kind, target in (("mean", mean_target), ("max", max_target)):
        table[f"{kind}_pass"] = None if target is None else \
            clean & (table[f"{kind}_ratio"] <= target)
    others = b["unsolved"].fillna(0).astype(int)
    table["unsolved"] = [f"{x}/{y}" for x, y in zip(a["unsolved"], others)]
    return table


def lexfirst_table(lex: pd.DataFrame, first: pd.DataFrame | None, engine: str,
                   within: float) -> pd.DataFrame:
    """The lexfirst targets; without a ``first`` run to compare with, the ratio is n/a.

    The two modes run in two parts, minutes apart on a machine others share: a
    few tasks slowed by a neighbour move a mean of small times severalfold, so
    the ratio is of medians."""
    a = per_source(lex, engine)
    table = pd.DataFrame({"dataset": a.index, "puzzles": a["puzzles"].to_numpy(),
                          "unsolved": a["unsolved"].to_numpy(),
                          "lex_median": a["median"].to_numpy(), "lex_mean": a["mean"].to_numpy(),
                          "lex_max": a["max"].to_numpy()})
    if first is None:
        table["first_median"], table["ratio"], table["pass"] = float("nan"), float("nan"), None
        return table
    table["first_median"] = per_source(first, engine)["median"].reindex(a.index).to_numpy()
    table["ratio"] = table["lex_median"] / table["first_median"]
    table["pass"] = (table["unsolved"] == 0) & (table["ratio"] <= within)
    return table


def scaling_table(tasks: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Solved tasks and their times per engine and ``by`` group (size, or source)."""
    rows = []
    for key, group in tasks.groupby(by + ["engine"], sort=False):
        solved = group.loc[group["solved"], "total_s"]
        rows.append({**dict(zip(by + ["engine"], key)), "puzzles": len(group),
                     "solved": len(solved), "timeouts": int((group["status"] == Status.TIMEOUT.value).sum()),
                     "mean": solved.mean(), "median": solved.median(), "max": solved.max()})
    return pd.DataFrame(rows)


def not_covered(tasks: pd.DataFrame, engine: str, baseline: str,
                margin: float | None = None) -> list[str]:
    """Puzzles ``baseline`` solved and ``engine`` did not; with ``margin``, only
    those ``baseline`` solved in under that share of the time limit (a solve
    just inside the limit is the machine's coin toss, not the code's)."""
    def solved_by(name: str, share: float | None = None) -> set[str]:
        mine = (tasks["engine"] == name) & tasks["solved"]
        if share is not None:
            mine &= tasks["total_s"] < share * tasks["timeout"]
        return set(tasks.loc[mine, "puzzle_id"])
    missing = solved_by(baseline, margin) - solved_by(engine)
    return [pid for pid in dict.fromkeys(tasks["puzzle_id"]) if pid in missing]


def overhead(run: dict, factor: float, slack_s: float) -> dict:
    """The harness-overhead target on one run's timing record (``runs`` in the store)."""
    ideal = run["task_s"] / run["workers"]
    limit = factor * ideal + slack_s
    return {"tasks": run["tasks"], "workers": run["workers"], "wall_s": run["wall_s"],
            "task_s": run["task_s"], "ideal_s": ideal, "limit_s": limit,
            "pass": run["wall_s"] <= limit}


def wall_table(rows: list[tuple[str, dict, list]], within: float | None) -> pd.DataFrame:
    """One row per part (name, run settings, run records): its last run's wall
    time, time to the first result and after it; each row's ratios to the last
    row's, and whether the wall ratio is within ``within``."""
    out = []
    for name, settings, runs in rows:
        run = runs[-1] if runs else {}
        wall, first = run.get("wall_s", float("nan")), run.get("first_s", float("nan"))
        out.append({"part": name, "settings": ", ".join(f"{k}={v}" for k, v in settings.items())
                    or "local", "tasks": run.get("tasks", 0), "wall_s": wall, "first_s": first,
                    "after_first_s": wall - first,
                    "parent_cpu_s": run.get("parent_cpu_s", float("nan"))})
    table = pd.DataFrame(out)
    last = table.iloc[-1]
    table["wall_ratio"] = table["wall_s"] / last["wall_s"]
    table["after_first_ratio"] = table["after_first_s"] / last["after_first_s"]
    table["pass"] = None if within is None else table["wall_ratio"] <= within
    return table


def throughput(frame: pd.DataFrame, run: dict, whole_s: float, labels: dict) -> pd.DataFrame:
    """Per engine and source: solved puzzles per second by ``solve_s`` and by
    ``total_s`` (the engines' clocks), the run's wall rate from its first
    result to its last (results of any status; with one engine per part it is
    that engine's), and the whole part's rate."""
    table = summary.throughput_table(frame)
    puzzles = frame.groupby(["engine", "source"], sort=False)["puzzle_id"].nunique()
    table.insert(2, "puzzles", [puzzles.get((e, s), 0) for e, s in
                                zip(table["engine"], table["source"])])
    table["wall (results of any status)"] = summary.wall_rate(run) or "-"
    table["whole part"] = [summary.rate(n, whole_s) for n in table["puzzles"]]
    table["engine"] = [labels.get(e, e) for e in table["engine"]]
    return table


# ----- presentation --------------------------------------------------------------------
def seconds(value) -> str:
    """Milliseconds below a second, seconds above; '-' when there is no time."""
    if pd.isna(value):
        return "-"
    return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.2f} s"


def verdict(ok) -> str:
    return "n/a" if ok is None or pd.isna(ok) else ("PASS" if ok else "FAIL")


def ratio(value) -> str:
    return "-" if pd.isna(value) else f"{value:.2f}"


def ratio_columns(engine: str, baseline: str, mean_target: float | None,
                  max_target: float | None) -> dict:
    """The ratio table's columns as shown: ``{column: (header, format)}``, headed
    with the names the benchmark file gives its engines; a ratio without a
    target keeps its figures and loses its verdict column."""
    columns = {"dataset": ("dataset", str), "puzzles": ("puzzles", str)}
    for kind, target in (("mean", mean_target), ("max", max_target)):
        columns[kind] = (f"{engine} {kind}", seconds)
        columns[f"baseline_{kind}"] = (f"{baseline} {kind}", seconds)
        columns[f"{kind}_ratio"] = (f"{kind} ratio", ratio)
        if target is not None:
            limit = baseline if target == 1 else f"{target:g}x"
            columns[f"{kind}_pass"] = (f"{kind} <= {limit}", verdict)
    columns["unsolved"] = (f"unsolved ({engine}/{baseline})", str)
    return columns


def lex_columns(against: str, within: float) -> dict:
    return {"dataset": ("dataset", str), "puzzles": ("puzzles", str),
            "unsolved": ("unsolved", str), "lex_median": ("lexfirst median", seconds),
            "first_median": (f"first median ({against} part)", seconds),
            "ratio": ("ratio", ratio), "pass": (f"no unsolved, ratio <= {within:g}", verdict),
            "lex_mean": ("lexfirst mean", seconds), "lex_max": ("lexfirst max", seconds)}


def wall_columns(against: str, within: float | None) -> dict:
    columns = {"part": ("part", str), "settings": ("run settings", str),
               "tasks": ("tasks", str), "wall_s": ("wall", seconds),
               "first_s": ("first result", seconds),
               "after_first_s": ("after the first result", seconds),
               "parent_cpu_s": ("parent CPU", seconds),
               "wall_ratio": (f"wall / {against}", ratio),
               "after_first_ratio": (f"after the first / {against}", ratio)}
    if within is not None:
        columns["pass"] = (f"wall <= {within:g} x {against}", verdict)
    return columns


SCALING_FORMAT = {"mean": seconds, "median": seconds, "max": seconds}


def shown(table: pd.DataFrame, columns: dict) -> pd.DataFrame:
    """The table as text, column by column: ``columns`` maps each shown column
    to its header and its format (a bare format keeps the column's name)."""
    columns = {name: spec if isinstance(spec, tuple) else (name, spec)
               for name, spec in columns.items()}
    return pd.DataFrame({header: [fmt(v) for v in table[name]]
                         for name, (header, fmt) in columns.items()})


def markdown(table: pd.DataFrame) -> str:
    return summary.to_markdown(table, raw=True)


def scaling_markdown(table: pd.DataFrame) -> str:
    columns = {c: SCALING_FORMAT.get(c, str) for c in table.columns}
    return markdown(shown(table, columns))


def machine_lines(libraries: dict[str, str] | None = None) -> list[str]:
    """What the figures were measured on: they only mean something beside this.
    ``libraries``: the engines' libraries and versions, beside the harness's own."""
    record = {**environment.machine(), "libraries": environment.libraries(libraries or {})}
    load = environment.load_average()
    return ([f"date: {datetime.now().strftime('%Y-%m-%d %H:%M')}"]
            + environment.describe(record)
            + ["load average (1, 5, 15 min) when the report was written: "
               + ("/".join(f"{x:.2f}" for x in load) if load else "?")])


def claim(target: dict) -> str | None:
    """What a target claims, in one sentence that names the engine it is about;
    None for a part without a target. ``target``: its keys plus ``engine`` and
    ``baseline`` (the names the report gives them) and ``name`` (the part)."""
    kind = target["kind"]
    if kind == "ratio":
        return ", ".join(RATIO_CLAIMS[k].format(**target) for k in ("mean", "max")
                         if k in target) + ", per dataset"
    if kind not in CLAIMS:
        return None
    within, margin = target.get("within"), target.get("margin")
    return CLAIMS[kind].format(
        **target, within_text="" if within is None else f", within {within:g} x",
        margin_text="" if margin is None else f" in under {margin:g} x the time limit")


def definitions(targets: list[dict]) -> str:
    """The common definitions and each part's target, in the report's words.

    ``targets``: one per part, as ``claim`` takes them.
    """
    lines = [COMMON]
    for target in targets:
        said = claim(target)
        if said is None:
            continue
        if target["kind"] == "coverage":
            said += "; scaling times are over solved tasks"
        lines.append(textwrap.fill(f"* {target['name']}: {said};", 78,
                                   subsequent_indent="  ", break_on_hyphens=False))
    if lines[-1].endswith(";"):
        lines[-1] = lines[-1][:-1] + "."
    return "\n".join(lines).strip()
