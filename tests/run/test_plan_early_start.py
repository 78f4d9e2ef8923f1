"""Workers of a run over big puzzle files start while the files are read."""
from __future__ import annotations

import psutil
import pytest

from compare import run_comparison
from compare.executors.local.executor import LocalExecutor
from compare.limits import SettingsError
from compare.run import plan as plan_module
from compare.settings import RunSettings

EASY = "puzzles/data/gen-9x9-easy.txt"


@pytest.fixture
def order(monkeypatch) -> list[str]:
    """What happened first: workers starting, or the puzzles being read."""
    seen: list[str] = []
    start, records = LocalExecutor.start, plan_module._records
    monkeypatch.setattr(LocalExecutor, "start",
                        lambda self: seen.append("start") or start(self))
    monkeypatch.setattr(plan_module, "_records",
                        lambda *a: seen.append("read") or records(*a))
    return seen


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_big_files_start_the_workers_before_they_are_read(monkeypatch, order, tmp_path):
    monkeypatch.setattr(plan_module, "EARLY_START_BYTES", 0)
    run = run_comparison([EASY], ["backtracking"], repeat=1, sample=3, workers=2,
                         out=tmp_path / "run")
    assert order[:2] == ["start", "read"]
    assert run.results["verified"].eq(True).sum() == 3
    assert run.runs[-1]["workers"] == 2


def test_small_files_are_read_first(order, tmp_path):
    run_comparison([EASY], ["backtracking"], repeat=1, sample=1, out=tmp_path / "run")
    assert order[:2] == ["read", "start"]


def test_the_early_count_is_bounded_by_the_lines_and_the_sample(monkeypatch, tmp_path):
    """One line, one engine, one repeat: one worker, however many were asked for."""
    monkeypatch.setattr(plan_module, "EARLY_START_BYTES", 0)
    made = []
    monkeypatch.setattr(LocalExecutor, "start", lambda self: made.append(self.workers))
    one = tmp_path / "one.txt"
    one.write_text(open(EASY).readline())

    def early(**settings) -> int:
        executor = LocalExecutor(2, ["backtracking"])
        run = RunSettings(**{"repeat": 1, **settings})
        assert plan_module._started_early(executor, run, ["backtracking"], 2)
        return executor.workers

    assert early(puzzles=(str(one),)) == 1
    assert early(puzzles=(EASY,), sample=1) == 1
    assert early(puzzles=(EASY,), repeat=3) == 2
    assert made == [1, 1, 2]


def test_small_files_start_nothing_early(tmp_path):
    executor = LocalExecutor(2, ["backtracking"])
    run = RunSettings(puzzles=("queens:4",), repeat=1)
    assert not plan_module._started_early(executor, run, ["backtracking"], 2)
    assert executor.pool == [] and executor.preparing is None


def test_a_read_that_fails_after_an_early_start_leaves_no_process(monkeypatch, order,
                                                                  tmp_path):
    monkeypatch.setattr(plan_module, "EARLY_START_BYTES", 0)
    bad = tmp_path / "bad.txt"
    bad.write_text("not a puzzle\n" * 20)
    before = _children()
    with pytest.raises(SettingsError, match="no valid puzzle"):
        run_comparison([str(bad)], ["backtracking"], repeat=1, workers=2,
                       out=tmp_path / "run")
    assert order[:2] == ["start", "read"]
    assert _children() <= before
    assert not (tmp_path / "run").exists()


def test_a_run_of_one_task_starts_one_worker(monkeypatch):
    """Whatever the cores or --workers say, a pool is never larger than the tasks."""
    monkeypatch.setattr(plan_module.os, "cpu_count", lambda: 64)
    assert plan_module.worker_count(None, 1, None) == (1, None)
    assert plan_module.worker_count(8, 1, None)[0] == 1
