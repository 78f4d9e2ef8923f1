"""CP-SAT translates ReifiedLinear, Clause, Element, Arith and AllDifferentList exactly: every mode
agrees with the brute force on the random models of each kind."""
from __future__ import annotations

import pytest

pytest.importorskip("ortools")

from engines import Status, get_engine  # noqa: E402
from engines.support.arith import POW_TABLE_MOST  # noqa: E402
from puzzles.model import (  # noqa: E402
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Model,
    ReifiedLinear,
    Structure,
)
from tests.kinds.engine_checks import disagreements  # noqa: E402
from tests.kinds.random_models import KINDS, corpus, solutions  # noqa: E402

MODELS = corpus(25)


@pytest.fixture(scope="module")
def engine():
    return get_engine("cpsat")


def test_the_new_kinds_are_declared(engine):
    assert {ReifiedLinear, Clause, Element, Arith, AllDifferentList} <= engine.constraint_kinds


@pytest.mark.parametrize("kind", KINDS)
def test_every_mode_agrees_with_the_brute_force(engine, kind):
    wrong = []
    for name, seed, model in MODELS:
        if name == kind:
            wrong += disagreements(engine, name, seed, model)
    assert not wrong, "\n".join(wrong)


def _model(domains, *constraints) -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure("hand", names, tuple(map(tuple, domains)), constraints))


def test_mod_by_a_negative_divisor_takes_the_dividends_sign(engine):
    model = _model([(-7,), (-3, 2), range(-5, 6)], Arith("mod", (0, 1), 2))
    result = engine.solve(model, "count", limit=10)
    assert sorted(result.solutions) == [(-7, -3, -1), (-7, 2, -1)]


def test_division_by_zero_has_no_solution(engine):
    model = _model([(5,), (0,), range(-5, 6)], Arith("div", (0, 1), 2))
    assert engine.solve(model, "first").status is Status.UNSAT


def test_a_literal_of_a_wider_domain_is_kept_to_0_or_1(engine):
    model = _model([range(-1, 3), (0, 1)], Clause((0,), (1,)))
    result = engine.solve(model, "count", limit=10)
    assert sorted(result.solutions) == [(0, 0), (1, 0), (1, 1)]


def test_a_pow_too_large_for_its_table_is_not_applicable(engine):
    side = int(POW_TABLE_MOST ** 0.5) + 2
    model = _model([range(side), range(side), (0, 1)], Arith("pow", (0, 1), 2))
    result = engine.solve(model, "first")
    assert result.status is Status.UNSUPPORTED
    assert "pow" in result.message


def test_an_element_index_outside_the_array_has_no_solution(engine):
    model = _model([(0, 3), (7,), (7,)], Element(0, (1,), 2, base=1))
    assert engine.solve(model, "count", limit=5).count == 0


def test_auxiliary_variables_come_after_the_models_own(engine):
    """``CpTask.restrict`` narrows the first proto variables: they must be the model's."""
    model = _model([range(-1, 3), range(-3, 3), range(-3, 3), range(-3, 3)],
                   Clause((0,), ()), Arith("mod", (1, 2), 3), Arith("div", (1, 2), 3))
    task = engine.translate(model)
    names = [v.name for v in task.cp.proto.variables]
    assert len(names) > model.structure.size
    assert names[:model.structure.size] == list(model.structure.variables)
    assert engine.solve(model, "count", limit=100).count == len(solutions(model))
