"""Summary tables from the long results frame: per engine, and per source x engine.

The definitions of every column are ``DEFINITIONS``, also written into
summary.md, so the page explains itself. The paired figures against the
baseline come from ``compare.reporting.paired``.
"""
from __future__ import annotations

import math
import re

import pandas as pd
from tabulate import tabulate

import engines
from compare.reporting import paired
from compare.reporting.prose import table_cell

# the task set is defined with the run folder; the tables here are built on it
from compare.store.folder import PAIR_KEYS, TASK_KEYS, common_runs, per_task  # noqa: F401

DEFINITIONS = """\
* solved: answered (a solution, or unsatisfiable) and not rejected by the
  checker; a wrong answer is counted as ``wrong``, not solved;
* times: mean, median, p90 and max are over solved tasks; ``total`` over all;
  they are shown in adaptive units (µs, ms, s) to 3 significant digits;
* PAR2: mean time with every unsolved task (timeout, crash, error, memout,
  wrong) counted as twice the time limit; unsupported tasks (n/a) are left out;
* ``ratio`` (the headline): the shifted geometric mean of the per-puzzle
  ratios against the baseline, exp(mean log((t + shift) / (t_baseline + shift))),
  over the puzzles both engines attempted (``pairs``); ``t`` is the task's
  time when solved, else its PAR2 value; shift {shift}; below 1 is faster;
  unless ``--shift-ms`` sets it, the shift is a tenth of the baseline's median
  time (PAR2 values included), so it damps timer noise on trivial puzzles
  without flattening the ratio on typical ones;
* ``95% CI``: a bootstrap interval of that ratio (scipy.stats.bootstrap, BCa,
  {resamples} resamples of the puzzles with both engines' times kept
  together, seed {seed}; from 5,000 puzzles on, the normal interval of the
  mean log ratio, which the bootstrap's matches there);
* ``median ratio``: the median of the same per-puzzle ratios;
* ``W/T/L``: puzzles where the engine is faster than the baseline by more
  than {tie}, within {tie} either way (tie), slower by more;
* ``ratio of means``: the engine's mean time over the puzzles both it and the
  baseline solved, divided by the baseline's mean there (one slow puzzle can
  decide it; kept for comparison with older reports);
* ``nodes``, ``failures``, ``propagations``, ``restarts``, ``nogoods``: the
  median over solved tasks of the search statistics the engine reports
  (``engines.SEARCH_STATS``); each but nodes only when some engine reports it;
* ``median CPU`` and ``peak RSS`` (when the workers record them): the median
  CPU time of the solved tasks and the largest resident memory of a task;
* ``virtual best``: for every puzzle, the fastest engine's task (PAR2 time):
  what picking the right engine per puzzle would give;
* ``--repeat K``: each task's times are the median over its repeats, and
  its status the most common one, but solved only when every repeat answered
  (else the most common status of the repeats that did not); ``rep IQR`` is
  the median, over the engine's solved tasks, of the interquartile range of
  a task's K times divided by its median time.
"""

VIRTUAL_BEST = "virtual best"
# The per-engine table's columns that count the tasks ending in a status without an answer.
STATUS_COLUMNS = {"timeouts": engines.Status.TIMEOUT.value, "crashed": engines.Status.CRASHED.value,
                  "errors": engines.Status.ERROR.value, "memout": engines.Status.MEMOUT.value}
LABEL_WIDTH = 28     # longer engine labels are cut in the console table
# The per-engine table's medians of the search statistics, and what they count.
WORK_COLUMNS = {f"median_{name}": name for name in engines.SEARCH_STATS}


def definitions(shift_s: float = paired.DEFAULT_SHIFT_S) -> str:
    return DEFINITIONS.format(shift=duration(shift_s), resamples=paired.RESAMPLES,
                              seed=paired.SEED, tie=f"{paired.TIE:.0%}")


def run_shift(tasks: pd.DataFrame, baseline: str | None) -> float:
    """The paired ratios' shift for these tasks: from the baseline's times
    (``paired.run_shift``), or from every engine's when there is no baseline."""
    rated = tasks[tasks["attempted"] & (tasks["engine"] != VIRTUAL_BEST)]
    if baseline is not None and (rated["engine"] == baseline).any():
        rated = rated[rated["engine"] == baseline]
    return paired.run_shift(rated["par2_s"])


