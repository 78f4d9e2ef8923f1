"""How each file-per-instance input was loaded: the per-instance table of summary.md.

A worker loads such an input (an XCSP3 file) itself, untimed, before the
first task on it, from the file or from the instance cache; the time is
stored with each result (``parse_s``, ``translate_s``, ``loaded_from``) and
never counted in a task's time. The table shows, per instance, the slowest
load from the file, the slowest read back from the cache, and how many of
its tasks found it where.
"""
from __future__ import annotations

import pandas as pd

SOURCES = ("file", "cache", "memory")


def loading_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per instance: parse and translation seconds from the file, seconds from the
    cache, and the count of tasks that loaded it from each place."""
    if "loaded_from" not in results or results["loaded_from"].isna().all():
        return pd.DataFrame()
    rows = []
    for puzzle, group in results[results["loaded_from"].notna()].groupby("puzzle_id",
                                                                         sort=False):
        parsed = group[group["loaded_from"] == "file"]
        cached = group[group["loaded_from"] == "cache"]
        counts = group["loaded_from"].value_counts()
        rows.append({"instance": puzzle,
                     "parse s": _most(parsed["parse_s"]),
                     "translate s": _most(parsed["translate_s"]),
                     "from cache s": _most(cached["parse_s"]),
                     **{f"tasks: {where}": int(counts.get(where, 0)) for where in SOURCES}})
    return pd.DataFrame(rows)


def _most(values: pd.Series) -> str:
    values = values.dropna()
    return f"{values.max():.2f}" if len(values) else "-"


def loading_section(results: pd.DataFrame, to_markdown) -> list[str]:
    """The summary.md section, or nothing when no input was loaded by the workers."""
    table = loading_table(results)
    if table.empty:
        return []
    return ["## Loading (untimed)", "",
            "Inputs loaded by the workers, before their tasks and outside their times: "
            "from the file (parse and translation), from the instance cache, or held in "
            "memory by the worker from an earlier task.", "",
            to_markdown(table, raw=True), ""]
