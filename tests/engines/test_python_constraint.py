"""The python-constraint engine on its own: solvers, modes, deadlines, lexfirst."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("constraint")

import engines.python_constraint as pc  # noqa: E402
from engines import EngineOptionError, Status, get_engine  # noqa: E402
from engines.support.lexprobe import SearchTimeout  # noqa: E402
from puzzles.kinds.sudoku import Sudoku  # noqa: E402
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table  # noqa: E402

BOJ2239 = ("103000509002109400000704000300502006060000050"
           "700803004000401000009205800804000107")
BOJ2239_ANSWER = tuple(int(c) for c in (
    "143628579572139468986754231391542786468917352"
    "725863914237481695619275843854396127"))
EMPTY4_LEXFIRST = (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)
SOLVERS = sorted(pc.SOLVERS)


def boj2239() -> Model:
    return Sudoku(9, tuple(int(c) for c in BOJ2239)).to_model()


def test_registry_identity():
    engine = get_engine("python-constraint")
    result = engine.solve(boj2239(), "first")
    assert engine.available()
    assert (result.engine, result.library) == ("python-constraint", "python-constraint2")
    assert result.version not in ("", "missing", "builtin")
    assert result.stats["solver"] == "BacktrackingSolver"


def test_unknown_solver_is_refused():
    with pytest.raises(EngineOptionError, match="minconflicts"):
        get_engine("python-constraint:solver=minconflicts")


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_boj2239_every_solver_and_mode(solver, mode):
    result = get_engine(f"python-constraint:solver={solver}").solve(boj2239(), mode)
    assert result.status is Status.SOLVED
    assert result.solution == BOJ2239_ANSWER
    assert result.count == (1 if mode == "count" else None)
    assert result.nodes >= 81 - 36   # at least one value tried per blank cell


@pytest.mark.parametrize("solver", SOLVERS)
def test_empty_4x4_counts_288_without_repeats(solver):
    result = get_engine(f"python-constraint:solver={solver}").solve(
        Sudoku(4, (0,) * 16).to_model(), "count", limit=1000)
    assert (result.status, result.count) == (Status.SOLVED, 288)
    assert len(set(result.solutions)) == len(result.solutions) == 16


@pytest.mark.parametrize("solver", SOLVERS)
def test_lexfirst_of_empty_4x4_by_probes(solver):
    result = get_engine(f"python-constraint:solver={solver}").solve(
        Sudoku(4, (0,) * 16).to_model(), "lexfirst")
    assert result.solution == EMPTY4_LEXFIRST
    assert result.stats["lexfirst_by"] == "probes"


def test_count_stops_at_limit():
    result = get_engine("python-constraint").solve(Sudoku(4, (0,) * 16).to_model(),
                                                   "count", limit=3)
    assert (result.status, result.count) == (Status.SOLVED, 3)


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_conflicting_givens_are_unsat(mode):
    grid = tuple(int(c) for c in BOJ2239[:1] + "1" + BOJ2239[2:])
    result = get_engine("python-constraint").solve(Sudoku(9, grid).to_model(), mode)
    assert result.status is Status.UNSAT
    assert result.count == (0 if mode == "count" else None)


def test_given_outside_its_domain_is_unsat():
    model = boj2239()
    bad = Model(model.structure, model.givens + ((1, 10),))
    assert get_engine("python-constraint").solve(bad, "first").status is Status.UNSAT


def test_model_without_variables_has_one_solution():
    model = Model(Structure("none", (), (), ()))
    engine = get_engine("python-constraint")
    assert engine.solve(model, "first").solutions == [()]
    assert engine.solve(model, "count").count == 1


def test_single_variable_keeps_its_pass_through():
    """The library drops one-variable constraints in preprocessing; ours must stay."""
    model = Model(Structure("one", ("a",), ((2, 1, 3),), ()))
    result = get_engine("python-constraint").solve(model, "count", limit=10)
    assert result.count == 3 and result.nodes == 3


def test_holey_domains():
    structure = Structure("holes", ("a", "b"), ((1, 3, 5), (3, 4)),
                          (AllDifferent((0, 1)),))
    result = get_engine("python-constraint").solve(Model(structure), "count", limit=100)
    assert sorted(result.solutions) == [(1, 3), (1, 4), (3, 4), (5, 3), (5, 4)]


def test_deadline_stops_a_search_from_inside(monkeypatch):
    """One long search, no solution in sight: the pass-through raises at the deadline."""
    monkeypatch.setattr(pc, "CHECK_EVERY", 1)
    engine = get_engine("python-constraint")
    task = engine.translate(boj2239())
    watch = pc.Watch(time.perf_counter() - 1)
    with pytest.raises(SearchTimeout):
        next(engine.solutions(task, task.domains, watch))
    assert watch.tried == 1


def test_deadline_between_solutions_gives_partial_count():
    result = get_engine("python-constraint").solve(Sudoku(9, (0,) * 81).to_model(),
                                                   "count", limit=10 ** 12, timeout=0.3)
    assert result.status is Status.TIMEOUT
    assert 0 <= result.count < 10 ** 12


def test_spent_deadline_is_a_timeout():
    result = get_engine("python-constraint").solve(boj2239(), "first", timeout=0)
    assert result.status is Status.TIMEOUT


# ----- the other puzzle kinds: where the library's own constraints need care ----------
def one_model(domains, *constraints, givens=()) -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure("t", names, tuple(map(tuple, domains)), constraints), givens)


def all_solutions(model: Model, solver: str = "backtracking") -> list[tuple[int, ...]]:
    result = get_engine(f"python-constraint:solver={solver}").solve(model, "count", 10 ** 6)
    assert result.status in (Status.SOLVED, Status.UNSAT), result.message
    assert result.count <= 16, "keep these models small: all solutions are compared"
    return sorted(result.solutions)


@pytest.mark.parametrize("solver", SOLVERS)
def test_linear_with_negative_coefficients_and_values(solver):
    # 2a - b == 1 over -2..2: the library's sum bounds must use each term's own extremes
    model = one_model([range(-2, 3)] * 2, Linear((2, -1), (0, 1), "==", 1))
    assert all_solutions(model, solver) == [(0, -1), (1, 1)]
    at_most = one_model([(-2, 0, 3)] * 2, Linear((-1, 1), (0, 1), "<=", -2))
    assert all_solutions(at_most, solver) == [(0, -2), (3, -2), (3, 0)]
    at_least = one_model([(-2, 0, 3)] * 2, Linear((-1, -1), (0, 1), ">=", 2))
    assert all_solutions(at_least, solver) == [(-2, -2), (-2, 0), (0, -2)]


def test_repeated_variable_in_a_sum_is_merged():
    # the library keys its sum bounds by variable: a + a + b would count a once
    model = one_model([range(0, 4)] * 2, Linear((1, 1, 1), (0, 0, 1), "==", 5))
    assert all_solutions(model) == [(1, 3), (2, 1)]
    assert pc._linear(Linear((1, 1, 1), (0, 0, 1), "==", 5)).variables == (0, 1)


def test_sum_that_empties_a_domain_while_preprocessing_is_unsat():
    # the library's preprocessing takes min() of a domain an earlier sum emptied
    d = range(1, 10)
    model = one_model([d, d, d], Linear((1, 1), (0, 1), "==", 3),
                      Linear((1, 1), (0, 1), "==", 10), Linear((1, 1), (0, 2), "==", 5))
    for mode in ("first", "lexfirst", "count"):
        result = get_engine("python-constraint").solve(model, mode)
        assert result.status is Status.UNSAT, result.message


def test_not_equal_linear_is_a_function():
    model = one_model([(0, 1)] * 3, Linear((1, 1, 1), (0, 1, 2), "!=", 1))
    assert all_solutions(model) == [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 1)]


@pytest.mark.parametrize("con, expected", [
    (Linear((3,), (0,), ">=", 1), [(1,), (2,)]),                  # one variable
    (Linear((1, -1), (0, 0), "==", 0), [(-1,), (0,), (1,), (2,)]),  # cancels to none
    (Linear((), (), "==", 1), []),                                   # no variable: false
    (Table((0,), ((2,), (5,), (-1,))), [(-1,), (2,)]),
    (Table((0, 0), ((1, 1), (0, 2))), [(1,)]),                       # one variable, twice
    (Table((), ()), []),
    (NotEqualOffset(0, 0, 0), []),
    (NotEqualOffset(0, 0, 2), [(-1,), (0,), (1,), (2,)]),
    (AllDifferent((0, 0)), []),
])
@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_constraints_on_fewer_than_two_variables_fold_into_domains(con, expected, mode):
    model = one_model([range(-1, 3)], con)
    result = get_engine("python-constraint").solve(model, mode, limit=10)
    if mode == "count":
        assert sorted(result.solutions) == expected and result.count == len(expected)
    else:
        assert result.solutions == expected[:1]
    assert result.status is (Status.SOLVED if expected else Status.UNSAT)


def test_table_and_offsets_over_pairs():
    table = Table((0, 1), ((1, 2), (2, 1), (2, 2), (0, 7)))
    assert all_solutions(one_model([(0, 1, 2)] * 2, table)) == [(1, 2), (2, 1), (2, 2)]
    offset = NotEqualOffset(0, 1, -1)           # x0 != x1 - 1
    assert all_solutions(one_model([(0, 1)] * 2, offset)) == [(0, 0), (1, 0), (1, 1)]


def test_every_problem_gets_fresh_sum_constraints():
    """A sum constraint keeps bounds from one problem's preprocessing; probes must not share it."""
    piece = pc._linear(Linear((1, 1), (0, 1), "==", 4))
    assert piece.make() is not piece.make()
    assert isinstance(piece.make(), pc.constraint.ExactSumConstraint)


