"""With several formulations every ratio has one reference, and the headline names it."""
from __future__ import annotations

import pytest

from compare.reporting import summary
from tests.reporting.test_stats import MS, frame_of, report_of, store

# a is fast in pairwise, slow in alldiff; c is 2.5x faster in alldiff than in pairwise
TIMES = {("a", "alldiff"): 10 * MS, ("a", "pairwise"): 2 * MS,
         ("c", "alldiff"): 1 * MS, ("c", "pairwise"): 2.5 * MS}


def frame():
    return frame_of([{"puzzle_id": f"p{i}", "engine": e, "formulation": f, "total_s": t}
                     for i in range(4) for (e, f), t in TIMES.items()])


def test_every_engine_and_formulation_is_compared_with_the_baseline_in_one_formulation():
    tasks = summary.per_task(frame())
    table = summary.engine_table(tasks, "a", shift_s=MS, virtual_best=False)
    ratio = table.set_index(["engine", "formulation"])["ratio"]
    assert ratio[("c", "alldiff")] == pytest.approx((1 + 1) / (10 + 1))
    assert ratio[("c", "pairwise")] == pytest.approx((2.5 + 1) / (10 + 1))
    assert ratio[("c", "alldiff")] < ratio[("c", "pairwise")]     # alldiff is c's faster one
    assert ratio[("a", "pairwise")] == pytest.approx((2 + 1) / (10 + 1))
    assert summary.baseline_label(tasks, "a") == "a [alldiff]"


def test_the_headline_names_the_baseline_formulation_and_each_engine_its_reference(tmp_path):
    folder = store(tmp_path / "run", frame(), config={"engines_run": ["a", "c"], "repeat": 1,
                                                     "baseline": "a"})
    report_of(folder, quiet=True)
    text = (folder / "summary.md").read_text()
    assert "## Headline (baseline: a [alldiff]; shift " in text
    assert "x ratio to the engine's own alldiff" in text
    grid = summary.formulation_grid(summary.formulation_table(summary.per_task(frame()), MS))
    assert grid.set_index("engine").loc["c", "alldiff"].endswith("(x1.00) *")
