"""report.html: written with every report, self-contained, and usable in a real browser."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from compare.cli.report import main as report_main
from compare.judge.verdict import findings
from compare.reporting import page as html_page
from compare.store.folder import RunFolder
from engines import solution_counter as counter
from puzzles.kinds.generator import generate
from tests import browser

REPO = Path(__file__).resolve().parents[1]
NEEDS_BROWSER = pytest.mark.skipif(browser.why_not() is not None,
                                   reason=browser.why_not() or "")


def puzzle_file(folder: Path, name: str, seed: int, count: int = 4) -> Path:
    lines = ["".join(str(v) if v else "." for v in p.grid)
             for p in generate(4, count, 6, seed=seed, count_solutions=counter("backtracking"))]
    path = folder / f"{name}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    """A run with a planted wrong engine and one that always raises, on three
    sources of two families."""
    folder = tmp_path_factory.mktemp("html")
    files = [puzzle_file(folder, "easy-a", 1), puzzle_file(folder, "easy-b", 2),
             puzzle_file(folder, "hard-a", 3)]
    out = folder / "run"
    proc = run("--puzzles", *files, "--engines", "fake,fake-wrong,fake-error,backtracking",
               "--repeat", 1, "--workers", 2, "--out", out, "--baseline", "backtracking")
    assert proc.returncode == 1, proc.stderr[-2000:]
    return out


def test_every_report_writes_one_self_contained_page(planted):
    text = (planted / "report.html").read_text(encoding="utf-8")
    # nothing outside the file: no src or href to another address, no stylesheet link
    assert not re.search(r"""<(script|img|link|iframe)[^>]+(src|href)=["']?(https?:)?//""", text)
    assert "default-src 'none'" in text
    assert text.index('id="failures"') < text.index('id="headline"')
    # the report step writes it again from the store alone
    (planted / "report.html").unlink()
    assert report_main(["--out", str(planted), "--quiet", "--allow-errors"]) == 1
    assert (planted / "report.html").stat().st_size > 10_000


def test_the_page_holds_each_failure_with_its_reproduce_command(planted):
    data = RunFolder(planted)
    problems = findings(data.results, data.puzzles, data.config.get("plugin_env"))
    text = (planted / "report.html").read_text(encoding="utf-8")
    assert problems and all(p.engines == ["fake-wrong"] for p in problems)
    for found in problems:
        assert html_page.esc(found.reproduce) in text
    assert "this engine always fails" in text and "Traceback" in text
    errored = data.results[data.results["status"] == "error"]
    assert len(errored) and "fake-error" in text


def test_without_plotly_the_plots_are_the_pngs(planted, monkeypatch, tmp_path):
    monkeypatch.setattr(html_page, "plotly_js", lambda: None)
    data = RunFolder(planted)
    inputs = html_page.PageInputs(
        title="t", verdict="v", verdict_class="ok", alerts=[], problems=[], frame=data.results,
        tasks=data.tasks, tables={}, baseline=None, engines=[], puzzles=data.puzzles,
        environment=[], settings={}, shift_s=0.001, pictures=[planted / "cactus.png"])
    text = html_page.render(inputs)
    assert "data:image/png;base64," in text and "plotly.js v" not in text.lower()


@NEEDS_BROWSER
def test_the_page_works_in_headless_chromium(planted):
    data = RunFolder(planted)
    reproduce = findings(data.results, data.puzzles, data.config.get("plugin_env"))[0].reproduce
    with browser.open_page(planted / "report.html") as visit:
        page = visit.page
        # each plot drawn: an SVG with marks in it
        plots = page.locator("div.plot")
        assert plots.count() >= 4          # cactus, profile, a scatter per other engine
        for i in range(plots.count()):
            marks = plots.nth(i).locator("svg.main-svg path")
            assert marks.count() > 5, plots.nth(i).get_attribute("id")
        # the planted wrong answer, at the top, with its command
        commands = page.locator("#failures ~ .failure pre.reproduce").all_inner_texts()
        assert reproduce in commands
        top = page.locator(".failure").first.bounding_box()["y"]
        assert top < page.locator("#headline").bounding_box()["y"]

        # sorting: the headline by ratio, then the other way
        def column(table: str, name: str) -> list[str]:
            heads = page.locator(f"#{table} thead th").all_inner_texts()
            k = heads.index(name)
            return [r.locator("td").nth(k).inner_text()
                    for r in page.locator(f"#{table} tbody tr:not(.hidden)").all()]
        page.locator("#table-headline thead th", has_text="ratio").click()
        ratios = [float(v) for v in column("table-headline", "ratio")]
        assert ratios == sorted(ratios) and len(ratios) >= 4
        page.locator("#table-headline thead th", has_text="ratio").click()
        assert [float(v) for v in column("table-headline", "ratio")] == sorted(ratios,
                                                                               reverse=True)
        # filtering: one engine, one source, one status, across the tables
        page.select_option("#filter-engine", "fake-wrong")
        assert set(column("table-headline", "engine")) == {"fake-wrong"}
        assert set(column("table-source", "engine")) == {"fake-wrong"}
        page.select_option("#filter-source", "hard-a")
        assert set(column("table-source", "source")) == {"hard-a"}
        assert set(column("table-tasks", "source")) == {"hard-a"}
        page.select_option("#filter-engine", "")
        page.select_option("#filter-status", "error")
        assert set(column("table-tasks", "engine")) == {"fake-error"}
        assert set(column("table-tasks", "status")) == {"error"}
        page.select_option("#filter-status", "")
        page.select_option("#filter-source", "")
        assert len(column("table-tasks", "puzzle")) == len(data.tasks)
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= 1280
    assert visit.console == []
    assert visit.requests == []


@NEEDS_BROWSER
def test_the_page_fits_a_phone_without_sideways_scrolling(planted):
    with browser.open_page(planted / "report.html", width=390, height=844) as visit:
        assert visit.page.evaluate("document.documentElement.scrollWidth") <= 390
        wide = visit.page.locator("#table-source").bounding_box()["width"]
        assert wide > 390           # the table scrolls inside its own box
    assert visit.console == [] and visit.requests == []


def test_a_failed_task_without_a_traceback_still_shows(planted):
    data = RunFolder(planted)
    frame = data.results.copy()
    frame.loc[frame["engine"] == "fake-error", "traceback"] = None
    inputs = html_page.PageInputs(
        title="t", verdict="v", verdict_class="warn", alerts=[], problems=[], frame=frame,
        tasks=pd.DataFrame(), tables={}, baseline=None, engines=[], puzzles=data.puzzles,
        environment=[], settings={}, shift_s=0.001)
    text = html_page.render(inputs)
    assert "Error: " in text and "this engine always fails" in text
    assert "<summary>traceback</summary>" not in text
