"""How finished tasks travel and land: results packed on their way from a worker to
the parent (``worker.PackedResults``, ``worker.send_results``), and puzzle rows
stored during the run with the results that need them (``runner.PuzzleRows``,
``Store.stage_puzzles``)."""
from __future__ import annotations

import multiprocessing
import pickle
import random
import sqlite3
from dataclasses import fields, replace

import pytest

from compare.executors.base import Executor
from compare.executors.local.worker.session import Session, WorkerInit
from compare.executors.local.worker.transport import PackedResults, send_results
from compare.executors.tasks import PuzzleRecord, Task
from compare.run.runner import answer_string, execute, puzzle_row
from compare.store import store as store_module
from compare.store.store import DB_NAME, Store
from engines import Result, Status, get_engine
from puzzles.kinds.generator import full_grid
from puzzles.kinds.sudoku import Sudoku

# Five 9x9 puzzles of the repository's hard set: the search needs a few nodes on some
HARD = ["36......9..8.....1...9.75....7....18..2.7....64............89....13..64.........7",
        ".21.....7......9..3...2.65......4..346...1.2...7...........723..1.9....4..6.12...",
        "8..5..1.7..94.....7......5..9..7583.4.........1..8.....7...1.....4.6....3.6....8.",
        ".9.31........8.2.5.......4.....784.2........7..9..5.1.97...28.66.....12...1......",
        "78...1......96.4..................1..78.5...6......2.32.7..36...53.86..1...12...."]


def sudoku(line: str) -> Sudoku:
    return Sudoku(9, tuple(0 if c == "." else int(c) for c in line))


def answer(seed: int) -> tuple[int, ...]:
    """A full 9x9 grid, as an engine answers a Sudoku in the alldiff formulation."""
    return full_grid(9, random.Random(seed))


def solved(seed: int, **changes) -> Result:
    """A result of the common form: solved, one answer, measured, nothing said."""
    result = Result("backtracking", "builtin", "1.0", "first", Status.SOLVED,
                    solutions=[answer(seed)], build_s=0.000123456789 * (seed + 1),
                    solve_s=1 / 3 + seed, nodes=17 * seed, backtracks=5 * seed,
                    cpu_s=0.1 + 0.2 + seed, peak_rss_mb=123.456789012345 + seed, host="node-1")
    return replace(result, **changes)


def batch() -> list[tuple[int, Result]]:
    """Four results with different times, counts and answers, under tids with gaps."""
    return [(tid, solved(seed)) for tid, seed in ((3, 0), (17, 1), (4, 2), (1_000_003, 3))]


class ResultWithExtras(Result):
    """An engine's own kind of result: never packed, its extras would be lost."""


def as_subclass(result: Result) -> Result:
    return ResultWithExtras(**{f.name: getattr(result, f.name) for f in fields(result)})


def with_value(value: int):
    def change(result: Result) -> Result:
        return replace(result, solutions=[(value,) + result.solutions[0][1:]])
    return change


# ----- packing ----------------------------------------------------------------------------
def test_packed_results_survive_pickling_unchanged_in_order():
    pairs = batch() + [(9, solved(4, build_s=5e-324, solve_s=1e9, nodes=2 ** 62))]
    packed = PackedResults.of(pairs)
    assert isinstance(packed, PackedResults)
    assert len(packed) == len(pairs) == 5
    back = list(pickle.loads(pickle.dumps(packed)))
    assert back == pairs
    assert [tid for tid, _ in back] == [3, 17, 4, 1_000_003, 9]
    for (_, got), (_, sent) in zip(back, pairs):      # each float to the last bit
        assert (got.build_s, got.solve_s, got.cpu_s, got.peak_rss_mb) == \
            (sent.build_s, sent.solve_s, sent.cpu_s, sent.peak_rss_mb)
        assert (got.nodes, got.backtracks) == (sent.nodes, sent.backtracks)
        assert type(got) is Result and got.status is Status.SOLVED
        assert type(got.solutions) is list and type(got.solutions[0]) is tuple
        assert got.solutions[0] == sent.solutions[0] and len(got.solutions[0]) == 81
    assert back[1][1].solutions != back[2][1].solutions     # not one answer for all


