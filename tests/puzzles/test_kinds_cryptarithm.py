"""Cryptarithms: parsing and its errors, both formulations against a direct
enumeration of digit assignments, and the rules."""
from __future__ import annotations

from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.rules.cryptarithm import check_cryptarithm
from puzzles.catalog import load_spec
from puzzles.kinds.cryptarithm import Cryptarithm, Term, from_text, structure
from puzzles.model import AllDifferent, Linear
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    assert_located_error,
    brute_solutions,
    cpsat_solutions,
    engine_names,
)

SEND = "SEND+MORE=MONEY"
SEND_ANSWER = (7, 5, 1, 6, 0, 8, 9, 2)          # D E M N O R S Y


def by_enumeration(puzzle: Cryptarithm) -> list[tuple[int, ...]]:
    """Every digit assignment the rules accept, found without the model."""
    return [digits for digits in permutations(range(10), len(puzzle.letters))
            if check_cryptarithm(puzzle, digits) is None]


def model_answers(puzzle: Cryptarithm, formulation: str, solve=brute_solutions):
    return [puzzle.decode(s, formulation) for s in solve(puzzle.to_model(formulation))]


def test_parses_words_signs_and_case():
    puzzle = load_spec("cryptarithm: send + more = money")
    assert puzzle.left == (Term(1, "SEND"), Term(1, "MORE")) and puzzle.right == (Term(1, "MONEY"),)
    assert puzzle.letters == tuple("DEMNORSY") and puzzle.name == SEND and puzzle.size == 8
    assert from_text("-A+BC=D-E").name == "-A+BC=D-E"


def test_sum_formulation_is_one_place_value_equation():
    puzzle = from_text(SEND)
    s = structure(puzzle.left, puzzle.right, "sum")
    assert s.constraints == (
        AllDifferent(tuple(range(8))),
        Linear((1, 91, -9000, -90, -900, 10, 1000, -1), tuple(range(8)), "==", 0))
    assert s.domains[2] == tuple(range(1, 10)) and s.domains[6] == tuple(range(1, 10))  # M, S
    assert s.domains[0] == tuple(range(10))


def test_columns_formulation_adds_carries_after_the_letters():
    puzzle = from_text(SEND)
    s = puzzle.to_model("columns").structure
    assert s.variables[8:] == ("carry1", "carry2", "carry3", "carry4")
    assert s.domains[8:] == ((0, 1),) * 4                                  # two addends: 0 or 1
    assert from_text("AB-BA=C").to_model("columns").structure.domains[3] == (-1, 0)
    assert sum(isinstance(c, Linear) for c in s.constraints) == 5          # one per column
    assert Linear((1, 1, -1, -10), (0, 1, 7, 8), "==", 0) in s.constraints  # D+E = Y+10c1


def test_one_letter_words_may_be_zero_longer_ones_may_not():
    assert from_text("A+B=C").to_model().structure.domains == ((tuple(range(10)),) * 3)
    assert from_text("AB=C").to_model().structure.domains[0] == tuple(range(1, 10))


@pytest.mark.parametrize("formulation", Cryptarithm.formulations)
def test_send_more_money_is_unique(formulation):
    puzzle = from_text(SEND)
    answers = model_answers(puzzle, formulation, cpsat_solutions)
    assert answers == [SEND_ANSWER]
    assert puzzle.format_answer(answers[0]) == \
        "9567+1085=10652\nD=7 E=5 M=1 N=6 O=0 R=8 S=9 Y=2"


@pytest.mark.parametrize("formulation", Cryptarithm.formulations)
@pytest.mark.parametrize("text, count", [
    ("TO+GO=OUT", 1), ("I+BB=ILL", 1), ("A+B=C", None), ("AB-BA=C", None),
    ("ONE+ONE=TWO", None), ("A+A+A=BA", None), ("AB+CD=A-B", 0)])
def test_model_solutions_are_exactly_the_rule_abiding_assignments(text, count, formulation):
    puzzle = from_text(text)
    expected = by_enumeration(puzzle)
    assert count is None or len(expected) == count
    assert model_answers(puzzle, formulation) == expected


words = st.text("ABCD", min_size=1, max_size=3)
terms = st.tuples(st.sampled_from("+-"), words).map("".join)


@settings(max_examples=25, deadline=None)
@given(st.lists(terms, min_size=1, max_size=3), words)
def test_random_equations_agree_with_enumeration(left, right):
    puzzle = from_text("".join(left).lstrip("+") + "=" + right)
    expected = by_enumeration(puzzle)
    for formulation in puzzle.formulations:
        assert model_answers(puzzle, formulation) == expected


def test_words_that_cancel_leave_no_equation():
    puzzle = from_text("AB=AB")
    assert [type(c) for c in puzzle.to_model().structure.constraints] == [AllDifferent]
    assert len(brute_solutions(puzzle.to_model())) == 9 * 9


@pytest.mark.parametrize("answer, reason", [
    (SEND_ANSWER, None),
    ((7, 5, 1, 6, 0, 8, 9, 3), "the sides differ by -1"),
    ((7, 5, 0, 6, 1, 8, 9, 2), "MORE = 0185 starts with 0"),
    ((7, 5, 1, 6, 0, 8, 9, 7), "two letters share a digit"),
    ((7, 5, 1, 6, 0, 8, 9), "wrong length: 7 values for 8 letters"),
    ((7, 5, 1, 6, 0, 8, 10, 2), "letter S = 10 is outside 0..9"),
])
def test_rules(answer, reason):
    got = check_cryptarithm(from_text(SEND), answer)
    assert got == reason if reason is None else reason in got


@pytest.mark.parametrize("text, message", [
    ("ABCDEFGHIJK=A", "ABCDEFGHIJK=A has 11 distinct letters; at most 10 fit in the digits 0-9"),
    ("SEND+MORE", "a cryptarithm needs exactly one '=', found 0"),
    ("SEND+MORE=", "the right side of '=' is empty"),
    ("SEND*MORE=MONEY", "stray '*' on the left side"),
    ("SEND+MORE=MONEY!", "stray '!' on the right side"),
    ("SEND+-MORE=MONEY", "stray '-' on the left side"),
    ("SEND+MORE+=MONEY", "the left side ends with '+'"),
    ("SEND+MORE=-", "the right side ends with '-'"),
])
def test_bad_equations(text, message):
    assert_located_error(from_text, text, "eq", None, message)


def test_spaces_inside_words_are_ignored():
    assert from_text("SEND + MORE = MON EY").name == SEND


# ----- engines, as they gain the constraint kinds --------------------------------
@pytest.mark.parametrize("formulation", Cryptarithm.formulations)
@pytest.mark.parametrize("engine", engine_names())
def test_engines_solve_send_more_money(engine, formulation):
    puzzle = from_text(SEND)
    result = assert_engine_solves(engine, puzzle, formulation, "count", limit=2)
    assert result.count == 1 and puzzle.decode(result.solution, formulation) == SEND_ANSWER
    lexfirst = assert_engine_solves(engine, puzzle, formulation, "lexfirst")
    assert puzzle.decode(lexfirst.solution, formulation) == SEND_ANSWER


@pytest.mark.parametrize("text, message", [
    ("A" * 19 + "=B", "a word of 19 letters; at most 18"),
    ("+".join(["A"] * 101) + "=B", "102 words; at most 100"),
])
def test_word_length_and_count_are_capped(text, message):
    from puzzles.errors import PuzzleInputError
    with pytest.raises(PuzzleInputError, match=message):
        from_text(text)
