"""The CPMpy engine, on every backend installed here: translation, modes, limits, effort.

Each test runs once per known backend and skips cleanly where the backend
(or CPMpy itself) is missing. The enumerating backends (Exact, PySAT, Z3,
Pindakaas) post one nogood per solution through CPMpy's Python
transformations, about 10-40 ms each, so the big counts (10 queens: 724)
run only on the natively enumerating ones and the others count smaller n.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("cpmpy")

import engines  # noqa: E402
import engines.cpmpy.backends as cb  # noqa: E402
import engines.cpmpy.engine as ce  # noqa: E402
from compare.cli.bench import DATASETS  # noqa: E402
from compare.judge.checker import verify  # noqa: E402
from engines import EngineOptionError, Status, get_engine  # noqa: E402
from puzzles.catalog import load_spec  # noqa: E402
from puzzles.kinds.coloring import Coloring  # noqa: E402
from puzzles.kinds.cryptarithm import from_text  # noqa: E402
from puzzles.kinds.killer import Killer  # noqa: E402
from puzzles.kinds.latin import LatinSquare, generate  # noqa: E402
from puzzles.kinds.queens import Queens  # noqa: E402
from puzzles.kinds.sudoku import Sudoku  # noqa: E402
from puzzles.loader import parse_text  # noqa: E402
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table  # noqa: E402
from tests.engines.test_cpsat import (  # noqa: E402
    BOJ2239,
    BOJ2239_ANSWER,
    EMPTY4_LEXFIRST,
    SIGNED,
    SIGNED_SOLUTIONS,
    conflicting,
    random_4x4,
    sudoku,
)

# CPMpy's note that solveAll leaves the solver unusable: each count uses its solver once
pytestmark = pytest.mark.filterwarnings("ignore:Adding constraints to solver object")

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "puzzles" / "examples"
NATIVE = {name for name, b in ce.BACKENDS.items() if b.native_enumeration}
SLOW = {"z3"}    # Z3 takes 23 s on a 16x16 Sudoku, and over 60 s to count killer9


def backend_params(names=tuple(ce.BACKENDS)):
    """One parameter per backend, skipped where it does not work here."""
    params = []
    for name in names:
        works, _, why = ce.probe_backend(name)
        params.append(pytest.param(name, id=name, marks=pytest.mark.skipif(
            not works, reason=f"{name}: {why}")))
    return params


BACKENDS = backend_params()


def engine_for(solver: str, **options):
    extra = "".join(f":{k}={v}" for k, v in options.items())
    return get_engine(f"cpmpy:solver={solver}{extra}")


def solved(solver: str, puzzle, formulation=None, mode="first", limit=2, timeout=60.0):
    """The result, after the independent checker accepted every solution in it."""
    model = puzzle.to_model(formulation)
    result = engine_for(solver).solve(model, mode, limit, timeout)
    assert result.status in (Status.SOLVED, Status.UNSAT), (result.status, result.message)
    ok, why = verify(puzzle, model, result, formulation)
    assert ok, why
    return result


_reference: dict = {}


def backtracking(puzzle, formulation=None, mode="lexfirst", limit=2):
    """The backtracking engine's answer: the reference for lexfirst."""
    key = (id(puzzle), formulation, mode, limit)
    if key not in _reference:
        _reference[key] = (puzzle, get_engine("backtracking").solve(
            puzzle.to_model(formulation), mode, limit, 60.0))
    return _reference[key][1]


# ----- identity, options, discovery ------------------------------------------------
@pytest.mark.parametrize("solver", BACKENDS)
def test_identity_names_the_backend(solver):
    engine = engine_for(solver)
    result = engine.solve(sudoku(BOJ2239).to_model(), "first")
    assert (result.engine, result.library) == (f"cpmpy:solver={solver}", "cpmpy")
    assert result.version.startswith(engines.engine_class("cpmpy").version())
    assert f"({solver} " in result.version and "missing" not in result.version
    assert result.stats["backend"] == solver


def test_default_is_ortools_and_the_label_always_names_the_solver():
    assert get_engine("cpmpy").label == "cpmpy:solver=ortools"
    assert get_engine("cpmpy:solver=ortools:workers=2:seed=7").label == \
        "cpmpy:solver=ortools:workers=2:seed=7"
    assert get_engine("cpmpy:solver=z3:seed=3").label == "cpmpy:solver=z3:seed=3"


