"""Harness pieces on their own: tasks, store, verdicts, summary, executor."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from compare.executors.local.executor import LocalExecutor
from compare.executors.tasks import (
    PuzzleRecord,
    Task,
    build_tasks,
    formulations_for,
    sample_per_origin,
)
from compare.judge.verdict import findings, reproduce
from compare.plugins import PLUGIN_ENV, plugin_environment
from compare.reporting.summary import choose_baseline, engine_table, in_order, per_task
from compare.run.runner import result_row
from compare.store.store import COLUMNS, Store
from engines import Result, Status
from puzzles.kinds.generator import full_grid
from puzzles.kinds.sudoku import Sudoku

BOJ = "103000509002109400000704000300502006060000050700803004000401000009205800804000107"


def sudoku(line: str) -> Sudoku:
    n = int(len(line) ** 0.5)
    return Sudoku(n, tuple(0 if c == "." else int(c) for c in line))


def record(pid: str, puzzle, origin: str = "f.txt", line: int = 1) -> PuzzleRecord:
    return PuzzleRecord(pid, puzzle, origin.split(".")[0], origin, line)


# ----- tasks -------------------------------------------------------------------------
def test_build_tasks_covers_every_combination_repeats_last():
    recs = [record(f"f:{i}", sudoku(BOJ), line=i) for i in range(3)]
    tasks = build_tasks(recs, ["a", "b"], "first", 2, 5.0, 2, ["pairwise", "alldiff", "onehot9"])
    assert len(tasks) == 3 * 2 * 2 * 2          # puzzles x formulations it has x engines x repeats
    assert len({t.key for t in tasks}) == len(tasks)
    assert [t.tid for t in tasks] == list(range(len(tasks)))
    assert all(t.repeat == 0 for t in tasks[:12]) and all(t.repeat == 1 for t in tasks[12:])
    assert formulations_for(sudoku(BOJ), None) == ["alldiff"]
    assert formulations_for(sudoku(BOJ), ["nosuch"]) == []


def test_sample_is_reproducible_per_file_and_keeps_file_order():
    items = [("a.txt", f"a:{i}") for i in range(20)] + [("b.txt", f"b:{i}") for i in range(3)]
    one = sample_per_origin(items, 5, seed=1)
    assert one == sample_per_origin(items, 5, seed=1)
    assert one != sample_per_origin(items, 5, seed=2)
    assert sum(origin == "a.txt" for origin, _ in one) == 5
    assert sum(origin == "b.txt" for origin, _ in one) == 3
    assert one == sorted(one, key=items.index)
    assert sample_per_origin(items, None, seed=1) == items


# ----- store -----------------------------------------------------------------------------
def row(**values) -> dict:
    base = {"puzzle_id": "f:1", "source": "f", "size": 9, "clues": 30, "engine": "x",
            "formulation": "alldiff", "mode": "first", "limit": 2, "timeout": 10.0,
            "repeat": 0, "status": "solved", "verified": True, "total_s": 0.01,
            "build_s": 0.0, "solve_s": 0.01, "nodes": 5, "answer": "1" * 81, "count": None}
    base.update(values)
    return base


def test_store_keeps_one_row_per_key_across_reopening(tmp_path):
    with Store(tmp_path) as store:
        store.add(row())
        store.add(row(engine="y"))
    with Store(tmp_path) as store:
        store.add(row(status="timeout"))            # same key: ignored, never duplicated
        assert store.count() == 2
        assert store.done_keys() == {("f:1", "alldiff", "x", "first", 0),
                                     ("f:1", "alldiff", "y", "first", 0)}
        frame = store.frame()
    assert list(frame.columns) == list(COLUMNS)
    assert set(frame["status"]) == {"solved"}
    assert frame["verified"].tolist() == [True, True]


def test_a_full_row_is_stored_column_for_column_and_a_partial_one_with_nulls(tmp_path):
    rec = record("f:1", sudoku(BOJ))
    task = Task(0, "f:1", "alldiff", "x", "first", 2, 10.0, 0)
    answer = Result("x", "lib", "1.0", "first", Status.SOLVED, build_s=0.25, solve_s=0.5,
                    nodes=7, backtracks=3, solutions=[tuple(full_grid_of_boj())],
                    stats={"branches": 4, "traceback": "kept apart"}, cpu_s=0.75,
                    peak_rss_mb=12.5, host="h")
    full = result_row(task, rec, answer, ("b", "v"), finished_at="2026-01-01T00:00:00")
    assert set(full) == set(COLUMNS)
    assert type(full["status"]) is str and full["total_s"] == 0.75
    assert full["traceback"] == "kept apart" and full["stats"] == '{"branches": 4}'
    with Store(tmp_path) as store:
        store.add(full)
        store.add(row(engine="partial"))
        frame = store.frame().set_index("engine")
    stored = frame.loc["x"]
    for column in COLUMNS:
        if column != "engine":
            assert stored[column] == full[column], column
    assert pd.isna(frame.loc["partial", "backtracks"]) and pd.isna(frame.loc["partial", "host"])


def test_store_meta_round_trip(tmp_path):
    with Store(tmp_path) as store:
        store.set_meta("config", {"a": [1, 2]})
        assert store.meta("config") == {"a": [1, 2]}
        assert store.meta("missing", "default") == "default"


# ----- verdicts ---------------------------------------------------------------------------
def frame_of(*rows) -> pd.DataFrame:
    frame = pd.DataFrame([row(**r) for r in rows], columns=list(COLUMNS))
    frame["verified"] = frame["verified"].astype("boolean")
    return frame


PUZZLES = {"f:1": {"text": BOJ, "line": 1, "origin": "f.txt", "formulations": "alldiff"}}


def test_agreeing_engines_and_timeouts_give_no_finding():
    frame = frame_of({"engine": "a"}, {"engine": "b"},
                     {"engine": "c", "status": "timeout", "verified": None, "answer": None})
    assert findings(frame, PUZZLES) == []


def test_wrong_answer_is_listed_with_a_solve_command():
    frame = frame_of({"engine": "a"}, {"engine": "b", "verified": False, "reason": "row 1 repeats 3"})
    (found,) = findings(frame, PUZZLES)
    assert found.kind == "wrong answer" and found.engines == ["b"]
    assert found.reproduce.startswith(f"echo {BOJ} | ")
    assert "solve --format line --engine b --mode first" in found.reproduce


def test_unsatisfiable_against_a_verified_solution_is_a_disagreement():
    frame = frame_of({"engine": "a"},
                     {"engine": "b", "status": "unsatisfiable", "answer": None})
    (found,) = findings(frame, PUZZLES)
    assert found.kind == "disagreement"
    assert "b say unsatisfiable" in found.detail
    assert found.reproduce.startswith("for e in a b; do echo ")


def test_counts_must_agree_in_count_mode():
    frame = frame_of({"engine": "a", "mode": "count", "count": 2},
                     {"engine": "b", "mode": "count", "count": 1})
    (found,) = findings(frame, PUZZLES)
    assert "counts differ" in found.detail
    assert "--mode count --limit 2" in found.reproduce


def test_answers_must_agree_only_where_the_solution_is_determined():
    other = "2" + "1" * 80
    first = frame_of({"engine": "a"}, {"engine": "b", "answer": other})
    assert findings(first, PUZZLES) == []          # first mode: any valid solution will do
    lex = frame_of({"engine": "a", "mode": "lexfirst"},
                   {"engine": "b", "mode": "lexfirst", "answer": other})
    (found,) = findings(lex, PUZZLES)
    assert "lexfirst" in found.detail
    unique = frame_of({"engine": "a", "mode": "count", "count": 1},
                      {"engine": "b", "mode": "count", "count": 1, "answer": other})
    assert "unique" in findings(unique, PUZZLES)[0].detail


def test_reproduce_for_specs_and_plain_files():
    spec = {"text": "queens:8", "line": 0, "origin": "queens:8", "formulations": "alldiff,pairwise"}
    cmd = reproduce(spec, ["cpsat"], "count", 100, "pairwise")
    assert cmd == ("python run_compare.py solve --puzzle queens:8 --engine cpsat "
                   "--mode count --limit 100 --formulation pairwise")
    plain = {"text": None, "line": 3, "origin": "my cages.killer", "formulations": "cages"}
    cmd = reproduce(plain, ["a", "b"], "first", 2, "cages")
    assert cmd == "python run_compare.py --puzzles 'my cages.killer' --engines a,b --mode first"


def test_reproduce_carries_the_plugin_modules_and_their_path(monkeypatch):
    """A plugin engine outside the project only imports with the run's PYTHONPATH."""
    monkeypatch.setenv(PLUGIN_ENV, "my_engines")
    monkeypatch.setenv("PYTHONPATH", "/home/me/engine dir")
    monkeypatch.delenv("COMPARE_ENGINE_PLUGINS", raising=False)
    env = plugin_environment()
    spec = {"text": "queens:8", "line": 0, "origin": "queens:8", "formulations": "alldiff"}
    cmd = reproduce(spec, ["mine"], "first", 2, None, env)
    assert cmd == (f"{PLUGIN_ENV}=my_engines PYTHONPATH='/home/me/engine dir' "
                   "python run_compare.py solve --puzzle queens:8 --engine mine --mode first")
    monkeypatch.delenv("PYTHONPATH")
    assert reproduce(spec, ["mine"], "first", 2, None, plugin_environment()).startswith(
        f"{PLUGIN_ENV}=my_engines python run_compare.py")


