"""The MiniZinc writer against the brute force: every constraint kind, solved by
Gecode through ``minizinc -a``, and read back through the FlatZinc translation."""
from __future__ import annotations

import math
import subprocess

import pytest

from engines.minizinc.writer import domain_text, read_values, write
from puzzles.model import Arith, Element, Model, Structure
from tests.external.support import grid_kind_model, needs_gecode, solutions
from tests.kinds.random_models import corpus

PER_KIND = 5
MODELS = [(kind, seed, model) for kind, seed, model in corpus(PER_KIND)] + [
    ("grid kinds", seed, grid_kind_model(seed)) for seed in range(6)]


def gecode_solutions(model: Model, folder) -> list[tuple[int, ...]]:
    path = folder / "model.mzn"
    path.write_text(write(model))
    run = subprocess.run(["minizinc", "--solver", "gecode", "-a", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    size = model.structure.size
    return sorted(read_values(line, size) for line in run.stdout.splitlines()
                  if line.startswith("["))


def test_domains_are_ranges_when_consecutive_and_sets_otherwise():
    assert domain_text((3, 1, 2)) == "1..3"
    assert domain_text((-1, 4)) == "{-1, 4}"
    assert domain_text(()) == "{}"


def test_every_variable_is_declared_and_given_and_printed_in_model_order():
    text = write(grid_kind_model(1))
    model = grid_kind_model(1)
    for i in range(model.structure.size):
        assert f": x{i};" in text
    for var, value in model.givens:
        assert f"constraint x{var} = {value};" in text
    assert "output [show([x0, x1, x2" in text
    assert read_values("[3, -1, 0]", 3) == (3, -1, 0)
    with pytest.raises(ValueError):
        read_values("[3, -1]", 3)


@needs_gecode
@pytest.mark.parametrize("kind,seed,model", MODELS,
                         ids=[f"{k}-{s}" for k, s, _ in MODELS])
def test_written_model_has_exactly_the_brute_force_solutions(kind, seed, model, tmp_path):
    assert gecode_solutions(model, tmp_path) == solutions(model)


def _edge_model(con, domains) -> Model:
    names = tuple(f"v{i}" for i in range(len(domains)))
    return Model(Structure(f"edge-{con!r}", names, tuple(domains), (con,)))


EDGES = [
    # a zero divisor and a negative exponent have no value: the constraint fails there
    Arith("div", (0, 1), 2), Arith("mod", (0, 1), 2), Arith("pow", (0, 1), 2),
    Arith("times", (0, 1), 2), Arith("abs", (0,), 2), Arith("min", (0, 1), 2),
    Arith("max", (0, 1, 0), 2),
    # an index out of range fails the constraint, never holds it
    Element(0, (1, 2), 2, base=1), Element(0, (1, 2), 2, base=-1),
]


@needs_gecode
@pytest.mark.parametrize("con", EDGES, ids=[repr(c)[:40] for c in EDGES])
def test_division_by_zero_negative_exponents_and_out_of_range_indices_fail(con, tmp_path):
    model = _edge_model(con, [tuple(range(-3, 4))] * 3)
    want = solutions(model)
    assert want and len(want) < 7 ** 3
    assert gecode_solutions(model, tmp_path) == want


def _projected(model: Model, names, keep) -> set[tuple[int, ...]]:
    at = [names.index(n) for n in keep]
    return {tuple(s[i] for i in at) for s in solutions(model)}


@needs_gecode
def test_written_model_read_back_through_flatzinc_keeps_the_solutions(tmp_path):
    from puzzles.formats.minizinc.flatten import flatten
    from puzzles.formats.minizinc.translate import translate
    compared = 0
    for kind, seed, model in MODELS[::3]:
        path = tmp_path / f"{kind}-{seed}.mzn".replace(" ", "_")
        path.write_text(write(model))
        back = translate(flatten(str(path))[0], path.name).model
        assert not back.structure.unsupported
        if math.prod(len(d) for d in back.domains()) > 100_000:
            continue
        names = list(back.structure.variables)
        mine = [f"x{i}" for i in range(model.structure.size)]
        keep = [n for n in names if n in mine]
        assert _projected(back, names, keep) == _projected(model, mine, keep), (kind, seed)
        compared += 1
    assert compared >= 5
