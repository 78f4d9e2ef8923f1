"""PNG plots beside summary.md (matplotlib's Agg canvas: no display, no pyplot).

* ``cactus.png``: for each engine, how many instances it solved within a
  given time (log time axis fitted to the times), with the instance total
  marked and the time limit drawn where some task did not finish; further
  right and lower is slower.
* ``scatter.png``: per puzzle, each engine's (and formulation's) time
  against the baseline's in its reference formulation (log-log), coloured by
  source (or by size when there is one source); the axes fit the points,
  unsolved tasks are crosses at the time limit, drawn as a line where some
  task reached it; an engine with no puzzle in common gets no panel.
* ``profile.png``: the Dolan-More performance profile: for each engine, the
  fraction of puzzles it solved within a factor tau of the fastest engine on
  that puzzle; higher and further left is better, and where a curve ends is
  the share it solved at all.

Every engine keeps one colour and every formulation one line style in all
plots (distinct up to 10 engines x 4 formulations), and legends sit outside
the axes so they never hide a curve. The colour follows from the engine's
label (``engine_colours``), not from its place in a list, so an engine looks
the same on every page and plot of every run, and in history.html.

A command-line run draws them in a child forked before the run (``Plotter``),
which imports matplotlib meanwhile; the pages' hex colours are a table here
(``HEX``), so that run's parent never imports matplotlib.
"""
from __future__ import annotations

import gc
import os
import pickle
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from compare.reporting.summary import VIRTUAL_BEST, reference_formulation
from compare.store.files import atomic_write

FLOOR_S = 1e-5     # log axes cannot show zero
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:olive", "tab:cyan", "tab:gray")
# The engines' colours: tab10 without its grey (the guide lines' colour), navy in its place.
ENGINE_COLOURS = (*(c for c in COLOURS if c != "tab:gray"), "navy")
# matplotlib's ``to_hex`` of each palette colour (a test holds them to it), unimported.
HEX = {"tab:blue": "#1f77b4", "tab:orange": "#ff7f0e", "tab:green": "#2ca02c",
       "tab:red": "#d62728", "tab:purple": "#9467bd", "tab:brown": "#8c564b",
       "tab:pink": "#e377c2", "tab:olive": "#bcbd22", "tab:cyan": "#17becf",
       "tab:gray": "#7f7f7f", "navy": "#000080"}
LINE_STYLES = ("-", "--", ":", "-.")
LEGEND_RIGHT = 0.68     # the axes end here; the legend takes the rest of the width


def hex_colour(colour: str) -> str:
    """``#rrggbb`` of a colour the plots use, as matplotlib's ``to_hex`` gives it."""
    found = HEX.get(colour)
    if found is not None:
        return found
    from matplotlib.colors import to_hex  # lazy: only for a colour outside the table
    return to_hex(colour)


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


def _legend_outside(ax) -> None:
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              fontsize="small", frameon=False)