# ----- rows -----------------------------------------------------------------------------
def test_a_malformed_answer_is_rejected_and_recorded_not_fatal():
    rec = record("f:1", sudoku(BOJ))
    task = Task(0, "f:1", "alldiff", "x", "first", 2, 10.0, 0)
    bogus = Result("x", "builtin", "builtin", "first", Status.SOLVED, solutions=[(1, 2, 3)],
                   solve_s=0.5)
    row = result_row(task, rec, bogus, ("builtin", "builtin"))
    assert row["verified"] is False and "wrong length" in row["reason"]
    assert row["answer"] == "1 2 3" and row["status"] == "solved"
    late = Result("x", "builtin", "builtin", "first", Status.SOLVED, solve_s=11.0,
                  solutions=[tuple(bogus.solutions[0])])
    late_row = result_row(task, rec, late, ("b", "v"))
    # a wrong answer stays wrong however late: counted once, as wrong, not as a timeout
    assert late_row["status"] == "solved" and late_row["verified"] is False
    right_but_late = Result("x", "builtin", "builtin", "first", Status.SOLVED, solve_s=11.0,
                            solutions=[tuple(full_grid_of_boj())])
    assert result_row(task, rec, right_but_late, ("b", "v"))["status"] == "timeout"


def full_grid_of_boj():
    from engines import get_engine
    return get_engine("cpsat").solve(sudoku(BOJ).to_model()).solution


