"""report.html: the report as one self-contained page, to look at rather than read.

One file that opens offline and asks no network address for anything: the
styles, the script and plotly.js itself are written into it. The plotly.js
is its basic bundle (``assets/plotly-basic.min.js``, MIT, plotly.js's own
``plotly.js-basic-dist-min``: scatter traces, error bars, everything these
plots use), a quarter of the full bundle's size, so a small run's page
stays near 1 MB; were it missing, the plots would be the PNGs, embedded as
data. A table of contents under the verdict links every section.
What went wrong comes first (wrong answers, disagreements, then tasks that
errored, crashed or ran out of memory, each with its message, traceback and
a command that reproduces it); then the headline, the plots, the tables per
source, per family and per task (sortable by any column, filtered by
engine, source and status from one bar), the environment and the settings.

Everything shown is bounded whatever the run's size, so a run of 100,000
tasks still gives a page a browser opens at once: the plots aggregate what
cannot be drawn point by point (``figures``), the task table keeps the
``TASK_ROWS`` most telling tasks and each list of failures its first
``FAILURES_SHOWN``; the page says so wherever it cut, and results.csv has
every row.
"""
from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pandas as pd

from compare.judge.verdict import DISAGREEMENT, WRONG, WRONG_ANSWER, reproduce
from compare.reporting import figures, prose, summary
from compare.store.files import write_text
from engines import FAILED_WORDS, Status

PLOTLY = "plotly-basic.min.js"     # plotly.js's basic bundle, shipped in assets/
TASK_ROWS = 1000
FAILURES_SHOWN = 20           # per engine and status
PROBLEMS_SHOWN = 200
OPEN = 5                      # failures shown open; the rest fold under one line
STATUS_ORDER = (WRONG, *FAILED_WORDS, Status.TIMEOUT.value, Status.UNSUPPORTED.value,
                Status.UNSAT.value, Status.SOLVED.value)
TITLES = {WRONG_ANSWER: "Wrong answer", DISAGREEMENT: "Disagreement",
          Status.ERROR.value: "Error", Status.CRASHED.value: "Crash",
          Status.MEMOUT.value: "Out of memory"}


@dataclass
class PageInputs:
    """What the page shows, computed once by the report step."""
    title: str
    verdict: str                       # the first line: the whole truth in one sentence
    verdict_class: str                 # ok, warn or bad
    alerts: list[str]
    problems: list                     # verdict.Finding
    frame: pd.DataFrame                # every stored result
    tasks: pd.DataFrame                # per task, repeats folded
    tables: dict[str, pd.DataFrame]
    baseline: str | None
    engines: list[str]
    puzzles: dict
    environment: list[str]
    settings: dict
    shift_s: float
    note: str = ""                     # what the headline's columns mean
    plugin_env: dict | None = None
    pictures: list[Path] = field(default_factory=list)
    timeout_s: float | None = None     # the run's time limit, from its settings (the plots)


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def asset(name: str) -> str:
    return resources.files("compare.reporting").joinpath("assets", name).read_text("utf-8")


def plotly_js() -> str | None:
    """plotly.js's basic bundle, to be written into the page; None when it is missing."""
    try:
        return asset(PLOTLY)
    except FileNotFoundError:
        return None


def render(page: PageInputs) -> str:
    library = plotly_js()
    plotted = _figures(page) if library is not None else {}
    parts = [f"<h1>{esc(page.title)}</h1>",
             f'<p class="verdict {page.verdict_class}" id="verdict">{esc(page.verdict)}</p>']
    if page.alerts:
        parts.append('<ul class="alerts">' + "".join(f"<li>{esc(a)}</li>" for a in page.alerts)
                     + "</ul>")
    parts += _failures(page)
    parts.append(_filter_bar(page))
    parts += _headline(page)
    parts += _plots(page, plotted, library is not None)
    parts += _group_tables(page)
    parts += _task_table(page)
    parts += _environment(page)
    parts += ['<h2 id="definitions">Definitions</h2>',
              prose.definitions_html(summary.definitions(page.shift_s))]
    return document(page.title, parts, plotted, library)


def document(title: str, parts: list[str], plotted: dict, library: str | None) -> str:
    """The page around ``parts``: styles, a table of contents before the first section
    (or the filter bar), the figures as JSON, plotly.js and the script."""
    first = next((i for i, part in enumerate(parts)
                  if part.startswith(("<h2", '<div class="filters"'))), len(parts))
    parts = [*parts[:first], prose.contents(parts), *parts[first:]]
    specs = {key: {"data": f["data"], "layout": f["layout"]} for key, f in plotted.items()}
    figures_json = prose.script_json(specs)
    script = ("" if library is None else f"<script>{library}</script>\n")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; "
            "img-src data:; font-src data:\">\n"
            f"<title>{esc(title)}</title>\n<style>{asset('report.css')}</style>\n"
            "</head><body><main>\n" + "\n".join(parts) + "\n</main>\n"
            f"<script type=\"application/json\" id=\"figures\">{figures_json}</script>\n"
            f"{script}<script>{asset('report.js')}</script>\n</body></html>\n")