@pytest.mark.parametrize("spec, message", [
    ("cpmpy:solver=gurobi", "not one of"),
    ("cpmpy:workers=0", r"out of range \(1\.\.256\)"),
    ("cpmpy:workers=x", "not a valid int"),
    ("cpmpy:solver=choco:workers=2", "ortools option"),
    ("cpmpy:solver=pysat:seed=3", "takes no seed"),
    ("cpmpy:threads=2", "no option"),
])
def test_bad_options_are_refused(spec, message):
    with pytest.raises(EngineOptionError, match=message):
        get_engine(spec)


def test_backends_lists_every_known_one_with_its_package():
    table = {row["name"]: row for row in engines.engine_class("cpmpy").backends()}
    assert set(table) == set(ce.BACKENDS) >= {"ortools", "choco", "exact", "pysat", "z3"}
    assert table["choco"]["package"] == "pychoco" and table["z3"]["package"] == "z3-solver"
    assert table["ortools"]["working"] and table["ortools"]["version"]
    for row in table.values():
        assert row["working"] == (row["reason"] == "")
        assert row["working"] or row["package"] in row["reason"]


def test_installed_carries_the_backends_and_keeps_the_common_keys():
    info = engines.installed()
    assert {"backtracking", "cpsat", "cpmpy"} <= set(info)
    common = {"available", "version", "modes", "constraints"}
    assert set(info["cpsat"]) == common
    assert set(info["cpmpy"]) == common | {"backends"}
    assert info["cpmpy"]["available"] and info["cpmpy"]["modes"] == ["count", "first", "lexfirst"]
    names = [row["name"] for row in info["cpmpy"]["backends"]]
    assert names == list(ce.BACKENDS)


@pytest.fixture
def choco_missing(monkeypatch):
    """CPMpy's Choco interface saying what it says when pychoco is not installed."""
    from cpmpy.solvers.choco import CPM_choco
    monkeypatch.setattr(CPM_choco, "supported", staticmethod(lambda: False))
    ce.probe_backend.cache_clear()
    yield
    ce.probe_backend.cache_clear()


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_a_backend_not_installed_is_unsupported_with_the_package_to_install(choco_missing, mode):
    engine = get_engine("cpmpy:solver=choco")   # the spec itself is no error
    result = engine.solve(sudoku(BOJ2239).to_model(), mode)
    assert result.status is Status.UNSUPPORTED
    assert "not installed (pip install pychoco)" in result.message
    assert "traceback" not in result.stats
    row = next(r for r in engine.backends() if r["name"] == "choco")
    assert not row["working"] and "pip install pychoco" in row["reason"]


def test_a_broken_backend_is_a_reason_not_a_traceback(monkeypatch):
    from cpmpy.solvers.pysat import CPM_pysat

    def broken():
        raise AssertionError("Package 'pindakaas' is unavailable")
    monkeypatch.setattr(CPM_pysat, "supported", staticmethod(broken))
    ce.probe_backend.cache_clear()
    try:
        result = get_engine("cpmpy:solver=pysat").solve(sudoku(BOJ2239).to_model(), "first")
    finally:
        ce.probe_backend.cache_clear()
    assert result.status is Status.UNSUPPORTED
    assert "not working: AssertionError" in result.message
    assert "pip install python-sat" in result.message


@pytest.mark.slow
def test_the_harness_shows_a_missing_backend_as_n_a(tmp_path):
    """End to end: worker processes see Choco missing (``tests.cpmpy_missing_choco``)."""
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_PLUGINS="tests.cpmpy_missing_choco",
               PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "run_compare.py", "--puzzles", "puzzles/samples/boj2239.txt",
         "--engines", "backtracking,cpmpy:solver=choco", "--workers", "1", "--out", str(out),
         "--quiet"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    import pandas as pd
    frame = pd.read_csv(out / "results.csv")
    statuses = frame.groupby("engine")["status"].agg(set).to_dict()
    assert statuses == {"backtracking": {"solved"}, "cpmpy:solver=choco": {"unsupported"}}
    messages = frame.loc[frame["engine"] == "cpmpy:solver=choco", "message"]
    assert len(messages) == 3               # the default three repeats, each n/a
    assert all("not installed (pip install pychoco)" in m for m in messages)
    assert "n/a" in (out / "summary.md").read_text()
    assert "Traceback" not in proc.stderr


