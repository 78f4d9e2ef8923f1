"""The backtracker on ReifiedLinear, Clause, Element, Arith and AllDifferentList.

Ground truth is the brute force of ``random_models`` (which shares no code with
the engine); every answer is also judged by the independent checker. Both
variants run in every mode; the propagation rules of ``fast`` are pinned down
by models it must solve without branching.
"""
from __future__ import annotations

import pytest

from engines import get_engine
from engines.backtracking import shape as shapes
from engines.backtracking.compiled import entry as numba_kernel
from engines.backtracking.python.general import arith
from engines.contract import Status
from puzzles.model import (
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    ReifiedLinear,
    Structure,
)
from tests.kinds.engine_checks import TIMEOUT, assert_matches_brute_force
from tests.kinds.random_models import KINDS, corpus, solutions

VARIANTS = ("seed", "fast")




@pytest.fixture
def fresh_cache():
    """Compilations depend on module settings some tests change; start and end clean."""
    shapes._SHAPES.clear()
    yield
    shapes._SHAPES.clear()


def test_the_backtracker_declares_the_four_kinds():
    engine = get_engine("backtracking")
    for kind in (ReifiedLinear, Clause, Element, Arith, AllDifferentList):
        assert kind in engine.constraint_kinds
    assert engine.unsupported_reason(corpus(1)[0][2], "count") is None


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_mode_matches_the_brute_force_on_random_models(variant, kind):
    engine = get_engine(f"backtracking:variant={variant}")
    for k, seed, model in corpus():
        if k == kind:
            assert_matches_brute_force(engine, model, (variant, kind, seed))


@pytest.mark.parametrize("variant", VARIANTS)
def test_givens_narrow_the_random_models_exactly(variant):
    """The last solution's first two values as givens: the brute force of the
    narrowed model is the truth."""
    engine = get_engine(f"backtracking:variant={variant}")
    for kind, seed, model in corpus(12):
        truth = solutions(model)
        if truth:
            narrowed = Model(model.structure, tuple(enumerate(truth[-1][:2])))
            assert_matches_brute_force(engine, narrowed, (variant, kind, seed))


def test_arith_past_the_table_size_matches_the_brute_force_by_forward_checks(
        monkeypatch, fresh_cache):
    monkeypatch.setattr(arith, "TABLE_MAX", 0)
    for variant in VARIANTS:
        engine = get_engine(f"backtracking:variant={variant}")
        for kind, seed, model in corpus():
            if kind == "Arith":
                assert_matches_brute_force(engine, model, (variant, seed))


def test_the_numba_kernel_matches_the_brute_force_on_the_four_kinds():
    if not numba_kernel.available():
        pytest.skip(numba_kernel.unavailable_reason())
    engine = get_engine("backtracking:kernel=numba")
    for kind, seed, model in corpus(4):
        assert_matches_brute_force(engine, model, ("numba", kind, seed))


# ----- propagation: solved without branching ----------------------------------------
def model_of(domains, constraints, givens=(), key="kinds-test") -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure(key, names, tuple(map(tuple, domains)), tuple(constraints)),
                 tuple(givens))


def solve_fast(model: Model, mode: str = "first"):
    return get_engine("backtracking:variant=fast").solve(model, mode, 10 ** 6, TIMEOUT)


def assert_no_branching(model: Model, answer) -> None:
    result = solve_fast(model)
    assert result.status is Status.SOLVED and result.solution == answer
    assert result.nodes == 0 and result.backtracks == 0


def test_unit_propagation_runs_along_a_chain_of_implications(fresh_cache):
    n = 8
    chain = [Clause((i + 1,), (i,)) for i in range(n - 1)]        # x_i -> x_{i+1}
    assert_no_branching(model_of([(0, 1)] * n, chain, givens=[(0, 1)]), (1,) * n)
    backwards = [Clause((i,), (i + 1,)) for i in range(n - 1)]    # x_{i+1} -> x_i
    assert_no_branching(model_of([(0, 1)] * n, backwards, givens=[(0, 0)]), (0,) * n)