@pytest.mark.parametrize("solver", SOLVERS)
def test_lexfirst_by_probes_with_sums_and_negative_values(solver, monkeypatch):
    monkeypatch.setattr(pc, "LEX_ENUMERATE", 0)        # straight to the probes
    model = one_model([range(-3, 4)] * 3, Linear((1, 2, -1), (0, 1, 2), "==", 0),
                      NotEqualOffset(0, 2, 1), AllDifferent((0, 1, 2)))
    result = get_engine(f"python-constraint:solver={solver}").solve(model, "lexfirst")
    assert result.solution == (-3, 1, -1) and result.stats["lexfirst_by"] == "probes"


@pytest.mark.parametrize("value, na", [(2 ** 63 - 1, False), (2 ** 63, True),
                                       (-(10 ** 23), True)])
def test_values_beyond_64_bits_are_na_with_whose_limit_it_is(value, na):
    """The library would answer them; the tool carries answers as 64-bit integers, so
    the engine says n/a before it runs instead of an answer the boundary rejects."""
    model = Model(Structure(f"wide{value}", ("x", "y"), ((value,), (1, 2)),
                            (AllDifferent((0, 1)),)), givens=((1, 2),))
    result = get_engine("python-constraint").solve(model, "first")
    if na:
        assert (str(result.status), result.message) == (
            "unsupported", "python-constraint: values beyond ±2^63: outside the tool's range "
                           "(answers are carried as 64-bit integers)")
    else:
        assert result.solution == (value, 2)
    given = Model(Structure("given", ("x",), ((1, 2),), ()), givens=((0, 2 ** 64),))
    assert "beyond ±2^63" in get_engine("python-constraint").solve(given, "first").message