def test_packed_results_keep_each_search_statistic_and_which_were_not_reported():
    pairs = [(1, solved(1, failures=3, propagations=2 ** 62, restarts=0, nogoods=None)),
             (2, solved(2)),                                     # reports none of them
             (3, solved(3, failures=0, nogoods=11))]
    back = list(pickle.loads(pickle.dumps(PackedResults.of(pairs))))
    assert back == pairs
    assert [(r.failures, r.propagations, r.restarts, r.nogoods) for _, r in back] == \
        [(3, 2 ** 62, 0, None), (None, None, None, None), (0, None, None, 11)]


def test_packed_results_can_be_read_twice():
    packed = PackedResults.of(batch())
    assert list(packed) == list(packed) == batch()


DISQUALIFYING = {
    "a message": lambda r: replace(r, message="note"),
    "stats": lambda r: replace(r, stats={"branches": 3}),
    "a traceback": lambda r: replace(r, traceback="Traceback ..."),
    "a count": lambda r: replace(r, count=1),
    "unsatisfiable": lambda r: replace(r, status=Status.UNSAT),
    "a timeout": lambda r: replace(r, status=Status.TIMEOUT),
    "two solutions": lambda r: replace(r, solutions=[r.solutions[0], answer(99)]),
    "no solution": lambda r: replace(r, solutions=[]),
    "a value of 256": with_value(256),
    "a value of -1": with_value(-1),
    "a shorter answer": lambda r: replace(r, solutions=[r.solutions[0][:80]]),
    "no CPU time": lambda r: replace(r, cpu_s=None),
    "no peak memory": lambda r: replace(r, peak_rss_mb=None),
    "another engine": lambda r: replace(r, engine="cpsat"),
    "another host": lambda r: replace(r, host="node-2"),
    "a subclass of Result": as_subclass,
}


@pytest.mark.parametrize("position", [0, 2, 3], ids=["first", "middle", "last"])
@pytest.mark.parametrize("change", list(DISQUALIFYING.values()), ids=list(DISQUALIFYING))
def test_one_result_out_of_the_common_form_leaves_the_batch_unpacked(change, position):
    pairs = batch()
    assert PackedResults.of(pairs) is not None          # the batch as it was packs
    tid, result = pairs[position]
    pairs[position] = (tid, change(result))
    assert PackedResults.of(pairs) is None


def test_an_empty_batch_is_not_packed():
    assert PackedResults.of([]) is None


def test_a_packed_batch_is_much_smaller_than_the_plain_list():
    pairs = [(tid * 2, solved(tid % 40)) for tid in range(100)]
    packed = PackedResults.of(pairs)
    assert packed is not None
    packed_size = len(pickle.dumps(("done", packed)))
    plain_size = len(pickle.dumps(("done", pairs)))
    assert packed_size < 0.6 * plain_size, (packed_size, plain_size)


# ----- sending ----------------------------------------------------------------------------
@pytest.mark.parametrize("packable", [True, False], ids=["packable", "unpackable"])
def test_send_results_gives_the_receiver_the_same_pairs(packable):
    pairs = batch()
    if not packable:
        pairs[2] = (pairs[2][0], replace(pairs[2][1], status=Status.UNSAT, solutions=[]))
    sender, receiver = multiprocessing.Pipe()
    try:
        send_results(sender, pairs)
        assert receiver.poll(5)
        kind, carried = receiver.recv()
    finally:
        sender.close()
        receiver.close()
    assert kind == "done"
    assert isinstance(carried, PackedResults if packable else list)
    assert list(carried) == pairs


