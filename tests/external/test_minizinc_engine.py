"""The ``minizinc`` engine and its short name ``gecode``: specs, modes against the brute
force, unsat, timeouts, and the n/a line of a solver that is not installed."""
from __future__ import annotations

import typing

import pytest

from compare.judge.checker import check_model
from engines import Status, get_engine, installed
from engines.minizinc import solvers as listing
from engines.minizinc.engine import GecodeEngine, MinizincEngine
from engines.spec import EngineOptionError
from puzzles.kinds.sudoku import Sudoku
from puzzles.model import AllDifferent, Constraint, Model, Structure
from tests.external.support import grid_kind_model, needs_gecode, solutions
from tests.kinds.random_models import corpus

EVERY_KIND = typing.get_args(Constraint)     # the model's every kind

SEEDS_PER_KIND = 3


def test_specs_name_the_solver_and_gecode_is_its_short_name():
    assert get_engine("minizinc:solver=gecode").label == "minizinc:solver=gecode"
    assert get_engine("minizinc").label == "minizinc:solver=gecode"
    assert get_engine("minizinc:solver=org.gecode.gecode").solver_name == "org.gecode.gecode"
    gecode = get_engine("gecode")
    assert isinstance(gecode, GecodeEngine) and gecode.label == "gecode"
    assert gecode.solver_name == "org.gecode.gecode"
    with pytest.raises(EngineOptionError):
        get_engine("gecode:solver=chuffed")
    with pytest.raises(EngineOptionError):
        get_engine("minizinc:solver=")


