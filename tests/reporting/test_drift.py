"""Between-run drift: a machine that is slower the second time is not slower code.

Made-up runs (``benchmarks.report_page.synthetic_run``) with a calibration
written beside them: run B is uniformly 1.3x slower and so is its
calibration, so ``report --compare`` and ``report --history`` must call no
change; an engine planted 2x slower on an equally fast machine must be
called. A series whose steps could not be compared must not read as
"no change". The calibration itself is timed by a tiny real run.
"""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from benchmarks.report_page import synthetic_run
from compare.api import run_comparison
from compare.cli.report import main as report_main
from compare.reporting import history
from compare.reporting.runs import compare_runs, work_change
from compare.run import calibration
from compare.store.folder import RunFolder
from compare.store.store import Store

ENGINES = {"base": 1.0, "other": 2.0}
CALIBRATION_S = 0.030


def calibrated(folder, median_s: float | None) -> None:
    """Store a calibration whose samples have the given median (None: remove it)."""
    if median_s is None:
        return
    offsets = [0.99, 1.01, 1.0, 0.98, 1.02, 1.0, 0.995, 1.005]
    samples = [{"at": "start" if i == 0 else "end" if i == len(offsets) - 1 else "between",
                "session": 1, "s": median_s * f} for i, f in enumerate(offsets)]
    with Store(folder) as store:
        store.set_meta("calibration", {"workload": calibration.WORKLOAD, "samples": samples,
                                       **calibration.summary(samples)})


def made(folder, engines: dict, k: int, machine: float | None):
    path = synthetic_run(folder, puzzles=300, engines=engines, run_seed=k, baseline="base",
                         started=f"2026-01-01T00:{k:02d}:00+00:00")
    calibrated(path, None if machine is None else CALIBRATION_S * machine)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """a: as the code is; slow: every engine and the calibration 1.3x slower; planted:
    ``other`` 2x slower, calibration equal; bare: like slow, but no calibration stored."""
    root = tmp_path_factory.mktemp("drift")
    slower = {e: f * 1.3 for e, f in ENGINES.items()}
    return {"a": made(root / "a", ENGINES, 0, 1.0),
            "slow": made(root / "slow", slower, 1, 1.3),
            "planted": made(root / "planted", {"base": 1.0, "other": 4.0}, 2, 1.0),
            "bare": made(root / "bare", slower, 3, None)}


def test_a_uniformly_slower_machine_is_no_change_when_its_calibration_says_so(runs, capsys):
    diff = compare_runs(RunFolder(runs["a"]), RunFolder(runs["slow"]))
    assert diff.drift.applied and math.isclose(diff.drift.ratio, 1.3, rel_tol=1e-6)
    assert set(diff.engines["verdict"]) == {"no significant change"}, diff.engines
    assert diff.engines["ratio"].between(1.25, 1.35).all()      # as measured, inside the floor
    assert diff.slower_than(1.1) == []
    text = diff.text()
    assert "noise floor ±" in text and "compared as measured" in text
    assert "same work (same on 300 tasks): a slower machine, not slower code" in text
    assert report_main(["--compare", str(runs["a"]), str(runs["slow"]),
                        "--fail-above", "1.1"]) == 0
    out = capsys.readouterr().out
    assert "faster" not in out.split("\n")[0] and "slower:" not in out
    hist = history.history([RunFolder(runs["a"]), RunFolder(runs["slow"])])
    assert hist.steps.empty, hist.steps[["run", "engine", "step", "step_ratio"]]
    assert hist.verdict()[0] == "ok"
    assert "the ratio of the two runs' calibrations" in hist.drift_note
    stepped = hist.table[hist.table["previous"] != ""]
    assert stepped["drift"].between(1.29, 1.31).all() and (stepped["noise_floor"] > 0.3).all()


def test_without_calibration_the_same_slowdown_is_called_and_the_page_says_why(runs):
    diff = compare_runs(RunFolder(runs["a"]), RunFolder(runs["bare"]))
    assert not diff.drift.applied and "bare" not in diff.drift.why
    assert "B holds no calibration" in diff.text()
    assert set(diff.engines["verdict"]) == {"slower"}
    hist = history.history([RunFolder(runs["a"]), RunFolder(runs["bare"])])
    assert set(hist.steps["run"]) == {"bare"}
    assert "No drift correction for the step(s) to bare" in hist.drift_note


def test_an_engine_planted_2x_slower_is_flagged_with_the_machine_unchanged(runs, capsys):
    diff = compare_runs(RunFolder(runs["a"]), RunFolder(runs["planted"]))
    verdicts = dict(zip(diff.engines["engine"], diff.engines["verdict"]))
    assert verdicts == {"base": "no significant change", "other": "slower"}
    assert diff.slower_than(1.1) == ["other"]
    assert report_main(["--compare", str(runs["a"]), str(runs["planted"]),
                        "--fail-above", "1.1"]) == 5
    assert "SLOWER: other" in capsys.readouterr().err
    hist = history.history([RunFolder(runs["a"]), RunFolder(runs["slow"]),
                            RunFolder(runs["planted"])])
    steps = hist.steps
    assert set(steps["engine"]) == {"other"} and set(steps["run"]) == {"planted"}
    assert (steps["step"] == "slower").all()
    assert hist.verdict()[0] == "bad"