def _finish(fig, ax, path: Path, xlabel: str, ylabel: str, title: str) -> Path:
    """Labels, grid and the legend outside the data, as every line plot here has them."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    _legend_outside(ax)
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    return path


def mpl_text(text) -> str:
    """A name as matplotlib text: ``$`` escaped, so no name is read as mathtext (which
    would draw it as a formula, or stop the plot on one it cannot parse)."""
    return str(text).replace("$", r"\$")


def _drawn(style: dict) -> dict:
    return {**style, "label": mpl_text(style["label"])}


def engine_colours(labels) -> dict[str, str]:
    """Each label's colour: the palette's entry its label's CRC-32 picks, so the same
    engine has the same colour wherever it is drawn; labels taken in sorted order, each
    moving on to the next free colour when its own is taken (distinct up to 10), so the
    same engines get the same colours in whatever order they come."""
    free, colours = list(ENGINE_COLOURS), {}
    for label in sorted(set(labels)):
        at = zlib.crc32(str(label).encode("utf-8")) % len(ENGINE_COLOURS)
        for step in range(len(ENGINE_COLOURS)):
            wanted = ENGINE_COLOURS[(at + step) % len(ENGINE_COLOURS)]
            if wanted in free or not free:
                break
        colours[label] = wanted
        if wanted in free:
            free.remove(wanted)
    return colours


def series_styles(tasks: pd.DataFrame, engines: list[str] | None = None) -> dict:
    """(engine, formulation) -> label, colour and line style, stable across plots."""
    ran = list(tasks["engine"].unique())       # unique(): iterating 100,000 rows costs seconds
    order = [e for e in dict.fromkeys([*(engines or []), *ran]) if e != VIRTUAL_BEST and e in ran]
    forms = list(tasks["formulation"].unique())
    colours = engine_colours(order)
    styles = {}
    for engine in order:
        for j, form in enumerate(forms):
            label = engine if len(forms) == 1 else f"{engine} [{form}]"
            styles[engine, form] = {"label": label, "color": colours[engine],
                                    "linestyle": LINE_STYLES[j % len(LINE_STYLES)]}
    return styles


def cactus(tasks: pd.DataFrame, path: Path, engines: list[str] | None = None, *,
           limit: float) -> Path | None:
    """``limit``: the run's time limit (s), as its settings give it."""
    solved = tasks[tasks["solved"]]
    if solved.empty:
        return None
    fig = _figure(figsize=(9, 4.5))
    fig.subplots_adjust(left=0.08, right=LEGEND_RIGHT, bottom=0.12, top=0.92)
    ax = fig.subplots()
    total = 0
    for (engine, form), style in series_styles(tasks, engines).items():
        mine = tasks[(tasks["engine"] == engine) & (tasks["formulation"] == form)]
        total = max(total, int(mine["attempted"].sum()))
        times = sorted(mine.loc[mine["solved"], "total_s"].clip(lower=FLOOR_S))
        ax.step(times, range(1, len(times) + 1), where="post", **_drawn(style))
    unsolved = bool((tasks["attempted"] & ~tasks["solved"]).any())
    if unsolved:                          # the limit is where the unsolved ones stopped
        ax.axvline(limit, color="black", lw=0.9, ls="--", label=f"time limit {limit:g} s")
    ax.axhline(total, color="grey", lw=0.9, ls=":", label=f"{total} instances")
    ax.set_xscale("log")
    _log_axis(ax.xaxis)
    slowest = float(solved["total_s"].clip(lower=FLOOR_S).max())
    fastest = float(solved["total_s"].clip(lower=FLOOR_S).min())
    ax.set_xlim(fastest / 2, limit * 1.5 if unsolved else max(slowest * 2, fastest * 10))
    ax.set_ylim(0, total * 1.05 + 0.5)
    return _finish(fig, ax, path, "time per instance (s, log)", "instances solved",
                   "Cactus plot: instances solved within a time")


def categories(tasks: pd.DataFrame) -> tuple[str, list] | None:
    """What the scatter colours by: source when there are several, else size."""
    for column in ("source", "size"):
        values = list(tasks[column].dropna().unique())
        if len(values) > 1:
            return column, values
    return None


def baseline_pairs(tasks: pd.DataFrame, baseline: str, limit: float,
                   engines: list[str] | None = None) -> tuple[pd.DataFrame, str, list]:
    """What a scatter plots, the PNG's and the page's alike: the attempted tasks with
    their time ``t`` (an unsolved one at the time limit ``limit``), the baseline's
    reference formulation, and per other engine (and formulation) with puzzles in
    common with the baseline there, ``(series number, style, pairs)``: its tasks
    beside the baseline's (columns ``..._b``)."""
    timed = tasks.assign(t=tasks["total_s"].clip(lower=FLOOR_S).where(tasks["solved"], limit))
    timed = timed[timed["attempted"]]
    reference = reference_formulation(tasks, baseline)
    base = timed[(timed["engine"] == baseline) & (timed["formulation"] == reference)]
    panels = []
    for k, ((engine, form), style) in enumerate(series_styles(timed, engines).items()):
        if (engine, form) == (baseline, reference):
            continue
        mine = timed[(timed["engine"] == engine) & (timed["formulation"] == form)]
        pair = mine.merge(base, on=["puzzle_id", "mode"], suffixes=("", "_b"))
        if len(pair):
            panels.append((k, style, pair))
    return timed, reference, panels


