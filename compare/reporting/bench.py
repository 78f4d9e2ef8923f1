"""The benchmark's figures, read from the results of its parts.

Each part of ``run_compare.py bench`` is an ordinary comparison run with its
own folder (results.sqlite, summary.md, plots), so every answer was checked
and cross-checked there. This module turns the parts' per-task tables into the
benchmark's targets and writes ``bench.md``.

The definitions are ``DEFINITIONS``, also written into bench.md.
"""
from __future__ import annotations

from datetime import datetime

import pandas as pd

from compare.harness import environment
from compare.reporting import summary

COMMON = """\
* time: ``total_s``, model build plus search, timed inside the worker;
* a task without a verified answer (timeout, crash, error, wrong answer)
  counts at the time limit in means and maxima, a lower bound of its real
  time; a target about an engine fails whenever that engine left a task
  unsolved;"""
TARGET_LINES = {
    "ratio": """\
* {name} targets, per dataset: fast's mean <= {mean:g} x CP-SAT's mean, fast's
  maximum <= {max:g} x CP-SAT's maximum;""",
    "lexfirst": """\
* lexfirst targets, per dataset: no unsolved task, and the mean within {within:g} x
  fast's mean in ``first`` mode in the same invocation;""",
    "coverage": """\
* larger grids: the backtracker solves every puzzle CP-SAT solves;
  scaling times are over solved tasks;""",
    "overhead": """\
* harness overhead: the run phase's wall time (workers start -> last result
  stored; puzzle loading and worker warm-up included) <= {factor:g} x (sum of task
  times / workers) + {slack:g} s.""",
}
ENGINE_LIBRARIES = ("ortools", "python-constraint2")


# ----- figures -----------------------------------------------------------------------
def timed(tasks: pd.DataFrame) -> pd.DataFrame:
    """Each task's time ``t``: its own when solved, else its limit (a lower bound)."""
    return tasks.assign(t=tasks["total_s"].where(tasks["solved"], tasks["timeout"]),
                        unsolved=~tasks["solved"])


def per_source(tasks: pd.DataFrame, engine: str) -> pd.DataFrame:
    """Puzzles, unsolved, mean and max time of one engine, one row per source."""
    mine = timed(tasks[tasks["engine"] == engine])
    return mine.groupby("source", sort=False).agg(
        puzzles=("t", "size"), unsolved=("unsolved", "sum"), mean=("t", "mean"),
        max=("t", "max"))


def ratio_table(tasks: pd.DataFrame, fast: str, cpsat: str, mean_target: float,
                max_target: float) -> pd.DataFrame:
    """The 9x9 targets: fast's mean and max within the given multiples of CP-SAT's."""
    a, b = per_source(tasks, fast), per_source(tasks, cpsat)
    b = b.reindex(a.index)
    table = pd.DataFrame({"dataset": a.index, "puzzles": a["puzzles"].to_numpy(),
                          "fast_mean": a["mean"].to_numpy(), "cpsat_mean": b["mean"].to_numpy(),
                          "fast_max": a["max"].to_numpy(), "cpsat_max": b["max"].to_numpy()})
    table["mean_ratio"] = table["fast_mean"] / table["cpsat_mean"]
    table["max_ratio"] = table["fast_max"] / table["cpsat_max"]
    clean = a["unsolved"].to_numpy() == 0
    table["mean_pass"] = clean & (table["mean_ratio"] <= mean_target)
    table["max_pass"] = clean & (table["max_ratio"] <= max_target)
    others = b["unsolved"].fillna(0).astype(int)
    table["unsolved"] = [f"{x}/{y}" for x, y in zip(a["unsolved"], others)]
    return table


def lexfirst_table(lex: pd.DataFrame, first: pd.DataFrame | None, fast: str,
                   within: float) -> pd.DataFrame:
    """The lexfirst targets; without a ``first`` run to compare with, the ratio is n/a."""
    a = per_source(lex, fast)
    table = pd.DataFrame({"dataset": a.index, "puzzles": a["puzzles"].to_numpy(),
                          "unsolved": a["unsolved"].to_numpy(),
                          "lex_mean": a["mean"].to_numpy(), "lex_max": a["max"].to_numpy()})
    if first is None:
        table["first_mean"], table["ratio"], table["pass"] = float("nan"), float("nan"), None
        return table
    table["first_mean"] = per_source(first, fast)["mean"].reindex(a.index).to_numpy()
    table["ratio"] = table["lex_mean"] / table["first_mean"]
    table["pass"] = (table["unsolved"] == 0) & (table["ratio"] <= within)
    return table


