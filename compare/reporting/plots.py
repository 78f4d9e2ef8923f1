"""PNG plots beside summary.md (matplotlib's Agg canvas: no display, no pyplot).

* ``cactus.png``: for each engine, how many instances it solved within a
  given time (log time axis); further right and lower is slower.
* ``scatter.png``: per puzzle, each engine's time against the baseline's
  (log-log); unsolved tasks sit on the top/right edge at the time limit.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

FLOOR_S = 1e-5     # log axes cannot show zero


def _figure(**kwargs):
    """A bare Agg figure: no pyplot, so no backend selection and a faster import."""
    from matplotlib.figure import Figure
    return Figure(**kwargs)


def _log_axis(axis) -> None:
    """Log scale with plain labels (0.001, 0.01, ...): mathtext labels cost seconds."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator
    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())      # minor ticks: many artists, little use


def _series_label(tasks: pd.DataFrame):
    if tasks["formulation"].nunique() > 1:
        return tasks["engine"] + " [" + tasks["formulation"] + "]"
    return tasks["engine"]


def cactus(tasks: pd.DataFrame, path: Path) -> Path | None:
    solved = tasks[tasks["solved"]].assign(series=_series_label(tasks))
    if solved.empty:
        return None
    fig = _figure(figsize=(7, 4.5))
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.12, top=0.92)
    ax = fig.subplots()
    for series in dict.fromkeys(_series_label(tasks)):
        times = solved.loc[solved["series"] == series, "total_s"].clip(lower=FLOOR_S)
        times = times.sort_values().to_list()
        ax.step(times, range(1, len(times) + 1), where="post", label=series)
    ax.set_xscale("log")
    _log_axis(ax.xaxis)
    ax.set_xlabel("time per instance (s, log)")
    ax.set_ylabel("instances solved")
    ax.set_title("Cactus plot: instances solved within a time")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=110)
    return path


def scatter(tasks: pd.DataFrame, baseline: str | None, path: Path) -> Path | None:
    if baseline is None:
        return None
    limit = tasks["timeout"].max()
    timed = tasks.assign(t=tasks["total_s"].clip(lower=FLOOR_S).where(tasks["solved"], limit))
    timed = timed[timed["status"] != "unsupported"]
    base = timed[timed["engine"] == baseline]
    others = [e for e in dict.fromkeys(timed["engine"]) if e != baseline]
    if base.empty or not others:
        return None
    cols = min(3, len(others))
    rows = -(-len(others) // cols)
    fig = _figure(figsize=(4.4 * cols, 4.2 * rows))
    # fixed margins: a layout engine would cost seconds per figure
    fig.subplots_adjust(left=0.21 / cols, right=1 - 0.03 / cols, bottom=0.12 / rows,
                        top=1 - 0.14 / rows, wspace=0.35, hspace=0.4)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, engine in zip(axes.flat, others):
        pair = timed[timed["engine"] == engine].merge(
            base, on=["puzzle_id", "formulation", "mode"], suffixes=("", "_b"))
        low = max(FLOOR_S, min(pair["t"].min(), pair["t_b"].min()) / 2) if len(pair) else FLOOR_S
        ax.plot([low, limit], [low, limit], color="grey", lw=0.8, ls="--")
        both = pair["solved"] & pair["solved_b"]
        ax.scatter(pair.loc[both, "t_b"], pair.loc[both, "t"], s=10, alpha=0.6,
                   label="both solved")
        if (~both).any():
            ax.scatter(pair.loc[~both, "t_b"], pair.loc[~both, "t"], s=22, marker="x",
                       color="tab:red", label="unsolved (at the limit)")
            ax.legend(fontsize="x-small", loc="lower right")
        ax.axhline(limit, color="tab:red", lw=0.6, alpha=0.5)
        ax.axvline(limit, color="tab:red", lw=0.6, alpha=0.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis)
        ax.set_xlim(low, limit * 1.5)
        ax.set_ylim(low, limit * 1.5)
        ax.set_xlabel(f"{baseline} (s)")
        ax.set_ylabel(f"{engine} (s)")
        ax.set_title(f"{engine} vs {baseline}", fontsize="medium")
    for ax in list(axes.flat)[len(others):]:
        ax.axis("off")
    fig.suptitle(f"Per-puzzle time against {baseline} (unsolved at the {limit:g} s limit)",
                 fontsize="medium")     # fits one 4.4-inch panel
    fig.savefig(path, dpi=110)
    return path
