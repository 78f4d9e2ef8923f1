"""Names are data, never markup or formulas: a puzzle file or a run folder named to
break report.html, history.html, a spreadsheet or summary.md breaks none of them."""
from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from compare.reporting import figures, history, prose
from compare.store.folder import RunFolder
from engines import solution_counter as counter
from puzzles.kinds.generator import generate
from tests import browser

REPO = Path(__file__).resolve().parents[2]
NEEDS_BROWSER = pytest.mark.skipif(browser.why_not() is not None,
                                   reason=browser.why_not() or "")
MARKUP = "x<!--<script>y<a href=x>z"          # a comment opened, a script, a link
FORMULAS = ("=1+2", "-1", "@SUM(A1)")          # what a spreadsheet would run
CONTROLS = "a\nb\u202ec|d\te"                  # a newline, a bidi override, a pipe, a tab
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def puzzle_file(folder: Path, stem: str, count: int, seed: int) -> Path:
    grids = generate(4, count, 6, seed=seed, count_solutions=counter("backtracking"))
    path = folder / f"{stem}.txt"
    path.write_text("\n".join("".join(str(v) if v else "." for v in p.grid)
                              for p in grids) + "\n")
    return path


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> list[Path]:
    """Two real runs of queens:4 and puzzle files named to break every output, in
    folders whose names do too."""
    folder = tmp_path_factory.mktemp("names")
    files = [puzzle_file(folder, MARKUP, 3, 1), puzzle_file(folder, CONTROLS, 2, 2),
             *(puzzle_file(folder, stem, 1, 3 + k) for k, stem in enumerate(FORMULAS))]
    runs = []
    for name in (f"run{MARKUP}", f"=2+3{MARKUP}"):
        out = folder / name
        proc = run("--puzzles", "queens:4", *files, "--engines", "backtracking,cpsat",
                   "--repeat", 1, "--workers", 2, "--out", out, "--quiet")
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(out)
    return runs