def scaling_table(tasks: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Solved tasks and their times per engine and ``by`` group (size, or source)."""
    rows = []
    for key, group in tasks.groupby(by + ["engine"], sort=False):
        solved = group.loc[group["solved"], "total_s"]
        rows.append({**dict(zip(by + ["engine"], key)), "puzzles": len(group),
                     "solved": len(solved), "timeouts": int((group["status"] == "timeout").sum()),
                     "mean": solved.mean(), "median": solved.median(), "max": solved.max()})
    return pd.DataFrame(rows)


def not_covered(tasks: pd.DataFrame, fast: str, cpsat: str) -> list[str]:
    """Puzzles CP-SAT solved and the backtracker did not."""
    def solved_by(engine: str) -> set[str]:
        return set(tasks.loc[(tasks["engine"] == engine) & tasks["solved"], "puzzle_id"])
    missing = solved_by(cpsat) - solved_by(fast)
    return [pid for pid in dict.fromkeys(tasks["puzzle_id"]) if pid in missing]


def overhead(run: dict, factor: float, slack_s: float) -> dict:
    """The harness-overhead target on one run's timing record (``runs`` in the store)."""
    ideal = run["task_s"] / run["workers"]
    limit = factor * ideal + slack_s
    return {"tasks": run["tasks"], "workers": run["workers"], "wall_s": run["wall_s"],
            "task_s": run["task_s"], "ideal_s": ideal, "limit_s": limit,
            "pass": run["wall_s"] <= limit}


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


RATIO_COLUMNS = {"dataset": str, "puzzles": str, "fast_mean": seconds, "cpsat_mean": seconds,
                 "mean_ratio": ratio, "mean_pass": verdict, "fast_max": seconds,
                 "cpsat_max": seconds, "max_ratio": ratio, "max_pass": verdict,
                 "unsolved": str}
def ratio_headers(mean_target: float) -> list[str]:
    return ["dataset", "puzzles", "fast mean", "CP-SAT mean", "mean ratio",
            f"mean <= {mean_target}x", "fast max", "CP-SAT max", "max ratio",
            "max <= CP-SAT", "unsolved (fast/CP-SAT)"]


LEX_COLUMNS = {"dataset": str, "puzzles": str, "unsolved": str, "lex_mean": seconds,
               "first_mean": seconds, "ratio": ratio, "pass": verdict, "lex_max": seconds}
def lex_headers(against: str, within: float) -> list[str]:
    return ["dataset", "puzzles", "unsolved", "lexfirst mean", f"first mean ({against} part)",
            "ratio", f"no unsolved, ratio <= {within:g}", "lexfirst max"]


SCALING_FORMAT = {"mean": seconds, "median": seconds, "max": seconds}


def shown(table: pd.DataFrame, columns: dict, headers: list[str] | None = None) -> pd.DataFrame:
    """The table as text, column by column; headers renamed for the reader."""
    out = pd.DataFrame({name: [fmt(v) for v in table[name]] for name, fmt in columns.items()})
    if headers:
        out.columns = headers
    return out


def markdown(table: pd.DataFrame) -> str:
    return summary.to_markdown(table, raw=True)


def scaling_markdown(table: pd.DataFrame) -> str:
    columns = {c: SCALING_FORMAT.get(c, str) for c in table.columns}
    return markdown(shown(table, columns))


def machine_lines() -> list[str]:
    """What the figures were measured on: they only mean something beside this."""
    record = {**environment.machine(), "libraries": environment.libraries(
        {name: environment.version(name) for name in ENGINE_LIBRARIES})}
    load = environment.load_average()
    return ([f"date: {datetime.now().strftime('%Y-%m-%d %H:%M')}"]
            + environment.describe(record)
            + ["load average (1, 5, 15 min) when the report was written: "
               + ("/".join(f"{x:.2f}" for x in load) if load else "?")])


def definitions(targets: list[dict]) -> str:
    """The common definitions and, once per kind, the targets that were measured."""
    lines, seen = [COMMON], set()
    for target in targets:
        kind = target["kind"]
        if kind in TARGET_LINES and kind not in seen:
            seen.add(kind)
            lines.append(TARGET_LINES[kind].format(name="9x9", **target))
    return "\n".join(lines).strip()
