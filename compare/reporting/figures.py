"""The plots of report.html as Plotly figures: the PNGs' plots, made to be explored.

The same three plots as ``plots.py`` (cactus, per-engine scatter against
the baseline, performance profile), with the same colour per engine and
line style per formulation (``plots.series_styles``), as plain Plotly JSON
specs that the page draws with the embedded plotly.js. The scatter names its
puzzle on hover and adds the x10 lines beside the diagonal.

A browser cannot draw a hundred thousand points per panel and stay usable,
so what it cannot show point by point is aggregated, and the page says so:
curves keep at most ``CURVE_POINTS`` points each (evenly spaced along the
curve, the last one always kept), and a scatter panel with more than
``SCATTER_POINTS`` puzzles shows its agreeing bulk as occupied log-spaced
cells (one marker per cell, sized by how many puzzles fall in it) and only
the outliers (unsolved, or more than x10 off the diagonal, the most extreme
first) one by one.

Every name a figure holds (trace names, titles, axis titles, hover text) goes
through ``prose.plot_text``: plotly renders tags in text, and a name is data.
A trace's name reaches its hover box as ``%{fullData.name}``, never pasted
into a hover template, where ``%{`` in a name would be read as a field.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from compare.reporting import plots, summary
from compare.reporting.prose import plot_text
from compare.reporting.summary import duration

CURVE_POINTS = 600
SCATTER_POINTS = 3000
OUTLIERS = 1000            # outliers drawn one by one in an aggregated panel
CELLS = 60                 # log-spaced cells per axis in an aggregated panel
DASH = {"-": "solid", "--": "dash", ":": "dot", "-.": "dashdot"}
FONT = {"size": 12}
NAMED = "<extra>%{fullData.name}</extra>"     # the trace's name in its hover box
TOOLBAR = 34               # px at a figure's top kept for plotly's toolbar (the modebar)
# The columns the plots read: a filter over the others' 100,000 rows costs seconds.
USED = ["puzzle_id", "source", "size", "formulation", "engine", "mode", "status", "solved",
        "attempted", "total_s", "timeout"]


def _style(style: dict) -> dict:
    return {"color": plots.hex_colour(style["color"]),
            "dash": DASH.get(style["linestyle"], "solid"), "width": 1.8}


def _sig(values) -> list:
    """Four significant digits: plenty for a plot, and a quarter of the page's bytes."""
    return [float(f"{v:.4g}") if math.isfinite(v) else None for v in np.asarray(values, float)]


