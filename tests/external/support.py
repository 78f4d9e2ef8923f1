"""The skip without MiniZinc or Gecode, and small models of the grid kinds."""
from __future__ import annotations

import random
import shutil
from dataclasses import replace

import pytest

from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table
from tests.kinds import random_models

needs_gecode = pytest.mark.skipif(
    shutil.which("minizinc") is None or shutil.which("fzn-gecode") is None,
    reason="MiniZinc with Gecode (minizinc, fzn-gecode) is not installed")


def grid_kind_model(seed: int) -> Model:
    """A small random model mixing AllDifferent, Linear, NotEqualOffset and Table, with
    a gappy domain now and then and a given."""
    rng = random.Random(seed)
    n = rng.randint(3, 5)
    domains = []
    for _ in range(n):
        low = rng.randint(-2, 1)
        values = tuple(range(low, low + rng.randint(2, 4)))
        if rng.random() < 0.3:
            values = tuple(v for v in values if v != values[1]) + (values[-1] + 3,)
        domains.append(values)
    cons = [AllDifferent(tuple(rng.sample(range(n), 3))),
            Linear(tuple(rng.choice((-2, -1, 1, 3)) for _ in range(3)),
                   tuple(rng.sample(range(n), 3)), rng.choice(("==", "!=", "<=", ">=")),
                   rng.randint(-2, 3)),
            NotEqualOffset(*rng.sample(range(n), 2), rng.randint(-1, 1))]
    scope = tuple(rng.sample(range(n), 2))
    cons.append(Table(scope, tuple((rng.choice(domains[scope[0]]), rng.choice(domains[scope[1]]))
                                   for _ in range(rng.randint(1, 6)))))
    givens = ((0, rng.choice(domains[0])),) if rng.random() < 0.5 else ()
    names = tuple(f"v{i}" for i in range(n))
    return Model(Structure(f"grid-kinds-{seed}", names, tuple(domains), tuple(cons)), givens)


def solutions(model: Model) -> list[tuple[int, ...]]:
    """The brute force's solutions (``tests.kinds.random_models``), reading
    ``x != y + c`` as the Linear ``x - y != c``."""
    cons = tuple(Linear((1, -1), (c.x, c.y), "!=", c.c) if isinstance(c, NotEqualOffset)
                 else c for c in model.structure.constraints)
    return random_models.solutions(replace(model, structure=replace(
        model.structure, constraints=cons)))