def test_a_corrupt_results_file_is_one_line_and_exit_2(tmp_path, capsys):
    from compare.cli import report as report_cli
    from compare.cli import run
    (tmp_path / "results.sqlite").write_text("not a database\n")
    assert report_cli.main(["--out", str(tmp_path)]) == 2
    assert run.main(["--resume", "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("not a readable results database" in e for e in err)


@pytest.mark.parametrize("listed", ["", ",,"])
def test_an_empty_engine_list_is_bad_usage(listed, capsys):
    from compare.cli import run
    assert run.main(["--engines", listed, "--quiet"]) == 2
    assert "no engine named" in capsys.readouterr().err


# ----- summary -----------------------------------------------------------------------------
def test_par2_counts_unsolved_as_twice_the_limit_and_ratio_uses_common_puzzles():
    frame = frame_of(
        {"puzzle_id": "p1", "engine": "backtracking", "total_s": 1.0},
        {"puzzle_id": "p2", "engine": "backtracking", "total_s": 3.0},
        {"puzzle_id": "p1", "engine": "cpsat", "total_s": 2.0},
        {"puzzle_id": "p2", "engine": "cpsat", "status": "timeout", "verified": None,
         "total_s": 10.0},
        {"puzzle_id": "p1", "engine": "odd", "status": "unsupported", "verified": None,
         "total_s": 0.0},
    )
    tasks = per_task(frame)
    assert choose_baseline(tasks) == "backtracking"
    table = engine_table(tasks, "backtracking").set_index("engine")
    assert table.loc["cpsat", "par2_s"] == pytest.approx((2.0 + 20.0) / 2)
    assert table.loc["cpsat", "timeouts"] == 1 and table.loc["cpsat", "solved"] == 1
    assert table.loc["cpsat", "ratio_of_means"] == pytest.approx(2.0)   # on p1 only
    assert table.loc["backtracking", "mean_s"] == pytest.approx(2.0)
    assert table.loc["odd", "n/a"] == 1 and math.isnan(table.loc["odd", "par2_s"])


def test_repeats_fold_into_the_median_and_wrong_is_not_solved():
    frame = frame_of({"engine": "a", "repeat": 0, "total_s": 1.0},
                     {"engine": "a", "repeat": 1, "total_s": 5.0},
                     {"engine": "a", "repeat": 2, "total_s": 2.0},
                     {"engine": "b", "repeat": 0, "verified": False})
    tasks = per_task(frame)
    a = tasks[tasks["engine"] == "a"].iloc[0]
    assert a["total_s"] == 2.0 and a["solved"]
    table = engine_table(tasks, "a").set_index("engine")
    assert table.loc["b", "wrong"] == 1 and table.loc["b", "solved"] == 0


# ----- executor -----------------------------------------------------------------------------
FAKES = "tests.fake_engines"      # imported by the workers only, never registered here


def test_executor_answers_every_task_once_through_timeouts_and_crashes():
    grid = list(full_grid(4, __import__("random").Random(3)))
    for cell in (0, 5, 10, 15):
        grid[cell] = 0
    puzzles = {f"p{i}": Sudoku(4, tuple(grid)) for i in range(3)}
    labels = ["fake", "fake-crash", "fake-sleep"]
    tasks = [Task(i * 3 + j, f"p{i}", "alldiff", e, "first", 2, 0.3, 0)
             for i in range(3) for j, e in enumerate(labels)]
    with LocalExecutor(2, labels, plugins=FAKES) as ex:
        done = list(ex.run(tasks, puzzles))
    assert sorted(t.tid for t, _ in done) == list(range(9))
    status = {(t.puzzle_id, t.engine): str(r.status) for t, r in done}
    assert {status[p, "fake"] for p in puzzles} == {"solved"}
    assert {status[p, "fake-crash"] for p in puzzles} == {"crashed"}
    assert {status[p, "fake-sleep"] for p in puzzles} == {"timeout"}


def test_executor_gives_up_when_no_worker_can_start():
    puzzles = {"p": Sudoku(4, full_grid(4, __import__("random").Random(1)))}
    tasks = [Task(i, "p", "alldiff", "fake-doomed", "first", 2, 5.0, i) for i in range(5)]
    with LocalExecutor(2, ["fake-doomed"], plugins=FAKES) as ex:
        done = list(ex.run(tasks, puzzles))
    # no result for tasks that never ran: a resume runs them once workers can start
    assert done == [] and "no worker could start (exit code 3)" in ex.gave_up


def test_tables_follow_the_given_order_not_the_finishing_order():
    table = pd.DataFrame({"source": ["b", "a", "a", "b"], "engine": ["y", "y", "x", "x"],
                          "solved": [1, 2, 3, 4]})
    ordered = in_order(table, {"engine": ["x", "y"], "source": ["a", "b"]})
    assert ordered[["source", "engine"]].values.tolist() == [
        ["a", "x"], ["a", "y"], ["b", "x"], ["b", "y"]]


# ----- worker count --------------------------------------------------------------------------
def test_workers_are_capped_at_the_task_count_and_memory(tmp_path, capsys, monkeypatch):
    from compare.run import plan as planning
    from compare.settings import RunSettings
    given = RunSettings.make(puzzles=["queens:4", "queens:5", "queens:6", "queens:7", "queens:8"],
                             engines=["backtracking"])
    made = planning.make_plan(given, out=tmp_path / "a", workers=200)
    try:                            # 5 puzzles x the default 3 repeats
        assert made.workers == 15 and made.executor.workers == 15
        assert len(made.executor.pool) == 15
    finally:
        made.executor.close()
    assert "note: --workers 200 capped to 15 (15 tasks)" in capsys.readouterr().err
    monkeypatch.setattr(planning, "available_mb", lambda: 600.0)
    assert planning.worker_count(8, 100, None)[0] == 2
    assert planning.worker_count(8, 100, 500.0)[0] == 1
    assert planning.worker_count(None, 100, None)[1] is None     # the default cuts quietly


# ----- verified semantics -----------------------------------------------------------------
def test_a_late_right_answer_is_a_timeout_without_a_verdict():
    rec = record("f:1", sudoku(BOJ))
    task = Task(0, "f:1", "alldiff", "x", "first", 2, 10.0, 0)
    late = Result("x", "builtin", "builtin", "first", Status.SOLVED, solve_s=11.0,
                  solutions=[tuple(full_grid_of_boj())])
    row = result_row(task, rec, late, ("b", "v"))
    assert row["status"] == "timeout" and row["verified"] is None
    assert "over the time limit" in row["reason"]


@pytest.mark.parametrize("claim_first", [True, False])
def test_an_unsatisfiable_claim_is_wrong_once_a_solution_is_verified(tmp_path, claim_first):
    from compare.run.runner import Refutations
    claim = row(engine="liar", status="unsatisfiable", verified=True, answer=None,
                reason="no solution claimed")
    proof = row(engine="honest")
    with Store(tmp_path) as store:
        refutations = Refutations(store)
        order = [claim, proof] if claim_first else [proof, claim]
        refuted = []
        for one in order:
            refuted += refutations.judge(one)
            store.add(one)
        frame = store.frame().set_index("engine")
    assert refuted == (["liar"] if claim_first else [])
    assert frame.loc["liar", "verified"] == False      # noqa: E712  (pandas boolean)
    assert frame.loc["liar", "reason"] == ("claims unsatisfiable, but honest found a "
                                           "verified solution")
    assert frame.loc["honest", "verified"] == True     # noqa: E712


def test_each_distinct_answer_is_judged_once_and_every_result_gets_its_verdict(monkeypatch):
    from compare.judge.checker import verify
    from compare.run import runner
    rec = record("f:1", sudoku(BOJ))
    good = tuple(full_grid_of_boj())
    bad = (good[1], good[0]) + good[2:]
    odd = (300,) + good[1:]                  # out of a byte: kept as a tuple in the key
    task = Task(0, "f:1", "alldiff", "x", "first", 2, 10.0, 0)
    answers = [good, bad, good, odd, bad, good]
    done = [(task, Result("x", "b", "v", "first", Status.SOLVED, solutions=[a]))
            for a in answers]
    judged = []
    real = runner.verify_many
    monkeypatch.setattr(runner, "verify_many",
                        lambda claims, model_of: judged.append(len(claims)) or
                        real(claims, model_of))
    cache: dict = {}
    first = runner.judge_all(done[:4], {"f:1": rec}, cache)
    again = runner.judge_all(done[4:], {"f:1": rec}, cache)
    assert judged == [3]                   # good, bad, odd; nothing new the second time
    model = rec.puzzle.to_model("alldiff")
    expected = [verify(rec.puzzle, model, result, "alldiff", 2) for _, result in done]
    assert first + again == expected
    assert [ok for ok, _ in expected] == [True, False, True, False, False, True]


def test_the_collector_is_kept_small_while_results_stream_and_put_back_after(tmp_path):
    """What was alive before the run stays out of the collector's walks, and the young
    generation is collected rarely, until the run ends; then both are as they were."""
    import gc

    from compare.executors.base import Executor
    from compare.run.collector import YOUNG_OBJECTS
    from compare.run.runner import execute

    rec = record("f:1", sudoku(BOJ))
    tasks = [Task(i, "f:1", "alldiff", "x", "first", 2, 10.0, i) for i in range(3)]
    seen = []

    class Answers(Executor):
        def run(self, tasks, puzzles, skip=None, pauses=False):
            for task in tasks:
                seen.append((gc.get_freeze_count(), gc.get_threshold()[0]))
                yield task, Result("x", "b", "v", "first", Status.SOLVED,
                                   solutions=[tuple(full_grid_of_boj())])
                yield None

    class Breaks(Executor):
        def run(self, tasks, puzzles, skip=None, pauses=False):
            raise RuntimeError("the executor fails")
            yield

    before = gc.get_threshold()
    with Store(tmp_path) as store:
        timing = execute(tasks, {"f:1": rec}, Answers(), store, {"x": ("b", "v")},
                         progress=False)
        assert store.count() == 3 and timing["wrong"] == 0
        with pytest.raises(RuntimeError):
            execute(tasks, {"f:1": rec}, Breaks(), store, {"x": ("b", "v")}, progress=False)
    assert len(seen) == 3
    assert all(frozen > 0 and young == max(before[0], YOUNG_OBJECTS) for frozen, young in seen)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_runs_on_two_threads_share_the_quiet_collector_and_the_last_puts_it_back():
    import gc

    from compare.run.collector import YOUNG_OBJECTS, collector_back, collector_quiet
    before = gc.get_threshold()
    collector_quiet()                       # one run starts
    collector_quiet()                       # another, on another thread
    collector_back()                        # the first ends: the second still streams
    assert gc.get_threshold()[0] == max(before[0], YOUNG_OBJECTS)
    assert gc.get_freeze_count() > 0
    collector_back()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_engine_stats_are_capped_with_a_note():
    import json

    from compare.run.runner import STATS_MAX_CHARS, bounded_stats
    assert bounded_stats({}) is None
    assert json.loads(bounded_stats({"branches": 3})) == {"branches": 3}
    cut = bounded_stats({"dump": "x" * 50_000_000, "branches": 3})
    assert len(cut) <= STATS_MAX_CHARS
    kept = json.loads(cut)
    assert "cut to" in kept["note"] and kept["keys"] == ["branches", "dump"]
    assert kept["head"].startswith('{"branches": 3')


# ----- warm-up in the report -------------------------------------------------------------------
def test_warmup_costs_are_shown_per_engine_and_shape():
    from compare.reporting.report import warmup_table
    runs = [{"warmup": {"start-up": [{"engine": "a", "workers": 2, "total_s": 1.5, "max_s": 1.0}],
                        "shapes": [{"engine": "a", "shape": "sudoku-16/alldiff", "workers": 1,
                                    "total_s": 0.085, "max_s": 0.085}]}},
            {"tasks": 3}]                                 # a run recorded without warm-up
    table = warmup_table(runs)
    assert table.values.tolist() == [["a", "start-up", 2, "1.00 s", "1.50 s"],
                                     ["a", "sudoku-16/alldiff", 1, "85.0 ms", "85.0 ms"]]
    assert warmup_table([]).empty
