"""CPMpy translates ReifiedLinear, Clause, Element, Arith and AllDifferentList exactly:
on each working backend, every mode agrees with the brute force on the random models
of each kind, and on hand-made models of the shapes some backends read differently."""
from __future__ import annotations

import pytest

pytest.importorskip("cpmpy")

from engines import Status, get_engine  # noqa: E402
from engines.cpmpy.backends import probe_backend  # noqa: E402
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

# Models per kind: all 25 for the two backends the comparison leans on, fewer for
# the slower ones (PySAT and Z3 take about a second per kind for eight).
PER_KIND = {"ortools": 25, "choco": 25, "exact": 8, "pysat": 8, "z3": 8, "pindakaas": 8}
MODELS = corpus(max(PER_KIND.values()))


def _engine(backend: str):
    works, _, reason = probe_backend(backend)
    if not works:
        pytest.skip(f"CPMpy backend {backend} is {reason}")
    return get_engine(f"cpmpy:solver={backend}")


def test_the_new_kinds_are_declared():
    assert {ReifiedLinear, Clause, Element, Arith, AllDifferentList} <= \
        get_engine("cpmpy").constraint_kinds


@pytest.mark.parametrize("backend", PER_KIND)
@pytest.mark.parametrize("kind", KINDS)
def test_every_mode_agrees_with_the_brute_force(backend, kind):
    engine = _engine(backend)
    wrong = []
    for name, seed, model in MODELS:
        if name == kind and seed < PER_KIND[backend]:
            wrong += disagreements(engine, name, seed, model)
    assert not wrong, "\n".join(wrong)


def _model(domains, *constraints) -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure("hand", names, tuple(map(tuple, domains)), constraints))


# Shapes that broke one backend or another before the translation took care of them.
HAND = {
    # a Boolean dividend: CPMpy's Z3 interface cannot divide a Boolean
    "boolean dividend": _model([(0, 1), range(-2, 3), range(-2, 3)],
                               Arith("mod", (0, 1), 2), Arith("div", (0, 1), 1)),
    # a divisor of only 0: CPMpy's decompositions raise instead of failing
    "zero divisor": _model([range(-2, 3), (0,), range(-2, 3)], Arith("div", (0, 1), 2)),
    # a literal with values beyond 0/1 whose sum is constant: CPMpy's PySAT lost
    # the literal's value
    "wide literal": _model([(-1, 0, 1), (0,)], ReifiedLinear((-1,), (1,), "!=", 2, 0)),
    "wide clause": _model([range(-1, 3), (0, 1)], Clause((0,), (1,))),
    # an Element naming its value as its one entry, indexed by a Boolean
    "boolean index": _model([(0, 1), range(-1, 2), range(-1, 2)],
                            Element(0, (1,), 1, base=0), Element(0, (1, 2), 2, base=0)),
}


@pytest.mark.parametrize("backend", PER_KIND)
def test_shapes_some_backends_read_differently_are_exact(backend):
    engine = _engine(backend)
    wrong = []
    for name, model in HAND.items():
        wrong += disagreements(engine, name, 0, model)
    assert not wrong, "\n".join(wrong)


def test_the_hand_made_models_are_not_trivial():
    assert solutions(HAND["wide literal"]) == [(1, 0)]
    assert solutions(HAND["zero divisor"]) == []
    assert len(solutions(HAND["boolean dividend"])) > 1


def test_a_pow_too_large_for_its_table_is_not_applicable():
    model = _model([range(600), range(600), (0, 1)], Arith("pow", (0, 1), 2))
    result = _engine("ortools").solve(model, "first")
    assert result.status is Status.UNSUPPORTED
    assert "pow" in result.message