def shift_text(shift_s: float, given: bool) -> str:
    """The shift as the headline shows it: its value and where it came from."""
    return (f"shift {duration(shift_s)}, "
            + ("set by --shift-ms" if given else "a tenth of the baseline's median time"))


def family(puzzle_id: str) -> str:
    """The family a puzzle belongs to: its name (the id before a ``:line``) up to the
    first ``-``, so ``gen-9x9-hard:3`` is of family ``gen``."""
    return str(puzzle_id).split(":", 1)[0].split("-", 1)[0]


def choose_baseline(tasks: pd.DataFrame, wanted: str | None = None) -> str | None:
    """The requested engine, else the best by PAR2 among the engines that ask to be
    the baseline (``engines.baseline_preferred``), else the best of all."""
    if wanted:
        return wanted if wanted in set(tasks["engine"]) else None
    rated = tasks[tasks["attempted"]].groupby("engine")["par2_s"].mean()
    rated = rated.drop(VIRTUAL_BEST, errors="ignore")
    if rated.empty:
        return None
    preferred = rated[[engines.baseline_preferred(e) for e in rated.index]]
    return (preferred if not preferred.empty else rated).idxmin()


def with_virtual_best(tasks: pd.DataFrame) -> pd.DataFrame:
    """The tasks plus, per puzzle run, the fastest engine's task as ``virtual best``."""
    if tasks["engine"].nunique() < 2:
        return tasks
    tried = tasks[tasks["attempted"]]
    if tried.empty:
        return tasks
    best = tried.loc[tried.groupby(PAIR_KEYS, sort=False)["par2_s"].idxmin()]
    best = best.assign(engine=VIRTUAL_BEST,
                       **{name: math.nan for name in engines.SEARCH_STATS if name in best})
    return pd.concat([tasks, best], ignore_index=True)


def engine_table(tasks: pd.DataFrame, baseline: str | None, by: list[str] | None = None,
                 shift_s: float | None = None,
                 virtual_best: bool = True) -> pd.DataFrame:
    """The summary table, one row per engine (and per ``by`` group); ``shift_s``
    None: the run's own (``run_shift``).

    With several formulations every row (engine x formulation) is compared with
    one reference, the baseline engine in its ``reference_formulation``, so the
    ratios read across formulations: a formulation that is faster for an engine
    shows a smaller ratio, not one taken against another baseline."""
    by = list(by or [])
    if shift_s is None:
        shift_s = run_shift(tasks, baseline)
    reference = None
    if tasks["formulation"].nunique() > 1:
        by.append("formulation")
        reference = reference_formulation(tasks, baseline)
    if virtual_best:
        tasks = with_virtual_best(tasks)
    odd = _count_disagreements(tasks)
    tasks = _with_baseline(tasks, baseline, reference)
    rows = []
    for key, group in tasks.groupby(by + ["engine"], sort=False):
        row = dict(zip(by + ["engine"], key if isinstance(key, tuple) else (key,)))
        row.update(_stats(group))
        pairs = group[group["attempted"] & group["base_par2_s"].notna()]
        row.update(paired.compare(pairs["par2_s"].to_numpy(), pairs["base_par2_s"].to_numpy(),
                                  shift_s))
        both = group[group["solved"] & group["base_solved"].eq(True)]
        base_mean = both["base_s"].mean()
        row["ratio_of_means"] = both["total_s"].mean() / base_mean if base_mean > 0 else math.nan
        if odd is not None:
            row["agree"] = _agreement(group, odd)
        rows.append(row)
    table = pd.DataFrame(rows)
    unmeasured = [c for c in ("cpu_s", "peak_rss_mb", *list(WORK_COLUMNS)[1:])
                  if c in table and table[c].isna().all()]      # nodes stay: always shown
    return table.drop(columns=unmeasured)


def reference_formulation(tasks: pd.DataFrame, baseline: str | None = None) -> str | None:
    """The formulation every ratio refers to when several ran: the first the baseline
    engine ran (the first listed in ``--formulations``, as tasks are made in that order)."""
    mine = tasks.loc[tasks["engine"] == baseline, "formulation"] if baseline else tasks[
        "formulation"]
    forms = (mine if len(mine) else tasks["formulation"]).unique()   # in order of appearance
    return forms[0] if len(forms) else None


def baseline_label(tasks: pd.DataFrame, baseline: str | None) -> str:
    """The baseline as headlines name it: ``engine [formulation]`` when several ran."""
    if baseline is None:
        return "none"
    if tasks["formulation"].nunique() > 1:
        return f"{baseline} [{reference_formulation(tasks, baseline)}]"
    return baseline


