"""Summary tables from the long results frame: per engine, and per source x engine.

The definitions of every column are ``DEFINITIONS``, also written into
summary.md, so the page explains itself.
"""
from __future__ import annotations

import pandas as pd

from engines.base import ANSWERED_WORDS

DEFINITIONS = """\
* solved: answered (a solution, or unsatisfiable) and not rejected by the
  checker; a wrong answer is counted as ``wrong``, not solved;
* times (mean, median, p90, max) are over solved tasks; ``total`` over all;
* PAR2: mean time with every unsolved task (timeout, crash, error, wrong)
  counted as twice the time limit; unsupported tasks (n/a) are left out;
* ``vs <baseline>``: the engine's mean time over the puzzles both it and the
  baseline solved, divided by the baseline's mean there (below 1 is faster);
* with ``--repeat K`` each task's times are the median over its repeats, and
  its status the most common one.
"""

TASK_KEYS = ["puzzle_id", "source", "formulation", "engine", "mode"]
PAIR_KEYS = ["puzzle_id", "formulation", "mode"]     # one puzzle run, engine aside


def per_task(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per task, repeats folded into medians."""
    frame = frame.assign(wrong=frame["verified"].eq(False).fillna(False).astype(bool))
    if frame["repeat"].nunique() <= 1:
        return _mark_solved(frame.copy())
    grouped = frame.groupby(TASK_KEYS, sort=False)
    folded = grouped.agg(size=("size", "first"), clues=("clues", "first"),
                         timeout=("timeout", "first"), build_s=("build_s", "median"),
                         solve_s=("solve_s", "median"), total_s=("total_s", "median"),
                         nodes=("nodes", "median"), wrong=("wrong", "any"),
                         status=("status", lambda s: s.mode().iloc[0]))
    return _mark_solved(folded.reset_index())


def _mark_solved(tasks: pd.DataFrame) -> pd.DataFrame:
    tasks["solved"] = tasks["status"].isin(ANSWERED_WORDS) & ~tasks["wrong"]
    tasks["par2_s"] = tasks["total_s"].where(tasks["solved"], 2 * tasks["timeout"])
    return tasks


def choose_baseline(tasks: pd.DataFrame, wanted: str | None = None) -> str | None:
    """The requested engine, else the backtracker variant with the best PAR2."""
    engines = list(dict.fromkeys(tasks["engine"]))
    if wanted:
        return wanted if wanted in engines else None
    rated = tasks[tasks["status"] != "unsupported"].groupby("engine")["par2_s"].mean()
    if rated.empty:
        return None
    backtrackers = rated[[e.startswith("backtracking") for e in rated.index]]
    return (backtrackers if not backtrackers.empty else rated).idxmin()


def engine_table(tasks: pd.DataFrame, baseline: str | None,
                 by: list[str] | None = None) -> pd.DataFrame:
    """The summary table, one row per engine (and per ``by`` group)."""
    by = list(by or [])
    if tasks["formulation"].nunique() > 1:
        by.append("formulation")
    tasks = _with_baseline(tasks, baseline)
    ratio = f"vs {baseline}" if baseline else "vs baseline"
    rows = []
    for key, group in tasks.groupby(by + ["engine"], sort=False):
        row = dict(zip(by + ["engine"], key if isinstance(key, tuple) else (key,)))
        row.update(_stats(group))
        common = group[group["solved"] & group["base_s"].notna()]
        base_mean = common["base_s"].mean()
        row[ratio] = common["total_s"].mean() / base_mean if base_mean > 0 else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def _with_baseline(tasks: pd.DataFrame, baseline: str | None) -> pd.DataFrame:
    """Each task gains ``base_s``: the baseline's time on that puzzle, if it solved it."""
    base = tasks.loc[(tasks["engine"] == baseline) & tasks["solved"], PAIR_KEYS + ["total_s"]]
    return tasks.merge(base.rename(columns={"total_s": "base_s"}), on=PAIR_KEYS, how="left")


def _stats(group: pd.DataFrame) -> dict:
    status = group["status"]
    solved = group.loc[group["solved"], "total_s"]
    rated = group[status != "unsupported"]
    return {
        "tasks": len(group), "solved": int(group["solved"].sum()),
        "timeouts": int((status == "timeout").sum()),
        "crashed": int((status == "crashed").sum()),
        "errors": int((status == "error").sum()),
        "wrong": int(group["wrong"].sum()),
        "n/a": int((status == "unsupported").sum()),
        "mean_s": solved.mean(), "median_s": solved.median(),
        "p90_s": solved.quantile(0.9) if len(solved) else float("nan"),
        "max_s": solved.max(),
        "par2_s": rated["par2_s"].mean() if len(rated) else float("nan"),
        "total_s": group["total_s"].sum(),
        "mean_nodes": group.loc[group["solved"], "nodes"].mean(),
    }


# ----- presentation ------------------------------------------------------------
def in_order(table: pd.DataFrame, order: dict[str, list]) -> pd.DataFrame:
    """Rows in the order engines and sources were given, not the order tasks finished."""
    keys = [c for c in ("source", "formulation", "engine") if c in table.columns]

    def rank(column: pd.Series) -> pd.Series:
        given = {v: i for i, v in enumerate(dict.fromkeys(order.get(column.name, [])))}
        return column.map(lambda v: given.get(v, len(given)))

    return table.sort_values(keys, key=rank, kind="stable").reset_index(drop=True)


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """Times to 4 decimals, node counts whole, ratios to 2 decimals; NaN as '-'."""
    out = table.copy().astype(object)
    for column in table.columns:
        values = table[column]
        if column.endswith("_s"):
            out[column] = [_num(v, "{:.4f}") for v in values]
        elif column == "mean_nodes":
            out[column] = [_num(v, "{:.0f}") for v in values]
        elif column.startswith("vs "):
            out[column] = [_num(v, "{:.2f}") for v in values]
    return out


def _num(value, pattern: str) -> str:
    return "-" if pd.isna(value) else pattern.format(value)


def to_markdown(table: pd.DataFrame) -> str:
    """A GitHub table without the optional ``tabulate`` dependency."""
    shown = formatted(table)
    head = "| " + " | ".join(map(str, shown.columns)) + " |"
    rule = "|" + "|".join("---" for _ in shown.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |"
            for row in shown.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def to_text(table: pd.DataFrame) -> str:
    return formatted(table).to_string(index=False)
