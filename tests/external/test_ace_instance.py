"""ACE on an XCSP3 input's own file: in ``first`` mode, and in ``count`` mode when the
model has no auxiliary variable, ACE runs the file itself and its answer, read on the
instance's names (compact arrays, ``*``) and completed in the translation, is what the
judge verifies; lexfirst and a count over auxiliary variables run on the written
model; an answer with no completion goes out and is judged wrong."""
from __future__ import annotations

from pathlib import Path

import pytest

from compare.judge.checker import verify
from engines import Status, get_engine
from engines.ace import instance as own
from engines.ace.engine import AceEngine
from puzzles.formats.xcsp3.kind import load_file

DATASET = Path("/work/shared/datasets/xcsp3_2024_csp")
needs_ace = pytest.mark.skipif(not AceEngine.available(),
                               reason=AceEngine.unavailable_reason() or "ACE is not available")
needs_dataset = pytest.mark.skipif(not DATASET.is_dir(),
                                   reason="the shared XCSP3 2024 dataset is absent")

# x[0][] all different, z = x[0][0] * x[1][1] + x[1][2], and a disjunction of three
# comparisons: the translation gives each comparison a 0/1 variable of its own, which
# the instance does not have.
SMALL = """<instance format="XCSP3" type="CSP">
  <variables>
    <array id="x" size="[2][3]"> 0..3 </array>
    <var id="z"> 5..9 </var>
  </variables>
  <constraints>
    <allDifferent> x[0][] </allDifferent>
    <intension> eq(z,add(mul(x[0][0],x[1][1]),x[1][2])) </intension>
    <intension> or(ne(z,7),lt(x[0][0],x[1][0]),gt(x[1][1],x[1][2])) </intension>
  </constraints>
</instance>
"""


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.xml"
    path.write_text(SMALL)
    return load_file(str(path))


def test_the_model_carries_its_file_and_the_instances_names(small):
    model = small.to_model()
    assert model.source.format == "xcsp3"
    assert model.source.files == (str(Path(small.path).resolve()),)
    assert model.source.outputs == small.instance.variables
    assert model.structure.variables[:7] == ("x[0][0]", "x[0][1]", "x[0][2]", "x[1][0]",
                                             "x[1][1]", "x[1][2]", "z")
    assert model.structure.size > 7                  # the comparisons' 0/1 variables


def test_compact_lists_expand_against_the_declared_arrays(tmp_path):
    (tmp_path / "i.xml").write_text(SMALL)
    arrays = own.declared(str(tmp_path / "i.xml"))
    assert arrays == {"x": (2, 3), "z": ()}
    arrays["y"] = (2, 2, 2)
    named = own.named_values("x[][] z y[1][0..1][1] x[1][1..2]",
                             "3 * 1 0 2x2 7 * -1 -5x2", arrays)
    assert named == {"x[0][0]": 3, "x[0][1]": None, "x[0][2]": 1, "x[1][0]": 0,
                     "x[1][1]": -5, "x[1][2]": -5, "z": 7, "y[1][0][1]": None,
                     "y[1][1][1]": -1}
    with pytest.raises(RuntimeError, match="3 values for 2 variables"):
        own.named_values("y[0][1][]", "1 2 3", arrays)
    with pytest.raises(RuntimeError, match="does not declare"):
        own.named_values("w[]", "1", arrays)


def test_only_first_and_a_count_without_auxiliary_variables_run_the_file(small):
    model = small.to_model()
    assert own.runs_instance(model, "first")
    assert not own.runs_instance(model, "count") and not own.runs_instance(model, "lexfirst")


@needs_ace
def test_ace_runs_the_file_and_its_completed_answer_is_verified(small):
    result = get_engine("ace").solve(small.to_model(), "first", timeout=20)
    assert result.status is Status.SOLVED, result.message
    assert result.stats["ran"] == "instance" and result.stats["completion_s"] > 0
    assert result.message == ""
    assert verify(small, None, result) == (True, "1 solution(s) checked")


@needs_ace
@pytest.mark.parametrize("mode", ["lexfirst", "count"])
def test_lexfirst_and_a_count_over_auxiliary_variables_run_the_written_model(small, mode):
    model = small.to_model()
    result = get_engine("ace").solve(model, mode, limit=500, timeout=20)
    assert result.status is Status.SOLVED and result.stats["ran"] == "translation"
    reference = get_engine("backtracking").solve(model, mode, limit=500, timeout=20)
    assert (result.count, result.solutions[:1]) == \
        (reference.count, reference.solutions[:1])
    assert verify(small, None, result, limit=500)[0]


@needs_ace
def test_values_ace_leaves_out_are_found_by_the_completion(small, monkeypatch):
    """ACE's answer with x[1][] starred: the completion finds values the judge accepts."""
    read = own.named_values

    def starred(names, values, arrays):
        named = read(names, values, arrays)
        return {k: None if k.startswith("x[1]") else v for k, v in named.items()}
    monkeypatch.setattr(own, "named_values", starred)
    result = get_engine("ace").solve(small.to_model(), "first", timeout=20)
    assert result.status is Status.SOLVED and result.message == ""
    assert verify(small, None, result)[0]


@needs_ace
def test_an_answer_with_no_completion_goes_out_and_the_judge_finds_it_wrong(small,
                                                                            monkeypatch):
    """ACE's values (faked: x[0][] all 1) break allDifferent in every completion."""
    read = own.named_values

    def wrong(names, values, arrays):
        named = read(names, values, arrays)
        return {k: 1 if k.startswith("x[0]") else v for k, v in named.items()}
    monkeypatch.setattr(own, "named_values", wrong)
    result = get_engine("ace").solve(small.to_model(), "first", timeout=20)
    assert result.status is Status.SOLVED and result.message == own.NO_COMPLETION
    assert result.solutions[0][:3] == (1, 1, 1)
    ok, reason = verify(small, None, result)
    assert not ok and "allDifferent" in reason


@needs_ace
@needs_dataset
@pytest.mark.parametrize("name, mode, ran", [
    ("HyperSudoku-03_c24", "first", "instance"),
    ("HyperSudoku-03_c24", "count", "instance"),        # no auxiliary variable
    ("PoolBallTriangle-05_c24", "first", "instance"),   # auxiliary variables completed
])
def test_shared_instances_run_their_own_file_and_the_judge_verifies(name, mode, ran):
    path = DATASET / f"{name}.xml.lzma"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    puzzle = load_file(str(path))
    result = get_engine("ace").solve(puzzle.to_model(), mode, limit=3, timeout=30)
    assert result.status is Status.SOLVED, result.message
    assert result.stats["ran"] == ran and result.message == ""
    assert verify(puzzle, None, result, limit=3) == \
        (True, f"{3 if mode == 'count' else 1} solution(s) checked")
