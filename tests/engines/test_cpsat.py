"""The CP-SAT engine on its own: options, modes, statuses, statistics, lexfirst."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("ortools")
from ortools.sat.python import cp_model  # noqa: E402

import engines.cpsat as cpsat  # noqa: E402
from engines import EngineOptionError, Status, get_engine  # noqa: E402
from puzzles.kinds.sudoku import Sudoku  # noqa: E402
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table  # noqa: E402

BOJ2239 = ("103000509002109400000704000300502006060000050"
           "700803004000401000009205800804000107")
BOJ2239_ANSWER = ("143628579572139468986754231391542786468917352"
                  "725863914237481695619275843854396127")
EMPTY4_LEXFIRST = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)


def sudoku(text: str, n: int = 9) -> Sudoku:
    return Sudoku(n, tuple(int(c) for c in text))


def conflicting(text: str) -> Sudoku:
    """BOJ 2239 with r1c2 = 1, a repeat of r1c1 in row 1."""
    return sudoku(text[:1] + "1" + text[2:])


@pytest.fixture(scope="module")
def engine():
    return get_engine("cpsat")


def test_registry_identity(engine):
    result = engine.solve(sudoku(BOJ2239).to_model(), "first")
    assert engine.available()
    assert (result.engine, result.library) == ("cpsat", "ortools")
    assert result.version not in ("", "missing", "builtin")


@pytest.mark.parametrize("spec", ["cpsat:workers=0", "cpsat:workers=x", "cpsat:seed=1.5",
                                  "cpsat:threads=2"])
def test_bad_options_are_refused(spec):
    with pytest.raises(EngineOptionError):
        get_engine(spec)


def test_options_reach_the_label():
    assert get_engine("cpsat:workers=2:seed=7").label == "cpsat:workers=2:seed=7"
    assert get_engine("cpsat:workers=1:seed=0").label == "cpsat"


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_boj2239_every_mode(engine, mode):
    result = engine.solve(sudoku(BOJ2239).to_model(), mode)
    assert result.status is Status.SOLVED
    assert "".join(map(str, result.solution)) == BOJ2239_ANSWER
    assert result.count == (1 if mode == "count" else None)


def test_statistics_are_cpsat_own(engine):
    result = engine.solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=1000)
    assert result.nodes == result.stats["branches"] > 0
    assert result.backtracks == result.failures == result.stats["conflicts"]
    assert result.propagations is None and result.restarts is None   # not read
    assert result.stats["solve_calls"] == 1
    assert result.stats["cpsat_wall_s"] > 0
    assert result.build_s > 0 and result.solve_s > 0


def test_empty_4x4_counts_288(engine):
    result = engine.solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=1000)
    assert (result.status, result.count) == (Status.SOLVED, 288)
    assert len(set(result.solutions)) == len(result.solutions) == 16


def test_count_stops_at_limit(engine):
    result = engine.solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=5)
    assert (result.status, result.count) == (Status.SOLVED, 5)


def test_count_runs_one_worker_whatever_is_asked():
    result = get_engine("cpsat:workers=2").solve(Sudoku(4, (0,) * 16).to_model(),
                                                 "count", limit=1000)
    assert result.count == 288
    assert result.stats["workers_used"] == 1


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_conflicting_givens_are_unsat(engine, mode):
    result = engine.solve(conflicting(BOJ2239).to_model(), mode)
    assert result.status is Status.UNSAT
    assert result.solutions == []
    assert result.count == (0 if mode == "count" else None)


def test_given_outside_its_domain_is_unsat(engine):
    model = sudoku(BOJ2239).to_model()
    bad = Model(model.structure, model.givens + ((1, 10),))
    assert engine.solve(bad, "first").status is Status.UNSAT


def test_model_without_variables_has_one_solution(engine):
    model = Model(Structure("none", (), (), ()))
    assert engine.solve(model, "first").solutions == [()]
    assert engine.solve(model, "count").count == 1


def test_holey_domains_are_kept(engine):
    structure = Structure("holes", ("a", "b"), ((1, 3, 5), (3, 4)),
                          (AllDifferent((0, 1)),))
    result = engine.solve(Model(structure), "count", limit=100)
    assert sorted(result.solutions) == [(1, 3), (1, 4), (3, 4), (5, 3), (5, 4)]
    assert engine.solve(Model(structure), "lexfirst").solution == (1, 3)


def test_time_limit_gives_timeout_with_partial_count(engine):
    result = engine.solve(Sudoku(9, (0,) * 81).to_model(), "count", limit=10 ** 12,
                          timeout=0.3)
    assert result.status is Status.TIMEOUT
    assert 0 <= result.count < 10 ** 12


def test_spent_deadline_is_a_timeout(engine):
    result = engine.solve(sudoku(BOJ2239).to_model(), "first", timeout=0)
    assert result.status is Status.TIMEOUT


def test_model_invalid_is_an_error_with_message(engine, monkeypatch):
    real = cpsat.CpSatEngine.translate

    def broken(self, model):
        task = real(self, model)
        task.cp.proto.variables[0].domain.clear()   # a variable without a domain
        return task

    monkeypatch.setattr(cpsat.CpSatEngine, "translate", broken)
    result = engine.solve(sudoku(BOJ2239).to_model(), "first")
    assert result.status is Status.ERROR
    assert "MODEL_INVALID" in result.message


def test_intervals():
    assert cpsat.intervals([5, 1, 2, 3, 7, 8]) == [1, 3, 5, 5, 7, 8]
    assert cpsat.intervals([4]) == [4, 4]


# ----- lexfirst --------------------------------------------------------------
def test_lexfirst_of_empty_grids(engine):
    assert engine.solve(Sudoku(4, (0,) * 16).to_model(), "lexfirst").solution == EMPTY4_LEXFIRST
    nine = engine.solve(Sudoku(9, (0,) * 81).to_model(), "lexfirst").solution
    assert nine[:18] == (1, 2, 3, 4, 5, 6, 7, 8, 9, 4, 5, 6, 7, 8, 9, 1, 2, 3)


def test_lexfirst_paths_are_reported(engine):
    only = engine.solve(sudoku(BOJ2239).to_model(), "lexfirst")
    several = engine.solve(Sudoku(4, (0,) * 16).to_model(), "lexfirst")
    assert only.stats["lexfirst_by"] == "only solution"
    assert several.stats["lexfirst_by"] in ("ordered search", "probes")
    assert several.stats["solve_calls"] >= 3


def brute_force(model: Model) -> list[tuple[int, ...]]:
    """Every solution of a small AllDifferent model, in lexicographic order.

    Plain depth-first enumeration in variable order, values ascending, each
    constraint checked once all its variables are set: no propagation, nothing
    shared with the engines.
    """
    domains = model.domains()
    done_at: dict[int, list] = {}
    for con in model.structure.constraints:
        done_at.setdefault(max(con.vars), []).append(con.vars)
    solutions, values = [], []

    def extend(i: int) -> None:
        if i == len(domains):
            solutions.append(tuple(values))
            return
        for v in sorted(domains[i]):
            values.append(v)
            if all(len({values[x] for x in group}) == len(group)
                   for group in done_at.get(i, ())):
                extend(i + 1)
            values.pop()

    extend(0)
    return solutions


def random_4x4(rng: random.Random, blanks: int) -> Sudoku:
    grid = list(EMPTY4_LEXFIRST)
    for cell in rng.sample(range(16), blanks):
        grid[cell] = 0
    digits = rng.sample(range(1, 5), 4)
    return Sudoku(4, tuple(digits[v - 1] if v else 0 for v in grid))


@pytest.mark.parametrize("seed", range(6))
def test_lexfirst_by_probes_when_the_ordered_search_misleads(engine, monkeypatch, seed):
    """Largest values first: the first candidate is rarely least, so probes must fix it."""
    monkeypatch.setattr(cpsat.cp_model, "SELECT_MIN_VALUE", cp_model.SELECT_MAX_VALUE)
    model = random_4x4(random.Random(seed), 12).to_model()
    result = engine.solve(model, "lexfirst")
    assert result.stats["lexfirst_by"] == "probes"
    assert result.solution == min(brute_force(model))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), blanks=st.integers(6, 16), pick=st.integers(0, 10 ** 6))
def test_lex_smaller_model_is_exact(engine, seed, blanks, pick):
    """The "is there a smaller solution?" model admits exactly the smaller solutions."""
    model = random_4x4(random.Random(seed), blanks).to_model()
    solutions = sorted(brute_force(model))
    best = solutions[pick % len(solutions)]
    task = engine.translate(model)
    check = cpsat.lex_smaller_model(task, best)
    runner = cpsat.Runner(engine.options, None)
    if best == solutions[0]:
        assert check is None or runner.values(task, check) is None
    else:
        found = runner.values(task, check)
        assert found in solutions and found < best


# ----- the other puzzle kinds ------------------------------------------------
# Values below 1, zero and negative: nothing may assume domains are 1..n.
SIGNED = Structure("signed", ("a", "b", "c"), ((-2, -1, 0, 1, 2), (-2, 0, 2), (-1, 0, 1, 3)), (
    Linear((2, -1, 1), (0, 1, 2), "<=", 1),
    Linear((1, 1), (0, 2), "!=", 0),
    NotEqualOffset(1, 0, -2),                       # b != a - 2
    Table((0, 2), ((-2, 3), (-1, -1), (0, 1), (1, 0), (2, 3), (2, -1))),
))
SIGNED_SOLUTIONS = sorted(
    (a, b, c) for a in (-2, -1, 0, 1, 2) for b in (-2, 0, 2) for c in (-1, 0, 1, 3)
    if 2 * a - b + c <= 1 and a + c != 0 and b != a - 2
    and (a, c) in ((-2, 3), (-1, -1), (0, 1), (1, 0), (2, 3), (2, -1)))


def test_the_grid_kinds_translate_without_extra_variables(engine):
    """``CpTask.restrict`` narrows the first proto variables: they must be the model's
    (the kinds that add variables add them after; see tests/kinds/test_cpsat_kinds.py)."""
    task = engine.translate(Model(SIGNED))
    assert len(task.cp.proto.variables) == SIGNED.size
    assert len(task.cp.proto.constraints) == len(SIGNED.constraints)
    assert {AllDifferent, Linear, NotEqualOffset, Table} <= cpsat.CpSatEngine.constraint_kinds


def test_signed_values_in_every_mode(engine):
    assert SIGNED_SOLUTIONS == [(-2, -2, 3), (-2, 0, 3), (-2, 2, 3), (-1, -2, -1), (-1, 0, -1),
                                (-1, 2, -1), (0, 0, 1), (0, 2, 1), (1, 2, 0), (2, 2, -1)]
    count = engine.solve(Model(SIGNED), "count", limit=100)
    assert sorted(count.solutions) == SIGNED_SOLUTIONS and count.count == 10
    assert engine.solve(Model(SIGNED), "lexfirst").solution == SIGNED_SOLUTIONS[0]
    assert engine.solve(Model(SIGNED), "first").solution in SIGNED_SOLUTIONS


@pytest.mark.parametrize("givens, expected", [((), 0), (((2, 1),), 6), (((1, 2),), 2),
                                             (((0, -1),), 3)])
def test_lexfirst_by_probes_on_signed_values(engine, monkeypatch, givens, expected):
    monkeypatch.setattr(cpsat.cp_model, "SELECT_MIN_VALUE", cp_model.SELECT_MAX_VALUE)
    fits = [s for s in SIGNED_SOLUTIONS if all(s[v] == x for v, x in givens)]
    result = engine.solve(Model(SIGNED, givens), "lexfirst")
    assert result.solution == fits[0] == SIGNED_SOLUTIONS[expected]
    assert len(fits) > 1 and result.stats["lexfirst_by"] == "probes"


@pytest.mark.parametrize("con, expected", [
    (Linear((), (), "==", 0), 4), (Linear((), (), "!=", 0), 0),
    (Linear((1, -1), (0, 0), ">=", 1), 0), (Table((), ((),)), 4), (Table((), ()), 0),
    (Table((0, 0), ((1, 1), (2, 1))), 1), (NotEqualOffset(0, 0, 1), 4),
    (NotEqualOffset(0, 0, 0), 0),
])
def test_degenerate_constraints(engine, con, expected):
    model = Model(Structure("one", ("x",), ((-1, 0, 1, 2),), (con,)))
    result = engine.solve(model, "count", limit=10)
    assert result.count == expected, result.message


@pytest.mark.parametrize("value, na", [(2 ** 62 - 1, False), (2 ** 62, True),
                                       (-(2 ** 62), True), (10 ** 23, True)])
def test_values_beyond_its_range_are_na_before_translation(engine, value, na, monkeypatch):
    """CP-SAT's domains stay within ±(2^63 - 1) / 2; past it, n/a saying so, not a
    TypeError or an invalid model from the library."""
    if na:
        monkeypatch.setattr(cpsat.CpSatEngine, "translate",
                            lambda self, model: pytest.fail("translated a model it cannot take"))
    models = [Model(Structure(f"wide{value}", ("x", "y"), ((value,), (1, 2)),
                              (AllDifferent((0, 1)),)))]
    if na:     # a coefficient too (within the range, CP-SAT checks the sums itself)
        models.append(Model(Structure(f"coef{value}", ("x", "y"), ((0, 1), (1, 2)),
                                      (Linear((value, 1), (0, 1), "<=", 5),))))
    for model in models:
        result = engine.solve(model, "first")
        if na:
            assert str(result.status) == "unsupported"
            assert result.message == ("cpsat: values beyond ±2^62: outside CP-SAT's range, "
                                      "±(2^63 - 1) / 2")
        else:
            assert str(result.status) in ("solved", "unsatisfiable"), result.message


def test_a_translation_limit_is_worded_as_the_translation_s(engine):
    model = Model(Structure("na", ("x",), ((1,),), (), "extension over 11 variables: too big"))
    result = engine.solve(model, "first")
    assert str(result.status) == "unsupported"
    assert result.message == "translation: extension over 11 variables: too big"
