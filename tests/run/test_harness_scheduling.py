"""How the local executor hands out work: properties, never wall-clock figures."""
from __future__ import annotations

import pytest

from compare.executors.local.executor import LocalExecutor
from compare.executors.local.pool import Pending
from compare.executors.tasks import Task
from puzzles.formats.grids import format_grid
from puzzles.loader import load_puzzles

FAKES = "tests.fake_engines"      # imported by the workers only
EASY = "puzzles/data/gen-9x9-easy.txt"


@pytest.fixture(scope="module")
def forty(tmp_path_factory) -> dict:
    """Forty 9x9 puzzles, ids ``forty:1`` to ``forty:40`` (the easy set four times)."""
    lines = [format_grid(e.puzzle, "line") for e in load_puzzles(EASY)] * 4
    path = tmp_path_factory.mktemp("scheduling") / "forty.txt"
    path.write_text("".join(lines[:40]))
    return puzzles_of(str(path), 40)


def puzzles_of(path: str, count: int) -> dict:
    return {e.id: e.puzzle for e in load_puzzles(path)[:count]}


class Watched(LocalExecutor):
    """Records, after every hand-out, what each worker holds."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.held: list[list[list[Task]]] = []
        self.engines_held: list[list[tuple[str, bool]]] = []

    def _dispatch(self, *args):
        super()._dispatch(*args)
        self.held.append([list(w.inflight) for w in self.pool])
        self.engines_held.append([(w.engine, w.busy) for w in self.pool])


def test_long_tasks_never_queue_behind_each_other():
    """Four hanging tasks among quick ones on two workers: each waits in the parent,
    never in a worker's queue, so the two workers take them two and two."""
    puzzles = puzzles_of(EASY, 10)
    tasks = []
    for i, pid in enumerate(puzzles):
        for engine in ["fake", "backtracking"] + (["fake-sleep"] if i < 4 else []):
            tasks.append(Task(len(tasks), pid, "alldiff", engine, "first", 2, 0.2, 0))
    with Watched(2, ["fake", "backtracking", "fake-sleep"], plugins=FAKES) as ex:
        done = list(ex.run(tasks, puzzles))
    assert sorted(t.tid for t, _ in done) == list(range(len(tasks)))
    assert {str(r.status) for t, r in done if t.engine == "fake-sleep"} == {"timeout"}
    for snapshot in ex.held:
        for queue in snapshot:
            assert sum(t.engine == "fake-sleep" for t in queue) <= 1
            if any(t.engine == "fake-sleep" for t in queue):
                assert len(queue) == 1          # a task not known short travels alone


def test_short_tasks_travel_in_chunks(forty):
    puzzles = forty
    tasks = [Task(i, pid, "alldiff", "fake", "first", 2, 10.0, 0)
             for i, pid in enumerate(puzzles)]
    with Watched(2, ["fake"], plugins=FAKES) as ex:
        done = list(ex.run(tasks, puzzles))
    assert len(done) == 40
    assert max(len(q) for snapshot in ex.held for q in snapshot) > 1


def test_tasks_queued_behind_a_long_one_go_to_an_idle_worker(forty):
    """Line 30 stalls its worker; the tasks chunked behind it are taken back and
    run by the other worker, so every other result arrives before the stalled one.
    The stall is long (6 s) so that a loaded machine still runs the ten tasks
    behind it first."""
    puzzles = forty
    stall = "fake-stall:nap=6"
    tasks = [Task(i, pid, "alldiff", stall, "first", 2, 30.0, 0)
             for i, pid in enumerate(puzzles)]
    stalled = [pid for pid in puzzles if pid.endswith(":30")]
    # Where the chunks break depends on the times the executor learns; a run whose
    # chunks put the stall first in its queue proves nothing, so it is run again.
    for _ in range(3):
        with Watched(2, [stall], plugins=FAKES) as ex:
            done = [t.puzzle_id for t, _ in ex.run(tasks, puzzles)]
        assert sorted(done) == sorted(puzzles)
        assert done[-1:] == stalled
        behind = [q for snapshot in ex.held for q in snapshot
                  if any(t.puzzle_id in stalled for t in q)]
        if any(len(q) > 1 and q[0].puzzle_id not in stalled for q in behind):
            return
    pytest.fail("the stalled task was never queued behind others in three runs: "
                "the test proves nothing")


