"""The independent checker: it accepts valid answers and rejects each kind of wrong one."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check, check_model, verify
from compare.judge.rules.sudoku import check_sudoku
from engines.contract import Result, Status
from puzzles.base import Puzzle
from puzzles.formats.grids import parse_grid
from puzzles.kinds.sudoku import Sudoku, onehot_var
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "puzzles" / "samples"
BOJ = parse_grid((SAMPLES / "boj2239.txt").read_text())[0]
BOJ_SOLVED = parse_grid((SAMPLES / "boj2239.out").read_text())[0].grid


def pattern_solution(n: int, relabel=None) -> list[int]:
    box = int(n ** 0.5)
    relabel = relabel or list(range(1, n + 1))
    return [relabel[(box * (r % box) + r // box + c) % n] for r in range(n) for c in range(n)]


def onehot(grid, n):
    values = [0] * (len(grid) * n)
    for cell, v in enumerate(grid):
        if 1 <= v <= n:
            values[onehot_var(cell, v, n)] = 1
    return values


@st.composite
def solved(draw, sides=(4, 9, 16)):
    """A valid full grid (relabelled pattern) and a puzzle keeping some of it."""
    n = draw(st.sampled_from(sides))
    grid = pattern_solution(n, list(draw(st.permutations(range(1, n + 1)))))
    keep = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    return Sudoku(n, tuple(v if k else 0 for v, k in zip(grid, keep))), grid


# ----- Sudoku grids ------------------------------------------------------------------
def test_the_boj_answer_is_accepted():
    assert check(BOJ, BOJ_SOLVED) is None


def test_the_checker_shares_nothing_with_engines_or_the_sudoku_model():
    tree = ast.parse((ROOT / "compare" / "judge" / "checker.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    # the engines package exports the result vocabulary (statuses); no engine code is imported
    assert not any(m.split(".")[0] == "engines" and m not in ("engines", "engines.contract")
                   for m in imported)
    assert "puzzles.kinds.sudoku" not in imported


def _changed(cell: int, value) -> list:
    grid = list(BOJ_SOLVED)
    grid[cell] = value
    return grid


@pytest.mark.parametrize("answer, reason", [
    (_changed(0, 2), "r1c1 changes given 1 to 2"),
    (_changed(1, 0), "r1c2 holds 0 (blank)"),
    (_changed(1, 10), "r1c2 holds 10 (outside 1..9)"),
    (_changed(1, -4), "r1c2 holds -4 (outside 1..9)"),
    (_changed(1, 4.5), "r1c2 holds 4.5 (not a whole number)"),
    (_changed(1, "4"), "r1c2 holds '4' (not a whole number)"),
    (_changed(1, 3), "row 1 repeats 3"),
    (BOJ_SOLVED[:80], "wrong length: 80 values for 81 cells"),
    (BOJ_SOLVED + (1,), "wrong length: 82 values for 81 cells"),
])
def test_each_kind_of_wrong_grid_is_rejected(answer, reason):
    assert check(BOJ, answer) == reason


def test_a_column_repeat_is_rejected_when_rows_are_fine():
    grid = pattern_solution(9)
    grid[0], grid[1] = grid[1], grid[0]        # row 1 keeps its values
    assert check_sudoku(Sudoku(9, (0,) * 81), grid) == f"column 1 repeats {grid[0]}"


def test_a_box_repeat_is_rejected_when_rows_and_columns_are_fine():
    latin = [(r + c) % 9 + 1 for r in range(9) for c in range(9)]
    assert check(Sudoku(9, (0,) * 81), latin) == "box 1 repeats 2"


@settings(max_examples=30, deadline=None)
@given(solved())
def test_valid_grids_are_accepted(case):
    puzzle, grid = case
    assert check(puzzle, grid) is None
    assert check_model(puzzle.to_model(), grid) is None


@settings(max_examples=30, deadline=None)
@given(solved(), st.data())
def test_two_cells_swapped_in_a_row_are_rejected_unless_equal(case, data):
    puzzle, grid = case
    n = puzzle.n
    row = data.draw(st.integers(0, n - 1))
    a, b = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    a, b = row * n + a, row * n + b
    swapped = list(grid)
    swapped[a], swapped[b] = grid[b], grid[a]
    assert grid[a] != grid[b]
    assert check(puzzle, swapped) is not None
    assert check(Sudoku(n, (0,) * (n * n)), swapped).startswith("column ")


@settings(max_examples=30, deadline=None)
@given(solved(), st.data())
def test_any_single_changed_cell_is_rejected(case, data):
    puzzle, grid = case
    n = puzzle.n
    cell = data.draw(st.integers(0, n * n - 1))
    value = data.draw(st.integers(-1, n + 1).filter(lambda v: v != grid[cell]))
    wrong = list(grid)
    wrong[cell] = value
    assert check(puzzle, wrong) is not None
    for formulation in ("alldiff", "pairwise"):
        assert check_model(puzzle.to_model(formulation), wrong) is not None


@settings(max_examples=150, deadline=None)
@given(solved(sides=(4,)), st.lists(st.tuples(st.integers(0, 15), st.integers(1, 4)),
                                    max_size=3))
def test_grid_rules_and_every_formulation_agree(case, edits):
    puzzle, grid = case
    for cell, value in edits:
        grid[cell] = value
    verdict = check(puzzle, grid) is None
    for formulation in ("alldiff", "pairwise"):
        assert (check_model(puzzle.to_model(formulation), grid) is None) == verdict
    assert (check_model(puzzle.to_model("onehot"), onehot(grid, 4)) is None) == verdict


# ----- any model -------------------------------------------------------------------
def tiny_model(constraint, domains=((0, 1, 2, 3),) * 3, givens=()):
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure(f"tiny-{id(constraint)}", names, tuple(domains), (constraint,)),
                 tuple(givens))


@pytest.mark.parametrize("constraint, good, bad, reason", [
    (AllDifferent((0, 1, 2)), (0, 1, 2), (0, 2, 2), "x1 and x2 both take 2 (AllDifferent)"),
    (Linear((1, 2, 3), (0, 1, 2), "==", 6), (1, 1, 1), (1, 1, 2),
     "sum over x0, x1, x2 is 9, needs == 6"),
    (Linear((1, 1), (0, 1), "!=", 2), (0, 1, 0), (1, 1, 0), "sum over x0, x1 is 2, needs != 2"),
    (Linear((1, -1), (0, 2), "<=", 0), (1, 0, 1), (2, 0, 1), "sum over x0, x2 is 1, needs <= 0"),
    (Linear((2,), (1,), ">=", 4), (0, 2, 0), (0, 1, 0), "sum over x1 is 2, needs >= 4"),
    (NotEqualOffset(0, 1, 1), (1, 1, 0), (2, 1, 0), "x0 = 2 equals x1 + 1 = 2"),
    (NotEqualOffset(0, 2), (1, 0, 2), (3, 0, 3), "x0 = 3 equals x2 = 3"),
    (Table((0, 2), ((0, 1), (2, 3))), (2, 0, 3), (2, 0, 1),
     "x0, x2 = (2, 1) is not an allowed tuple"),
])
def test_every_constraint_kind_is_evaluated(constraint, good, bad, reason):
    model = tiny_model(constraint)
    assert check_model(model, good) is None
    assert check_model(model, bad) == reason


def test_domains_givens_length_and_unknown_kinds():
    model = tiny_model(AllDifferent((0, 1)), domains=((1, 2), (1, 2), (5,)), givens=((1, 2),))
    assert check_model(model, (1, 2, 5)) is None
    assert check_model(model, (3, 2, 5)) == "x0 = 3 is outside its domain"
    assert check_model(model, (2, 1, 5)) == "x1 changes given 2 to 1"
    assert check_model(model, (1, 2)) == "wrong length: 2 values for 3 variables"

    @dataclass(frozen=True)
    class Mystery:
        vars: tuple[int, ...]

    assert check_model(tiny_model(Mystery((0,))), (0, 0, 0)) == \
        "cannot check constraint kind Mystery"


# ----- dispatch by kind -------------------------------------------------------------
class Toy(Puzzle):
    """Two cells that must differ; no rules of its own, so the model judges it."""
    kind = "toy-checker-test"

    def to_model(self, formulation=None):
        return tiny_model(NotEqualOffset(0, 1), domains=((1, 2),) * 2)


def test_kinds_without_rules_fall_back_to_their_model():
    assert check(Toy(), (1, 2)) is None
    assert check(Toy(), (2, 2)) == "x0 = 2 equals x1 = 2"


def test_registered_rules_judge_their_kind(monkeypatch):
    from compare.judge import rulebook
    monkeypatch.setitem(rulebook.RULES, Toy.kind, lambda puzzle, answer: "never right")
    assert check(Toy(), (1, 2)) == "never right"
    rulebook.register_rules(Toy.kind, lambda puzzle, answer: None)
    assert check(Toy(), (2, 2)) is None


# ----- verify: engine results ---------------------------------------------------------
def result(status, solutions=(), count=None, mode="first"):
    return Result("test", "builtin", "0", mode, status, [tuple(s) for s in solutions], count)


MODEL = BOJ.to_model()


@pytest.mark.parametrize("status", ["timeout", "error", "unsupported", "crashed"])
def test_results_without_an_answer_are_unverified(status):
    assert verify(BOJ, MODEL, result(Status(status))) == (False, f"no answer: {status}")


def test_a_correct_solution_is_verified():
    ok, reason = verify(BOJ, MODEL, result(Status.SOLVED, [BOJ_SOLVED], mode="lexfirst"))
    assert ok, reason


def test_a_wrong_solution_is_caught_with_its_reason():
    wrong = _changed(1, 3)
    assert verify(BOJ, MODEL, result(Status.SOLVED, [wrong])) == \
        (False, "r1c2 and r1c3 both take 3 (AllDifferent)")


@pytest.mark.parametrize("res, reason", [
    (result(Status.SOLVED), "claims solved but lists no solution"),
    (result(Status.UNSAT, [BOJ_SOLVED]), "claims unsatisfiable but reports solutions"),
    (result(Status.UNSAT, count=3, mode="count"), "claims unsatisfiable but reports solutions"),
    (result(Status.SOLVED, [BOJ_SOLVED] * 2, count=2, mode="count"), "lists one solution twice"),
    (result(Status.SOLVED, [BOJ_SOLVED], count=0, mode="count"),
     "count 0 is below the 1 solutions listed"),
])
def test_inconsistent_results_are_not_verified(res, reason):
    assert verify(BOJ, MODEL, res) == (False, reason)


def test_a_count_above_the_limit_is_not_verified():
    res = result(Status.SOLVED, [BOJ_SOLVED], count=6, mode="count")
    assert verify(BOJ, MODEL, res, limit=1) == (False, "count 6 is above the limit 1")
    assert verify(BOJ, MODEL, res, limit=6)[0]


def test_unsatisfiable_and_counts_are_verified_when_consistent():
    assert verify(BOJ, MODEL, result(Status.UNSAT))[0]
    assert verify(BOJ, MODEL, result(Status.UNSAT, count=0, mode="count"))[0]
    assert verify(BOJ, MODEL, result(Status.SOLVED, [BOJ_SOLVED], count=2, mode="count"))[0]


def test_verify_decodes_other_formulations():
    """729 Booleans pass only if they are decoded to the 81-cell grid first."""
    model = BOJ.to_model("onehot")
    good = result(Status.SOLVED, [onehot(BOJ_SOLVED, 9)])
    assert verify(BOJ, model, good, "onehot")[0]
    bits = onehot(BOJ_SOLVED, 9)
    cell_one = [onehot_var(1, v, 9) for v in range(1, 10)]
    for var in cell_one:          # r1c2 set to 3 instead of 4
        bits[var] = 0
    bits[onehot_var(1, 3, 9)] = 1
    ok, reason = verify(BOJ, model, result(Status.SOLVED, [bits]), "onehot")
    assert not ok and reason.startswith("sum over r1c1=3, r1c2=3, r1c3=3")
