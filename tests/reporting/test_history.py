"""report --history: the headline over a series of runs, and only the real steps flagged.

The statistics are tested on made-up runs whose speed is set exactly
(``benchmarks/report_page.synthetic_run``: each task's time is the puzzle's
own, times the engine's factor, plus any extra, times a few percent of noise
drawn per run), since on a shared, loaded machine two real runs of the same
code can differ by more than the tie band, and would rightly be flagged.
One end-to-end test runs the real harness with engines that sleep, and checks
that a run of an engine 2 ms slower is flagged on the page and in the CSV.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import compare
from benchmarks.report_page import synthetic_run
from compare.cli.report import main as report_main
from compare.reporting import history
from compare.store.folder import RunFolder
from compare.store.store import Store
from tests.reporting.test_report_html import NEEDS_BROWSER, puzzle_file

REPO = Path(__file__).resolve().parents[2]
ENGINES = {"base": 1.0, "other": 2.0}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Made-up runs of the same puzzles: n* as the code was, s* with ``other`` 2 ms
    slower a task, x1 like n1 but on another machine; started in the order listed."""
    folder = tmp_path_factory.mktemp("series")
    made = {}
    for k, name in enumerate(["n1", "n2", "n3", "s1", "s2", "n4", "n5", "x1"]):
        made[name] = synthetic_run(
            folder / name, puzzles=300, engines=ENGINES, run_seed=k, baseline="base",
            extra_s={"other": 0.002} if name.startswith("s") else None,
            started=f"2026-01-01T00:{k:02d}:00+00:00",
            host="another-host" if name == "x1" else "bench-host")
    return made


def series(runs, names) -> history.History:
    return history.history([RunFolder(runs[n]) for n in names])


def test_five_runs_of_the_same_code_flag_no_change(runs, tmp_path):
    hist = series(runs, ["n1", "n2", "n3", "n4", "n5"])
    assert list(hist.runs["run"]) == ["n1", "n2", "n3", "n4", "n5"]
    assert hist.baseline == "base" and len(hist.machines) == 1
    assert hist.steps.empty, hist.steps[["run", "engine", "source", "step_ratio", "step"]]
    other = hist.table[(hist.table["engine"] == "other") & (hist.table["source"] == "all")]
    assert len(other) == 5 and other["ratio"].between(1.5, 2.0).all()
    assert set(hist.table["source"]) == {"all", "set0", "set1"}
    csv, html = history.write(hist, tmp_path)
    assert not pd.read_csv(csv)["flagged"].any()
    assert "No step change over 5 runs" in html.read_text(encoding="utf-8")