# ----- the four constraint kinds, degenerate shapes, domains --------------------------
@pytest.mark.parametrize("solver", BACKENDS)
def test_every_kind_with_signed_values_in_every_mode(solver):
    engine = engine_for(solver)
    count = engine.solve(Model(SIGNED), "count", limit=100)
    assert (count.status, count.count) == (Status.SOLVED, 10)
    assert sorted(count.solutions) == SIGNED_SOLUTIONS
    assert engine.solve(Model(SIGNED), "lexfirst").solution == SIGNED_SOLUTIONS[0]
    assert engine.solve(Model(SIGNED), "first").solution in SIGNED_SOLUTIONS
    given = engine.solve(Model(SIGNED, ((2, 1),)), "count", limit=100)
    assert sorted(given.solutions) == [s for s in SIGNED_SOLUTIONS if s[2] == 1]


# (constraint, count over two variables with domains 1..3 and 0..2)
DEGENERATE = [
    (AllDifferent((0, 0)), 0),                        # a variable twice: never distinct
    (AllDifferent((1,)), 9),
    (Linear((2, -2, 1), (0, 0, 1), ">=", 2), 3),      # coefficients cancel to b >= 2
    (Linear((0,), (0,), "!=", 0), 0),                 # a sum over nothing: 0 != 0
    (Linear((1, 1), (0, 1), "!=", 3), 6),
    (NotEqualOffset(0, 0, 0), 0),
    (NotEqualOffset(0, 0, 1), 9),
    (NotEqualOffset(0, 1, 1), 6),
    (Table((), ((),)), 9),
    (Table((), ()), 0),
    (Table((0, 1), ()), 0),
    (Table((0, 0), ((1, 1), (2, 3), (3, 3))), 6),     # a variable twice in a table
]


@pytest.mark.parametrize("con, count", DEGENERATE, ids=[repr(c) for c, _ in DEGENERATE])
@pytest.mark.parametrize("solver", BACKENDS)
def test_degenerate_constraints(solver, con, count):
    structure = Structure("degenerate", ("a", "b"), ((1, 2, 3), (0, 1, 2)), (con,))
    result = engine_for(solver).solve(Model(structure), "count", limit=100)
    assert result.count == count
    assert result.status is (Status.SOLVED if count else Status.UNSAT)


@pytest.mark.parametrize("solver", backend_params(("choco",)))
def test_choco_takes_tables_past_its_bitset_budget_by_str2(solver, monkeypatch):
    structure = Structure("tables", ("a", "b", "c"), ((1, 2, 3), (0, 1, 2), (0, 5)),
                          (Table((0, 1), ((1, 0), (2, 2), (3, 1), (3, 2))),
                           Table((1, 2), ((0, 0), (2, 5), (1, 5))), AllDifferent((0, 1))))
    expected = {(1, 0, 0), (2, 2, 5), (3, 1, 5), (3, 2, 5)} - {(2, 2, 5)}
    posted = []

    native = ce.BACKENDS["choco"].post_natively

    def post(solver, expr):
        taken = native(solver, expr)
        if taken:
            posted.append(expr.name)
        return taken
    monkeypatch.setattr(cb, "CT_BITSET_BYTES", 0)       # every table past the budget
    monkeypatch.setitem(ce.BACKENDS, "choco", replace(ce.BACKENDS["choco"], post_natively=post))
    engine = engine_for(solver)
    result = engine.solve(Model(structure), "count", limit=100)
    assert result.count == len(expected) and set(result.solutions) == expected
    assert engine.solve(Model(structure), "lexfirst").solution == (1, 0, 0)
    assert posted.count("table") >= 2 * 2    # both tables, in the count and the lexfirst solver


@pytest.mark.parametrize("solver", BACKENDS)
def test_holey_domains_booleans_and_free_variables(solver):
    structure = Structure("holes", ("a", "b", "flag", "free"),
                          ((1, 3, 5), (3, 4), (0, 1), (7, 9)), (AllDifferent((0, 1)),
                                                                Linear((1,), (2,), "<=", 1)))
    engine = engine_for(solver)
    result = engine.solve(Model(structure), "count", limit=100)
    expected = [(a, b, f, g) for a, b in [(1, 3), (1, 4), (3, 4), (5, 3), (5, 4)]
                for f in (0, 1) for g in (7, 9)]
    assert result.count == 20 and set(result.solutions) <= set(expected)
    assert engine.solve(Model(structure), "lexfirst").solution == (1, 3, 0, 7)


