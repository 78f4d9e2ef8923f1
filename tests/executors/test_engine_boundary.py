"""The engine boundary: what a plugin engine returns is checked before the harness keeps it."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tests.fake_engines  # noqa: F401  (registers the fake engines here)
from compare.executors.local.worker.boundary import checked_result
from compare.executors.local.worker.session import Session, WorkerInit
from compare.executors.tasks import Task
from engines import Result, Status
from engines import solution_counter as counter
from puzzles.kinds.generator import generate
from puzzles.loader import load_puzzles
from tests.fake_engines import ODD

REPO = Path(__file__).resolve().parents[2]
NINE = REPO / "puzzles" / "data" / "gen-9x9-easy.txt"
REJECTED = {"count": "count", "nodes": "nodes", "count-text": "count",
            "backtracks": "backtracks", "status": "status", "build_s": "build_s",
            "solve_s": "solve_s", "solutions": "solutions[0]", "stats-type": "stats"}
NORMALISED = ("numpy", "stats", "message")


def test_every_odd_field_is_named_or_normalised():
    assert set(REJECTED) | set(NORMALISED) == set(ODD)


def solved(**fields) -> Result:
    result = Result("x", "", "1", "first", Status.SOLVED, solutions=[(1, 2)], count=None,
                    build_s=0.001, solve_s=0.002, nodes=3)
    for key, value in fields.items():
        setattr(result, key, value)
    return checked_result(result)


@pytest.mark.parametrize("field", sorted(REJECTED))
def test_a_field_that_cannot_be_stored_makes_an_error_result_naming_it(field):
    entry = load_puzzles(NINE)[0]
    label = f"fake-odd:field={field}"
    run = Session(WorkerInit((), (label,)))
    result = run.run(Task(0, entry.id, "alldiff", label, "first", 2, 10.0, 0), entry.puzzle)
    assert result.status == Status.ERROR
    assert result.message.startswith(f"invalid result from the engine: {REJECTED[field]}: ")
    assert result.cpu_s is not None and result.host       # still measured


@pytest.mark.parametrize("field", NORMALISED)
def test_a_field_with_a_plain_meaning_is_normalised_and_the_answer_stands(field):
    entry = load_puzzles(NINE)[0]
    label = f"fake-odd:field={field}"
    run = Session(WorkerInit((), (label,)))
    result = run.run(Task(0, entry.id, "alldiff", label, "first", 2, 10.0, 0), entry.puzzle)
    assert result.status == Status.SOLVED, result.message
    assert type(result.nodes) is int and type(result.backtracks) is int
    assert type(result.solve_s) is float
    result.message.encode("utf-8")                  # no lone surrogate left
    text = json.dumps(result.stats, sort_keys=True, allow_nan=False)
    assert all(isinstance(k, str) for k in json.loads(text))


def test_numbers_from_numpy_become_python_numbers():
    result = solved(count=np.int64(2), nodes=np.uint64(5), solutions=[np.array([1, 2])])
    assert result.status == Status.SOLVED
    assert (type(result.count), type(result.nodes)) == (int, int)
    assert result.solutions == [(1, 2)] and type(result.solutions[0][0]) is int


@pytest.mark.parametrize("fields, named", [
    ({"count": 2 ** 63}, "count"),
    ({"nodes": True}, "nodes"),
    ({"solve_s": -0.5}, "solve_s"),
    ({"cpu_s": math.nan}, "cpu_s"),
    ({"message": 42}, "message"),
    ({"status": None}, "status"),
    ({"solutions": "123"}, "solutions"),
    ({"solutions": [(1, 2 ** 64)]}, "solutions[0]"),
    ({"count": 10 ** 5000}, "count"),            # too long even to print in full
])
def test_out_of_range_or_mistyped_fields_are_rejected(fields, named):
    result = solved(**fields)
    assert result.status == Status.ERROR
    assert f": {named}: " in result.message and result.engine == "x"


@pytest.mark.parametrize("solution", [
    (1, 2), (), (-2 ** 63, 2 ** 63 - 1), (1, True), (1, 2.0), (1, 2 ** 63), (1, -2 ** 63 - 1),
    (np.int64(1), 2), (1, "2"),
])
def test_plain_tuples_of_ints_take_a_short_path_with_the_same_outcome(solution):
    """A tuple of plain ints is accepted without the per-value check; anything
    else goes value by value. Both paths give the same result or the same fault."""
    fast = solved(solutions=[solution])
    slow = solved(solutions=[list(solution)])     # a list never takes the short path
    assert (fast.status, fast.message, fast.solutions) == \
        (slow.status, slow.message, slow.solutions)
    if fast.status == Status.SOLVED:
        assert all(type(v) is int for v in fast.solutions[0])


@pytest.mark.parametrize("value", ["plain", "", "x" * 65_536, "x" * 65_537, "nul\x00here",
                                   "caf\u00e9", "a\udcffb"])
def test_text_short_path_for_ascii_gives_what_the_full_check_gives(value):
    """ASCII text within the limit and free of NUL passes unchanged without the
    encode round trip; anything else takes the full way, with the same outcome."""
    from compare.executors.local.worker.boundary import TEXT_MAX, text
    expected = value[:TEXT_MAX].encode("utf-8", "backslashreplace").decode("utf-8") \
        .replace("\x00", "\\x00")
    assert text(value, "message") == expected


@pytest.mark.parametrize("field, value, ok", [
    ("solve_s", 0.5, True), ("solve_s", 0.0, True), ("solve_s", math.inf, False),
    ("solve_s", -math.inf, False), ("solve_s", math.nan, False), ("solve_s", 1e10, False),
    ("nodes", 0, True), ("nodes", 2 ** 63 - 1, True), ("nodes", -1, False),
    ("nodes", 2 ** 63, False), ("nodes", False, False),
])
def test_plain_numbers_take_a_short_path_and_bad_ones_are_still_named(field, value, ok):
    result = solved(**{field: value})
    assert (result.status == Status.SOLVED) == ok, result.message
    if ok:
        assert getattr(result, field) == value
    else:
        assert f": {field}: " in result.message


@pytest.mark.parametrize("field", ["failures", "propagations", "restarts", "nogoods"])
@pytest.mark.parametrize("value", [-1, 2.5, 3.0, "4", True, 2 ** 63])
def test_a_search_statistic_that_is_not_a_whole_number_from_0_is_rejected(field, value):
    result = solved(**{field: value})
    assert result.status == Status.ERROR
    assert f": {field}: " in result.message and result.engine == "x"


def test_a_search_statistic_is_a_python_int_or_none_when_not_reported():
    result = solved(failures=np.int64(4), propagations=0, restarts=None)
    assert result.status == Status.SOLVED, result.message
    assert (result.failures, result.propagations, result.restarts, result.nogoods) == \
        (4, 0, None, None)
    assert type(result.failures) is int


def test_text_and_stats_are_made_safe_for_sqlite_csv_and_json():
    result = solved(message="a\udcffb", stats={("k",): {1: math.inf}, 2: b"x", "s": "\ud800"})
    assert result.status == Status.SOLVED
    assert result.message == "a\\udcffb"
    assert result.stats == {"('k',)": {"1": "inf"}, "2": "b'x'", "s": "\\ud800"}


def test_something_that_is_not_a_result_is_an_error():
    assert checked_result({"status": "solved"}).status == Status.ERROR


def env() -> dict:
    return dict(os.environ, COMPARE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))


def cli(*args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env(), capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_a_run_where_half_the_tasks_return_odd_values_finishes_and_reports_them(tmp_path):
    """30 of 60 tasks with a count SQLite cannot hold: 30 errors naming the field; the
    other engines' odd but meaningful values are normalised; the report rebuilds."""
    grids = generate(4, 60, 6, seed=3, count_solutions=counter("backtracking"))
    puzzles = tmp_path / "sixty.txt"
    puzzles.write_text("# format: line\n" + "\n".join(
        "".join(str(v) if v else "." for v in p.grid) for p in grids) + "\n")
    out = tmp_path / "run"
    engines = ["fake", "fake-odd:field=count:every=2",
               *(f"fake-odd:field={f}" for f in NORMALISED)]
    proc = cli("--puzzles", puzzles, "--engines", ",".join(engines), "--repeat", 1,
               "--workers", 2, "--out", out, "--quiet")
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    assert ("FAILED: fake-odd:every=2: error x30 (first: invalid result from the engine: "
            "count: 1000000000000000000000000000000 is out of range (0..2^63-1))"
            in proc.stderr.splitlines()), proc.stderr
    frame = pd.read_csv(out / "results.csv")
    odd = frame[frame["engine"] == "fake-odd:every=2"]
    assert len(odd) == 60 and (odd["status"] == "error").sum() == 30
    assert odd.loc[odd["status"] == "error", "message"].str.contains(": count: ").all()
    others = frame[frame["engine"] != "fake-odd:every=2"]
    assert len(others) == 240 and set(others["status"]) == {"solved"}
    assert others["verified"].all()
    rebuilt = cli("report", "--out", out, "--quiet")
    assert rebuilt.returncode == 4 and "Traceback" not in rebuilt.stderr, rebuilt.stderr
    again = cli("--out", out, "--resume", "--quiet")
    assert again.returncode == 4 and "Traceback" not in again.stderr, again.stderr
