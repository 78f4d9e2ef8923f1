"""N-Queens: both formulations give the known counts, and the rules judge alone."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check_model
from compare.judge.rules.queens import check_queens
from puzzles.kinds.queens import Queens, structure
from puzzles.model import AllDifferent, Linear, NotEqualOffset
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    brute_solutions,
    cpsat_solutions,
    engine_names,
)

KNOWN = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724,
         11: 2680, 12: 14200, 13: 73712, 14: 365596}


def test_pairwise_is_three_not_equals_per_pair_of_rows():
    s = structure(6, "pairwise")
    assert s.size == 6 and len(s.constraints) == 3 * 15
    assert all(isinstance(c, NotEqualOffset) for c in s.constraints)
    assert NotEqualOffset(1, 4, 3) in s.constraints and NotEqualOffset(1, 4, -3) in s.constraints


def test_alldiff_is_three_alldifferents_over_offset_columns():
    s = structure(5, "alldiff")
    assert s.size == 15 and s.variables[:5] == ("q1", "q2", "q3", "q4", "q5")
    groups = [c for c in s.constraints if isinstance(c, AllDifferent)]
    assert [g.vars for g in groups] == [(0, 1, 2, 3, 4), tuple(range(5, 10)), tuple(range(10, 15))]
    assert Linear((1, -1), (7, 2), "==", 2) in s.constraints      # up3 = q3 + 2
    assert Linear((1, -1), (12, 2), "==", 2) in s.constraints     # down3 = q3 - 2 + 4
    assert s.domains[7] == (3, 4, 5, 6, 7) and s.domains[12] == (3, 4, 5, 6, 7)
    assert s.domains[14] == (1, 2, 3, 4, 5) and s.variables[14] == "down5"
    assert min(min(d) for d in s.domains) == 1 and max(max(d) for d in s.domains) == 9


def test_structures_are_shared_per_shape_and_keyed_apart():
    assert Queens(7).to_model().structure is Queens(7).to_model().structure
    keys = {structure(n, f).key for n in (5, 6) for f in Queens.formulations}
    assert len(keys) == 4


@pytest.mark.parametrize("formulation", Queens.formulations)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_small_counts_by_brute_force(n, formulation):
    puzzle = Queens(n)
    solutions = brute_solutions(puzzle.to_model(formulation))
    assert len(solutions) == KNOWN[n]
    assert all(check_queens(puzzle, puzzle.decode(s, formulation)) is None for s in solutions)


@pytest.mark.parametrize("formulation", Queens.formulations)
def test_eight_queens_count_92_with_cpsat_reference(formulation):
    puzzle = Queens(8)
    answers = {puzzle.decode(s, formulation) for s in cpsat_solutions(puzzle.to_model(formulation))}
    assert len(answers) == 92
    assert all(check_queens(puzzle, a) is None for a in answers)


def test_ten_queens_count_724_with_cpsat_reference():
    assert len(cpsat_solutions(Queens(10).to_model("alldiff"))) == 724


def test_lexfirst_agrees_across_formulations():
    puzzle = Queens(7)
    firsts = {puzzle.decode(brute_solutions(puzzle.to_model(f), limit=1)[0], f)
              for f in puzzle.formulations}
    assert firsts == {(1, 3, 5, 7, 2, 4, 6)}


@settings(max_examples=200, deadline=None)
@given(st.integers(4, 7).flatmap(lambda n: st.lists(st.integers(1, n), min_size=n, max_size=n)))
def test_rules_agree_with_the_pairwise_model(columns):
    puzzle = Queens(len(columns))
    by_rules = check_queens(puzzle, columns) is None
    by_model = check_model(puzzle.to_model("pairwise"), columns) is None
    assert by_rules == by_model


@pytest.mark.parametrize("answer, reason", [
    ((2, 4, 1), "wrong length: 3 values for 4 rows"),
    ((2, 4, 1, 5), "row 4 = 5 is outside 1..4"),
    ((2, 4, 1, 1), "rows 3 and 4 (columns 1 and 1) attack"),
    ((1, 2, 4, 3), "rows 1 and 2 (columns 1 and 2) attack"),
    ((2, 4, 1, "3"), "row 4 holds '3' (not a whole number)"),
])
def test_rules_reject(answer, reason):
    assert reason in check_queens(Queens(4), answer)


def test_format_answer_shows_columns_then_board():
    assert Queens(4).format_answer((2, 4, 1, 3)) == "2 4 1 3\n.Q..\n...Q\nQ...\n..Q."


# ----- engines, as they gain the constraint kinds --------------------------------
ENGINE_COUNTS = [(engine, n) for n in (6, 8, 10)
                 for engine in engine_names(big=n > 6)]


@pytest.mark.parametrize("formulation", Queens.formulations)
@pytest.mark.parametrize("engine, n", ENGINE_COUNTS)
def test_engines_count_queens(engine, n, formulation):
    result = assert_engine_solves(engine, Queens(n), formulation, "count", limit=1000)
    assert result.count == KNOWN[n]


LEXFIRST = {7: (1, 3, 5, 7, 2, 4, 6), 8: (1, 5, 8, 6, 3, 7, 2, 4)}


@pytest.mark.parametrize("formulation", Queens.formulations)
@pytest.mark.parametrize("engine, n", [(e, n) for n in LEXFIRST for e in engine_names(big=n > 7)])
def test_engines_lexfirst_queens(engine, n, formulation):
    puzzle = Queens(n)
    result = assert_engine_solves(engine, puzzle, formulation, "lexfirst")
    assert puzzle.decode(result.solution, formulation) == LEXFIRST[n]