@pytest.mark.parametrize("solver", BACKENDS)
def test_model_without_variables_has_one_solution(solver):
    model = Model(Structure("none", (), (), ()))
    engine = engine_for(solver)
    assert engine.solve(model, "first").solutions == [()]
    assert engine.solve(model, "count").count == 1
    assert engine.solve(model, "lexfirst").solutions == [()]


# ----- Sudoku: modes, unsat, formulations ------------------------------------------------
@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
@pytest.mark.parametrize("solver", BACKENDS)
def test_boj2239_every_mode(solver, mode):
    result = solved(solver, sudoku(BOJ2239), mode=mode)
    assert "".join(map(str, result.solution)) == BOJ2239_ANSWER
    assert result.count == (1 if mode == "count" else None)
    if mode == "lexfirst":      # one solution: the check proves it, no probe
        assert (result.stats["lexfirst_by"], result.stats["probes"]) == ("check", 0)


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
@pytest.mark.parametrize("solver", BACKENDS)
def test_conflicting_givens_are_unsat(solver, mode):
    result = engine_for(solver).solve(conflicting(BOJ2239).to_model(), mode)
    assert result.status is Status.UNSAT
    assert result.solutions == [] and result.count == (0 if mode == "count" else None)


@pytest.mark.parametrize("solver", BACKENDS)
def test_given_outside_its_domain_is_unsat_before_search(solver):
    model = sudoku(BOJ2239).to_model()
    result = engine_for(solver).solve(Model(model.structure, model.givens + ((1, 10),)), "count")
    assert (result.status, result.count, result.stats["solve_calls"]) == (Status.UNSAT, 0, 0)


@pytest.mark.parametrize("formulation", Sudoku.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_sudoku_formulations_give_the_same_grid(solver, formulation):
    """The 9x9 one-hot model (729 Booleans) takes Z3 3.5 s: the 4x4 one covers it there."""
    if not (solver in SLOW and formulation == "onehot"):
        puzzle = sudoku(BOJ2239)
        result = solved(solver, puzzle, formulation, "lexfirst")
        assert "".join(map(str, puzzle.decode(result.solution, formulation))) == BOJ2239_ANSWER
    small = Sudoku(4, (1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0, 0))
    count = solved(solver, small, formulation, "count", limit=100)
    assert count.count == backtracking(small, "alldiff", "count", 100).count


@pytest.mark.parametrize("solver", BACKENDS)
def test_empty_4x4_counts_288_and_stops_at_a_limit(solver):
    """All 288 where enumeration is native; the nogood loops stop at 40 (queens count more)."""
    engine = engine_for(solver)
    everything = 288 if solver in NATIVE else 40
    result = engine.solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=1000 if
                          solver in NATIVE else everything)
    assert (result.status, result.count) == (Status.SOLVED, everything)
    assert len(set(result.solutions)) == len(result.solutions) == 16
    assert engine.solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=5).count == 5


# ----- other puzzle kinds -----------------------------------------------------------------
QUEENS_COUNTS = {6: 4, 8: 92, 10: 724}