def test_a_slower_engine_from_the_fourth_run_on_flags_exactly_that_step(runs, tmp_path):
    hist = series(runs, ["n1", "n2", "n3", "s1", "s2"])
    steps = hist.steps
    assert set(steps["run"]) == {"s1"}
    assert set(steps["engine"]) == {"other"}
    assert set(steps["source"]) == {"all", "set0", "set1"}
    assert (steps["step"] == "slower").all() and (steps["previous"] == "n3").all()
    assert (steps["step_ci_low"] > 1.05).all()
    # the command writes the same: the CSV and the page name the step
    assert report_main(["--history", *(str(runs[n]) for n in ("n1", "n2", "n3", "s1", "s2")),
                        "--out", str(tmp_path), "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "history.csv")
    flagged = table[table["flagged"]]
    assert set(flagged["run"]) == {"s1"} and set(flagged["step"]) == {"slower"}
    page = (tmp_path / "history.html").read_text(encoding="utf-8")
    assert "3 step change(s) over 5 runs: s1" in page
    assert "s1 (other, all sources): slower against n3" in page


def test_one_slow_run_between_normal_ones_is_a_step_in_and_a_step_out(runs):
    hist = series(runs, ["n1", "n2", "n3", "s1", "n4"])
    by_run = hist.steps.groupby("run")["step"].agg(set)
    assert by_run.to_dict() == {"s1": {"slower"}, "n4": {"faster"}}


def test_runs_are_put_in_commit_order_whatever_the_order_given(runs):
    hist = history.history([RunFolder(runs[n]) for n in ("n3", "n1", "n2")])
    assert list(hist.runs["run"]) == ["n1", "n2", "n3"]


def test_runs_from_another_machine_are_kept_apart(runs):
    hist = series(runs, ["n1", "s1", "x1"])
    assert len(hist.machines) == 2 and "kept apart" in hist.machines_note
    # x1 is as fast as n1 but on another machine: no step against s1 is tested
    assert set(hist.steps["run"]) == {"s1"}
    row = hist.table[(hist.table["run"] == "x1")]
    assert (row["previous"] == "").all() and not row["flagged"].any()
    assert row.loc[row["engine"] == "other", "ratio"].between(1.5, 2.0).all()


def test_a_run_with_other_settings_is_not_compared(runs, tmp_path):
    other = synthetic_run(tmp_path / "other", puzzles=300, engines=ENGINES, run_seed=9,
                          baseline="base", extra_s={"other": 0.002},
                          started="2026-01-01T01:00:00+00:00")
    with Store(other) as store:
        config = store.meta("config")
        store.set_meta("config", {**config, "settings": {**config["settings"], "timeout": 20}})
    hist = history.history([RunFolder(runs["n1"]), RunFolder(other)])
    assert hist.steps.empty
    assert set(hist.table.loc[hist.table["run"] == "other", "step"]) == {
        "not compared: the runs differ in time limit 10 vs 20"}


def test_timeouts_are_censored_not_counted_as_the_limit():
    def tasks(times, statuses):
        return pd.DataFrame({"puzzle_id": [f"p{i}" for i in range(len(times))],
                             "formulation": "f", "engine": "e", "mode": "first",
                             "total_s": times, "status": statuses,
                             "solved": [s == "solved" for s in statuses]})
    a = tasks([0.01] * 8 + [1.0] * 4, ["solved"] * 8 + ["timeout"] * 4)
    b = tasks([0.01] * 8 + [1.0] * 4, ["solved"] * 8 + ["timeout"] * 4)
    both = a.merge(b, on=history.TASK, suffixes=("_a", "_b"))
    same = history.censored_step(both, 0.001)
    assert same["both_solved"] == 8 and same["both_timed_out"] == 4
    assert math.isclose(same["step_ratio"], 1.0) and not same["flagged"]
    # eight tasks newly timing out are a step, though no solved pair moved
    b2 = tasks([0.01] * 4 + [1.0] * 8, ["solved"] * 4 + ["timeout"] * 8)
    moved = history.censored_step(a.merge(b2, on=history.TASK, suffixes=("_a", "_b")), 0.001)
    assert moved["newly_timed_out"] == 4 and moved["both_solved"] == 4
    assert math.isclose(moved["step_ratio"], 1.0)
    assert not moved["flagged"]          # four flips of the same sign: p = 0.125
    b3 = tasks([1.0] * 12, ["timeout"] * 12)
    a3 = tasks([0.01] * 12, ["solved"] * 12)
    gone = history.censored_step(a3.merge(b3, on=history.TASK, suffixes=("_a", "_b")), 0.001)
    assert gone["flagged"] and gone["step"] == "slower (more timeouts)"
    assert gone["both_solved"] == 0 and math.isnan(gone["step_ratio"])


def test_the_api_returns_the_same_tables(runs):
    hist = compare.history([runs["n1"], runs["s1"]])
    assert isinstance(hist, compare.History)
    assert set(hist.steps["run"]) == {"s1"}
    with pytest.raises(compare.SettingsError, match="did not run"):
        compare.history([runs["n1"], runs["s1"]], baseline="cpsat")
    comparison = compare.open_comparison(runs["n1"])
    assert set(comparison.by_family["family"]) == {"set0", "set1"}


def test_bad_history_input_is_one_line_and_exit_2(runs, tmp_path, capsys):
    assert report_main(["--history", str(runs["n1"]), str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no such results file" in err
    assert report_main(["--history", str(runs["n1"]), "--baseline", "cpsat",
                        "--out", str(tmp_path)]) == 2


@NEEDS_BROWSER
def test_the_history_page_works_in_headless_chromium(runs, tmp_path):
    from tests import browser
    _, html = history.write(series(runs, ["n1", "n2", "n3", "s1", "s2"]), tmp_path)
    with browser.open_page(html) as visit:
        for key in ("plot-history-ratio", "plot-history-step"):
            assert visit.page.locator(f"#{key} svg.main-svg path").count() > 5
        visit.page.select_option("#filter-engine", "other")
        engines = visit.page.locator("#table-history tbody tr:not(.hidden) td:nth-child(5)")
        assert set(engines.all_inner_texts()) == {"other"}
    assert visit.console == [] and visit.requests == []


@pytest.mark.slow
def test_real_runs_relative_to_the_baseline_flag_only_the_slower_engine(tmp_path):
    """The harness end to end, on a machine as loaded as it happens to be: engines that
    sleep 2 ms a task, then one 2 ms more from the fourth run on. Tested relative to
    the baseline in the same run, the load cancels out: five runs of the same code
    flag nothing, and the slower engine is flagged exactly where it starts."""
    files = [puzzle_file(tmp_path, "small-a", 5, count=12),
             puzzle_file(tmp_path, "small-b", 6, count=12)]
    engines = "fake-nap:nap=0.002,fake-slowed:nap=0.002"
    folders = {}
    for name, extra in (("n1", 0), ("n2", 0), ("n3", 0), ("s1", 0.002), ("s2", 0.002),
                        ("n4", 0), ("n5", 0)):
        env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines",
                   PYTHONPATH=str(REPO), FAKE_EXTRA_NAP_S=str(extra))
        proc = subprocess.run([sys.executable, "run_compare.py", "--puzzles", *map(str, files),
                               "--engines", engines, "--baseline", "fake-nap:nap=0.002",
                               "--repeat", "3", "--workers", "2", "--out",
                               str(tmp_path / name), "--quiet"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        folders[name] = str(tmp_path / name)
    same = [folders[n] for n in ("n1", "n2", "n3", "n4", "n5")]
    assert report_main(["--history", *same, "--relative", "--out", str(tmp_path / "same"),
                        "--quiet"]) == 0
    assert not pd.read_csv(tmp_path / "same" / "history.csv")["flagged"].any()
    slow = [folders[n] for n in ("n1", "n2", "n3", "s1", "s2")]
    assert report_main(["--history", *slow, "--relative", "--out", str(tmp_path / "slow"),
                        "--quiet"]) == 0
    table = pd.read_csv(tmp_path / "slow" / "history.csv")
    flagged = table[table["flagged"]]
    assert set(flagged["run"]) == {"s1"} and set(flagged["step"]) == {"slower"}
    assert set(flagged["engine"]) == {"fake-slowed:nap=0.002"} and "all" in set(
        flagged["source"])
    assert "s1 (fake-slowed:nap=0.002, all sources): slower against n3" in (
        tmp_path / "slow" / "history.html").read_text(encoding="utf-8")


def test_relative_steps_put_every_machine_in_one_series(runs):
    hist = history.history([RunFolder(runs[n]) for n in ("n1", "x1", "s1")], relative=True)
    assert "one series" in hist.machines_note
    other = hist.table[(hist.table["engine"] == "other") & (hist.table["source"] == "all")]
    # in start order n1, s1, then x1 on another machine: compared with s1 all the same
    assert list(other["run"]) == ["n1", "s1", "x1"]
    assert list(other["previous"].fillna("")) == ["", "n1", "s1"]
    assert list(other["step"]) == ["", "slower", "faster"]
    base = hist.table[hist.table["engine"] == "base"]
    assert not base["flagged"].any() and (base["step"].fillna("") == "").all()