def test_each_worker_serves_one_engine_and_no_more_run_at_once_than_asked(forty):
    """Engines interleaved puzzle by puzzle on one worker: every process runs one
    engine's tasks only, and a single core's worth of them is busy at a time."""
    puzzles = dict(list(forty.items())[:12])
    tasks = [Task(i * 3 + k, pid, "alldiff", engine, "first", 2, 10.0, 0)
             for i, pid in enumerate(puzzles)
             for k, engine in enumerate(["fake", "backtracking", "fake-nap:nap=0.01"])]
    with Watched(1, ["fake", "backtracking", "fake-nap:nap=0.01"], plugins=FAKES) as ex:
        done = list(ex.run(tasks, puzzles))
        assert sorted(t.tid for t, _ in done) == sorted(t.tid for t in tasks)
        assert ex.started == {"fake": 1, "backtracking": 1, "fake-nap:nap=0.01": 1}
    for snapshot, owners in zip(ex.held, ex.engines_held):
        assert sum(busy for _, busy in owners) <= 1
        for queue, (engine, _) in zip(snapshot, owners):
            assert all(t.engine == engine for t in queue)



def test_a_task_stalled_after_its_worker_last_reported_still_loses_its_queue(forty):
    """The other worker is idle and nothing waits in the parent when the stall
    starts, and no message comes while it lasts: the executor still wakes up
    to take back the tasks queued behind it, rather than sleeping until the
    stalled task's deadline."""
    stall = "fake-stall:nap=4"
    tasks = [Task(i, pid, "alldiff", stall, "first", 2, 30.0, 0)
             for i, pid in enumerate(forty)]
    with Watched(2, [stall], plugins=FAKES) as ex:
        ex.start()
        for w in ex.pool:              # both workers ready before the first hand-out
            while not w.ready:
                list(ex._collect(Pending([])))
        done = [t.puzzle_id for t, _ in ex.run(tasks, forty)]
    assert done[-1] == "forty:30"


class _ByReference:
    """A puzzle given by reference: its worker loads it (what ``load_input`` marks)."""

    def load_input(self):
        return 0.0, 0.0, "file"


def test_two_workers_do_not_load_one_instance_at_once():
    """Engine b's idle worker skips the instance engine a's worker is loading, takes
    the next, and comes back to the first once an answer shows it is cached."""
    from collections import deque

    from compare.executors.local.pool import Worker

    puzzles = {"one": _ByReference(), "two": _ByReference(), "grid": object()}
    executor = LocalExecutor(workers=2)
    loading = Worker(proc=None, conn=None, tokens=(None, None), lifeline=None, engine="a")
    loading.inflight.append(Task(0, "one", "default", "a", "first", 2, 5.0, 0))
    executor.pool.append(loading)
    queue = deque(Task(i, pid, "default", "b", "first", 2, 5.0, 0)
                  for i, pid in enumerate(("one", "two"), 1))
    executor._spread_loads(queue, puzzles)
    assert [t.puzzle_id for t in queue] == ["two", "one"]

    queue = deque([Task(3, "one", "default", "b", "first", 2, 5.0, 0)])
    executor._spread_loads(queue, puzzles)          # nothing else waits: it waits for the cache
    assert [t.puzzle_id for t in queue] == ["one"]

    executor.answered_puzzles.add("one")            # loaded once: the cache holds it
    queue = deque(Task(i, pid, "default", "b", "first", 2, 5.0, 0)
                  for i, pid in enumerate(("one", "two"), 4))
    executor._spread_loads(queue, puzzles)
    assert [t.puzzle_id for t in queue] == ["one", "two"]

    loading.inflight[0] = Task(0, "grid", "alldiff", "a", "first", 2, 5.0, 0)
    queue = deque(Task(i, pid, "alldiff", "b", "first", 2, 5.0, 0)
                  for i, pid in enumerate(("grid", "two"), 6))
    executor._spread_loads(queue, puzzles)          # a puzzle held in full travels as it is
    assert [t.puzzle_id for t in queue] == ["grid", "two"]