def test_a_series_whose_steps_were_not_compared_does_not_say_no_change(runs, tmp_path):
    other = made(tmp_path / "other", ENGINES, 9, 1.0)
    with Store(other) as store:
        config = store.meta("config")
        store.set_meta("config", {**config, "settings": {**config["settings"], "timeout": 20}})
    hist = history.history([RunFolder(runs["a"]), RunFolder(other)])
    tone, line = hist.verdict()
    assert tone == "warn" and line.startswith("No step compared over 2 runs")
    assert "not compared: the runs differ in time limit 10 vs 20" in line
    assert "No step change" not in hist.text()
    _, html = history.write(hist, tmp_path / "page")
    page = html.read_text(encoding="utf-8")
    assert "No step change" not in page and 'class="verdict warn"' in page
    # one compared step beside one that was not: still no green banner
    mixed = history.history([RunFolder(runs["a"]), RunFolder(runs["slow"]), RunFolder(other)])
    tone, line = mixed.verdict()
    assert tone == "warn" and "1 step(s) not compared" in line


def test_drift_floor_holds_the_drift_and_the_spread():
    a = {"workload": calibration.WORKLOAD, "median_s": 0.02, "spread": 0.1, "count": 4}
    b = {**a, "median_s": 0.026}
    moved = calibration.drift(a, b)
    assert moved.applied and math.isclose(moved.ratio, 1.3)
    half = calibration.Z95 * math.sqrt(2 * 0.1 ** 2 / 4)
    assert math.isclose(moved.floor, math.exp(max(math.log(1.3), half)) - 1)
    wide = calibration.drift({**a, "spread": 0.9}, {**b, "spread": 0.9})
    assert math.isclose(wide.floor, math.expm1(calibration.Z95 * math.sqrt(2 * 0.81 / 4)))
    assert moved.tie == moved.floor
    assert not calibration.drift(a, {**b, "workload": "another"}).applied
    assert calibration.drift(None, b).why == "A holds no calibration"
    steady = {**a, "spread": 0.01}
    assert calibration.drift(steady, steady).tie == calibration.TIE   # below: the tie band


def test_samples_between_batches_are_bounded(monkeypatch):
    monkeypatch.setattr(calibration, "workload", lambda: {"s": 0.01, "python_s": 0.005,
                                                          "numpy_s": 0.005})
    speed = calibration.Calibration()
    speed.next_at = 0.0
    for _ in range(200):
        speed.next_at = 0.0          # always due: only the cap holds it
        speed.between()
    assert len(speed.samples) == calibration.MAX_BETWEEN


def test_the_workload_takes_positive_finite_time_and_a_run_stores_it(tmp_path):
    timed = calibration.workload()
    assert all(math.isfinite(v) and v > 0 for v in timed.values())
    assert math.isclose(timed["s"], timed["python_s"] + timed["numpy_s"], rel_tol=1e-6)
    comparison = run_comparison(["queens:5"], engines=["backtracking"], repeat=1,
                                out=tmp_path / "run")
    with RunFolder(tmp_path / "run") as run:
        stored = run.calibration
    comparison.write_report()
    assert json.loads((tmp_path / "run" / "meta.json").read_text())["calibration"] == stored
    assert stored["workload"] == calibration.WORKLOAD
    assert [s["at"] for s in stored["samples"]][0] == "start"
    assert stored["samples"][-1]["at"] == "end" and stored["count"] >= 2
    assert stored["median_s"] > 0 and math.isfinite(stored["spread"])


def test_work_reads_same_changed_or_not_reported():
    both = pd.DataFrame({"nodes_a": [10, 20, 30], "nodes_b": [10, 20, 30],
                         "backtracks_a": [1, 2, 3], "backtracks_b": [1, 2, 3]})
    assert work_change(both) == "same on 3 tasks"
    more = both.assign(nodes_b=[20, 40, 60])
    assert work_change(more).startswith("changed on 3 of 3 tasks (nodes x1.9")
    assert work_change(both.assign(backtracks_b=[1, 2, 4])).startswith("changed on 1 of 3")
    assert work_change(both * 0) == "not reported"        # an engine that counts nothing
    assert work_change(both[["nodes_a"]]) == "not reported"


def test_like_is_compared_with_like_start_and_end_when_few_samples_between():
    def stored(start, between, end):
        samples = ([{"at": "start", "s": start}] + [{"at": "between", "s": s} for s in between]
                   + [{"at": "end", "s": end}])
        return {"workload": calibration.WORKLOAD, **calibration.summary(samples)}
    a = stored(0.010, [0.015], 0.010)
    b = stored(0.010, [0.020, 0.020, 0.020], 0.010)
    moved = calibration.drift(a, b)           # a has one sample between: the quiet ones count
    assert moved.basis == "samples at the start and end" and math.isclose(moved.ratio, 1.0)
    c = stored(0.010, [0.015, 0.015, 0.015], 0.010)
    moved = calibration.drift(c, b)
    assert moved.basis == "samples taken between batches"
    assert math.isclose(moved.ratio, 0.020 / 0.015)


def test_history_steps_shift_each_engine_by_its_own_times(tmp_path):
    """A microsecond engine that doubles is a step: the step's shift is a tenth of that
    engine's median, as --compare's, not a millisecond that would flatten the ratio."""
    tiny = {"base": 0.005, "other": 0.005}                 # medians of about 20 us
    a = made(tmp_path / "a", tiny, 0, 1.0)
    b = made(tmp_path / "b", {"base": 0.005, "other": 0.010}, 1, 1.0)
    hist = history.history([RunFolder(a), RunFolder(b)])
    flagged = hist.steps
    assert set(flagged["engine"]) == {"other"}, flagged[["engine", "step", "step_ratio"]]
    assert flagged["step_ratio"].between(1.8, 2.2).all()