def test_an_empty_clause_and_a_clause_over_non_booleans_have_no_answer(fresh_cache):
    assert solve_fast(model_of([(0, 1)], [Clause(())])).status is Status.UNSAT
    assert solve_fast(model_of([(2, 3), (2, 3)], [Clause((0,), (1,))])).status is Status.UNSAT


def test_a_reified_linear_fixes_its_literal_by_bounds_and_then_the_sum(fresh_cache):
    doms = [range(6), range(6), (0, 1), (0, 1)]
    cons = [ReifiedLinear((1,), (0,), ">=", 3, 2),               # b2 <-> x0 >= 3
            ReifiedLinear((1, 1), (0, 1), "==", 10, 3)]          # b3 <-> x0 + x1 == 10
    assert_no_branching(model_of(doms, cons, givens=[(0, 5), (3, 1)]), (5, 5, 1, 1))
    # b3 = 0 forbids the sum 10: with x0 = 5, x1 loses 5 and the rest is open
    result = solve_fast(model_of(doms, cons, givens=[(0, 5), (3, 0)]), "count")
    assert result.count == 5


def test_an_implied_linear_says_nothing_when_its_literal_is_zero(fresh_cache):
    doms = [range(4), range(4), (0, 1)]
    con = ReifiedLinear((1, -1), (0, 1), "==", 0, 2, implied=True)   # b -> x0 == x1
    assert solve_fast(model_of(doms, [con], givens=[(2, 0)]), "count").count == 16
    assert solve_fast(model_of(doms, [con], givens=[(2, 1)]), "count").count == 4
    assert solve_fast(model_of(doms, [con]), "count").count == 20


def test_element_with_a_fixed_index_copies_its_entry_into_the_value(fresh_cache):
    doms = [(1, 2, 3), range(5), range(5), range(5), range(5)]
    con = Element(0, (1, 2, 3), 4)
    assert_no_branching(model_of(doms, [con], givens=[(0, 2), (2, 3), (1, 0), (3, 0)]),
                        (2, 0, 3, 0, 3))
    # the value fixed: only positions whose entry can take it stay for the index
    assert_no_branching(model_of(doms, [con], givens=[(4, 4), (1, 0), (2, 1), (3, 4)]),
                        (3, 0, 1, 4, 4))


def test_arith_forward_checks_its_last_variable(monkeypatch, fresh_cache):
    monkeypatch.setattr(arith, "TABLE_MAX", 0)
    doms = [range(-4, 5), range(-4, 5), range(-20, 21)]
    for op, args, answer in [("times", (3, 4), 12), ("div", (-3, 2), -1),
                             ("mod", (-3, 2), -1), ("pow", (-2, 3), -8),
                             ("min", (3, -1), -1), ("max", (3, -1), 3)]:
        model = model_of(doms, [Arith(op, (0, 1), 2)], givens=list(enumerate(args)),
                         key=f"arith-{op}")
        assert_no_branching(model, (*args, answer))
    zero = model_of(doms, [Arith("div", (0, 1), 2)], givens=[(0, 3), (1, 0)], key="div0")
    assert solve_fast(zero).status is Status.UNSAT


def test_a_linear_next_to_the_new_kinds_still_propagates(fresh_cache):
    doms = [(0, 1), (0, 1), range(4)]
    cons = [Clause((0, 1)), Linear((1, 1), (0, 1), "<=", 0), Arith("abs", (2,), 2)]
    assert solve_fast(model_of(doms, cons)).status is Status.UNSAT


def test_a_list_equal_but_for_one_open_position_loses_the_equal_value(fresh_cache):
    model = model_of([(1,), (2,), (1,), (2, 3), (1, 2), (2,)],
                     [AllDifferentList(((0, 1), (2, 3), (4, 5)))])
    assert_no_branching(model, (1, 2, 1, 3, 2, 2))
