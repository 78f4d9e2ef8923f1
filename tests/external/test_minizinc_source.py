"""A MiniZinc pair through ``gecode``: in ``first`` mode the user's own model runs (the
solver's library, or ``-G std`` where that does not type-check it) and its answer,
completed in the project's flattening, is what the judge verifies; lexfirst and count
run on the translation; an answer with no completion goes out and is judged wrong."""
from __future__ import annotations

import csv
import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare.cli.bench import DATASETS
from compare.judge.checker import verify
from engines import Status, get_engine
from engines.minizinc import source as own
from engines.minizinc.source import NO_COMPLETION, named_values
from engines.support import completion
from puzzles.formats.minizinc import flatten
from puzzles.formats.minizinc.kind import load_file
from tests.external.support import needs_gecode
from tests.minizinc.support import write_pair

REPO = Path(__file__).resolve().parents[2]
SAT = DATASETS / "minizinc_sat"


def dataset_pair(spec: str):
    model, _, data = spec.partition(":")
    if not (SAT / model).exists():
        pytest.skip(f"{SAT / model} is absent")
    return load_file(str(SAT / model), str(SAT / data) if data else None)


@needs_gecode
@pytest.mark.datasets
@pytest.mark.parametrize("spec, library", [
    ("queens/queens.mzn:queens/004.dzn", "solver"),
    ("bibd/bibd.mzn:bibd/03_03_01.dzn", "solver"),
    ("latin-squares/latin-squares-fd.mzn:latin-squares/03.dzn", "solver"),
    ("alpha/alpha.mzn", "std"),          # Gecode's library: inverse over var opt int
    ("golfers/golfers1.mzn:golfers/golfers_2_2_3.dzn", "std"),
])
def test_gecode_runs_the_users_model_and_the_judge_verifies_its_answer(spec, library):
    puzzle = dataset_pair(spec)
    result = get_engine("gecode").solve(puzzle.to_model(), "first", timeout=20)
    assert result.status is Status.SOLVED, result.message
    assert (result.stats["ran"], result.stats["library"]) == ("source", library)
    assert result.stats["completion_known"] > 0 and "completion_s" in result.stats
    assert result.message == ""
    assert verify(puzzle, None, result) == (True, "1 solution(s) checked")


@needs_gecode
@pytest.mark.parametrize("mode", ["lexfirst", "count"])
def test_lexfirst_and_count_run_on_the_projects_translation(tmp_path, mode):
    puzzle = load_file(*map(str, write_pair(tmp_path)))
    result = get_engine("gecode").solve(puzzle.to_model(), mode, limit=100, timeout=20)
    assert result.status is Status.SOLVED and result.stats["ran"] == "translation"
    assert "library" not in result.stats
    assert verify(puzzle, None, result, limit=100)[0]
    if mode == "count":
        assert result.count == 9      # 3 orders with x1 < x2 and b free, 3 more with b true
    else:
        least = get_engine("backtracking").solve(puzzle.to_model(), "lexfirst").solutions
        assert result.solutions == least


@needs_gecode
def test_an_answer_with_no_completion_goes_out_and_the_judge_finds_it_wrong(tmp_path,
                                                                            monkeypatch):
    """The solver's values (faked: x all 1) break alldifferent in every completion."""
    puzzle = load_file(*map(str, write_pair(tmp_path)))
    monkeypatch.setattr(own, "named_values", lambda raw: {"x": (1, 1, 1), "b": (1,)})
    result = get_engine("gecode").solve(puzzle.to_model(), "first", timeout=20)
    assert result.status is Status.SOLVED and result.message == NO_COMPLETION
    assert result.solutions[0][:4] == (1, 1, 1, 1)
    ok, reason = verify(puzzle, None, result)
    assert not ok and reason


def test_the_solvers_output_is_read_by_name_up_to_the_first_solution():
    raw = ("%%%mzn-stat: nodes=3\n"
           "x = -3;\nb = true;\nq = array2d(1..2, 1..2, [1, -2,\n 3, 4]);\n"
           "f = array1d(1..2, [false, true]);\ns = {1,3};\n----------\nx = 9;\n----------\n")
    assert named_values(raw) == {"x": (-3,), "b": (1,), "q": (1, -2, 3, 4), "f": (0, 1)}


def test_a_type_error_is_what_retries_with_the_standard_library():
    assert own.type_error("Error: type error: no function or predicate with this signature "
                          "found: `inverse(array[int] of var opt int,array[int] of var opt "
                          "int)'")
    assert not own.type_error("Error: syntax error, unexpected ';'")


@needs_gecode
@pytest.mark.datasets
def test_a_run_of_a_dataset_pair_verifies_gecodes_answer_on_the_users_model(tmp_path):
    if not (SAT / "queens").exists():
        pytest.skip(f"{SAT} is absent")
    (tmp_path / "instances.csv").write_text(
        "problem,model,data_file\n"
        f"queens,{SAT / 'queens/queens.mzn'},{SAT / 'queens/004.dzn'}\n")
    env = {**os.environ, "COMPARE_INSTANCE_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(REPO / "run_compare.py"), "--puzzles",
                           "instances.csv", "--engines", "gecode", "--repeat", "1",
                           "--workers", "1", "--timeout", "20", "--out", "out"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "out" / "results.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["status"], r["verified"]) for r in rows] == [("solved", "True")], rows
    assert '"ran": "source"' in rows[0]["stats"], rows[0]


@needs_gecode
def test_a_compile_no_search_follows_leaves_no_folder_once_dropped(tmp_path):
    """A warm-up translates without searching: the compiled folder goes with the object."""
    puzzle = load_file(*map(str, write_pair(tmp_path)))
    compiled = get_engine("gecode").translate(puzzle.to_model())
    folder = compiled.folder
    assert os.path.isfile(compiled.fzn)
    del compiled
    gc.collect()
    assert not os.path.exists(folder)


def test_the_solvers_compile_uses_the_projects_output_mode():
    """Both flattenings annotate the same names as outputs only with the same mode."""
    assert own.OUTPUT_MODE == flatten.OUTPUT_MODE


@needs_gecode
def test_a_completion_past_the_deadline_is_a_timeout_without_an_answer(tmp_path, monkeypatch):
    puzzle = load_file(*map(str, write_pair(tmp_path)))

    def too_slow(model, known, deadline):
        raise TimeoutError("no completion found before the deadline")
    monkeypatch.setattr(completion, "complete", too_slow)
    result = get_engine("gecode").solve(puzzle.to_model(), "first", timeout=20)
    assert result.status is Status.TIMEOUT and result.solutions == []
    assert "completing its answer" in result.message and "completion_s" in result.stats