def figures_of(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    start = text.index('id="figures">') + len('id="figures">')
    inside = text[start:text.index("</script>", start)]
    assert not set("<>&") & set(inside)            # nothing the HTML parser could read
    return json.loads(inside)


def strings(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


# ----- the page's JSON and plot text ------------------------------------------------------
def test_json_in_a_script_escapes_every_angle_bracket_and_ampersand():
    value = {"</script><!--<script>&amp;": ["<a href=x>", "a&b", "-->"]}
    text = prose.script_json(value)
    assert not set("<>&") & set(text)
    assert "\\u003c!--\\u003cscript\\u003e" in text
    assert json.loads(text) == value


def test_plot_text_is_escaped_and_names_stay_out_of_hover_templates():
    tasks = pd.DataFrame({
        "puzzle_id": ["<b>p</b>:1", "<b>p</b>:1"], "source": ["<a href=x>s", "<a href=x>s"],
        "size": [4, 4], "formulation": ["f", "f"], "engine": ["<i>e</i>%{x}", "base"],
        "mode": ["first", "first"], "status": ["solved", "solved"], "solved": [True, True],
        "attempted": [True, True], "total_s": [0.01, 0.02], "timeout": [10.0, 10.0]})
    made = [figures.cactus(tasks, limit=10.0), figures.profile(tasks, 0.001),
            *figures.scatters(tasks, "base", limit=10.0).values()]
    texts = [s for figure in made for part in (figure["data"], figure["layout"])
             for s in strings(part)]
    assert not any("<a" in s or "<i>" in s or "<b>p" in s for s in texts), texts
    assert any("&lt;i&gt;e&lt;/i&gt;" in s for s in texts)
    assert any("&lt;b&gt;p&lt;/b&gt;:1 (&lt;a href=x&gt;s)" in s for s in texts)
    templates = [t["hovertemplate"] for f in made for t in f["data"] if "hovertemplate" in t]
    assert templates and not any("%{x}<" in t or "e</i>" in t for t in templates)


@NEEDS_BROWSER
def test_a_hostile_run_has_every_script_running_in_chromium(hostile):
    page_file = hostile[0] / "report.html"
    spec = figures_of(page_file)
    assert any(f"{prose.plot_text(MARKUP)}:1" in s for s in strings(spec))
    with browser.open_page(page_file) as visit:
        page = visit.page
        plots = page.locator("div.plot")
        assert plots.count() >= 3                  # cactus, profile, cpsat against backtracking
        for i in range(plots.count()):
            assert plots.nth(i).locator("svg.main-svg path").count() > 5
        assert page.locator("svg a").count() == 0  # no name became a link
        assert page.locator("main script").count() == 0
        # the task table sorts, by time, and names show as the text they are
        head = page.locator("#table-tasks thead th", has_text="time")
        head.click()
        assert head.get_attribute("aria-sort") == "ascending"
        k = page.locator("#table-tasks thead th").all_inner_texts().index("time")
        times = [float(v) for v in page.locator("#table-tasks tbody tr").evaluate_all(
            f"rows => rows.map(r => r.cells[{k}].dataset.v)")]
        assert len(times) == 2 * 9 and times == sorted(times)
        puzzles = page.locator("#table-tasks tbody td:first-child").all_inner_texts()
        assert f"{MARKUP}:1" in puzzles and "=1+2:1" in puzzles
        page.select_option("#filter-source", MARKUP)
        shown = page.locator("#table-tasks tbody tr:not(.hidden)").count()
        assert shown == 2 * 3
    assert visit.console == [] and visit.requests == []


@NEEDS_BROWSER
def test_history_over_hostile_runs_draws_its_plot_in_chromium(hostile, tmp_path):
    series = history.history([RunFolder(f) for f in hostile])
    _, page_file = history.write(series, tmp_path / "history")
    figures_of(page_file)
    with browser.open_page(page_file) as visit:
        page = visit.page
        plot = page.locator("#plot-history-ratio")
        assert plot.locator("svg.main-svg path").count() > 5
        ticks = plot.locator(".xtick text").all_text_contents()
        assert any(f"run{MARKUP}" in t for t in ticks), ticks       # shown as written
        assert page.locator("svg a").count() == 0
        page.locator("#table-runs thead th", has_text="run").first.click()
        assert page.locator("#table-runs thead th[aria-sort]").count() == 1
    assert visit.console == [] and visit.requests == []


# ----- CSV cells ----------------------------------------------------------------------------
def cells_of(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_no_csv_cell_the_tool_writes_starts_a_formula(hostile, tmp_path):
    series = history.history([RunFolder(f) for f in hostile])
    history_csv, _ = history.write(series, tmp_path / "history")
    results = cells_of(hostile[0] / "results.csv")
    series_rows = cells_of(history_csv)
    for rows in (results, series_rows):
        assert rows
        for row in rows:
            assert not any(v.startswith(FORMULA_START) for v in row.values()), row
    ids = {row["puzzle_id"] for row in results}
    assert {"'=1+2:1", "'-1:1", "'@SUM(A1):1", f"{MARKUP}:1"} <= ids
    assert f"'=2+3{MARKUP}" in {row["run"] for row in series_rows}
    # numbers stay numbers: every time parses, as does every ratio written
    assert all(math.isfinite(float(row["total_s"])) for row in results)
    assert all(int(row["size"]) == 4 for row in results)
    assert all(float(row["ratio"]) > 0 for row in series_rows if row["ratio"])


def test_text_cells_are_quoted_and_numbers_left_alone():
    frame = pd.DataFrame({"name": ["=1+2", "-x", "+1", "@a", "\tb", "\rc", "ok", None],
                          "mixed": [-1.5, "-1.5", 3, "=A1", None, "x", -2, "y"],
                          "number": [-1.5, 2.0, -3.0, 0.0, 1e-9, -1e9, math.nan, 4.0],
                          "count": pd.array([-1, 2, None, 3, 4, 5, 6, 7], dtype="Int64")})
    safe = prose.spreadsheet_safe(frame)
    assert list(safe["name"][:7]) == ["'=1+2", "'-x", "'+1", "'@a", "'\tb", "'\rc", "ok"]
    assert safe["name"].isna().iloc[7]
    assert list(safe["mixed"][:4]) == [-1.5, "'-1.5", 3, "'=A1"]
    pd.testing.assert_series_equal(safe["number"], frame["number"])
    pd.testing.assert_series_equal(safe["count"], frame["count"])
    assert frame["name"][0] == "=1+2"                  # the caller's frame is not changed


# ----- summary.md ---------------------------------------------------------------------------
def test_summary_shows_control_characters_escaped(hostile):
    text = (hostile[0] / "summary.md").read_text(encoding="utf-8")
    assert "\u202e" not in text and "\t" not in text and "\r" not in text
    assert "a\nb" not in text
    assert "a\\nb\\u202ec" in text                     # the name, shown escaped
    for line in text.splitlines():                    # a table row keeps its cells
        if line.startswith("|") and "a\\nb" in line:
            assert "c\\|d\\te" in line
    command = next(line for line in text.splitlines() if line.startswith("- command:"))
    assert "a\\nb\\u202ec|d\\te.txt" in command


def test_markdown_escapes_every_control_but_its_own_newlines():
    text = "line one\u202e\nname: a\x1bb\u2066c\x85d\u2028e\r"
    shown = prose.controls_shown(text)
    assert shown == "line one\\u202e\nname: a\\x1bb\\u2066c\\x85d\\u2028e\\r"
    assert prose.one_line("a\nb") == "a\\nb"
    assert prose.table_cell("a|b\nc") == "a\\|b\\nc"


def test_png_plots_draw_names_that_look_like_mathtext(tmp_path):
    from compare.reporting import plots
    tasks = pd.DataFrame({
        "puzzle_id": ["p:1", "p:1", "q:1", "q:1"], "source": ["a$^$b", "a$^$b", "c", "c"],
        "size": [4] * 4, "formulation": ["f"] * 4, "engine": ["e$_$", "base"] * 2,
        "mode": ["first"] * 4, "status": ["solved"] * 4, "solved": [True] * 4,
        "attempted": [True] * 4, "total_s": [0.01, 0.02, 0.03, 0.01], "timeout": [10.0] * 4})
    assert plots.scatter(tasks, "base", tmp_path / "s.png", limit=10.0).stat().st_size
    assert plots.cactus(tasks, tmp_path / "c.png", limit=10.0).stat().st_size
    assert plots.profile(tasks, tmp_path / "p.png", 0.001).stat().st_size
    assert plots.mpl_text("a$b") == "a\\$b"
