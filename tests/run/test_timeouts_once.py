"""A task that timed out is not run again on its later repeats, unless asked."""
from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import pytest

from compare.executors.base import Executor
from compare.executors.local.executor import LocalExecutor
from compare.executors.tasks import Task
from compare.facts import Fact
from compare.run.runner import NOT_REPEATED, TimeoutsOnce, not_repeated
from engines import Result, Status
from tests.run.test_harness import results, run, small  # noqa: F401  (the fixture)


def _task(repeat: int, puzzle: str = "p:1", engine: str = "e") -> Task:
    return Task(repeat, puzzle, "alldiff", engine, "first", 2, 1.0, repeat)


def test_only_later_repeats_of_the_same_task_are_answered_without_running():
    once = TimeoutsOnce()
    first = Result("e", "lib", "1", "first", Status.TIMEOUT, build_s=0.1, solve_s=1.2)
    once.note(_task(0), {"status": "timeout"}, first)
    assert once.skip(_task(0)) is None                   # the timed-out repeat itself
    assert once.skip(_task(1, puzzle="p:2")) is None     # another puzzle
    assert once.skip(_task(1, engine="f")) is None       # another engine
    stand_in = once.skip(_task(2))
    assert stand_in.status == Status.TIMEOUT and stand_in.total_s == pytest.approx(1.3)
    assert stand_in.message.startswith(NOT_REPEATED) and "repeat 1" in stand_in.message
    assert stand_in.fact == Fact.NOT_REPEATED


def test_a_solved_task_and_a_stand_in_do_not_start_the_rule():
    once = TimeoutsOnce()
    once.note(_task(0), {"status": "solved"}, Result("e", "", "", "first", Status.SOLVED))
    assert once.skip(_task(1)) is None
    stand_in = Result("e", "", "", "first", Status.TIMEOUT, message=f"{NOT_REPEATED} 1",
                      fact=Fact.NOT_REPEATED)
    once.note(_task(1), {"status": "timeout"}, stand_in)
    assert once.skip(_task(2)) is None


def test_take_runnable_answers_skipped_tasks_and_stops_at_one_to_run():
    pending = deque([_task(1), _task(2, puzzle="p:2"), _task(3)])
    answered = []

    def skip(task):
        return Result("e", "", "", "first", Status.TIMEOUT) if task.puzzle_id == "p:1" else None
    assert Executor.take_runnable(pending, skip, answered)
    assert [t.tid for t, _ in answered] == [1] and pending[0].tid == 2
    pending.popleft()
    assert not Executor.take_runnable(pending, skip, answered)
    assert [t.tid for t, _ in answered] == [1, 3] and not pending


def test_a_task_waits_while_its_earlier_repeat_runs_and_one_behind_it_goes_first():
    executor = LocalExecutor(1, ["e"])
    executor.skip = TimeoutsOnce().skip
    executor.pool = [SimpleNamespace(inflight=deque([_task(0)]))]     # repeat 0 is running
    pending = deque([_task(1), _task(2, puzzle="p:2"), _task(3)])
    assert executor._may_start(pending)
    assert [(t.puzzle_id, t.repeat) for t in pending] == [("p:2", 2), ("p:1", 1), ("p:1", 3)]
    blocked = deque([_task(1), _task(3)])
    assert not executor._may_start(blocked) and len(blocked) == 2
    executor.pool[0].inflight.clear()
    assert executor._may_start(blocked) and blocked[0].repeat == 1


@pytest.mark.slow
@pytest.mark.parametrize("force, sample, workers", [(False, 2, 1), (True, 2, 1), (False, 1, 1),
                                                    (False, 1, 2)])
def test_a_run_does_not_repeat_timeouts_unless_asked(small, tmp_path, force, sample,  # noqa: F811
                                                     workers):
    """With one puzzle, a timeout's next repeat is the very next task of its engine:
    it must not be handed out before the timeout is recorded, not even to a second
    worker that is free while the first runs it."""
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--sample", sample, "--engines", "fake,fake-sleep",
               "--timeout", 0.2, "--repeat", 3, "--workers", workers, "--out", out,
               *(["--repeat-timeouts"] if force else []))
    assert proc.returncode == 0, proc.stderr
    frame = results(out)
    slept = frame[frame["engine"] == "fake-sleep"]
    assert len(slept) == 3 * sample and slept["status"].eq("timeout").all()
    stand_ins = slept["message"].fillna("").str.startswith(NOT_REPEATED)
    assert not_repeated(frame) == int(stand_ins.sum()) == (0 if force else 2 * sample)
    assert (sorted(slept.loc[~stand_ins, "repeat"]) == sorted([0, 1, 2] * sample) if force
            else sorted(slept.loc[~stand_ins, "repeat"]) == [0] * sample)
    said = f"{2 * sample} timeout(s) not repeated"
    assert (said in proc.stderr) != force and (said in (out / "summary.md").read_text()) != force
    assert frame.loc[frame["engine"] == "fake", "status"].eq("solved").all()


def test_a_chunk_ends_before_a_task_whose_earlier_repeat_runs_or_rides_in_it():
    """A later repeat never travels behind its earlier one: should that time out, the
    later one is answered as a timeout without running, not run from a worker's queue."""
    executor = LocalExecutor(1, ["e"])
    executor.skip = TimeoutsOnce().skip
    executor.guesses = {"e": 0.001}                               # every task short
    executor.pool = [SimpleNamespace(inflight=deque([_task(0, puzzle="p:9")]))]
    pending = deque([_task(0, puzzle="p:1"), _task(0, puzzle="p:2"), _task(1, puzzle="p:3"),
                     _task(1, puzzle="p:1"), _task(1, puzzle="p:4")])
    chunk = executor._chunk(pending, [])
    assert [(t.puzzle_id, t.repeat) for t in chunk] == [("p:1", 0), ("p:2", 0), ("p:3", 1)]
    assert pending[0].puzzle_id == "p:1" and pending[0].repeat == 1
    behind_running = deque([_task(0, puzzle="p:5"), _task(1, puzzle="p:9")])
    assert [t.puzzle_id for t in executor._chunk(behind_running, [])] == ["p:5"]
    executor.skip = None                   # --repeat-timeouts: repeats may share a chunk
    again = deque([_task(0, puzzle="p:1"), _task(1, puzzle="p:1")])
    assert len(executor._chunk(again, [])) == 2
