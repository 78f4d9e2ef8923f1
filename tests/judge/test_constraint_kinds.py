"""The checker's own evaluation of the constraint kinds beyond the four grid ones:
each accepts what holds and rejects, with a reason, what does not."""
from __future__ import annotations

import itertools

import pytest

from compare.judge.checker import check_model
from puzzles.model import (
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Model,
    ModelError,
    ReifiedLinear,
    Structure,
)


def model_of(domains, *constraints) -> Model:
    names = tuple(f"v{i}" for i in range(len(domains)))
    return Model(Structure("judge-kinds", names, tuple(map(tuple, domains)), constraints))


BOOL = range(2)


@pytest.mark.parametrize("implied", [False, True])
def test_a_reified_linear_holds_exactly_as_its_literal_says(implied):
    model = model_of([range(-2, 3), range(-2, 3), BOOL],
                     ReifiedLinear((1, -1), (0, 1), "<=", -1, literal=2, implied=implied))
    for x, y, b in itertools.product(range(-2, 3), range(-2, 3), BOOL):
        holds = x - y <= -1
        fine = (b == 1 and holds) or (b == 0 and (implied or not holds))
        reason = check_model(model, (x, y, b))
        assert (reason is None) == fine, (x, y, b, reason)
        if not fine:
            assert "v2 = " in reason and ("implies" if implied else "equivalent") in reason


def test_a_clause_needs_one_true_literal():
    model = model_of([BOOL] * 3, Clause((0, 1), (2,)))
    for values in itertools.product(BOOL, repeat=3):
        fine = values[0] == 1 or values[1] == 1 or values[2] == 0
        assert (check_model(model, values) is None) == fine
    assert "no true literal" in check_model(model, (0, 0, 1))
    wide = model_of([range(3)] * 3, Clause((0,), (1,)))
    assert "is not 0 or 1" in check_model(wide, (2, 0, 0))


def test_an_element_picks_by_its_base():
    model = model_of([range(1, 4), range(5), range(5), range(5), range(5)],
                     Element(0, (1, 2, 3), 4, base=1))
    assert check_model(model, (2, 0, 3, 0, 3)) is None
    assert "the element at v0 = 2 is 3" in check_model(model, (2, 0, 3, 0, 4))
    past = model_of([range(0, 5), range(5), range(5)], Element(0, (1,), 2, base=1))
    assert "indexes past" in check_model(past, (0, 1, 1))


@pytest.mark.parametrize("op, args, result, fine", [
    ("times", (-3, 4), -12, True), ("times", (-3, 4), 12, False),
    ("div", (-7, 2), -3, True), ("div", (-7, 2), -4, False), ("div", (7, -2), -3, True),
    ("div", (3, 0), 0, False),
    ("mod", (-7, 2), -1, True), ("mod", (7, -2), 1, True), ("mod", (-7, 2), 1, False),
    ("mod", (5, 0), 0, False),
    ("pow", (-2, 3), -8, True), ("pow", (0, 0), 1, True), ("pow", (2, -1), 0, False),
    ("abs", (-5,), 5, True), ("abs", (-5,), -5, False),
    ("min", (3, -1, 2), -1, True), ("max", (3, -1, 2), 3, True), ("max", (3, -1, 2), 2, False),
])
def test_arithmetic_truncates_toward_zero_and_fails_without_a_value(op, args, result, fine):
    values = (*args, result)
    domain = range(min(values), max(values) + 1)
    model = model_of([domain] * len(values), Arith(op, tuple(range(len(args))), len(args)))
    reason = check_model(model, values)
    assert (reason is None) == fine, reason
    if not fine:
        assert f"{op} of" in reason


def test_an_arith_with_the_wrong_arity_is_not_a_model():
    with pytest.raises(ModelError, match="'abs' with 2 argument"):
        model_of([range(3)] * 3, Arith("abs", (0, 1), 2))
    with pytest.raises(ModelError, match="'root'"):
        model_of([range(3)] * 2, Arith("root", (0,), 1))


def test_all_different_lists_rejects_two_lists_equal_position_by_position():
    model = model_of([range(3)] * 6, AllDifferentList(((0, 1), (2, 3), (4, 5))))
    for values in itertools.product(range(3), repeat=6):
        rows = {values[0:2], values[2:4], values[4:6]}
        assert (check_model(model, values) is None) == (len(rows) == 3), values
    reason = check_model(model, (1, 2, 0, 0, 1, 2))
    assert "v0, v1" in reason and "v4, v5" in reason and "(1, 2)" in reason


def test_all_different_lists_of_different_lengths_is_not_a_model():
    with pytest.raises(ModelError, match="different lengths"):
        model_of([range(3)] * 3, AllDifferentList(((0, 1), (2,))))
