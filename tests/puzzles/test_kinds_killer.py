"""Killer Sudoku: the cage file format, its errors, the model and the rules."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check_model
from compare.judge.rules.killer import check_killer
from puzzles.catalog import load_spec
from puzzles.kinds.killer import Cage, Killer, random_cages, read_killer, solved_grid, structure
from puzzles.model import AllDifferent, Linear, NotEqualOffset
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    assert_located_error,
    brute_solutions,
    cpsat_solutions,
    engine_names,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "puzzles" / "examples"
SMALL = "size 4\n3: r1c1 r1c2\n7: r1c3 r1c4\n7: r2c1 r2c2\n3: r2c3 r2c4\n10: r3c1 r3c2 r3c3 r3c4\n10: r4c1 r4c2 r4c3 r4c4\n"


def example(name: str) -> Killer:
    return load_spec(f"killer:{EXAMPLES / name}")


def test_reads_the_cage_format():
    k = read_killer("# a comment\n\nsize 4\n" + SMALL.split("\n", 1)[1].replace("r1c2", "R1C2,"), "t")
    assert k.n == 4 and k.cages[0] == Cage(3, (0, 1)) and k.clues == 6
    assert read_killer(k.text(), "t").cages == k.cages


def test_the_model_adds_cage_sums_and_cage_alldifferents():
    k = read_killer(SMALL, "t")
    alldiff, pairwise = (structure(4, k.cages, f) for f in ("alldiff", "pairwise"))
    assert Linear((1, 1), (0, 1), "==", 3) in alldiff.constraints
    assert AllDifferent((0, 1)) in alldiff.constraints
    assert sum(isinstance(c, AllDifferent) for c in alldiff.constraints) == 12 + 6
    assert sum(isinstance(c, Linear) for c in pairwise.constraints) == 6
    assert all(isinstance(c, (Linear, NotEqualOffset)) for c in pairwise.constraints)
    swapped = random_cages(solved_grid(4, random.Random(1)), 4, random.Random(2))
    assert structure(4, swapped.cages, "alldiff").key != alldiff.key


@pytest.mark.parametrize("formulation", Killer.formulations)
@pytest.mark.parametrize("name", ["killer4a.killer", "killer4b.killer"])
def test_small_examples_are_unique_by_brute_force(name, formulation):
    puzzle = example(name)
    solutions = brute_solutions(puzzle.to_model(formulation))
    assert len(solutions) == 1
    assert check_killer(puzzle, puzzle.decode(solutions[0], formulation)) is None


@pytest.mark.parametrize("formulation", Killer.formulations)
def test_nine_by_nine_example_is_unique_with_cpsat_reference(formulation):
    puzzle = example("killer9.killer")
    solutions = cpsat_solutions(puzzle.to_model(formulation), limit=2)
    assert len(solutions) == 1
    assert check_killer(puzzle, solutions[0]) is None


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_random_cages_keep_their_grid_and_every_solution_obeys_the_rules(seed):
    rng = random.Random(seed)
    grid = solved_grid(4, rng)
    puzzle = random_cages(grid, 4, rng, 1, 4)
    assert check_killer(puzzle, grid) is None
    assert check_model(puzzle.to_model(), grid) is None
    solutions = brute_solutions(puzzle.to_model("alldiff"))
    assert grid in solutions
    assert solutions == brute_solutions(puzzle.to_model("pairwise"))
    assert all(check_killer(puzzle, s) is None for s in solutions)


def test_rules_reject_wrong_grids():
    puzzle = read_killer(SMALL, "t")
    good = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)
    assert check_killer(puzzle, good) is None
    assert "cage 1 adds up to 3, not 5" in check_killer(
        read_killer(SMALL.replace("3: r1c1", "5: r1c1").replace("7: r1c3", "5: r1c3"), "t"), good)
    assert "row 1 repeats 1" in check_killer(puzzle, (1, 1) + good[2:])
    assert "wrong length" in check_killer(puzzle, good[:-1])
    assert "outside 1..4" in check_killer(puzzle, good[:-1] + (5,))
    apart = Killer(4, (Cage(2, (0, 6)),))       # r1c1 and r2c3 both hold 1, and are not peers
    assert "cage 1 repeats a value: [1, 1]" in check_killer(apart, good)


@pytest.mark.parametrize("text, line, message", [
    ("", None, "empty cage file"),
    ("# only a comment\n", None, "empty cage file"),
    ("3: r1c1\n", 1, "expected 'size N' first"),
    ("size 5\n", 1, "unsupported size 5"),
    ("size 4\nr1c1 r1c2\n", 2, "expected a cage 'SUM: r1c1 r1c2 ...'"),
    ("size 4\n3:\n", 2, "cage has no cells"),
    ("size 4\n3: a1 a2\n", 2, "bad cell name 'a1'; expected rROWcCOL"),
    ("size 4\n3: r1c1 r5c1\n", 2, "cell r5c1 outside the 4x4 grid"),
    ("size 4\n3: r1c1 r0c1\n", 2, "cell r0c1 outside the 4x4 grid"),
    ("size 4\n3: r1c1 r1c1\n", 2, "cell r1c1 twice in one cage"),
    ("size 4\n3: r1c1 r1c2\n\n4: r1c2 r1c3\n", 4, "cell r1c2 is already in the cage on line 2"),
    ("size 4\n2: r1c1 r1c2\n", 2, "sum 2 impossible for 2 distinct values 1..4 (possible: 3..7)"),
    ("size 4\n8: r1c1 r1c2\n", 2, "sum 8 impossible"),
    ("size 4\n10: r1c1 r1c2 r1c3 r1c4 r2c1\n", 2, "cage of 5 cells cannot hold distinct values"),
    ("size 4\n3: r1c1 r1c2\n", None, "14 cell(s) in no cage: r1c3, r1c4, r2c1, r2c2, r2c3, ..."),
    (SMALL.replace("3: r2c3", "4: r2c3"), None, "cage sums add up to 41, but a 4x4 grid adds up to 40"),
    ("size 4\n\x00\x9f\xff: r1c1\n", 2, "expected a cage"),
])
def test_bad_cage_files_get_located_one_line_errors(text, line, message):
    assert_located_error(read_killer, text, "cages.killer", line, message)


def test_format_answer_is_the_grid():
    assert read_killer(SMALL, "t").format_answer(tuple(range(1, 17))).splitlines()[1] == "5 6 7 8"


# ----- engines, as they gain the constraint kinds --------------------------------
EXAMPLE_ENGINES = [(engine, name) for name in ("killer4a.killer", "killer4b.killer")
                   for engine in engine_names()]
EXAMPLE_ENGINES += [(engine, "killer9.killer") for engine in engine_names(big=True)]


@pytest.mark.parametrize("formulation", Killer.formulations)
@pytest.mark.parametrize("engine, name", EXAMPLE_ENGINES)
def test_engines_solve_the_killer_examples(engine, name, formulation):
    puzzle = example(name)
    result = assert_engine_solves(engine, puzzle, formulation, "count", limit=2)
    assert result.count == 1
    expected = cpsat_solutions(puzzle.to_model(formulation), limit=1)[0]
    assert puzzle.decode(result.solution, formulation) == puzzle.decode(expected, formulation)
