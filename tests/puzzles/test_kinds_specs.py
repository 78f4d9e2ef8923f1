"""Puzzle specs: the kind registry, is_spec, load_spec and its one-line errors."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from puzzles import catalog as specs
from puzzles.errors import PuzzleInputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "puzzles" / "examples"
PETERSEN = EXAMPLES / "petersen.col"


def test_every_kind_registers_with_a_syntax_line():
    kinds = specs.kinds()
    assert set(kinds) >= {"queens", "killer", "latin", "coloring", "cryptarithm"}
    for name, kind in kinds.items():
        assert kind.syntax.startswith(name + ":"), kind.syntax
    listed = {info.name for info in specs.catalog()}
    assert listed == set(kinds) | {"sudoku"}


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


# ----- a kind in a folder of its own: the README example, run as written -------------
def readme_plugin() -> str:
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"```python\n(# magic_square\.py.*?)```", readme, re.S)
    assert match, "README lost its magic_square.py plugin example"
    return match.group(1)


@pytest.fixture
def plugin_file(tmp_path):
    folder = tmp_path / "my kinds"          # outside the repository, with a space
    folder.mkdir()
    path = folder / "magic_square.py"
    path.write_text(readme_plugin())
    return path


def run_cli(*argv, plugin):
    env = dict(os.environ, COMPARE_PLUGINS=str(plugin))
    env.pop("COMPARE_ENGINE_PLUGINS", None)
    return subprocess.run([sys.executable, str(ROOT / "run_compare.py"), *argv], cwd=plugin.parent,
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_plugin_kind_from_its_own_folder_solves_lists_and_is_judged(plugin_file):
    solved = run_cli("solve", "--puzzle", "magic:3", "--engine", "backtracking",
                     plugin=plugin_file)
    assert solved.returncode == 0, solved.stderr
    square = list(map(int, solved.stdout.split()))
    assert sorted(square) == list(range(1, 10)) and sum(square[:3]) == 15
    listed = run_cli("kinds", plugin=plugin_file)
    assert listed.returncode == 0
    assert any(line.startswith("magic ") and "alldiff" in line
               for line in listed.stdout.splitlines())


def test_the_plugin_judge_rejects_what_its_model_would_let_through(plugin_file):
    """The kind's own rules judge answers, not its model: a wrong answer is caught."""
    from compare.judge.checker import check
    from compare.plugins import load_plugins
    load_plugins([str(plugin_file)])
    square = specs.load_spec("magic:3")
    assert check(square, (2, 7, 6, 9, 5, 1, 4, 3, 8)) is None
    assert "line sums differ" in check(square, (1, 2, 3, 4, 5, 6, 7, 8, 9))


def test_a_missing_plugin_is_one_line_and_exit_2(tmp_path):
    proc = run_cli("kinds", plugin=tmp_path / "nowhere.py")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: plugin {tmp_path / 'nowhere.py'}: no such file"


def test_answers_are_written_by_the_puzzle_in_the_input_format():
    """solve and the harness ask the puzzle to write its answer: Sudoku in the
    format it came in, other kinds their own way whatever that format was."""
    from puzzles.kinds.queens import Queens
    from puzzles.kinds.sudoku import Sudoku
    grid = Sudoku(4, (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1))
    assert grid.written(grid.grid, "boj2580").splitlines()[1] == "3 4 1 2"
    assert grid.written(grid.grid, "boj2239").splitlines()[0] == "1234"
    assert grid.written(grid.grid) == "1234341221434321\n"
    assert grid.one_line() == "1234341221434321"
    queens = Queens(4)
    assert queens.written((2, 4, 1, 3), "boj2239") == queens.format_answer((2, 4, 1, 3)) + "\n"
    assert queens.one_line() is None