def test_missing_minizinc_is_one_line_naming_the_package(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    reason = MinizincEngine.unavailable_reason()
    assert reason == "minizinc is not installed (Debian package minizinc)"
    assert not GecodeEngine.available()
    result = get_engine("gecode").solve(grid_kind_model(0), "first", timeout=5)
    assert result.status is Status.UNSUPPORTED and "minizinc is not installed" in result.message


@needs_gecode
def test_a_solver_minizinc_does_not_list_is_na_with_one_line(monkeypatch):
    result = get_engine("minizinc:solver=nosuch").solve(grid_kind_model(0), "first", timeout=5)
    assert result.status is Status.UNSUPPORTED
    assert result.message.startswith("MiniZinc solver 'nosuch' is not installed")
    assert "org.gecode.gecode" in result.message and "\n" not in result.message
    monkeypatch.setattr(GecodeEngine, "solver_id", "org.example.nosuch")
    assert not GecodeEngine.available()
    assert GecodeEngine.unavailable_reason().startswith(
        "MiniZinc solver 'org.example.nosuch' is not installed")


@needs_gecode
def test_engines_listing_shows_both_with_every_kind():
    table = installed()
    for name in ("minizinc", "gecode"):
        assert table[name]["available"], table[name]
        assert set(table[name]["constraints"]) == {k.__name__ for k in EVERY_KIND}
    assert table["gecode"]["version"].startswith("Gecode ")
    assert any(s.startswith("org.gecode.gecode") for s in table["minizinc"]["solvers"])


@needs_gecode
def test_a_solver_needing_flags_it_was_not_given_is_na():
    needy = [s for s in listing.installed()[0] if s.required_flags]
    if not needy:
        pytest.skip("no installed MiniZinc solver needs extra flags")
    result = get_engine(f"minizinc:solver={needy[0].id}").solve(grid_kind_model(0), "first")
    assert result.status is Status.UNSUPPORTED and "needs" in result.message


@needs_gecode
@pytest.mark.parametrize("kind,seed,model", corpus(SEEDS_PER_KIND),
                         ids=[f"{k}-{s}" for k, s, _ in corpus(SEEDS_PER_KIND)])
def test_every_mode_agrees_with_the_brute_force(kind, seed, model):
    every = solutions(model)
    engine = get_engine("gecode")
    first = engine.solve(model, "first", timeout=30)
    if every:
        assert first.status is Status.SOLVED and check_model(model, first.solution) is None
    else:
        assert first.status is Status.UNSAT, first.message
    lex = engine.solve(model, "lexfirst", timeout=30)
    assert lex.status is (Status.SOLVED if every else Status.UNSAT), lex.message
    assert lex.solutions[:1] == every[:1]
    count = engine.solve(model, "count", limit=len(every) + 1, timeout=30)
    assert count.count == len(every) and set(count.solutions) <= set(every)


@needs_gecode
def test_count_stops_at_the_limit_and_keeps_only_solutions():
    model = next(m for m in (grid_kind_model(s) for s in range(40)) if len(solutions(m)) >= 3)
    every = solutions(model)
    engine = get_engine("minizinc:solver=gecode")
    capped = engine.solve(model, "count", limit=2, timeout=30)
    assert capped.status is Status.SOLVED and capped.count == 2
    assert set(capped.solutions) <= set(every) and len(capped.solutions) == 2
    full = engine.solve(model, "count", limit=len(every) + 5, timeout=30)
    assert full.status is Status.SOLVED and full.count == len(every)
    assert set(full.solutions) <= set(every) and len(full.solutions) == min(16, len(every))
    assert full.build_s > 0 and full.solve_s > 0
    assert full.stats["solver"] == "org.gecode.gecode" and full.stats["compile_s"] > 0


@needs_gecode
def test_unsatisfiable_model_is_unsat_in_every_mode():
    model = Model(Structure("pigeons", ("a", "b", "c"), ((1, 2),) * 3,
                            (AllDifferent((0, 1, 2)),)))
    engine = get_engine("gecode")
    for mode in ("first", "lexfirst", "count"):
        result = engine.solve(model, mode, limit=2, timeout=30)
        assert result.status is Status.UNSAT, (mode, result.message)
        assert result.count == (0 if mode == "count" else None)


@needs_gecode
def test_lexfirst_is_na_for_a_solver_not_known_to_follow_the_annotation():
    others = [s for s in listing.installed()[0]
              if not s.required_flags and s.id != "org.gecode.gecode"]
    if not others:
        pytest.skip("Gecode is the only usable MiniZinc solver here")
    result = get_engine(f"minizinc:solver={others[0].id}").solve(grid_kind_model(0), "lexfirst")
    assert result.status is Status.UNSUPPORTED and "lexfirst" in result.message


@needs_gecode
def test_the_search_statistics_are_those_the_solver_prints():
    result = get_engine("gecode").solve(Sudoku(4, (0,) * 16).to_model(), "count",
                                        limit=1000, timeout=30)
    assert result.status is Status.SOLVED and result.count == 288
    assert result.nodes > 0 and result.failures == result.backtracks
    assert result.propagations > 0 and result.restarts == 0
    assert result.nogoods is None                   # Gecode prints none


@needs_gecode
def test_a_spent_deadline_is_a_timeout_with_the_count_so_far():
    model = Model(Structure(
        "latin", tuple(f"c{i}" for i in range(100)), (tuple(range(10)),) * 100,
        tuple(AllDifferent(tuple(r * 10 + c for c in range(10))) for r in range(10))
        + tuple(AllDifferent(tuple(r * 10 + c for r in range(10))) for c in range(10))))
    result = get_engine("gecode").solve(model, "count", limit=10 ** 6, timeout=1.5)
    assert result.status is Status.TIMEOUT, result.message
    assert result.count is not None and 0 < result.count < 10 ** 6


@needs_gecode
def test_a_model_without_variables_has_one_empty_solution_and_an_empty_domain_none():
    engine = get_engine("gecode")
    nothing = Model(Structure("nothing", (), (), ()))
    for mode in ("first", "lexfirst", "count"):
        result = engine.solve(nothing, mode, timeout=30)
        assert (result.status, result.solutions) == (Status.SOLVED, [()]), result.message
    empty = Model(Structure("empty", ("a", "b"), ((), (1, 2)), (AllDifferent((0, 1)),)))
    assert engine.solve(empty, "first", timeout=30).status is Status.UNSAT


@needs_gecode
def test_values_beyond_gecodes_integers_are_na_before_anything_runs():
    model = Model(Structure("big", ("a",), ((1, 2 ** 40),), ()))
    result = get_engine("gecode").solve(model, "first", timeout=30)
    assert result.status is Status.UNSUPPORTED and "Gecode's integers" in result.message