def write(path: Path, page: PageInputs) -> None:
    text = render(page)
    write_text(path, text)


# ----- failures first -----------------------------------------------------------------
def _failures(page: PageInputs) -> list[str]:
    failed = page.frame[page.frame["status"].isin(FAILED_WORDS)]
    if not page.problems and failed.empty:
        return []
    boxes, notes = [], []
    order = {WRONG_ANSWER: 0, DISAGREEMENT: 1}
    problems = sorted(page.problems, key=lambda f: order.get(f.kind, 2))
    for found in problems[:PROBLEMS_SHOWN]:
        boxes.append(_failure_box(TITLES.get(found.kind, found.kind), found.puzzle_id,
                                  found.mode, ", ".join(found.engines), found.detail, None,
                                  found.reproduce))
    if len(problems) > PROBLEMS_SHOWN:
        notes.append(f"{len(problems) - PROBLEMS_SHOWN} more wrong answers or disagreements: "
                     "summary.md lists every one.")
    for status in FAILED_WORDS:
        rows = failed[failed["status"] == status]
        for engine, group in rows.groupby("engine", sort=False):
            first = group.drop_duplicates(["puzzle_id", "formulation", "mode"])
            for row in first.head(FAILURES_SHOWN).itertuples(index=False):
                command = reproduce(page.puzzles.get(row.puzzle_id), [row.engine], row.mode,
                                    row.limit, row.formulation, page.plugin_env)
                boxes.append(_failure_box(TITLES[status], row.puzzle_id, row.mode, engine,
                                          row.message or "no message",
                                          getattr(row, "traceback", None), command))
            if len(first) > FAILURES_SHOWN:
                notes.append(f"{engine}: {len(first) - FAILURES_SHOWN} more task(s) with status "
                             f"{status}; results.csv has every one.")
    parts = ['<h2 id="failures">Failures</h2>', *boxes[:OPEN]]
    if len(boxes) > OPEN:
        parts += [f"<details><summary>{len(boxes) - OPEN} more failure(s)</summary>",
                  *boxes[OPEN:], "</details>"]
    return parts + [f'<p class="note">{esc(note)}</p>' for note in notes]


def _failure_box(title: str, puzzle: str, mode: str, engines: str, message: str,
                 traceback: str | None, command: str) -> str:
    trace = ""
    if isinstance(traceback, str) and traceback.strip():
        trace = f"<details><summary>traceback</summary><pre>{esc(traceback)}</pre></details>"
    return (f'<div class="failure" data-engine="{esc(engines)}">'
            f"<h3>{esc(title)}: {esc(puzzle)} ({esc(mode)}), {esc(engines)}</h3>"
            f'<p class="what">{esc(message)}</p>{trace}'
            f'<div>reproduce:</div><pre class="reproduce">{esc(command)}</pre></div>')


# ----- filters and tables --------------------------------------------------------------
def _options(values) -> str:
    return '<option value="">all</option>' + "".join(
        f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)


def _filter_bar(page: PageInputs) -> str:
    tasks = page.tasks
    if tasks.empty:
        return ""
    ran = list(tasks["engine"].unique())
    engines = [e for e in dict.fromkeys([*page.engines, *ran]) if e in ran]
    present = set(_task_status(tasks).unique())
    return filter_bar(engines, list(tasks["source"].dropna().unique()),
                      [s for s in STATUS_ORDER if s in present])


def filter_bar(engines: list, sources: list, statuses: list | None = None) -> str:
    """One bar of selects that filters the rows of every table on the page."""
    status = ("" if statuses is None else
              f'<label>status <select id="filter-status">{_options(statuses)}</select></label>')
    return ('<div class="filters" role="search">'
            f'<label>engine <select id="filter-engine">{_options(engines)}</select></label>'
            f'<label>source <select id="filter-source">{_options(sources)}</select></label>'
            f"{status}"
            '<span class="note">filters apply to every table; click a column to sort</span>'
            "</div>")


def _raw_column(column: str) -> str:
    back = {v: k for k, v in summary.HEADERS.items()}
    return {"95% CI": "ci_low", "W/T/L": "wins"}.get(column, back.get(column, column))