# ----- end to end -------------------------------------------------------------------------
@pytest.mark.slow     # an end-to-end run, with a worker process
def test_a_run_stores_every_result_verified_and_as_the_engine_answers_in_process(tmp_path):
    """Through a real worker (whose results now travel packed), every stored result is
    the one the engine gives in this process: same answer, nodes and backtracks."""
    from compare import run_comparison

    path = tmp_path / "hard.txt"
    path.write_text("\n".join(HARD) + "\n")
    comparison = run_comparison([path], ["backtracking"], workers=1, repeat=1,
                                out=tmp_path / "run")
    frame = comparison.results.set_index("puzzle_id")
    assert sorted(frame.index) == sorted(f"hard:{line}" for line in range(1, 6))
    assert (frame["status"] == "solved").all()
    assert frame["verified"].all()
    assert frame["cpu_s"].notna().all() and frame["peak_rss_mb"].notna().all()

    session = Session(WorkerInit(plugins=(), engines=("backtracking",)))   # as a worker
    engine = get_engine("backtracking")
    expected = []
    for line, text in enumerate(HARD, start=1):
        puzzle = sudoku(text)
        task = Task(line, f"hard:{line}", "alldiff", "backtracking", "first", 2, 10.0, 0)
        mine = session.run(task, puzzle)
        expected.append((line, mine))
        plain = engine.solve(puzzle.to_model("alldiff"), "first", 2, 10.0)
        assert plain.solutions == mine.solutions
        stored = frame.loc[f"hard:{line}"]
        assert stored["answer"] == answer_string(puzzle, mine.solutions[0], "alldiff")
        assert (stored["nodes"], stored["backtracks"]) == (mine.nodes, mine.backtracks)
        assert stored["failures"] == mine.failures == mine.backtracks      # its dead ends
    assert PackedResults.of(expected) is not None       # the path the worker's results took
    assert any(r.nodes != r.backtracks for _, r in expected)   # a swap would show


# ----- puzzle rows ------------------------------------------------------------------------
def records_of(lines: list[str], ids: list[str]) -> dict[str, PuzzleRecord]:
    return {pid: PuzzleRecord(pid, sudoku(text), "set", "set.txt", index + 1)
            for index, (pid, text) in enumerate(zip(ids, lines))}


ORDER = ["set:40", "set:3", "set:17", "set:2", "set:25"]     # input order, not sorted


def solve_all(records: dict[str, PuzzleRecord]) -> dict[str, Result]:
    engine = get_engine("backtracking")
    return {pid: engine.solve(rec.puzzle.to_model("alldiff"), "first", 2, 10.0)
            for pid, rec in records.items()}


def tasks_for(order: list[str]) -> list[Task]:
    return [Task(tid, pid, "alldiff", "backtracking", "first", 2, 10.0, 0)
            for tid, pid in enumerate(order)]


class Answers(Executor):
    """Answers the tasks in the order given (as several workers might), then, if told,
    fails the way an executor can."""

    def __init__(self, answers: dict[str, Result], order: list[int] | None = None,
                 fail_after: int | None = None, watch=None):
        self.answers, self.order, self.fail_after, self.watch = answers, order, fail_after, watch

    def run(self, tasks, puzzles, skip=None, pauses=False):
        tasks = list(tasks)
        order = self.order if self.order is not None else range(len(tasks))
        for count, index in enumerate(order):
            if count == self.fail_after:
                raise RuntimeError("the executor fails")
            task = tasks[index]
            yield task, self.answers[task.puzzle_id]
            if pauses:
                yield None       # each result settled before the next comes
            if self.watch is not None:
                self.watch()     # the previous result has been settled by now


def stored_puzzles(folder) -> list[dict]:
    with sqlite3.connect(folder / DB_NAME) as con:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute("SELECT * FROM puzzles ORDER BY rowid")]