def _thin(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most CURVE_POINTS points of a monotone step curve, its ends kept."""
    if len(xs) <= CURVE_POINTS:
        return xs, ys
    keep = np.unique(np.linspace(0, len(xs) - 1, CURVE_POINTS).round().astype(int))
    return xs[keep], ys[keep]


def heading(text: str) -> dict:
    """A figure's title under the toolbar's row, not beside it: plotly draws its toolbar
    at the top right of the figure, over whatever title reaches there."""
    return {"text": text, "font": {"size": 14}, "x": 0, "xref": "paper", "xanchor": "left",
            "y": 1, "yref": "container", "yanchor": "top", "pad": {"t": TOOLBAR}}


def margin(**sides) -> dict:
    """The plot area's margins, its top below the toolbar and the title."""
    return {"l": 56, "r": 12, "t": TOOLBAR + 30, "b": 48, **sides}


def _layout(title: str, xtitle: str, ytitle: str, xlog: bool = True,
            ylog: bool = False, height: int = 420) -> dict:
    return {"title": heading(title), "height": height,
            "font": FONT, "margin": margin(),
            "xaxis": {"title": {"text": xtitle}, "type": "log" if xlog else "linear",
                      "exponentformat": "none"},
            "yaxis": {"title": {"text": ytitle}, "type": "log" if ylog else "linear",
                      "exponentformat": "none"},
            "legend": {"orientation": "h", "y": -0.22, "x": 0, "font": {"size": 11}},
            "hovermode": "closest"}


def cactus(tasks: pd.DataFrame, engines: list[str] | None = None, *,
           limit: float) -> dict | None:
    """Instances solved within a time, one step curve per engine and formulation;
    ``limit``: the run's time limit (s), as its settings give it."""
    if not tasks["solved"].any():
        return None
    tasks = tasks[USED]
    data, total, thinned = [], 0, False
    for (engine, form), style in plots.series_styles(tasks, engines).items():
        mine = tasks[(tasks["engine"] == engine) & (tasks["formulation"] == form)]
        total = max(total, int(mine["attempted"].sum()))
        times = np.sort(mine.loc[mine["solved"], "total_s"].clip(lower=plots.FLOOR_S)
                        .to_numpy(float))
        xs, ys = _thin(times, np.arange(1, len(times) + 1))
        thinned |= len(xs) < len(times)
        data.append({"type": "scatter", "mode": "lines", "name": plot_text(style["label"]),
                     "x": _sig(xs), "y": ys.tolist(), "line": {**_style(style), "shape": "hv"},
                     "hovertemplate": "%{y} solved within %{x:.3g} s" + NAMED})
    data.append(_guide([limit, limit], [0, total * 1.05 + 0.5], f"time limit {limit:g} s",
                       "black", "dash"))
    data.append(_guide([plots.FLOOR_S, limit * 1.5], [total, total], f"{total} instances",
                       "grey", "dot"))
    layout = _layout("Cactus plot: instances solved within a time", "time per instance (s, log)",
                     "instances solved")
    layout["yaxis"]["range"] = [0, total * 1.05 + 0.5]
    return {"data": data, "layout": layout, "thinned": thinned}


def _guide(xs, ys, name: str, colour: str, dash: str, legend: bool = True) -> dict:
    return {"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": ys,
            "line": {"color": colour, "dash": dash, "width": 1}, "hoverinfo": "skip",
            "showlegend": legend}


def profile(tasks: pd.DataFrame, shift_s: float, engines: list[str] | None = None) -> dict | None:
    """The Dolan-More profile: the share of puzzles within a factor tau of the fastest."""
    tasks = tasks[USED]
    ratios = plots.profile_ratios(tasks, shift_s, engines)
    if len(ratios) < 2 or not len(next(iter(ratios.values()))):
        return None
    styles = {s["label"]: s for s in plots.series_styles(tasks, engines).values()}
    finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()])
    top = max(2.0, float(finite.max()) * 1.3)
    data, thinned = [], False
    for label, r in ratios.items():
        xs = np.sort(r[np.isfinite(r)])
        ys = np.arange(1, len(xs) + 1) / len(r)
        px, py = _thin(xs, ys)
        thinned |= len(px) < len(xs)
        last = float(ys[-1]) if len(ys) else 0.0
        data.append({"type": "scatter", "mode": "lines", "name": plot_text(label),
                     "x": _sig(np.r_[1.0, px, top]), "y": _sig(np.r_[0.0, py, last]),
                     "line": {**_style(styles[label]), "shape": "hv"},
                     "hovertemplate": "%{y:.1%} of puzzles within x%{x:.3g} of the fastest"
                                      + NAMED})
    layout = _layout("Performance profile (Dolan-More)",
                     "tau: within this factor of the fastest engine on the puzzle (log)",
                     "fraction of puzzles")
    layout["xaxis"]["range"] = [0, math.log10(top)]
    layout["yaxis"]["range"] = [0, 1.02]
    return {"data": data, "layout": layout, "thinned": thinned}


def scatters(tasks: pd.DataFrame, baseline: str | None, engines: list[str] | None = None,
             *, limit: float) -> dict[str, dict]:
    """One panel per engine (and formulation) with puzzles in common with the baseline
    in its reference formulation, as the PNG: each puzzle's time against the
    baseline's (log-log), coloured by source (or size), unsolved ones as crosses at
    ``limit``, the run's time limit (s) as its settings give it."""
    if baseline is None:
        return {}
    tasks = tasks[USED]
    timed, _, paired = plots.baseline_pairs(tasks, baseline, limit, engines)
    if not paired:
        return {}
    by = plots.categories(timed)
    colour = {} if by is None else {v: plots.hex_colour(plots.COLOURS[i % len(plots.COLOURS)])
                                    for i, v in enumerate(by[1])}
    shown = summary.baseline_label(tasks, baseline)
    return {f"scatter-{k}": _scatter_panel(pair, style["label"], shown, limit, by, colour)
            for k, style, pair in paired}