def scatter(tasks: pd.DataFrame, baseline: str | None, path: Path,
            engines: list[str] | None = None, *, limit: float) -> Path | None:
    """One panel per engine (and formulation) with puzzles in common with the baseline
    (in its reference formulation, as the headline): none is drawn empty. ``limit``:
    the run's time limit (s), as its settings give it."""
    if baseline is None:
        return None
    timed, reference, paired = baseline_pairs(tasks, baseline, limit, engines)
    panels = [(style["label"], pair) for _, style, pair in paired]
    if not panels:
        return None
    by = categories(timed)
    colour = {} if by is None else {v: COLOURS[i % len(COLOURS)] for i, v in enumerate(by[1])}
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    width = 4.2 * cols + 2.6
    fig = _figure(figsize=(width, 4.2 * rows))
    # fixed margins: a layout engine would cost seconds per figure
    fig.subplots_adjust(left=0.8 / width, right=1 - 2.6 / width, bottom=0.12 / rows,
                        top=1 - 0.14 / rows, wspace=0.35, hspace=0.4)
    axes = fig.subplots(rows, cols, squeeze=False)
    shown = baseline if tasks["formulation"].nunique() == 1 else f"{baseline} [{reference}]"
    for ax, (label, pair) in zip(axes.flat, panels):
        low, high = fitted_range(pair, limit)
        ax.plot([low, high], [low, high], color="grey", lw=0.8, ls="--")
        both = pair["solved"] & pair["solved_b"]
        groups = [(None, pair)] if by is None else pair.groupby(by[0], sort=False)
        for value, part in groups:
            c = colour.get(value, COLOURS[0])
            ok = both.loc[part.index]
            ax.scatter(part.loc[ok, "t_b"], part.loc[ok, "t"], s=10, alpha=0.6, color=c)
            ax.scatter(part.loc[~ok, "t_b"], part.loc[~ok, "t"], s=22, marker="x", color=c)
        if limit <= high:                 # the limit, where some task reached it
            ax.axhline(limit, color="tab:red", lw=0.6, alpha=0.5)
            ax.axvline(limit, color="tab:red", lw=0.6, alpha=0.5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis)
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_xlabel(mpl_text(f"{shown} (s)"))
        ax.set_ylabel(mpl_text(f"{label} (s)"))
        ax.set_title(mpl_text(f"{label} vs {shown}"), fontsize="medium")
    for ax in list(axes.flat)[len(panels):]:
        fig.delaxes(ax)                   # no empty panel
    _scatter_legend(fig, by, colour)
    fig.suptitle(mpl_text(f"Per-puzzle time against {shown} (log; unsolved at the {limit:g} s "
                          "limit)"),
                 fontsize="medium")
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    return path


def fitted_range(pair: pd.DataFrame, limit: float) -> tuple[float, float]:
    """Log axis bounds around the points: half the fastest time to 1.5 x the slowest,
    reaching the time limit only when an unsolved task sits there."""
    times = pd.concat([pair["t"], pair["t_b"]])
    low = max(FLOOR_S, float(times.min()) / 2)
    high = float(times.max()) * 1.5
    return low, max(high, low * 10)


def _scatter_legend(fig, by, colour: dict) -> None:
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], ls="", marker="o", color=c, label=mpl_text(v))
               for v, c in colour.items()]
    handles.append(Line2D([], [], ls="", marker="x", color="black",
                          label="unsolved (at the limit)"))
    fig.legend(handles=handles, loc="upper right", fontsize="small", frameon=False,
               title=by[0] if by else None)


def profile_ratios(tasks: pd.DataFrame, shift_s: float,
                   engines: list[str] | None = None) -> dict[str, np.ndarray]:
    """Per series, each puzzle's (t + shift) / (best t + shift); inf where unsolved.

    Puzzles no series solved are left out (no best to compare with). The
    shift is the headline's, so microseconds on trivial puzzles are not a
    factor of two here either.
    """
    styles = series_styles(tasks, engines)
    t = tasks.assign(t=tasks["total_s"].where(tasks["solved"], np.inf))
    wide = t[t["engine"] != VIRTUAL_BEST].pivot_table(
        index=["puzzle_id", "mode"], columns=["engine", "formulation"], values="t",
        aggfunc="first")
    wide = wide.reindex(columns=pd.MultiIndex.from_tuples(
        [s for s in styles if s in wide.columns])).fillna(np.inf)
    best = wide.min(axis=1)
    wide = wide[np.isfinite(best)]
    ratios = (wide.to_numpy() + shift_s) / (best[np.isfinite(best)].to_numpy()[:, None] + shift_s)
    return {styles[s]["label"]: ratios[:, i] for i, s in enumerate(wide.columns)}


def profile(tasks: pd.DataFrame, path: Path, shift_s: float,
            engines: list[str] | None = None) -> Path | None:
    ratios = profile_ratios(tasks, shift_s, engines)
    if len(ratios) < 2 or not len(next(iter(ratios.values()))):
        return None
    styles = {s["label"]: s for s in series_styles(tasks, engines).values()}
    finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()])
    top = max(2.0, float(finite.max()) * 1.3)
    fig = _figure(figsize=(9, 4.5))
    fig.subplots_adjust(left=0.08, right=LEGEND_RIGHT, bottom=0.12, top=0.92)
    ax = fig.subplots()
    for label, r in ratios.items():
        xs = np.sort(r[np.isfinite(r)])
        ys = np.arange(1, len(xs) + 1) / len(r)
        ax.step(np.r_[1.0, xs, top], np.r_[0.0, ys, ys[-1] if len(ys) else 0.0],
                where="post", **_drawn(styles[label]))
    ax.set_xscale("log")
    _log_axis(ax.xaxis)
    ax.set_xlim(1.0, top)
    ax.set_ylim(0, 1.02)
    return _finish(fig, ax, path,
                   "tau: within this factor of the fastest engine on the puzzle (log)",
                   "fraction of puzzles", "Performance profile (Dolan-More)")


