"""python-constraint on ReifiedLinear, Clause, Element, Arith and AllDifferentList, held
against the brute force of ``random_models`` and judged by the independent checker."""
from __future__ import annotations

import pytest

pytest.importorskip("constraint")

import engines.python_constraint as pc  # noqa: E402
from engines import get_engine  # noqa: E402
from engines.contract import Status  # noqa: E402
from puzzles.model import (  # noqa: E402
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Model,
    ReifiedLinear,
    Structure,
)
from tests.kinds.engine_checks import assert_matches_brute_force  # noqa: E402
from tests.kinds.random_models import KINDS, corpus, solutions  # noqa: E402


def test_python_constraint_declares_the_four_kinds():
    engine = get_engine("python-constraint")
    for kind in (ReifiedLinear, Clause, Element, Arith, AllDifferentList):
        assert kind in engine.constraint_kinds
    assert engine.unsupported_reason(corpus(1)[0][2], "lexfirst") is None


@pytest.mark.parametrize("kind", KINDS)
def test_every_mode_matches_the_brute_force_on_random_models(kind):
    engine = get_engine("python-constraint")
    for k, seed, model in corpus():
        if k == kind:
            assert_matches_brute_force(engine, model, (kind, seed))


@pytest.mark.parametrize("solver", sorted(set(pc.SOLVERS) - {"backtracking"}))
def test_the_other_solvers_agree_with_the_brute_force(solver):
    engine = get_engine(f"python-constraint:solver={solver}")
    for kind, seed, model in corpus(6):
        assert_matches_brute_force(engine, model, (solver, kind, seed))


def test_givens_narrow_the_random_models_exactly():
    engine = get_engine("python-constraint")
    for kind, seed, model in corpus(12):
        truth = solutions(model)
        if truth:
            narrowed = Model(model.structure, tuple(enumerate(truth[-1][:2])))
            assert_matches_brute_force(engine, narrowed, (kind, seed))


def model_of(domains, constraints, givens=()) -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure("pc-kinds-test", names, tuple(map(tuple, domains)),
                           tuple(constraints)), tuple(givens))


def test_constraints_over_one_variable_or_none_fold_into_the_domains():
    engine = get_engine("python-constraint")
    assert engine.solve(model_of([(0, 1)], [Clause(())]), "first").status is Status.UNSAT
    both = model_of([(0, 1), (0, 1)], [Clause((0,), (0,)), Clause((1, 1))])   # tautology; x1 = 1
    assert engine.solve(both, "count", limit=10).count == 2
    twice = model_of([range(-3, 4), range(10)], [Arith("times", (0, 0), 1)])   # x1 = x0 * x0
    assert engine.solve(twice, "count", limit=10).count == 7


def test_arith_without_a_value_fails_the_constraint():
    engine = get_engine("python-constraint")
    doms = [range(-2, 3), range(-2, 3), range(-10, 11)]
    for op, how_many in [("div", 20), ("mod", 20), ("pow", 15)]:
        # div and mod: every pair but a zero divisor; pow: every pair but a negative exponent
        model = model_of(doms, [Arith(op, (0, 1), 2)])
        assert engine.solve(model, "count", limit=100).count == how_many, op
    element = model_of([(0, 1, 2, 3), (5,), (6,), (5, 6)], [Element(0, (1, 2), 3, base=1)])
    assert engine.solve(element, "count", limit=10).count == 2     # index 1 or 2 only
