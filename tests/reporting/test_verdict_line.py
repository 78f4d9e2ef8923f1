"""The verdict line: every status counted, warm-up kills named, ``--fail-on``, summary.json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import tests.fake_engines  # noqa: F401  (registers fake-compile, which compiles)
from compare.cli.common import FAIL_ON
from compare.cli.report import main as report_main
from compare.executors.base import (
    KILLED_WARMING_UP,
    WARMUP_CAP_S,
    WARMUP_LIMIT_S,
    WARMUP_RETRIES,
    grace_for,
)
from compare.executors.local.executor import LocalExecutor
from compare.executors.local.pool import Pending, Worker
from compare.executors.tasks import Task
from compare.facts import Fact
from compare.reporting import summary
from compare.reporting.headline import Verdict, verdict_of
from tests.reporting.test_stats import MS, frame_of, report_of, store

REPO = Path(__file__).resolve().parents[2]


def timeouts_frame() -> pd.DataFrame:
    """``a`` solves four puzzles; the plugin engine ``mine`` times out on three."""
    rows = [{"puzzle_id": f"p{i}", "engine": "a"} for i in range(4)]
    rows += [{"puzzle_id": f"p{i}", "engine": "mine", "status": "timeout", "verified": None,
              "answer": None, "total_s": 1.0} for i in range(3)]
    rows += [{"puzzle_id": "p3", "engine": "mine"}]
    return frame_of(rows)


def test_timeouts_are_counted_in_the_first_line_and_fail_on_timeout_exits_4(tmp_path, capsys):
    folder = store(tmp_path / "run", timeouts_frame(), planned={"a": 4, "mine": 4},
                   config={"engines_run": ["a", "mine"], "repeat": 1})
    report = report_of(folder, quiet=True)
    line = report.verdict.line()
    assert line.startswith("TIMEOUT: 8 tasks: 5 solved, 3 timeout; ")
    assert line.endswith("every answer given was verified and the engines agree")
    assert (folder / "summary.md").read_text().splitlines()[2] == line
    assert capsys.readouterr().err.splitlines()[0] == line
    assert report_main(["--out", str(folder), "--quiet"]) == 0
    assert report_main(["--out", str(folder), "--quiet", "--fail-on", "timeout"]) == 4
    saved = json.loads((folder / "summary.json").read_text())
    assert saved["verdict"]["verdict"] == "TIMEOUT"
    assert saved["verdict"]["statuses"] == {"solved": 5, "timeout": 3}
    assert {row["engine"] for row in saved["engines"]} == {"a", "mine", "virtual best"}


def test_a_bad_fail_on_word_is_a_usage_error_with_a_suggestion(tmp_path, capsys):
    folder = store(tmp_path / "run", timeouts_frame())
    with pytest.raises(SystemExit) as stop:
        report_main(["--out", str(folder), "--fail-on", "timeuot"])
    assert stop.value.code == 2
    assert "did you mean timeout?" in capsys.readouterr().err


def test_every_fail_on_word_is_counted():
    assert set(Verdict().fail_counts()) == set(FAIL_ON)


def test_a_repeat_killed_while_warming_up_is_no_solved_task():
    message = f"killed after 12.0 s (time limit 10 s) {KILLED_WARMING_UP} (model build)"
    rows = [{"engine": "numba", "repeat": 0, "status": "timeout", "verified": None,
             "total_s": 12.0, "message": message, "fact": Fact.WARMUP_KILLED}]
    rows += [{"engine": "numba", "repeat": r, "total_s": MS} for r in (1, 2)]
    rows += [{"engine": "a", "repeat": r, "total_s": MS} for r in range(3)]
    frame = frame_of(rows)
    tasks = summary.per_task(frame).set_index("engine")
    assert tasks.loc["numba", "status"] == "timeout" and not tasks.loc["numba", "solved"]
    table = summary.engine_table(summary.per_task(frame), "a").set_index("engine")
    assert table.loc["numba", "solved"] == 0 and table.loc["numba", "timeouts"] == 1
    line = verdict_of(frame).line()
    assert line.startswith("TIMEOUT: 2 tasks x 3 repeats: 1 solved, 1 timeout (1 repeat(s) "
                           "killed while their shape was warming up)")


def test_tasks_left_out_of_the_tables_and_warm_up_cost_are_in_the_line():
    runs = [{"warmup": {"start-up": [{"engine": "a", "total_s": 1.5}],
                        "shapes": [{"engine": "a", "shape": "x", "total_s": 0.25}]}}]
    verdict = verdict_of(timeouts_frame(), planned={"a": 4, "mine": 5}, compared=6, runs=runs)
    assert verdict.word == "INCOMPLETE"
    assert "1 planned result(s) missing" in verdict.line()
    assert "2 task(s) not compared" in verdict.line()
    assert verdict.line().endswith("warm-up 1.75 s untimed")
    runs[0]["warmup"]["killed"] = [{"engine": "a", "shape": "x", "seconds": 60.0}]
    line = verdict_of(timeouts_frame(), runs=runs).line()
    assert line.endswith("warm-up 61.8 s untimed (1 shape warm-up(s) killed at their limit, "
                         "the task run again with twice the limit)")


class _Closable:
    exitcode, pid = -9, None

    def close(self):
        pass

    def kill(self):
        pass

    def join(self, timeout=None):
        pass


def _executor_and_worker(engine: str = "fake-compile"):
    executor = LocalExecutor.__new__(LocalExecutor)
    executor.shape_kills, executor.warmup_kills, executor.gave_up = {}, [], None
    executor.memory_limit, executor.guesses = None, {}
    worker = Worker(proc=_Closable(), conn=_Closable(), tokens=(_Closable(), _Closable()),
                     lifeline=_Closable(), warming=None)
    worker.inflight.append(Task(0, "p", "alldiff", engine, "first", 2, 1.0, 0))
    executor.pool = [worker]
    return executor, worker


def test_a_shape_warming_up_has_the_warm_up_limit_not_the_task_limit():
    executor, worker = _executor_and_worker()
    assert executor._limit_of(worker) < 3
    worker.shaping, worker.shape = True, "sudoku-16/alldiff"
    assert executor._limit_of(worker) == WARMUP_LIMIT_S


def test_an_engine_that_declares_no_compile_warms_a_shape_under_the_task_limit():
    """Its warm-up is the task's time: killed at the task's limit plus grace, the task is
    a timeout at once, never run again with a longer warm-up."""
    executor, worker = _executor_and_worker("fake")
    worker.shaping, worker.shape = True, "sudoku-16/alldiff"
    assert executor._limit_of(worker) == 1.0 + grace_for(1.0)
    pending = Pending(())
    (task, result), = executor._replace(worker, pending, "timeout")
    assert result.status == "timeout" and not pending and executor.shape_kills == {}


def test_a_task_whose_warm_up_was_killed_runs_again_with_twice_the_limit_up_to_the_cap():
    for kills in range(WARMUP_RETRIES + 1):
        executor, worker = _executor_and_worker()
        executor.shape_kills = {("fake-compile", "sudoku-16/alldiff"): kills}
        worker.shaping, worker.shape = True, "sudoku-16/alldiff"
        assert executor._limit_of(worker) == min(WARMUP_LIMIT_S * 2 ** kills, WARMUP_CAP_S)
        pending = Pending(())
        lost = list(executor._replace(worker, pending, "timeout"))
        if kills < WARMUP_RETRIES:          # the task never started: it runs again
            assert lost == [] and [t.puzzle_id for t in pending.take_all()] == ["p"]
            assert executor.shape_kills == {("fake-compile", "sudoku-16/alldiff"): kills + 1}
        else:                               # a shape that never warms up: a timeout, said why
            (task, result), = lost
            assert result.status == "timeout" and KILLED_WARMING_UP in result.message
            assert result.fact == Fact.WARMUP_KILLED       # counted as data, not read back
            assert not pending


@pytest.mark.slow
def test_a_slow_first_compile_is_not_killed_as_a_timeout(tmp_path):
    """A first translate of 3 s (a numba compile on an empty cache) against a 1 s limit."""
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "run_compare.py", "--puzzles", "latin:5",
                           "--engines", "fake-compile:nap=3", "--timeout", "1", "--repeat", "2",
                           "--workers", "1", "--out", str(out), "--quiet"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0].startswith("OK: 1 task x 2 repeats: 1 solved; ")
    frame = pd.read_csv(out / "results.csv")
    assert set(frame["status"]) == {"solved"}
