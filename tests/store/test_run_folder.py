"""One run folder, one store connection, one task set; executors and engines on equal terms."""
from __future__ import annotations

import pytest

import engines
from compare import compare_runs, open_comparison, run_comparison
from compare.executors.base import Executor
from compare.executors.local.worker.session import solve_task
from compare.reporting import summary
from compare.store import folder as run_folder
from compare.store.folder import RunFolder
from compare.store.store import StorageError, StoreError
from engines.base import Engine
from tests.reporting.test_stats import MS, store, times_frame


class Counted:
    """Counts the store connections opened through the run folder."""

    def __init__(self, monkeypatch):
        self.opened = 0
        real = run_folder.Store

        def opening(*args, **kwargs):
            self.opened += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(run_folder, "Store", opening)


class InProcess(Executor):
    """An executor with nothing but ``run``: every other hook is the interface's default."""

    def run(self, tasks, puzzles, skip=None, pauses=False):
        for task in tasks:
            stand_in = skip(task) if skip is not None else None
            yield task, stand_in or solve_task(engines.get_engine(task.engine), puzzles[task.puzzle_id], task)


def test_a_run_and_its_report_each_open_the_store_once(tmp_path, monkeypatch):
    counted = Counted(monkeypatch)
    comparison = run_comparison(["queens:5"], ["backtracking"], repeat=1, out=tmp_path / "run",
                                executor=InProcess())
    assert counted.opened == 1          # planned, checked, prepared and written: one connection
    assert comparison.ok and len(comparison.results) == 1 and len(comparison.tasks) == 1
    assert comparison.config["engines_run"] == ["backtracking"] and comparison.runs
    comparison.write_report()
    assert counted.opened == 2          # the comparison read it all, and the report, once
    assert (tmp_path / "run" / "summary.md").is_file()


def cut_short(tmp_path):
    """Engine b lost two of four puzzles: the run was stopped."""
    frame = times_frame([1 * MS] * 4, [2 * MS] * 4)
    frame = frame[~((frame["engine"] == "b") & frame["puzzle_id"].isin(["p2", "p3"]))]
    return store(tmp_path / "cut", frame, planned={"a": 4, "b": 4},
                 config={"engines_run": ["a", "b"], "repeat": 1, "baseline": "a"})


def test_every_reader_compares_the_same_tasks_of_a_cut_short_run(tmp_path):
    folder = cut_short(tmp_path)
    common = {"p0", "p1"}
    assert set(RunFolder(folder).tasks["puzzle_id"]) == common
    assert set(open_comparison(folder).tasks["puzzle_id"]) == common
    diff = compare_runs(folder, folder)
    assert diff.engines.set_index("engine")["tasks"].to_dict() == {"a": 2, "b": 2}


def test_a_missing_folder_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no results file there"):
        RunFolder.existing(tmp_path / "nothing")


class Plugged(Engine):
    """A plugin engine that asks to be in the default set twice and to be the baseline."""
    name = "plugged"
    option_defaults = {"step": 1}
    baseline_preferred = True

    @classmethod
    def default_variants(cls) -> list[str]:
        return ["", "step=2"]


def test_a_plugin_engine_takes_part_in_the_defaults_on_equal_terms(monkeypatch):
    monkeypatch.setitem(engines._REGISTRY, "plugged", Plugged)
    specs = engines.default_specs()
    assert specs[-2:] == ["plugged", "plugged:step=2"]
    assert specs[:2] == ["backtracking:variant=seed", "backtracking"]
    frame = times_frame([2 * MS] * 3, [3 * MS] * 3)
    frame["engine"] = frame["engine"].map({"a": "cpsat", "b": "plugged:step=2"})
    tasks = summary.per_task(frame)
    assert summary.choose_baseline(tasks) == "plugged:step=2"     # preferred, though slower
    monkeypatch.setattr(Plugged, "baseline_preferred", False)
    assert summary.choose_baseline(tasks) == "cpsat"              # none preferred: the best


@pytest.mark.parametrize("fault", [StorageError("disk full"), StoreError("damaged")])
def test_a_fault_on_its_way_out_is_not_hidden_by_one_from_closing(tmp_path, monkeypatch,
                                                                   fault):
    """The first fault is the one seen; a fault of the closing alone is still raised."""
    def refuse(self):
        raise fault
    monkeypatch.setattr(RunFolder, "close", refuse)
    with pytest.raises(KeyError):
        with RunFolder(tmp_path):
            raise KeyError("first")
    with pytest.raises(type(fault)):
        with RunFolder(tmp_path):
            pass
