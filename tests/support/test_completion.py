"""``engines.support.completion``: a partial assignment completed into a full one, on
seeded random small models of every constraint kind, checked against brute force
and the judge's own evaluation of the model."""
from __future__ import annotations

import random
import time
from itertools import product

import pytest

from compare.judge.checker import check_model
from engines.support.completion import TABLE_SCAN_MOST, complete
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Structure,
    Table,
)

BOOLEANS = (0, 1)           # variables 0 and 1 are 0/1: literals and clauses use them
N = 5
SEEDS = range(40)


def _constraint(kind, rng: random.Random, domains):
    some = lambda k: [rng.randrange(N) for _ in range(k)]          # noqa: E731
    if kind is AllDifferent:
        return AllDifferent(tuple(rng.sample(range(N), rng.randint(2, 4))))
    if kind is Linear:
        k = rng.randint(1, 3)
        return Linear(tuple(rng.choice((-3, -2, -1, 1, 2, 3)) for _ in range(k)), tuple(some(k)),
                      rng.choice(("==", "!=", "<=", ">=")), rng.randint(-4, 4))
    if kind is NotEqualOffset:
        x, y = rng.sample(range(N), 2)
        return NotEqualOffset(x, y, rng.randint(-2, 2))
    if kind is Table:
        scope = tuple(some(rng.randint(1, 3)))
        rows = {tuple(rng.choice(domains[v]) for v in scope) for _ in range(rng.randint(1, 8))}
        return Table(scope, tuple(sorted(rows)))
    if kind is ReifiedLinear:
        k = rng.randint(1, 3)
        return ReifiedLinear(tuple(rng.choice((-2, -1, 1, 2)) for _ in range(k)),
                             tuple(rng.sample(range(2, N), k)), rng.choice(("==", "!=", "<=", ">=")),
                             rng.randint(-3, 3), rng.randrange(2), rng.random() < 0.5)
    if kind is Clause:
        chosen = rng.sample((0, 1), rng.randint(1, 2))
        cut = rng.randint(0, len(chosen))
        return Clause(tuple(chosen[:cut]), tuple(chosen[cut:]))
    if kind is Element:
        base = rng.randrange(2)
        return Element(rng.randrange(N), tuple(some(rng.randint(1, 3))), rng.randrange(N), base)
    if kind is Arith:
        op = rng.choice(("times", "div", "mod", "pow", "abs", "min", "max"))
        arity = {"abs": 1, "min": rng.randint(1, 3), "max": rng.randint(1, 3)}.get(op, 2)
        return Arith(op, tuple(some(arity)), rng.randrange(N))
    rows = rng.randint(2, 3)
    return AllDifferentList(tuple(tuple(some(2)) for _ in range(rows)))


def random_model(kind, seed: int) -> Model:
    """Two 0/1 variables and three small ones; one or two constraints of ``kind``,
    sometimes one of another kind, and sometimes a given."""
    rng = random.Random(seed)
    domains = [BOOLEANS, BOOLEANS]
    for _ in range(N - 2):
        values = rng.sample(range(-2, 4), rng.randint(2, 4))    # unsorted on purpose
        domains.append(tuple(values))
    kinds = [kind] * rng.randint(1, 2) + ([rng.choice(KINDS)] if rng.random() < 0.5 else [])
    constraints = tuple(_constraint(k, rng, domains) for k in kinds)
    structure = Structure(f"completion-{kind.__name__}-{seed}",
                          tuple(f"x{i}" for i in range(N)), tuple(domains), constraints)
    givens = ((4, rng.choice(domains[4])),) if rng.random() < 0.3 else ()
    return Model(structure, givens)


KINDS = (AllDifferent, Linear, NotEqualOffset, Table, ReifiedLinear, Clause, Element, Arith,
         AllDifferentList)


