"""The paired ratios' shift is chosen from the run, printed beside the headline,
and ``--shift-ms`` still overrides it."""
from __future__ import annotations

import json

import numpy as np
import pytest

import compare
from compare.cli.report import main as report_main
from compare.reporting import paired, summary
from tests.reporting.test_stats import MS, report_of, store, times_frame, two_runs

US = 1e-6


def test_the_run_shift_is_a_tenth_of_the_median_and_never_below_the_timer_floor():
    assert paired.run_shift([1 * MS, 2 * MS, 30 * MS]) == pytest.approx(0.2 * MS)
    assert paired.run_shift([0.0, 0.0, 1e-9]) == paired.FLOOR_S
    assert paired.run_shift([]) == paired.DEFAULT_SHIFT_S
    assert paired.run_shift([np.inf, 4 * MS]) == pytest.approx(0.4 * MS)


def test_engines_that_differ_consistently_do_not_read_as_nearly_equal():
    """Microsecond times, one engine about 3x faster on nearly every puzzle: a fixed
    1 ms shift read it as about 1.2; the run's shift keeps the headline near the
    unshifted median ratio."""
    rng = np.random.default_rng(5)
    fast = rng.lognormal(np.log(63 * US), 0.6, 56)
    slow = fast * rng.lognormal(np.log(3.2), 0.3, 56)
    tasks = summary.per_task(times_frame(list(fast), list(slow)))
    table = summary.engine_table(tasks, "a").set_index("engine")
    unshifted = np.exp(np.median(np.log(slow / fast)))
    assert abs(table.loc["b", "ratio"] / unshifted - 1) < 0.25
    fixed = summary.engine_table(tasks, "a", shift_s=MS).set_index("engine")
    assert fixed.loc["b", "ratio"] < 1.3            # what the fixed shift made of it


def test_the_headline_names_its_shift_and_shift_ms_overrides_it(tmp_path, capsys):
    folder = store(tmp_path / "run", times_frame([0.1 * MS] * 3, [0.3 * MS] * 3))
    report_of(folder)
    out = capsys.readouterr().out
    assert "Per engine (baseline: a; shift 10.0 µs, a tenth of the baseline's median time)" \
        in out
    meta = json.loads((folder / "meta.json").read_text())["report"]
    assert meta["shift_s"] == pytest.approx(0.01 * MS) and meta["shift_from"] == "run"
    assert report_main(["--out", str(folder), "--shift-ms", "1"]) == 0
    out = capsys.readouterr().out
    assert "shift 1.00 ms, set by --shift-ms" in out
    assert "## Headline (baseline: a; shift 1.00 ms, set by --shift-ms)" in (
        folder / "summary.md").read_text()


def test_compare_runs_shifts_each_engine_by_its_own_times_in_run_a(tmp_path):
    a, b = two_runs(tmp_path)
    diff = compare.compare_runs(a, b).engines.set_index("engine")
    times = {e: g["total_s"] for e, g in compare.open_comparison(a).results.groupby("engine")}
    for engine in ("a", "b"):
        assert diff.loc[engine, "shift_s"] == pytest.approx(0.1 * np.median(times[engine]))
    fixed = compare.compare_runs(a, b, shift_ms=1.0)
    assert "shift_s" not in fixed.engines and "set by --shift-ms" in fixed.text()