def table_html(table: pd.DataFrame, table_id: str, shown: pd.DataFrame | None = None,
               rows_data: list[dict] | None = None, caption: str = "") -> str:
    """A sortable table: ``shown`` is what is read, ``table`` the raw values sorted on."""
    shown = summary.formatted(table) if shown is None else shown
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in shown.columns)
    named = [_raw_column(c) if _raw_column(c) in table else c for c in shown.columns]
    raw = [table[c].tolist() if c in table else None for c in named]
    body = []
    for i, row in enumerate(shown.itertuples(index=False)):
        attrs = "".join(f' data-{k}="{esc(v)}"' for k, v in (rows_data[i] if rows_data
                                                              else {}).items())
        said = set(rows_data[i].get("status", "").split("|")) if rows_data else set()
        if WRONG in said:
            attrs += ' class="wrong"'
        elif said & set(FAILED_WORDS):          # errored, crashed or out of memory
            attrs += ' class="failed"'
        cells = []
        for j, value in enumerate(row):
            sort = ""
            if raw[j] is not None:
                v = raw[j][i]
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    sort = f' data-v="{v!r}"' if pd.notna(v) else ' data-v=""'
            text = "" if not isinstance(value, str) and pd.isna(value) else value
            cells.append(f"<td{sort}>{esc(text)}</td>")
        body.append(f"<tr{attrs}>" + "".join(cells) + "</tr>")
    count = f'<span class="note" id="{table_id}-shown"></span>'
    return (f'<div class="scroll"><table id="{table_id}" class="sortable" data-filterable>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            + (f'<p class="note">{caption} {count}</p>' if caption else f"<p>{count}</p>"))


# A row's columns that count tasks, and the status each counts (the filter's words).
STATUS_COUNTS = {"solved": Status.SOLVED.value, **summary.STATUS_COLUMNS, "wrong": WRONG,
                 "n/a": Status.UNSUPPORTED.value}


def _row_data(table: pd.DataFrame) -> list[dict]:
    """Each aggregated row's engine, source and the statuses its tasks had."""
    rows = []
    for record in table.to_dict("records"):
        data = {k: record[k] for k in ("engine", "source") if k in record}
        data["status"] = "|".join(word for column, word in STATUS_COUNTS.items()
                                  if record.get(column, 0) > 0)
        rows.append(data)
    return rows


def _headline(page: PageInputs) -> list[str]:
    table = page.tables.get("engine")
    if table is None or table.empty:
        return ["<p>No puzzle run was finished by every engine yet: nothing to compare.</p>"]
    compact = summary.compact(table)
    raw = compact.assign(solved=table["solved"])
    return [f'<h2 id="headline">Headline (baseline: {esc(page.baseline or "none")})</h2>',
            table_html(raw, "table-headline", summary.formatted(compact), _row_data(table)),
            f'<p class="note">{esc(page.note)}</p>',
            '<details><summary>every column per engine</summary>',
            table_html(table, "table-engine", rows_data=_row_data(table)), "</details>"]


def _group_tables(page: PageInputs) -> list[str]:
    parts = []
    for key, title in (("source", "Per source"), ("family", "Per family")):
        table = page.tables.get(key)
        if table is None or table.empty or table[key].nunique() < 2:
            continue
        note = (" family: the puzzle's name before its first '-'" if key == "family" else "")
        parts += [f'<h2 id="per-{key}">{title}</h2>',
                  table_html(table, f"table-{key}", rows_data=_row_data(table),
                             caption=esc(note.strip()))]
    formulations = page.tables.get("formulations")
    if formulations is not None and not formulations.empty:
        grid = summary.formulation_grid(formulations)
        data = [{"engine": e} for e in dict.fromkeys(formulations["engine"])]
        parts += ['<h2 id="formulations">Formulations</h2>',
                  table_html(grid, "table-formulations", grid, data)]
    counts = page.tables.get("counts")
    if counts is not None and not counts.empty:
        parts += ['<h2 id="counts">Counts</h2>', table_html(counts, "table-counts", counts)]
    return parts


def _task_status(tasks: pd.DataFrame) -> pd.Series:
    return tasks["status"].where(~tasks["wrong"], WRONG)


def _task_table(page: PageInputs) -> list[str]:
    tasks = page.tasks
    if tasks.empty:
        return []
    status = _task_status(tasks)
    rank = status.map({s: i for i, s in enumerate(STATUS_ORDER)}).fillna(len(STATUS_ORDER))
    order = pd.DataFrame({"rank": rank, "t": -tasks["total_s"].fillna(0)}).sort_values(
        ["rank", "t"], kind="stable").index
    picked = tasks.loc[order[:TASK_ROWS]]
    several = tasks["formulation"].nunique() > 1
    table = pd.DataFrame({"puzzle": picked["puzzle_id"], "source": picked["source"],
                          "family": picked["puzzle_id"].map(summary.family),
                          "engine": picked["engine"]})
    if several:
        table["formulation"] = picked["formulation"]
    table["mode"] = picked["mode"]
    table["status"] = status.loc[picked.index]
    table["time_s"] = picked["total_s"]
    table["nodes"] = picked["nodes"]
    shown = table.assign(time_s=[summary.duration(v) for v in table["time_s"]],
                         nodes=["-" if pd.isna(v) else f"{v:.0f}" for v in table["nodes"]])
    shown = shown.rename(columns={"time_s": "time"})
    data = [{"engine": e, "source": s, "status": st} for e, s, st in
            zip(table["engine"], table["source"], table["status"])]
    cut = (f"the {TASK_ROWS} most telling of {len(tasks)} tasks (failures first, then "
           "timeouts, then the slowest); results.csv has every one." if len(tasks) > TASK_ROWS
           else f"all {len(tasks)} tasks, repeats folded into their median.")
    return ['<h2 id="tasks">Tasks</h2>',
            table_html(table.rename(columns={"time_s": "time"}).assign(
                time=table["time_s"]), "table-tasks", shown.reset_index(drop=True), data,
                caption=esc(cut))]


# ----- plots ---------------------------------------------------------------------------
def _figures(page: PageInputs) -> dict[str, dict]:
    tasks = page.tasks
    if tasks.empty:
        return {}
    made = {"plot-cactus": figures.cactus(tasks, page.engines, limit=page.timeout_s),
            "plot-profile": figures.profile(tasks, page.shift_s, page.engines)}
    made.update({f"plot-{k}": v for k, v in figures.scatters(
        tasks, page.baseline, page.engines, limit=page.timeout_s).items()})
    return {k: v for k, v in made.items() if v}


def _plots(page: PageInputs, plotted: dict, interactive: bool) -> list[str]:
    if not interactive:
        if not page.pictures:
            return []
        parts = ['<h2 id="plots">Plots</h2>', '<p class="note">plotly.js is missing from '
                 "this installation: the plots are the PNG images.</p>"]
        for picture in page.pictures:
            data = base64.b64encode(Path(picture).read_bytes()).decode("ascii")
            parts.append(f'<div class="plot"><img alt="{esc(picture.stem)}" '
                         f'src="data:image/png;base64,{data}"></div>')
        return parts
    if not plotted:
        return []
    parts = ['<h2 id="plots">Plots</h2>', '<div class="plots">']
    for key in ("plot-cactus", "plot-profile"):
        if key in plotted:
            parts.append(f'<div class="plot" id="{key}"></div>')
            if plotted[key].get("thinned"):
                parts.append(f'<p class="note">curves drawn through at most '
                             f"{figures.CURVE_POINTS} points each.</p>")
    parts.append("</div>")
    panels = [k for k in plotted if k.startswith("plot-scatter")]
    if panels:
        parts += [f"<h3>Per-puzzle time against {esc(page.baseline)}</h3>",
                  '<p class="note">Hover a point for its puzzle. Dashed: the same time; dotted: '
                  "ten times slower or faster; red: the time limit, where unsolved tasks (x) "
                  "are drawn.</p>", _scatter_legend(plotted[panels[0]]),
                  '<div class="scatters">']
        for key in panels:
            parts.append(f'<div class="plot" id="{key}"></div>')
        parts.append("</div>")
        for key in panels:
            if plotted[key]["aggregated"]:
                parts.append(f'<p class="note">{esc(plotted[key]["engine"])}: '
                             f"{plotted[key]['points']} puzzles; those within x10 of the "
                             "diagonal and solved by both are aggregated per cell (marker size: "
                             f"how many), the rest drawn one by one (at most {figures.OUTLIERS}, "
                             "the furthest off first).</p>")
    return parts


def _scatter_legend(panel: dict) -> str:
    """The colours of the scatter panels, once for all of them."""
    chips = [f'<span class="chip"><span class="dot" style="background:{c}"></span>{esc(v)}</span>'
             for v, c in panel["colours"].items()]
    chips.append('<span class="chip"><b>&times;</b> unsolved by one or both</span>')
    title = f"{esc(panel['by'])}: " if panel["by"] else ""
    return f'<p class="legend">{title}{" ".join(chips)}</p>'


# ----- environment and settings ----------------------------------------------------------
def _environment(page: PageInputs) -> list[str]:
    return ['<h2 id="environment">Environment</h2>', '<dl class="env">',
            *prose.environment_html(page.environment), "</dl>",
            '<h2 id="settings">Settings</h2>', '<dl class="env">',
            *prose.settings_html(page.settings, len(page.puzzles)), "</dl>"]