def _scatter_panel(pair: pd.DataFrame, engine: str, baseline: str, limit: float, by,
                   colour: dict) -> dict:
    low, high = plots.fitted_range(pair, limit)
    both = (pair["solved"] & pair["solved_b"]).to_numpy()
    far = (np.abs(np.log10(pair["t"].to_numpy() / pair["t_b"].to_numpy())) > 1)
    aggregated = len(pair) > SCATTER_POINTS
    shown_engine, shown_base = plot_text(engine), plot_text(baseline)
    data = [_guide([low, high], [low, high], "same time", "grey", "dash"),
            _guide([low, high / 10], [low * 10, high], "x10 slower / faster", "grey", "dot"),
            _guide([low * 10, high], [low, high / 10], "", "grey", "dot", legend=False)]
    if limit <= high:                      # the limit, where some task reached it
        data += [_guide([limit, limit], [low, high], f"time limit {limit:g} s", "#d62728",
                        "solid"),
                 _guide([low, high], [limit, limit], "", "#d62728", "solid", legend=False)]
    if aggregated:
        data.append(_cells(pair[both & ~far]))
        shown = pair[~both | far]
        if len(shown) > OUTLIERS:      # the most extreme first: unsolved, then furthest off
            spread = np.abs(np.log(shown["t"] / shown["t_b"])) + np.where(
                shown["solved"] & shown["solved_b"], 0, 100)
            shown = shown.loc[spread.sort_values(ascending=False).index[:OUTLIERS]]
    else:
        shown = pair
    ok = (shown["solved"] & shown["solved_b"]).to_numpy()
    groups = [(None, shown)] if by is None else shown.groupby(by[0], sort=False)
    for value, part in groups:
        c = colour.get(value, plots.hex_colour(plots.COLOURS[0]))
        mask = ok[shown.index.get_indexer(part.index)]
        name = "puzzles" if value is None else plot_text(value)
        for solved_both, marker in ((True, "circle"), (False, "x")):
            rows = part[mask if solved_both else ~mask]
            if rows.empty:
                continue
            data.append({"type": "scatter", "mode": "markers",
                         "name": name if solved_both else f"{name}: unsolved",
                         "legendgroup": name, "x": _sig(rows["t_b"]), "y": _sig(rows["t"]),
                         "text": _hover(rows, shown_engine, shown_base),
                         "hovertemplate": "%{text}<extra></extra>",
                         "marker": {"color": c, "symbol": marker,
                                    "size": 6 if solved_both else 8,
                                    "opacity": 0.7 if solved_both else 0.9}})
    layout = _layout(f"{shown_engine} vs {shown_base}", f"{shown_base} (s, log)",
                     f"{shown_engine} (s, log)", ylog=True, height=400)
    layout["showlegend"] = False         # one legend for every panel, on the page
    for axis in ("xaxis", "yaxis"):
        layout[axis]["range"] = [math.log10(low), math.log10(high)]
    return {"data": data, "layout": layout, "engine": engine, "points": len(pair),
            "aggregated": aggregated, "colours": colour, "by": by[0] if by else None}


def _hover(rows: pd.DataFrame, engine: str, baseline: str) -> list[str]:
    def status(solved, word, seconds):
        return duration(seconds) if solved else f"{word} (shown at the limit)"
    names = [plot_text(f"{pid} ({source})") for pid, source in zip(rows["puzzle_id"],
                                                                   rows["source"])]
    return [f"<b>{name}</b><br>{engine}: {status(s, w, t)}<br>{baseline}: {status(sb, wb, tb)}"
            for name, s, w, t, sb, wb, tb in zip(
                names, rows["solved"], rows["status"], rows["t"], rows["solved_b"],
                rows["status_b"], rows["t_b"])]


def _cells(pair: pd.DataFrame) -> dict:
    """The agreeing bulk of a large panel: one marker per occupied log-spaced cell."""
    x, y = np.log10(pair["t_b"].to_numpy(float)), np.log10(pair["t"].to_numpy(float))
    edges = np.linspace(min(x.min(), y.min()), max(x.max(), y.max()) + 1e-9, CELLS + 1)
    ix, iy = np.digitize(x, edges) - 1, np.digitize(y, edges) - 1
    cell = pd.DataFrame({"cell": ix * CELLS + iy, "x": x, "y": y,
                         "name": pair["puzzle_id"].to_numpy()})
    grouped = cell.groupby("cell", sort=False).agg(x=("x", "mean"), y=("y", "mean"),
                                                   n=("x", "size"), name=("name", "first"))
    n = grouped["n"].to_numpy()
    return {"type": "scatter", "mode": "markers", "name": "puzzles, aggregated per cell",
            "x": _sig(10 ** grouped["x"]), "y": _sig(10 ** grouped["y"]),
            "text": [f"{k} puzzles here, e.g. <b>{plot_text(name)}</b>" for k, name in
                     zip(n, grouped["name"])],
            "hovertemplate": "%{text}<extra></extra>",
            "marker": {"color": "#1f77b4", "opacity": 0.55,
                       "size": (4 + 3 * np.log2(n)).round(1).tolist()}}
