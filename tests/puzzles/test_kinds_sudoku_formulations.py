"""Sudoku's three formulations: alldiff, pairwise and onehot give the same grids."""
from __future__ import annotations

from pathlib import Path

import pytest

from compare.judge.checker import check, check_model
from puzzles.kinds.sudoku import Sudoku, onehot_var, structure
from puzzles.model import Linear
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    brute_solutions,
    cpsat_lexfirst,
    cpsat_solutions,
    engine_names,
)

SAMPLE = Path(__file__).resolve().parents[2] / "puzzles" / "samples" / "boj2239.txt"
PUZZLE_4 = Sudoku(4, (1, 0, 0, 0,  0, 0, 3, 0,  0, 0, 0, 0,  0, 4, 0, 0))


def sample(suffix: str = ".txt") -> Sudoku:
    rows = SAMPLE.with_suffix(suffix).read_text().split()
    return Sudoku(9, tuple(int(ch) for row in rows for ch in row))


def onehot_of(grid, n: int) -> tuple[int, ...]:
    values = [0] * (len(grid) * n)
    for cell, v in enumerate(grid):
        values[onehot_var(cell, v, n)] = 1
    return tuple(values)


def test_onehot_structure_is_an_exact_cover():
    s = structure(9, "onehot")
    assert s.size == 729 and len(s.constraints) == 81 + 27 * 9
    assert all(isinstance(c, Linear) and c.op == "==" and c.rhs == 1 and set(c.coeffs) == {1}
               for c in s.constraints)
    assert s.variables[:2] == ("r1c1=9", "r1c1=8") and s.domains[0] == (0, 1)
    assert PUZZLE_4.to_model("onehot").structure is Sudoku(4, (0,) * 16).to_model("onehot").structure


def test_onehot_givens_are_unary_facts_on_the_booleans():
    model = PUZZLE_4.to_model("onehot")
    assert model.givens == ((onehot_var(0, 1, 4), 1), (onehot_var(6, 3, 4), 1), (onehot_var(13, 4, 4), 1))
    assert model.structure.variables[onehot_var(6, 3, 4)] == "r2c3=3"


def test_onehot_decode_inverts_the_encoding():
    grid = sample(".out").grid
    assert sample().decode(onehot_of(grid, 9), "onehot") == grid
    assert sample().decode(onehot_of(grid, 9), "alldiff") == onehot_of(grid, 9)
    broken = list(onehot_of(grid, 9))
    broken[onehot_var(0, 5, 9)] = 1 - broken[onehot_var(0, 5, 9)]
    assert sample().decode(broken, "onehot")[0] == 0     # no single value: a blank, rejected later


@pytest.mark.parametrize("formulation, solve", [
    ("alldiff", brute_solutions), ("pairwise", brute_solutions),
    ("onehot", brute_solutions), ("onehot", cpsat_solutions)])
def test_every_formulation_finds_the_same_grids_in_the_same_order(formulation, solve):
    expected = brute_solutions(PUZZLE_4.to_model("alldiff"))
    model = PUZZLE_4.to_model(formulation)
    solutions = solve(model)
    answers = [PUZZLE_4.decode(s, formulation) for s in solutions]
    assert sorted(answers) == expected
    if solve is brute_solutions:      # depth-first in variable order: lexicographic order
        assert answers == expected
    assert all(check_model(model, s) is None and check(PUZZLE_4, a) is None
               for s, a in zip(solutions, answers))


def test_the_empty_4x4_grid_has_288_solutions_as_onehot():
    assert len(cpsat_solutions(Sudoku(4, (0,) * 16).to_model("onehot"))) == 288


def test_judge_sample_lexfirst_is_the_same_grid_in_every_formulation():
    puzzle = sample()
    grids = {puzzle.decode(cpsat_lexfirst(puzzle.to_model(f)), f) for f in puzzle.formulations}
    assert len(grids) == 1
    assert check(puzzle, grids.pop()) is None


# ----- engines, as they gain the constraint kinds --------------------------------
@pytest.mark.parametrize("formulation", Sudoku.formulations)
@pytest.mark.parametrize("engine", engine_names())
def test_engines_give_the_alldiff_grid_in_every_formulation(engine, formulation):
    puzzle = sample()
    expected = (SAMPLE.with_suffix(".out").read_text().split())
    result = assert_engine_solves(engine, puzzle, formulation, "lexfirst")
    grid = puzzle.decode(result.solution, formulation)
    assert ["".join(map(str, grid[r * 9:(r + 1) * 9])) for r in range(9)] == expected
    count = assert_engine_solves(engine, PUZZLE_4, formulation, "count", limit=100)
    assert count.count == len(brute_solutions(PUZZLE_4.to_model("alldiff")))
