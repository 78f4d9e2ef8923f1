"""What a MiniZinc argument names: a model, a pair, a folder, an instances.csv; and refusals.

References are made without running MiniZinc (the parent never flattens); the
pairs are flattened where a test loads them, and skipped without MiniZinc.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from puzzles.errors import PuzzleInputError
from puzzles.formats.minizinc import kind
from puzzles.loader import load_puzzles, puzzle_paths
from tests.minizinc.support import needs_minizinc, write_pair


def test_a_pair_spec_is_a_reference_named_by_both_stems(tmp_path):
    model, data = write_pair(tmp_path)
    [entry] = load_puzzles(f"{model}:{data}", refer=True)
    puzzle = entry.puzzle
    assert entry.error is None and entry.id == "tiny:three" == puzzle.name
    assert (puzzle.model_path, puzzle.data_path) == (str(model), str(data))
    assert puzzle.family == tmp_path.name and puzzle.kind == "minizinc"
    assert puzzle.nbytes == len(model.read_bytes()) + len(data.read_bytes())
    assert not puzzle.input_loaded and puzzle.rules_judge_alone


def test_the_digest_follows_the_data_file_too(tmp_path):
    model, data = write_pair(tmp_path)
    before = kind.reference(str(model), str(data)).digest
    data.write_text("n = 4;\n")
    assert kind.reference(str(model), str(data)).digest != before
    assert kind.reference(str(model)).digest not in (before, kind.reference(
        str(model), str(data)).digest)


def test_a_folder_stands_for_each_model_with_each_data_file_beside_it(tmp_path):
    model, data = write_pair(tmp_path)
    (tmp_path / "four.json").write_text('{"n": 4}\n')
    (tmp_path / "alone").mkdir()
    lone = tmp_path / "alone" / "solo.mzn"
    lone.write_text("var 1..2: y;\nsolve satisfy;\n")
    assert puzzle_paths(str(tmp_path)) == [f"{model}:{tmp_path / 'four.json'}", f"{model}:{data}"]
    assert puzzle_paths(str(tmp_path / "alone")) == [str(lone)]


def test_an_instances_csv_names_pairs_relative_to_it_with_the_problem_as_family(tmp_path):
    (tmp_path / "fam").mkdir()
    model, data = write_pair(tmp_path / "fam")
    csv = tmp_path / "instances.csv"
    csv.write_text("problem,model,data_file,expected\nsmall,fam/tiny.mzn,fam/three.dzn,sat\n"
                   "small,fam/tiny.mzn,fam/gone.dzn,sat\nsolo,fam/tiny.mzn,,unknown\n")
    entries = load_puzzles(str(csv), refer=True)
    assert [e.name for e in entries] == ["tiny:three", "tiny:gone", "tiny"]
    good, gone, alone = entries
    assert good.puzzle.family == "small" and good.puzzle.data_path == str(data)
    assert gone.puzzle is None and "gone.dzn: cannot read" in str(gone.error)
    assert alone.puzzle.family == "solo" and alone.puzzle.data_path is None
    assert puzzle_paths(str(tmp_path)) == [str(csv)]


def test_a_csv_without_the_header_is_refused_in_one_line(tmp_path):
    csv = tmp_path / "other.csv"
    csv.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(PuzzleInputError, match="header starts problem,model,data_file"):
        load_puzzles(str(csv))


@pytest.mark.parametrize("name", ["data.dzn", "data.json", "flat.fzn"])
def test_a_data_or_flatzinc_file_alone_is_refused_saying_what_to_give(tmp_path, name):
    path = tmp_path / name
    path.write_text("n = 3;\n")
    with pytest.raises(PuzzleInputError) as caught:
        load_puzzles(str(path))
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert "not read alone" in message and "MODEL.mzn:DATA.dzn" in message
    with pytest.raises(PuzzleInputError, match="a folder with no puzzle file"):
        puzzle_paths(str(tmp_path))                  # nor listed in a folder


def test_a_missing_data_file_is_one_line_naming_it(tmp_path):
    model, _ = write_pair(tmp_path)
    with pytest.raises(PuzzleInputError) as caught:
        load_puzzles(f"{model}:{tmp_path / 'nothere.dzn'}", refer=True)
    assert str(caught.value) == f"{tmp_path / 'nothere.dzn'}: cannot read: No such file or directory"


@needs_minizinc
@pytest.mark.parametrize("data", ["three.dzn", "three.json"])
def test_a_pair_loads_where_it_is_used_and_writes_its_answer_the_minizinc_way(
        tmp_path, monkeypatch, data):
    monkeypatch.setenv("COMPARE_INSTANCE_CACHE", str(tmp_path / "cache"))
    model, _ = write_pair(tmp_path)
    (tmp_path / "three.json").write_text('{"n": 3}\n')
    puzzle = kind.reference(str(model), str(tmp_path / data))
    assert puzzle.load_input()[2] == "file"
    names = kind.answer_names(puzzle.instance)
    translation = puzzle.translation
    assert translation.variables[: translation.own] == names     # the judge's order
    assert puzzle.to_model().structure.unsupported == ""
    answer = {"x": (2, 1, 3), "b": 1}
    values = [answer["b"] if n == "b" else 0 for n in names]
    x_items = [a for a in puzzle.instance.arrays if a.name == "x"][0].items
    for item, value in zip(x_items, answer["x"]):
        values[names.index(item.name)] = value
    assert puzzle.format_answer(puzzle.decode(values)) == (
        "b = true;\nx = array1d(1..3, [2, 1, 3]);")
    assert kind.written(puzzle.instance, values) == puzzle.format_answer(values)
    again = kind.reference(str(model), str(tmp_path / data))
    assert again.load_input()[2] == "cache"         # flattened once
    assert again.load_note().startswith("tiny:three: flattened and parsed in ")


DATASET = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets" / "minizinc_sat"


@pytest.mark.skipif(not (DATASET / "instances.csv").is_file(),
                    reason="the minizinc_sat dataset is not beside the checkout")
def test_the_shared_datasets_instances_csv_reads_as_71_references_by_family():
    [csv] = puzzle_paths(str(DATASET))            # the folder is read through its CSV
    entries = load_puzzles(csv, refer=True)
    assert len(entries) == 71 and all(e.error is None for e in entries)
    assert not any(e.puzzle.input_loaded for e in entries)      # nothing flattened here
    families = {e.puzzle.family for e in entries}
    assert len(families) == 31 and "QCP" in families
    assert {e.name for e in entries if e.puzzle.family == "queens"} == {
        "queens:004", "queens:020", "queens:100"}
