"""Latin square completion: the generator, the grid file, three formulations, the rules."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.rules.latin import check_latin
from puzzles.catalog import load_spec
from puzzles.kinds.latin import LatinSquare, generate, random_square, read_grid, structure
from puzzles.model import AllDifferent, Linear, NotEqualOffset
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    assert_located_error,
    brute_solutions,
    cpsat_lexfirst,
    cpsat_solutions,
    engine_names,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "puzzles" / "examples" / "latin6.latin"


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(0, 10 ** 6))
def test_random_squares_are_latin(n, seed):
    square = random_square(n, random.Random(seed))
    assert check_latin(LatinSquare(n, (0,) * (n * n)), square) is None


def test_generator_punches_the_holes_asked_and_is_seeded():
    puzzle = generate(7, 20, seed=5)
    assert puzzle.grid.count(0) == 20 and puzzle.clues == 29 and puzzle.name == "latin-7-h20-s5"
    assert generate(7, 20, seed=5) == puzzle and generate(7, 20, seed=6).grid != puzzle.grid
    assert load_spec("latin:7:holes=20:seed=5") == puzzle
    assert load_spec("latin:6").grid.count(0) == 18


def test_structures():
    alldiff, pairwise, onehot = (structure(4, f) for f in LatinSquare.formulations)
    assert len(alldiff.constraints) == 8 and all(isinstance(c, AllDifferent) for c in alldiff.constraints)
    assert len(pairwise.constraints) == 16 * 6 // 2 and all(isinstance(c, NotEqualOffset) for c in pairwise.constraints)
    assert onehot.size == 64 and len(onehot.constraints) == 16 + 8 * 4
    assert all(isinstance(c, Linear) for c in onehot.constraints)
    assert len({s.key for s in (alldiff, pairwise, onehot)}) == 3


@pytest.mark.parametrize("seed", range(4))
def test_formulations_have_the_same_completions(seed):
    puzzle = generate(4, 9, seed)
    answers = [[puzzle.decode(s, f) for s in brute_solutions(puzzle.to_model(f))]
               for f in puzzle.formulations]
    assert answers[0] == answers[1] == answers[2]      # same set, same (lexicographic) order
    assert answers[0] and all(check_latin(puzzle, a) is None for a in answers[0])


def test_empty_square_of_order_4_has_576_completions():
    assert len(brute_solutions(LatinSquare(4, (0,) * 16).to_model())) == 576


def test_example_file_has_one_completion():
    puzzle = load_spec(f"latin:{EXAMPLE}")
    assert (puzzle.n, puzzle.clues, puzzle.name) == (6, 14, "latin6")
    solutions = cpsat_solutions(puzzle.to_model(), limit=2)
    assert len(solutions) == 1 and check_latin(puzzle, solutions[0]) is None


def test_onehot_decodes_what_it_encodes():
    puzzle = generate(5, 0, seed=2)
    onehot = cpsat_solutions(puzzle.to_model("onehot"))
    assert len(onehot) == 1 and puzzle.decode(onehot[0], "onehot") == puzzle.grid


@pytest.mark.parametrize("answer, reason", [
    ((1, 1, 2, 2), "row 1 repeats 1"),
    ((1, 2, 1, 2), "column 1 repeats 1"),
    ((2, 1, 1, 2), "r1c1 changes given 1 to 2"),
    ((1, 2, 2), "wrong length: 3 values for 4 cells"),
    ((1, 3, 2, 1), "r1c2 = 3 is outside 1..2"),
])
def test_rules_reject(answer, reason):
    puzzle = LatinSquare(2, (1, 0, 0, 0))
    assert check_latin(puzzle, (1, 2, 2, 1)) is None
    assert reason in check_latin(puzzle, answer)


def test_reads_a_grid_file():
    puzzle = read_grid("# order 3\n1 . 3\n\n0 0 0   # a blank row\n. . 1\n", "sq.latin")
    assert puzzle.grid == (1, 0, 3, 0, 0, 0, 0, 0, 1) and puzzle.source == "sq"
    assert puzzle.format_answer((1, 2, 3, 3, 1, 2, 2, 3, 1)) == "1 2 3\n3 1 2\n2 3 1"


@pytest.mark.parametrize("text, line, message", [
    ("", None, "empty Latin square file"),
    ("1 2\n2\n", 2, "row has 1 values; a square of 2 rows needs 2"),
    ("1 x\n. .\n", 1, "stray 'x'; expected a number or '.'"),
    ("1 3\n. .\n", 1, "value 3 out of range 1..2"),
    ("1 1\n. .\n", 1, "value 1 twice in row 1"),
    ("1 .\n1 .\n", 2, "value 1 twice in column 1"),
    ("\x00\xff .\n. .\n", 1, "stray"),
])
def test_bad_grid_files(text, line, message):
    assert_located_error(read_grid, text, "sq.latin", line, message)


# ----- engines, as they gain the constraint kinds --------------------------------
@pytest.mark.parametrize("formulation", LatinSquare.formulations)
@pytest.mark.parametrize("engine", engine_names())
def test_engines_complete_latin_squares(engine, formulation):
    puzzle = load_spec(f"latin:{EXAMPLE}")
    result = assert_engine_solves(engine, puzzle, formulation, "count", limit=2)
    assert result.count == 1
    big = generate(9, 40, seed=3)
    assert_engine_solves(engine, big, formulation, "first")
    first = assert_engine_solves(engine, big, formulation, "lexfirst")
    assert big.decode(first.solution, formulation) == cpsat_lexfirst(big.to_model("alldiff"))