@pytest.mark.parametrize("formulation", Queens.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_queens_counts(solver, formulation):
    """92 everywhere; 724 (ten queens) where enumeration is native, else six queens."""
    sizes = (8, 10) if solver in NATIVE else (6, 8)
    if formulation == "pairwise" and solver not in NATIVE:
        sizes = (6,)
    for n in sizes:
        result = solved(solver, Queens(n), formulation, "count", limit=1000)
        assert result.count == QUEENS_COUNTS[n]


@pytest.mark.parametrize("formulation", Queens.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_queens_lexfirst_is_the_backtrackers(solver, formulation):
    puzzle = Queens(8)
    result = solved(solver, puzzle, formulation, "lexfirst")
    assert result.solution == backtracking(puzzle, formulation).solution
    assert puzzle.decode(result.solution, formulation) == (1, 5, 8, 6, 3, 7, 2, 4)
    assert result.stats["lexfirst_by"] in ("check", "probes")
    assert result.stats["solve_calls"] == 2 + result.stats["probes"]


@pytest.mark.parametrize("solver", BACKENDS)
def test_lexfirst_of_many_solution_grids_is_the_backtrackers(solver):
    import random
    puzzles = [Sudoku(4, (0,) * 16)] + [random_4x4(random.Random(s), 12) for s in range(3)]
    for puzzle in puzzles:
        result = solved(solver, puzzle, mode="lexfirst")
        assert result.solution == backtracking(puzzle).solution
    assert solved(solver, Sudoku(4, (0,) * 16), mode="lexfirst").solution == EMPTY4_LEXFIRST


@pytest.mark.parametrize("formulation", Killer.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_killer(solver, formulation):
    """killer9 where it takes under a second (Exact and the SAT backends 0.3-1.6 s)."""
    for name in ("killer4a", "killer4b") + (("killer9",) if solver in NATIVE else ()):
        puzzle = load_spec(f"killer:{EXAMPLES / name}.killer")
        result = solved(solver, puzzle, formulation, "count")
        assert result.count == 1
        assert result.solution == backtracking(puzzle, formulation, "count").solution


@pytest.mark.parametrize("formulation", LatinSquare.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_latin(solver, formulation):
    assert solved(solver, load_spec(f"latin:{EXAMPLES}/latin6.latin"), formulation,
                  "count").count == 1
    square = generate(6, 20, seed=3)
    result = solved(solver, square, formulation, "lexfirst")
    assert result.solution == backtracking(square, formulation).solution


@pytest.mark.parametrize("formulation", Coloring.formulations)
@pytest.mark.parametrize("solver", BACKENDS)
def test_coloring(solver, formulation):
    for name, colors, count in (("petersen", 3, 120), ("k4", 3, 0), ("cycle5", 3, 30)):
        puzzle = load_spec(f"coloring:{EXAMPLES / name}.col:colors={colors}")
        result = solved(solver, puzzle, formulation, "count", limit=200)
        assert result.count == count


@pytest.mark.parametrize("formulation", ["sum", "columns"])
@pytest.mark.parametrize("solver", BACKENDS)
def test_cryptarithm(solver, formulation):
    puzzle = from_text("SEND+MORE=MONEY")
    if formulation == "sum" and ce.BACKENDS[solver].max_linear_span:
        result = engine_for(solver).solve(puzzle.to_model(formulation), "count")
        assert result.status is Status.UNSUPPORTED and "spans 89837 values" in result.message
    else:
        result = solved(solver, puzzle, formulation, "count")
        assert result.count == 1
        assert puzzle.decode(result.solution, formulation) == (7, 5, 1, 6, 0, 8, 9, 2)
    several = from_text("AB+BA=CC")     # 32 solutions; as one sum it spans 264 values
    assert solved(solver, several, formulation, "count", limit=100).count == 32
    lex = solved(solver, several, formulation, "lexfirst")
    assert lex.solution == backtracking(several, formulation).solution


def test_linear_span_merges_terms_and_reads_base_domains():
    structure = Structure("span", ("a", "b"), ((1, 5, 9), (0, 1)), (
        Linear((3, -1, 2), (0, 1, 0), "<=", 4),      # 5a - b: 5 * 8 + 1 * 1
        Linear((1,), (1,), "==", 1)))
    assert ce.linear_span(structure) == 41
    assert ce.linear_span(Structure("none", ("a",), ((1, 2),), ())) == 0


# ----- datasets ----------------------------------------------------------------------------
def dataset_sample() -> list:
    picked = []
    for stem, k in (("norvig_top95", 2), ("vu_kr_16x16", 1)):
        path = DATASETS / f"{stem}.txt"
        if path.is_file():
            with path.open() as fh:
                head = "".join(fh.readline() for _ in range(k))
            picked += [pytest.param(e.puzzle, id=e.id) for e in parse_text(head, str(path), "line")]
    return picked


DATA = dataset_sample()


@pytest.mark.datasets
@pytest.mark.skipif(not DATA, reason=f"no datasets at {DATASETS}")
@pytest.mark.parametrize("puzzle", DATA or [None])
@pytest.mark.parametrize("solver", BACKENDS)
def test_dataset_puzzles(solver, puzzle):
    if solver in SLOW and (puzzle.n > 9 or puzzle is not DATA[0].values[0]):
        pytest.skip(f"{solver}: one 9x9 puzzle (a 16x16 one takes it over 20 s)")
    result = solved(solver, puzzle, mode="count")
    assert result.count == 1
    assert result.solution == backtracking(puzzle, mode="count").solution


# ----- limits and effort ---------------------------------------------------------------
@pytest.mark.parametrize("solver", BACKENDS)
def test_time_limit_gives_timeout_with_partial_count(solver):
    result = engine_for(solver).solve(Sudoku(9, (0,) * 81).to_model(), "count",
                                      limit=10 ** 12, timeout=0.3)
    assert result.status is Status.TIMEOUT
    assert 0 <= result.count < 10 ** 12 and len(result.solutions) <= min(result.count, 16)


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
@pytest.mark.parametrize("solver", BACKENDS)
def test_spent_deadline_is_a_timeout(solver, mode):
    result = engine_for(solver).solve(Queens(6).to_model(), mode, timeout=0)
    assert result.status is Status.TIMEOUT
    assert result.count == (0 if mode == "count" else None)   # nothing enumerated yet


def pigeons(n: int) -> Model:
    """``n`` pigeons, ``n - 1`` holes, as pairwise disequalities: exponential for
    resolution and for plain propagation alike."""
    structure = Structure(f"pigeons{n}", tuple(f"p{i}" for i in range(n)),
                          (tuple(range(1, n)),) * n,
                          tuple(NotEqualOffset(i, j) for i in range(n) for j in range(i)))
    return Model(structure)


@pytest.mark.parametrize("solver", BACKENDS)
def test_a_search_stopped_by_the_limit_is_never_unsat(solver):
    """CPMpy calls Choco's search unsatisfiable when it stops a little before the
    limit by Python's clock; the engine asks Choco whether it finished."""
    result = engine_for(solver).solve(pigeons(13), "first", timeout=0.3)
    if solver == "ortools":     # CP-SAT's presolve sees the clique: proven at once
        assert result.status is Status.UNSAT
    else:
        assert result.status is Status.TIMEOUT, result.message


def test_time_limits_stay_plain_decimals():
    runner = ce.Runner(get_engine("cpmpy:solver=choco"), None)
    import time
    for left in (1e-5, 0.0004, 2.5, 1e9):
        runner.deadline = time.perf_counter() + left
        value = runner.left()
        assert ce.MIN_LIMIT_S <= value <= ce.MAX_LIMIT_S and "e" not in str(value)


@pytest.mark.parametrize("solver", BACKENDS)
def test_effort_is_the_backends_own(solver):
    backend = ce.BACKENDS[solver]
    result = engine_for(solver).solve(Queens(6).to_model(), "count", limit=1000)
    assert result.count == 4 and backend.effort_note == result.stats["effort"]
    if backend.nodes_key:
        assert result.nodes == int(result.stats[backend.nodes_key]) > 0
        assert result.backtracks == int(result.stats[backend.backtracks_key]) >= 0
    else:
        assert result.nodes == result.backtracks == 0


def test_ortools_workers_and_seed_reach_cp_sat(monkeypatch):
    from cpmpy.solvers.ortools import CPM_ortools
    ce.probe_backend("ortools")     # its test solve, done before the spy goes in
    seen = []
    real = CPM_ortools.solve

    def spy(self, *args, **kwargs):
        seen.append(kwargs)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(CPM_ortools, "solve", spy)
    engine = get_engine("cpmpy:workers=2:seed=5")
    assert engine.solve(sudoku(BOJ2239).to_model(), "first").stats["workers_used"] == 2
    assert engine.solve(Queens(6).to_model(), "count", limit=10).stats["workers_used"] == 1
    assert seen[0]["num_workers"] == 2 and seen[0]["random_seed"] == 5
    assert seen[1]["num_workers"] == 1 and seen[1]["enumerate_all_solutions"]


def test_repeated_solutions_make_a_capped_count_an_error(monkeypatch):
    """Should a backend hand the same solution twice, a count it cut at the limit
    is not known; the engine says so rather than report fewer."""
    monkeypatch.setattr(ce, "values", lambda xs: (1,) * len(xs))
    result = get_engine("cpmpy").solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=5)
    assert result.status is Status.ERROR and result.stats["duplicates_dropped"] == 4