# ----- drawn apart ---------------------------------------------------------------------
def draw_all(tasks: pd.DataFrame, baseline: str | None, files: tuple[Path, Path, Path],
             engines: list[str], limit: float, shift_s: float) -> list[Path]:
    """The report's PNGs (``files``: cactus, scatter, profile), those made, in that order."""
    cactus_png, scatter_png, profile_png = files
    made = (cactus(tasks, cactus_png, engines, limit=limit),
            scatter(tasks, baseline, scatter_png, engines, limit=limit),
            profile(tasks, profile_png, shift_s, engines))
    return [p for p in made if p]


class Plotter:
    """``draw_all`` in a child forked now, before the run: it imports matplotlib while
    the run goes on, ``ask`` hands it the tasks, and it draws while this process writes
    the rest of the report; ``drawn`` waits for the PNGs. Forked only where ``os.fork``
    is and this process has one thread (a lock another thread held would stay locked
    in the child); else, or when the child is gone without an answer, ``drawn`` draws
    here. What the child raised is raised here. ``close`` ends an unasked child."""

    def __init__(self):
        self.pid, self.job, self.out, self.args = None, None, None, None
        if not hasattr(os, "fork") or threading.active_count() > 1:
            return
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):     # nothing buffered is written twice
            stream.flush()
        try:
            pid = os.fork()
        except OSError:
            for fd in (job_r, job_w, out_r, out_w):
                os.close(fd)
            return
        if pid == 0:
            os.close(job_w)
            os.close(out_r)
            _serve(job_r, out_w)                  # never returns
        os.close(job_r)
        os.close(out_w)
        self.pid, self.job, self.out = pid, job_w, out_r

    def ask(self, tasks: pd.DataFrame, baseline: str | None, files: tuple[Path, Path, Path],
            engines: list[str], limit: float, shift_s: float) -> None:
        self.args = (tasks, baseline, files, engines, limit, shift_s)
        if self.pid is None:
            return
        try:
            _write_all(self.job, pickle.dumps(self.args, protocol=pickle.HIGHEST_PROTOCOL))
            os.close(self.job)
            self.job = None
        except OSError:                           # the child is gone: drawn here
            self.close()

    def drawn(self) -> list[Path]:
        """What ``draw_all`` returns for the arguments ``ask`` was given."""
        outcome = None
        if self.pid is not None:
            try:
                outcome = pickle.loads(_read_all(self.out))
            except (OSError, EOFError, pickle.UnpicklingError):
                pass                              # the child is gone: drawn here
            finally:
                self.close(answered=outcome is not None)
        if outcome is None:
            return draw_all(*self.args)
        made, value = outcome
        if made:
            return value
        raise value

    def close(self, answered: bool = False) -> None:
        """Reap the child; one that has not answered is killed first."""
        if self.pid is None:
            return
        for fd in {self.job, self.out} - {None}:
            os.close(fd)
        self.job = self.out = None
        if not answered:
            try:
                os.kill(self.pid, 9)              # SIGKILL: its drawing is not wanted
            except ProcessLookupError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.pid = None


def _serve(job: int, out: int) -> None:
    """The child: matplotlib imported, then the job drawn and its outcome written back
    (nothing when the parent closed unasked); ``os._exit``, so no exit handler of the
    parent's runs twice."""
    gc.freeze()       # the collector skips the parent's objects: fewer of its pages copied
    try:
        _warm()
        data = _read_all(job)
        outcome = (True, draw_all(*pickle.loads(data))) if data else None
    except BaseException as err:    # noqa: BLE001 - raised in the parent, where it counts
        outcome = (False, err)
    try:
        sys.stderr.flush()
        _write_all(out, pickle.dumps(outcome) if outcome else b"")
    except BaseException:           # noqa: BLE001 - unpicklable: the parent draws it itself
        pass
    finally:
        os._exit(0)


def _warm() -> None:
    """What drawing imports, before the job comes (a missing matplotlib: said by draw)."""
    for name in ("matplotlib.figure", "matplotlib.backends.backend_agg", "matplotlib.ticker"):
        try:
            __import__(name)
        except ImportError:
            return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