def _with_baseline(tasks: pd.DataFrame, baseline: str | None,
                   reference: str | None = None) -> pd.DataFrame:
    """Each task gains the baseline's figures on the same puzzle run, if it attempted it
    (with ``reference``: the baseline's run of the puzzle in that formulation)."""
    keys = PAIR_KEYS if reference is None else [k for k in PAIR_KEYS if k != "formulation"]
    base = tasks.loc[(tasks["engine"] == baseline) & tasks["attempted"]
                     & (reference is None or tasks["formulation"].eq(reference)),
                     keys + ["par2_s", "total_s", "solved"]]
    base = base.rename(columns={"par2_s": "base_par2_s", "total_s": "base_s",
                                "solved": "base_solved"})
    return tasks.merge(base, on=keys, how="left")


def _stats(group: pd.DataFrame) -> dict:
    status = group["status"]
    solved = group.loc[group["solved"], "total_s"]
    rated = group[group["attempted"]]
    row = {
        "tasks": len(group), "solved": int(group["solved"].sum()),
        **{column: int((status == word).sum()) for column, word in STATUS_COLUMNS.items()},
        "wrong": int(group["wrong"].sum()),
        "n/a": int((~group["attempted"]).sum()),
        "mean_s": solved.mean(), "median_s": solved.median(),
        "p90_s": solved.quantile(0.9) if len(solved) else math.nan,
        "max_s": solved.max(),
        "par2_s": rated["par2_s"].mean() if len(rated) else math.nan,
        "total_s": group["total_s"].sum(),
        **{column: _measured(group, name).median() for column, name in WORK_COLUMNS.items()},
        "cpu_s": _measured(group, "cpu_s").median(),
        "peak_rss_mb": _measured(group, "peak_rss_mb").max(),
    }
    if "iqr_s" in group:
        spread = group.loc[group["solved"] & (group["total_s"] > 0)]
        row["rep_iqr"] = (spread["iqr_s"] / spread["total_s"]).median()
    return row


def _measured(group: pd.DataFrame, column: str) -> pd.Series:
    """A worker measurement over the solved tasks; empty where workers did not record it."""
    if column not in group:
        return pd.Series(dtype=float)
    return pd.to_numeric(group.loc[group["solved"], column], errors="coerce").dropna()


# ----- count mode and formulations ------------------------------------------------
def count_table(tasks: pd.DataFrame) -> pd.DataFrame:
    """Count mode: each puzzle's count per engine ('N+' where the limit stopped it)."""
    done = tasks[tasks["solved"] & tasks["count"].notna()]
    shown = done.assign(shown=[f"{int(c)}+" if c >= limit else str(int(c))
                               for c, limit in zip(done["count"], done["limit"])])
    table = shown.pivot_table(index="puzzle_id", columns="engine", values="shown",
                              aggfunc="first", sort=False)
    table = table.reindex(index=list(dict.fromkeys(tasks["puzzle_id"])),
                          columns=list(dict.fromkeys(tasks["engine"])))
    agree = done.groupby("puzzle_id")["count"].nunique()
    table["agree"] = ["-" if pid not in agree.index else ("yes" if agree[pid] == 1 else "NO")
                      for pid in table.index]
    return table.fillna("-").reset_index()


def _count_disagreements(tasks: pd.DataFrame) -> set | None:
    """Puzzle runs whose finished counts differ between engines (None: no count mode)."""
    if not tasks["mode"].eq("count").any():
        return None
    done = tasks[tasks["solved"] & tasks["count"].notna() & (tasks["engine"] != VIRTUAL_BEST)]
    spread = done.groupby(PAIR_KEYS)["count"].nunique()
    return set(spread[spread > 1].index)


def _agreement(group: pd.DataFrame, odd: set) -> str:
    """'yes', or how many of the engine's counts another engine contradicts."""
    done = group[group["solved"] & group["count"].notna()]
    bad = sum(key in odd for key in zip(*(done[k] for k in PAIR_KEYS)))
    return "yes" if not bad else f"no ({bad})"


