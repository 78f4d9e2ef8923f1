"""The worker side on its own, in this process: warm-up per shape, measurement, faults."""
from __future__ import annotations

import pytest

import tests.fake_engines  # noqa: F401  (registers the fake engines here)
from compare.executors.local.worker.session import Session, WorkerInit
from compare.executors.local.worker.transport import sendable
from compare.executors.tasks import Task
from engines import Result, Status
from puzzles.loader import load_puzzles

SIXTEEN = "puzzles/data/gen-16x16-easy.txt"


def session(*labels: str, **kwargs) -> tuple[Session, list]:
    said: list = []
    init = WorkerInit((), tuple(labels), **kwargs)
    return Session(init, said.append), said


def task(tid: int, pid: str, engine: str, timeout: float = 10.0) -> Task:
    return Task(tid, pid, "alldiff", engine, "first", 2, timeout, 0)


def test_each_new_shape_is_warmed_once_untimed_before_its_first_task():
    run, said = session("backtracking", "fake")
    run.start_up()
    assert said == [("warming", "backtracking"), ("warming", "fake")]
    entries = load_puzzles(SIXTEEN)[:2]
    for n, entry in enumerate(entries):
        for engine in ("backtracking", "fake"):
            said.clear()
            result = run.run(task(n, entry.id, engine), entry.puzzle)
            assert result.status == Status.SOLVED
            warmed = [m for m in said if m[0] == "warmed"]
            if n == 0:       # first 16x16 task of each engine: its shape is new here
                assert [m[2:4] for m in warmed] == [(engine, "sudoku-16/alldiff")]
                assert said[0] == ("shaping", n, "sudoku-16/alldiff")
            else:
                assert warmed == []
    nine = load_puzzles("puzzles/data/gen-9x9-easy.txt")[0]
    said.clear()
    run.run(task(9, nine.id, "backtracking"), nine.puzzle)
    assert said == []                       # 9x9 was warmed at start-up


def test_a_task_on_a_warm_shape_builds_its_model_once(monkeypatch):
    """The shape is read off the timed build: no second, untimed build per puzzle."""
    from puzzles.kinds.sudoku import Sudoku
    run, said = session("backtracking")
    run.start_up()
    entries = load_puzzles("puzzles/data/gen-9x9-easy.txt")[:3]
    builds = []
    real = Sudoku.to_model
    monkeypatch.setattr(Sudoku, "to_model",
                        lambda self, *a, **k: builds.append(self.name) or real(self, *a, **k))
    for n, entry in enumerate(entries):
        assert run.run(task(n, entry.id, "backtracking"), entry.puzzle).status == Status.SOLVED
    assert builds == [e.id for e in entries]
    assert said == [("warming", "backtracking")]


def test_warm_up_leaves_the_heap_frozen_so_no_task_pays_a_full_collection():
    import gc
    gc.unfreeze()
    try:
        run, _ = session("backtracking")
        run.start_up()
        after_start = gc.get_freeze_count()
        assert after_start > 1000                  # the engines' heap, out of the collector's way
        entry = load_puzzles(SIXTEEN)[0]
        run.run(task(0, entry.id, "backtracking"), entry.puzzle)    # a new shape: warmed
        assert gc.get_freeze_count() >= after_start
    finally:
        gc.unfreeze()


def test_kinds_without_a_twin_warm_by_translating():
    from puzzles.catalog import load_spec
    run, said = session("backtracking")
    queens = load_spec("queens:6")
    run.run(task(0, "queens:6", "backtracking"), queens)
    assert [m[0] for m in said] == ["shaping", "warmed"]


def test_every_result_carries_cpu_time_memory_and_host():
    run, _ = session("backtracking")
    entry = load_puzzles(SIXTEEN)[0]
    result = run.run(task(0, entry.id, "backtracking"), entry.puzzle)
    assert result.cpu_s is not None and result.cpu_s >= 0
    assert result.peak_rss_mb is not None and result.peak_rss_mb > 1
    assert result.host
    assert "VmHWM" in run.meter.method or "ru_maxrss" in run.meter.method


def test_running_out_of_memory_is_memout_and_retires_the_worker():
    run, _ = session("fake-hog:mb=1024", memory_limit_mb=128)      # cap: 256 MB more
    entry = load_puzzles(SIXTEEN)[0]
    result = run.run(task(0, entry.id, "fake-hog:mb=1024"), entry.puzzle)
    assert result.status == Status.MEMOUT
    assert "memory limit 128 MB" in result.message and "MemoryError" in result.traceback
    assert run.retire


def test_an_engine_calling_sys_exit_is_an_error_not_the_end_of_the_worker():
    run, _ = session("fake-exit")
    entry = load_puzzles(SIXTEEN)[0]
    result = run.run(task(0, entry.id, "fake-exit"), entry.puzzle)
    assert result.status == Status.ERROR and "sys.exit(0)" in result.message


def test_a_result_that_cannot_be_pickled_is_sent_with_json_stats():
    result = Result("x", "", "", "first", Status.SOLVED, stats={"f": lambda: 1, "n": 3})
    sent = sendable(result)
    assert sent.status == Status.SOLVED and sent.stats["n"] == 3
    assert isinstance(sent.stats["f"], str)


@pytest.mark.parametrize("timeout", [0.000001])
def test_a_model_build_past_the_time_limit_is_a_timeout(timeout):
    run, _ = session("backtracking")
    entry = load_puzzles(SIXTEEN)[0]
    result = run.run(task(0, entry.id, "backtracking", timeout), entry.puzzle)
    assert result.status == Status.TIMEOUT
    assert "building the model" in result.message or "time" in result.message