def test_every_puzzle_row_is_stored_in_input_order_as_puzzle_row_gives_it(tmp_path):
    records = records_of(HARD, ORDER)
    tasks = tasks_for(ORDER)
    executor = Answers(solve_all(records), order=[3, 0, 4, 1, 2])
    with Store(tmp_path) as store:
        timing = execute(tasks, records, executor, store,
                         {"backtracking": ("builtin", "1.0")}, progress=False)
        assert timing["results"] == 5 and timing["wrong"] == 0
    assert stored_puzzles(tmp_path) == [puzzle_row(rec) for rec in records.values()]


def test_a_committed_result_always_has_its_puzzle_row_even_when_the_run_fails(
        tmp_path, monkeypatch):
    """Mid-run, what is committed (what a killed run would leave) is the results so far
    and the puzzles up to the last one they answer, in input order; once the executor
    fails, the remaining puzzle rows are stored as well."""
    monkeypatch.setattr(store_module, "FLUSH_S", 0.0)     # every result committed at once
    records = records_of(HARD, ORDER)
    seen: list[tuple[list[str], set[str]]] = []

    def watch():
        with sqlite3.connect(tmp_path / DB_NAME) as con:
            puzzles = [r[0] for r in con.execute("SELECT puzzle_id FROM puzzles ORDER BY rowid")]
            answered = {r[0] for r in con.execute("SELECT puzzle_id FROM results")}
        seen.append((puzzles, answered))

    # the third puzzle is answered first, then the first, then the executor fails
    executor = Answers(solve_all(records), order=[2, 0, 4], fail_after=2, watch=watch)
    with Store(tmp_path) as store:
        with pytest.raises(RuntimeError, match="the executor fails"):
            execute(tasks_for(ORDER), records, executor, store,
                    {"backtracking": ("builtin", "1.0")}, progress=False)
    assert seen == [(ORDER[:3], {ORDER[2]}),
                    (ORDER[:3], {ORDER[2], ORDER[0]})]
    for puzzles, answered in seen:
        assert answered <= set(puzzles)
    with sqlite3.connect(tmp_path / DB_NAME) as con:
        answered = {r[0] for r in con.execute("SELECT puzzle_id FROM results")}
    assert answered == {ORDER[2], ORDER[0]}
    assert stored_puzzles(tmp_path) == [puzzle_row(rec) for rec in records.values()]


def test_staged_puzzle_rows_are_committed_only_by_flush_and_add_puzzles_commits_at_once(
        tmp_path):
    records = list(records_of(HARD[:2], ["set:1", "set:2"]).values())
    with Store(tmp_path) as store:
        store.stage_puzzles([puzzle_row(records[0])])
        assert stored_puzzles(tmp_path) == []             # another reader sees nothing yet
        store.flush()
        assert stored_puzzles(tmp_path) == [puzzle_row(records[0])]
        store.add_puzzles([puzzle_row(records[1])])
        assert stored_puzzles(tmp_path) == [puzzle_row(r) for r in records]


def test_a_run_with_no_tasks_still_stores_every_puzzle_row(tmp_path):
    records = records_of(HARD, ORDER)
    with Store(tmp_path) as store:
        timing = execute([], records, Answers({}), store, {}, progress=False)
        assert timing["results"] == 0
    assert stored_puzzles(tmp_path) == [puzzle_row(rec) for rec in records.values()]


def test_a_resumed_run_keeps_its_stored_puzzles_in_input_order(tmp_path):
    """Storing a puzzle's row again updates it where it is: the table stays in input
    order mid-run, whichever puzzle a resumed run's first results answer."""
    records = list(records_of(HARD, ORDER).values())
    with Store(tmp_path) as store:
        store.add_puzzles([puzzle_row(r) for r in records])
        changed = dict(puzzle_row(records[2]), line=99)
        store.stage_puzzles([changed])
        store.flush()
        query = "SELECT puzzle_id FROM puzzles ORDER BY rowid"
        assert [row[0] for row in store.db.execute(query)] == ORDER
        assert list(store.puzzles()) == ORDER
        assert int(store.puzzles()[ORDER[2]]["line"]) == 99