def formulation_table(tasks: pd.DataFrame, shift_s: float | None = None) -> pd.DataFrame:
    """Engine x formulation: the shifted geometric mean time over the puzzles the
    engine ran in every formulation, its ratio to the first formulation, the winner."""
    forms = list(dict.fromkeys(tasks["formulation"]))
    if shift_s is None:
        shift_s = run_shift(tasks, None)
    rows = []
    for engine, group in tasks[tasks["attempted"]].groupby("engine", sort=False):
        wide = group.pivot_table(index=["puzzle_id", "mode"], columns="formulation",
                                 values="par2_s", aggfunc="first")
        present = [f for f in forms if f in wide.columns]
        wide = wide[present].dropna()
        if wide.empty:
            continue
        times = {f: paired.shifted_geomean(wide[f], shift_s) for f in present}
        winner = min(times, key=times.get)
        for form in present:
            rows.append({"engine": engine, "formulation": form, "puzzles": len(wide),
                         "time_s": times[form], "ratio": paired.compare(
                             wide[form].to_numpy(), wide[present[0]].to_numpy(),
                             shift_s)["ratio"], "winner": form == winner})
    return pd.DataFrame(rows)


def formulation_grid(table: pd.DataFrame) -> pd.DataFrame:
    """The formulation table as engine rows and formulation columns, winner starred."""
    cells = {}
    for row in table.itertuples(index=False):
        mark = " *" if row.winner else ""
        cells.setdefault(row.engine, {"engine": _cut(row.engine), "puzzles": row.puzzles})[
            row.formulation] = f"{duration(row.time_s)} (x{sig3(row.ratio)}){mark}"
    return pd.DataFrame(list(cells.values())).fillna("-")


# ----- presentation ------------------------------------------------------------
def natural_key(ids: pd.Series) -> pd.Series:
    """A sort key for puzzle ids in natural order: ``f:2`` before ``f:10``.

    ``frame.sort_values("puzzle_id", key=natural_key)``; each id is split into
    text and numbers (``f:10`` -> ``("f:", 10, "")``) and ranked.
    """
    def parts(text: str) -> tuple:
        return tuple(int(p) if i % 2 else p for i, p in enumerate(re.split(r"(\d+)", text)))
    ranked = {pid: i for i, pid in enumerate(sorted(set(map(str, ids)), key=parts))}
    return ids.map(lambda pid: ranked[str(pid)])


