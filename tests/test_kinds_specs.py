"""Puzzle specs: the kind registry, is_spec, load_spec and its one-line errors."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from puzzles import specs
from puzzles.errors import PuzzleInputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "puzzles" / "examples"
PETERSEN = EXAMPLES / "petersen.col"


def test_every_kind_registers_with_a_syntax_line():
    kinds = specs.KINDS
    assert set(kinds) >= {"queens", "killer", "latin", "coloring", "cryptarithm"}
    for name, kind in kinds.items():
        assert kind.syntax.startswith(name + ":"), kind.syntax
    assert all(line.strip().split(":")[0] in kinds for line in specs.help_text().splitlines())


@pytest.mark.parametrize("text, expected", [
    ("queens:8", True), ("cryptarithm:SEND+MORE=MONEY", True), ("latin:5", True),
    (f"coloring:{PETERSEN}:colors=3", True),
    ("queens", False), ("puzzle.txt", False), ("-", False), ("C:puzzle.txt", False),
    # an unknown kind is still a spec, so its error names the kind, not a missing file
    ("nosuchkind:8", True),
])
def test_is_spec(text, expected):
    assert specs.is_spec(text) is expected


def test_an_existing_file_is_never_a_spec(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("queens:8").write_text("a file, not a spec\n")
    assert not specs.is_spec("queens:8")


@pytest.mark.parametrize("text, message", [
    ("nosuchkind:8", "unknown puzzle kind 'nosuchkind' (known: coloring, cryptarithm"),
    ("queens", "not a puzzle spec"),
    ("queens:abc", "board size N must be a whole number, got 'abc'"),
    ("queens:0", "board size N must be between 1 and 1000, got 0"),
    ("queens:", "board size N must be a whole number, got ''"),
    ("queens:8:size=3", "queens has no option 'size'"),
    ("queens:8:sideways", "queens has no formulation 'sideways' (formulations: alldiff, pairwise)"),
    ("queens:8:a:b", "'a' is neither key=value nor a final formulation name"),
    ("latin:5:holes=26", "holes must be between 0 and 25, got 26"),
    ("latin:5:holes=many", "holes must be a whole number"),
    ("latin:5:seed=1:seed=2", "option 'seed' given twice"),
    ("latin:5:colors=3", "latin has no option 'colors' (options: holes, seed)"),
    ("latin:no/such.latin", "no such grid file 'no/such.latin'"),
    ("coloring:no/such.col:colors=3", "no such .col file 'no/such.col'"),
    ("coloring::colors=3", "coloring needs a .col file"),
    (f"coloring:{PETERSEN}", "coloring needs a colour count, as in coloring:FILE.col:colors=3"),
    (f"coloring:{PETERSEN}:colors=0", "colors must be between 1 and 1000, got 0"),
    ("killer:no/such.killer", "no such cage file"),
    ("cryptarithm:SEND+MORE", "a cryptarithm needs exactly one '=', found 0"),
    ("cryptarithm:A=B=C", "exactly one '=', found 2"),
    ("cryptarithm:SE1D+MORE=MONEY", "stray '1' on the left side"),
    ("cryptarithm:SEND++MORE=MONEY", "stray '+' on the left side"),
    ("cryptarithm:=MONEY", "the left side of '=' is empty"),
    ("cryptarithm:ABCDE+FGHIJ=KL", "ABCDE+FGHIJ=KL has 12 distinct letters; at most 10 fit "
                                   "in the digits 0-9"),
])
def test_bad_specs_get_one_line_errors(text, message):
    with pytest.raises(PuzzleInputError) as caught:
        specs.load_spec(text)
    err = caught.value
    assert message in str(err)
    assert str(err).startswith(text + ": ")
    assert err.line is None and "\n" not in str(err)


@pytest.mark.parametrize("file, content, spec, message", [
    ("bad.col", b"p edge 3 1\ne 1 4\n", "coloring:{}:colors=2",
     r"bad\.col, line 2: edge vertex 4 out of range"),
    ("bad.killer", b"size 4\n3: r1c1 r9c9\n", "killer:{}", r"bad\.killer, line 2: cell r9c9 outside"),
    ("bad.latin", b"1 2\n2 \xff\n", "latin:{}", r"bad\.latin, line 2: not UTF-8 text \(byte 0xff\)"),
])
def test_a_bad_file_through_a_spec_names_the_file(tmp_path, file, content, spec, message):
    path = tmp_path / file
    path.write_bytes(content)
    with pytest.raises(PuzzleInputError, match=message):
        specs.load_spec(spec.format(path))


def test_a_final_formulation_becomes_the_default():
    puzzle = specs.load_spec("queens:6:pairwise")
    assert puzzle.formulations == ("pairwise", "alldiff")
    assert puzzle.to_model().structure.key == "queens-6/pairwise"
    assert specs.load_spec("queens:6").to_model().structure.key == "queens-6/alldiff"
    latin = specs.load_spec("latin:4:holes=3:seed=1:onehot")
    assert latin.formulations[0] == "onehot" and latin.clues == 13


# ----- one new file is a new kind: the README walkthrough, run as written -----------
def walkthrough_module() -> str:
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"```python\n(# puzzles/magic_square\.py\n.*?)```", readme, re.S)
    assert match, "README lost its puzzles/magic_square.py walkthrough"
    return match.group(1)


@pytest.fixture
def walkthrough_kind(tmp_path, monkeypatch):
    """The README's example module, dropped into the puzzles package from a temp dir."""
    import puzzles
    (tmp_path / "magic_square.py").write_text(walkthrough_module())
    monkeypatch.setattr(puzzles, "__path__", [*puzzles.__path__, str(tmp_path)])
    monkeypatch.setattr(specs, "_discovered", False)
    monkeypatch.setattr(specs, "_KINDS", dict(specs._KINDS))
    yield
    sys.modules.pop("puzzles.magic_square", None)


def test_the_walkthrough_kind_needs_no_other_file(walkthrough_kind):
    from compare.checker import check
    from tests.test_kinds_support import cpsat_solutions
    assert specs.is_spec("magic:3")
    square = specs.load_spec("magic:3")
    model = square.to_model()
    solutions = cpsat_solutions(model)
    assert len(solutions) == 8          # the Lo Shu square and its 7 reflections/rotations
    for values in solutions:
        answer = square.decode(values)
        assert check(square, answer) is None
        assert square.format_answer(answer).count("\n") == 2
    assert check(square, tuple(range(1, 10))) is not None


def test_answers_are_written_by_the_puzzle_in_the_input_format():
    """solve and the harness ask the puzzle to write its answer: Sudoku in the
    format it came in, other kinds their own way whatever that format was."""
    from puzzles.queens import Queens
    from puzzles.sudoku import Sudoku
    grid = Sudoku(4, (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1))
    assert grid.written(grid.grid, "boj2580").splitlines()[1] == "3 4 1 2"
    assert grid.written(grid.grid, "boj2239").splitlines()[0] == "1234"
    assert grid.written(grid.grid) == "1234341221434321\n"
    assert grid.one_line() == "1234341221434321"
    queens = Queens(4)
    assert queens.written((2, 4, 1, 3), "boj2239") == queens.format_answer((2, 4, 1, 3)) + "\n"
    assert queens.one_line() is None
