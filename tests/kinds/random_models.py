"""Small random models over the constraint kinds beyond the grid ones, with their
solutions found by brute force: what every engine's answers are held against.

Each model has at most ``MOST_VARIABLES`` variables over domains of at most
five values, so ``itertools.product`` lists every assignment in well under a
second; the brute force shares no code with any engine or with the checker.
"""
from __future__ import annotations

import itertools
import random

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

MOST_VARIABLES = 6
KINDS = ("ReifiedLinear", "Clause", "Element", "Arith", "AllDifferentList")
OPS = ("==", "!=", "<=", ">=")
ARITH_OPS = ("times", "div", "mod", "pow", "abs", "min", "max")


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _holds(con, v) -> bool:
    """The brute force's own reading of each kind (not the checker's code)."""
    if isinstance(con, Linear):
        total = sum(c * v[x] for c, x in zip(con.coeffs, con.vars))
        return {"==": total == con.rhs, "!=": total != con.rhs,
                "<=": total <= con.rhs, ">=": total >= con.rhs}[con.op]
    if isinstance(con, ReifiedLinear):
        inner = _holds(Linear(con.coeffs, con.vars, con.op, con.rhs), v)
        lit = v[con.literal]
        if lit not in (0, 1):
            return False
        return (lit == 0 or inner) if con.implied else (lit == 1) == inner
    if isinstance(con, Clause):
        if any(v[x] not in (0, 1) for x in (*con.positive, *con.negative)):
            return False
        return any(v[x] == 1 for x in con.positive) or any(v[x] == 0 for x in con.negative)
    if isinstance(con, Element):
        i = v[con.index] - con.base
        return 0 <= i < len(con.vars) and v[con.vars[i]] == v[con.value]
    if isinstance(con, Arith):
        a = [v[x] for x in con.args]
        r = v[con.result]
        if con.op == "times":
            return a[0] * a[1] == r
        if con.op == "div":
            return a[1] != 0 and _trunc_div(a[0], a[1]) == r
        if con.op == "mod":
            return a[1] != 0 and a[0] - a[1] * _trunc_div(a[0], a[1]) == r
        if con.op == "pow":
            return a[1] >= 0 and a[0] ** a[1] == r
        if con.op == "abs":
            return abs(a[0]) == r
        return (min(a) if con.op == "min" else max(a)) == r
    if isinstance(con, Table):
        return tuple(v[x] for x in con.vars) in con.tuples
    if isinstance(con, AllDifferent):
        return len({v[x] for x in con.vars}) == len(con.vars)
    if isinstance(con, NotEqualOffset):
        return v[con.x] != v[con.y] + con.c
    if isinstance(con, AllDifferentList):
        rows = [tuple(v[x] for x in row) for row in con.lists]
        return all(rows[i] != rows[j] for i in range(len(rows)) for j in range(i))
    raise TypeError(type(con).__name__)


def solutions(model: Model) -> list[tuple[int, ...]]:
    """Every solution, in lexicographic order of the variables."""
    domains = model.domains()
    return [v for v in itertools.product(*[sorted(d) for d in domains])
            if all(_holds(c, v) for c in model.structure.constraints)]


def random_model(seed: int, kind: str) -> Model:
    """A model of 3 to ``MOST_VARIABLES`` variables with two to four constraints of
    ``kind`` (and a Linear now and then); 0/1 variables where the kind needs them."""
    rng = random.Random(seed)
    n = rng.randint(3, MOST_VARIABLES)
    booleans = set(range(n)) if kind == "Clause" else set(rng.sample(range(n), 2))
    domains = []
    for i in range(n):
        if i in booleans:
            domains.append((0, 1))
        else:
            low = rng.randint(-3, 1)
            domains.append(tuple(range(low, low + rng.randint(2, 5))))
    ints = [i for i in range(n) if i not in booleans] or [0]
    bools = sorted(booleans)
    constraints = []
    for _ in range(rng.randint(2, 4)):
        if kind == "ReifiedLinear":
            k = rng.randint(1, 3)
            xs = tuple(rng.sample(range(n), min(k, n)))
            constraints.append(ReifiedLinear(
                tuple(rng.choice((-2, -1, 1, 2, 3)) for _ in xs), xs, rng.choice(OPS),
                rng.randint(-3, 3), rng.choice(bools), rng.random() < 0.4))
        elif kind == "Clause":
            xs = rng.sample(bools, rng.randint(1, min(3, len(bools))))
            cut = rng.randint(0, len(xs))
            constraints.append(Clause(tuple(xs[:cut]), tuple(xs[cut:])))
        elif kind == "Element":
            size = rng.randint(1, min(3, n - 2))
            index, value = rng.sample(range(n), 2)
            array = tuple(rng.choice(range(n)) for _ in range(size))
            constraints.append(Element(index, array, value, base=rng.choice((0, 1))))
        elif kind == "AllDifferentList":
            # lists of one length, a variable sometimes in two lists or twice in one
            width = rng.randint(1, 2)
            lists = tuple(tuple(rng.choice(range(n)) for _ in range(width))
                          for _ in range(rng.randint(2, 3)))
            constraints.append(AllDifferentList(lists))
        else:
            op = rng.choice(ARITH_OPS)
            arity = 1 if op == "abs" else 2 if op in ("times", "div", "mod", "pow") \
                else rng.randint(1, 3)
            args = tuple(rng.choice(ints) for _ in range(arity))
            constraints.append(Arith(op, args, rng.choice(range(n))))
        if rng.random() < 0.3:
            xs = tuple(rng.sample(range(n), 2))
            constraints.append(Linear((1, 1), xs, "<=", rng.randint(0, 4)))
    names = tuple(f"x{i}" for i in range(n))
    return Model(Structure(f"random-{kind}-{seed}", names, tuple(domains), tuple(constraints)))


def corpus(per_kind: int = 25) -> list[tuple[str, int, Model]]:
    """``per_kind`` models of each kind, with the seeds that make them."""
    return [(kind, seed, random_model(seed, kind)) for kind in KINDS
            for seed in range(per_kind)]