def brute_solutions(model: Model) -> list[tuple[int, ...]]:
    return [values for values in product(*model.domains())
            if check_model(model, list(values)) is None]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_a_solutions_part_completes_into_a_full_solution(kind):
    completed = 0
    for seed in SEEDS:
        model = random_model(kind, seed)
        solutions = brute_solutions(model)
        if not solutions:
            assert complete(model, {}) is None
            continue
        rng = random.Random(seed)
        chosen = rng.choice(solutions)
        known = {v: chosen[v] for v in rng.sample(range(N), rng.randint(0, N))}
        values = complete(model, known)
        assert values is not None
        assert check_model(model, values) is None
        assert all(values[v] == x for v, x in known.items())
        completed += 1
    assert completed >= len(SEEDS) // 3


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_a_part_no_solution_extends_has_no_completion(kind):
    """Random partial assignments: None exactly when brute force finds no extension."""
    refused = 0
    for seed in SEEDS:
        model = random_model(kind, seed)
        solutions = brute_solutions(model)
        rng = random.Random(1000 + seed)
        doms = model.structure.domains
        known = {v: rng.choice(doms[v]) for v in rng.sample(range(N), rng.randint(1, 3))}
        extends = any(all(s[v] == x for v, x in known.items()) for s in solutions)
        values = complete(model, known)
        if extends:
            assert values is not None and check_model(model, values) is None
        else:
            assert values is None
            refused += 1
    assert refused >= 1


def test_a_value_outside_the_domain_has_no_completion():
    structure = Structure("completion-outside", ("a", "b"), ((1, 2), (1, 2)),
                          (AllDifferent((0, 1)),))
    assert complete(Model(structure), {0: 3}) is None
    assert complete(Model(structure, ((1, 1),)), {0: 1}) is None
    assert complete(Model(structure), {0: 1}) == [1, 2]


def test_a_variable_a_sum_defines_is_computed_over_a_large_domain():
    """x2 = x0 + 1000 * x1 over a million values: fixed at once, not enumerated."""
    big = range(0, 1_000_000)
    structure = Structure("completion-sum", ("x0", "x1", "x2"), ((3, 4), tuple(range(10)), big),
                          (Linear((1, 1000, -1), (0, 1, 2), "==", 0),
                           Arith("times", (0, 0), 1)))
    started = time.perf_counter()
    values = complete(Model(structure), {0: 3})
    assert values == [3, 9, 9003]
    assert time.perf_counter() - started < 1.0


def test_search_past_the_deadline_raises_timeout():
    n = 9                           # pigeons in one hole fewer: no solution, a long search
    structure = Structure("completion-pigeons", tuple(f"p{i}" for i in range(n)),
                          tuple(tuple(range(n - 1)) for _ in range(n)),
                          tuple(NotEqualOffset(i, j) for i in range(n) for j in range(i)))
    with pytest.raises(TimeoutError):
        complete(Model(structure), {}, deadline=time.perf_counter() + 0.2)


def test_a_large_table_is_kept_with_several_variables_open():
    """A table past TABLE_SCAN_MOST rows is checked once one variable is left open."""
    values = tuple(range(30))
    rows = tuple((x, y, z) for x in values for y in values for z in (0, 1)
                 if (x * y + z) % 5 in (2, 3))
    assert len(rows) > TABLE_SCAN_MOST
    structure = Structure("completion-large-table", ("x", "y", "z"), (values, values, (0, 1)),
                          (Table((0, 1, 2), rows), Linear((1, 1), (0, 1), "==", 29)))
    model = Model(structure)
    solutions = brute_solutions(model)
    for known in ({}, {2: 1}, {0: 3}, {1: 23, 2: 0}, {0: 5}):
        answer = complete(model, known)
        extends = any(all(s[v] == x for v, x in known.items()) for s in solutions)
        assert (answer is not None) == extends, known
        if answer is not None:
            assert check_model(model, answer) is None
            assert all(answer[v] == x for v, x in known.items())
