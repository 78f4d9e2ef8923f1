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

REPO = Path(__file__).resolve().parents[2]
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


# ----- reading the page: contents, words, size, highlights, colours ---------------------
def test_a_small_run_page_is_under_2_mb_and_needs_no_other_file(planted):
    text = (planted / "report.html").read_text(encoding="utf-8")
    assert (planted / "report.html").stat().st_size < 2_000_000
    assert "plotly.js (basic" in text                    # the interactive plots are there
    assert not re.search(r"<(script|link)[^>]+(src|href)=", text)   # nothing beside it


def settings_texts(page) -> dict[str, str]:
    """The Settings section's names and values, as the browser shows them."""
    names = page.locator("#settings + dl dt").all_inner_texts()
    return dict(zip(names, page.locator("#settings + dl dd").all_inner_texts()))


@NEEDS_BROWSER
def test_the_contents_link_every_section_and_the_settings_read_as_words(planted):
    with browser.open_page(planted / "report.html") as visit:
        page = visit.page
        links = page.locator("nav#contents a")
        targets = [h.removeprefix("#") for h in
                   (links.nth(i).get_attribute("href") for i in range(links.count()))]
        sections = page.evaluate("Array.from(document.querySelectorAll('h2[id]'), h => h.id)")
        assert targets == sections and {"failures", "headline", "plots", "tasks",
                                         "settings", "definitions"} <= set(targets)
        nav_y = page.locator("nav#contents").bounding_box()["y"]
        assert nav_y < page.locator("#failures").bounding_box()["y"]
        page.locator("nav#contents a[href='#settings']").click()
        page.wait_for_function("location.hash === '#settings'")
        top = page.locator("#settings").bounding_box()["y"]
        assert 0 <= top < 800                                # the link took the reader there
        settings = settings_texts(page)
        environment = page.locator("#environment + dl dd").all_inner_texts()
        for value in [*settings.values(), *environment]:
            assert value.strip() and "`" not in value and '"' not in value, value
            assert not value.startswith(("[", "{")), value
            assert value not in ("False", "True", "None", "null"), value
        assert settings["engines run"] == "fake, fake-wrong, fake-error, backtracking"
        assert settings["repeat timeouts"] == "no"
        assert settings["sample"].startswith("none") and settings["memory limit"] == "none"
        assert page.locator("#environment + dl dd code").count() >= 1   # the command
        # the definitions: a definition list, every item with its term, no markup left
        terms = page.locator("#definitions + dl.definitions dt").all_inner_texts()
        meanings = page.locator("#definitions + dl.definitions dd").all_inner_texts()
        assert len(terms) == len(meanings) >= 10 and all(t.strip() for t in terms)
        assert "PAR2" in terms and "ratio (the headline)" in terms
        assert not any("``" in t for t in [*terms, *meanings])
        assert page.locator("#definitions ~ pre").count() == 0
    assert visit.console == [] and visit.requests == []


def test_settings_left_at_their_defaults_are_named(planted):
    from compare.settings import RunSettings
    data = RunFolder(planted)
    stored = {**RunSettings().to_stored(), "engines run": ["fake", "backtracking"],
              "baseline": None}
    inputs = html_page.PageInputs(
        title="t", verdict="v", verdict_class="ok", alerts=[], problems=[], frame=data.results,
        tasks=pd.DataFrame(), tables={}, baseline=None, engines=[], puzzles=data.puzzles,
        environment=["command: `python run_compare.py`"], settings=stored, shift_s=0.001)
    text = html_page.render(inputs)
    shown = dict(re.findall(r"<dt>([^<]*)</dt><dd>([^<]*)</dd>",
                            text[text.index('id="settings"'):]))
    assert shown["puzzles"] == f"the embedded default set ({len(data.puzzles)} puzzles)"
    assert shown["engines"] == "the default set (fake, backtracking)"
    assert shown["sample"] == "none (every puzzle)"
    assert shown["formulations"] == "each puzzle&#x27;s first"
    assert shown["memory limit"] == "none" and shown["repeat timeouts"] == "no"
    assert shown["timeout"] == "10 s" and shown["baseline"] == "none"
    assert all(v for v in shown.values())
    assert "<code>python run_compare.py</code>" in text


@NEEDS_BROWSER
def test_titles_clear_the_toolbar_and_failed_engines_rows_stand_out(planted):
    with browser.open_page(planted / "report.html") as visit:
        page = visit.page
        boxes = page.evaluate("""Array.from(document.querySelectorAll('div.plot'), d => {
            const box = e => { const r = e.getBoundingClientRect();
                               return [r.left, r.top, r.right, r.bottom]; };
            return [d.id, box(d.querySelector('.g-gtitle')), box(d.querySelector('.modebar'))];
        })""")
        assert len(boxes) >= 4
        for key, title, toolbar in boxes:
            apart = (title[0] >= toolbar[2] or title[2] <= toolbar[0]
                     or title[1] >= toolbar[3] or title[3] <= toolbar[1])
            assert apart, (key, title, toolbar)

        def background(engine: str) -> str:
            cell = page.locator(f'#table-headline tr[data-engine="{engine}"] td').first
            return cell.evaluate("c => getComputedStyle(c).backgroundColor")
        plain = background("fake")
        assert background("fake-error") != plain and background("fake-wrong") != plain
        assert "failed" in page.locator(
            '#table-headline tr[data-engine="fake-error"]').get_attribute("class")
    assert visit.console == [] and visit.requests == []


def engine_colours_of(html_file: Path, engines: set[str]) -> dict[str, set[str]]:
    """Per engine, every colour its traces have in a page's plotly figures."""
    import json
    text = html_file.read_text(encoding="utf-8")
    start = text.index('id="figures">') + len('id="figures">')
    figures = json.loads(text[start:text.index("</script>", start)])
    colours: dict[str, set[str]] = {}
    for figure in figures.values():
        for trace in figure["data"]:
            name = trace.get("name", "").split(" (machine")[0]
            if name in engines:
                colours.setdefault(name, set()).add(trace["line"]["color"])
    return colours


def test_an_engine_has_the_same_colour_on_every_page(tmp_path):
    from benchmarks.report_page import synthetic_run
    from compare.reporting import history, plots
    engines = {"base": 1.0, "other": 2.0, "third": 1.5, "fourth": 3.0}
    pages = []
    for name, order in (("a", ["base", "other", "third", "fourth"]),
                        ("b", ["fourth", "third", "other", "base"])):
        folder = synthetic_run(tmp_path / name, puzzles=30, engines={e: engines[e] for e in order},
                               baseline="base")
        assert report_main(["--out", str(folder), "--quiet"]) == 0
        _, page = history.write(history.history([RunFolder(folder)]), tmp_path / f"h-{name}")
        pages += [folder / "report.html", page]
    seen = [engine_colours_of(p, set(engines)) for p in pages]
    for colours in seen:
        assert all(len(c) == 1 for c in colours.values()), colours
        assert len({next(iter(c)) for c in colours.values()}) == len(colours)   # distinct
    for engine in engines:
        assert len(set.union(*(c[engine] for c in seen if engine in c))) == 1, engine
    assert sum(engine in c for c in seen for engine in engines) >= 12
    assert plots.engine_colours(["x", "y", "z"]) == plots.engine_colours(["z", "x", "y"])
    assert len(set(plots.engine_colours([f"e{i}" for i in range(10)]).values())) == 10