def in_puzzle_order(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted by puzzle id in natural order, otherwise as they were."""
    if frame.empty:
        return frame
    return frame.sort_values("puzzle_id", key=natural_key, kind="stable").reset_index(drop=True)
def in_order(table: pd.DataFrame, order: dict[str, list]) -> pd.DataFrame:
    """Rows in the order engines and sources were given, not the order tasks finished."""
    keys = [c for c in ("source", "formulation", "engine") if c in table.columns]

    def rank(column: pd.Series) -> pd.Series:
        given = {v: i for i, v in enumerate(dict.fromkeys(order.get(column.name, [])))}
        return column.map(lambda v: given.get(v, len(given)))

    return table.sort_values(keys, key=rank, kind="stable").reset_index(drop=True)


def throughput_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Puzzles per second by the engines' own clocks, per engine and source
    (and formulation, when several ran).

    Over every stored run with a verified answer, repeats included: the runs
    that have the time divided by the sum of ``solve_s`` (the search, as the
    engine timed it), and by the sum of ``total_s`` (model build too).
    Neither holds the harness's round trip, which swamps solves of
    microseconds: the run's wall-clock rate (``wall_rate``) is the figure to
    read beside them.
    """
    keys = ["engine", "formulation", "source"] if frame["formulation"].nunique() > 1 \
        else ["engine", "source"]
    done = frame[frame["verified"].eq(True)]
    if done.empty:
        return pd.DataFrame(columns=keys + ["solved", "by solve_s", "by total_s"])
    table = done.groupby(keys, sort=False).agg(
        solved=("engine", "size"), solve_n=("solve_s", "count"), solve_s=("solve_s", "sum"),
        total_n=("total_s", "count"), total_s=("total_s", "sum")).reset_index()
    table["by solve_s"] = [rate(n, t) for n, t in zip(table["solve_n"], table["solve_s"])]
    table["by total_s"] = [rate(n, t) for n, t in zip(table["total_n"], table["total_s"])]
    return table.drop(columns=["solve_n", "solve_s", "total_n", "total_s"])


def wall_rate(run: dict) -> str | None:
    """Results per second of wall clock over a run, from its first result to its
    last (workers warm, every answer checked as it came; results of any
    status, not only solved ones); None when unknown."""
    tasks, span = run.get("tasks", 0), run.get("last_s", 0.0) - run.get("first_s", 0.0)
    if tasks < 2 or span <= 0:
        return None
    return rate(tasks - 1, span)


def rate(count, seconds) -> str:
    """Per second, whole numbers with thousands separators from 100 up: 72,412/s."""
    if not seconds or pd.isna(seconds) or seconds <= 0:
        return "-"
    per_s = count / seconds
    return f"{per_s:,.0f}/s" if per_s >= 100 else f"{sig3(per_s)}/s"


def duration(seconds) -> str:
    """Adaptive units, 3 significant digits: 45.2 µs, 3.07 ms, 1.25 s; '-' for none."""
    if seconds is None or pd.isna(seconds):
        return "-"
    if seconds == 0:
        return "0"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale or unit == "µs":
            return f"{sig3(seconds / scale)} {unit}"
    raise AssertionError("unreachable")


def sig3(value) -> str:
    """3 significant digits without exponents (1234 stays 1234)."""
    if value is None or pd.isna(value):
        return "-"
    if abs(value) >= 1000:
        return f"{value:.0f}"
    text = f"{value:#.3g}"
    return f"{float(text):.0f}" if "e" in text else text.rstrip(".")


HEADERS = {"mean_s": "mean", "median_s": "median", "p90_s": "p90", "max_s": "max",
           "par2_s": "PAR2", "total_s": "total", **WORK_COLUMNS, "rep_iqr": "rep IQR",
           "median_ratio": "median ratio", "ratio_of_means": "ratio of means",
           "time_s": "time", "cpu_s": "median CPU", "peak_rss_mb": "peak RSS",
           "shift_s": "shift"}


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """Times in adaptive units, ratios to 3 digits, CI and W/T/L in one cell each."""
    out = {}
    for column in table.columns:
        values = table[column]
        if column == "ci_high" or column in ("ties", "losses") and "wins" in table:
            continue
        if column == "ci_low":
            out["95% CI"] = [f"[{sig3(lo)}, {sig3(hi)}]" if not pd.isna(lo) else "-"
                             for lo, hi in zip(values, table["ci_high"])]
        elif column == "wins":
            out["W/T/L"] = [f"{w}/{t}/{lost}" for w, t, lost in
                            zip(values, table["ties"], table["losses"])]
        elif column.endswith("_s"):
            out[HEADERS.get(column, column)] = [duration(v) for v in values]
        elif column in WORK_COLUMNS:
            out[HEADERS[column]] = ["-" if pd.isna(v) else f"{v:.0f}" for v in values]
        elif column == "peak_rss_mb":
            out[HEADERS[column]] = ["-" if pd.isna(v) else f"{v:.0f} MB" for v in values]
        elif column == "rep_iqr":
            out[HEADERS[column]] = ["-" if pd.isna(v) else f"{v:.1%}" for v in values]
        elif "ratio" in column:
            out[HEADERS.get(column, column)] = [sig3(v) for v in values]
        else:
            out[HEADERS.get(column, column)] = ["-" if v is None or v is pd.NA else v
                                                for v in values]
    return pd.DataFrame(out)


def compact(table: pd.DataFrame) -> pd.DataFrame:
    """The console's per-engine table: what decides, in at most 100 columns."""
    label = table["engine"].map(_cut)
    if "formulation" in table:
        label = label + " [" + table["formulation"] + "]"
    short = pd.DataFrame({"engine": label,
                          "solved": [f"{s}/{t - na}" for s, t, na in
                                     zip(table["solved"], table["tasks"], table["n/a"])],
                          "median_s": table["median_s"], "par2_s": table["par2_s"]})
    for column in ("ratio", "ci_low", "ci_high", "wins", "ties", "losses"):
        short[column] = table[column]
    if "agree" in table:
        short["counts agree"] = table["agree"]
    return short


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_WIDTH else label[:LABEL_WIDTH - 3] + "..."


def to_markdown(table: pd.DataFrame, raw: bool = False) -> str:
    """A GitHub table (tabulate), every cell as shown: numbers are formatted already;
    names on one line with their ``|`` escaped, so none can end a row or add a cell."""
    shown = table if raw else formatted(table)
    cells = [[table_cell(v) for v in row] for row in shown.itertuples(index=False)]
    return tabulate(cells, headers=[table_cell(c) for c in shown.columns], tablefmt="github",
                    disable_numparse=True)


def to_text(table: pd.DataFrame, raw: bool = False) -> str:
    return (table if raw else formatted(table)).to_string(index=False)
