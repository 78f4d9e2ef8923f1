"""Reference solvers for the non-Sudoku models, so the models are proven right
before (and apart from) the project's engines.

* ``brute_solutions``: plain depth-first search over a ``Model`` in variable
  order, checking each constraint as soon as its variables allow. No
  propagation, so it is for tiny instances only.
* ``cpsat_solutions``: the model handed straight to OR-Tools CP-SAT with
  solution enumeration; written here, apart from ``engines/cpsat.py``.

Both return every solution (up to ``limit``) as tuples in variable order.
This module also holds the engine cross-check helpers the kind tests share.
"""
from __future__ import annotations

import pytest

from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Table, constraint_vars


# ----- a brute-force reference ------------------------------------------------------
def _holds(con, values: list, domains) -> bool:
    """False only when ``con`` is already broken by the assigned prefix."""
    if isinstance(con, AllDifferent):
        seen = [values[v] for v in con.vars if values[v] is not None]
        return len(seen) == len(set(seen))
    if isinstance(con, NotEqualOffset):
        x, y = values[con.x], values[con.y]
        return x is None or y is None or x != y + con.c
    if isinstance(con, Table):
        return any(all(values[v] is None or values[v] == t for v, t in zip(con.vars, row))
                   for row in con.tuples)
    low = high = 0
    for k, v in zip(con.coeffs, con.vars):
        if values[v] is None:
            ends = (k * min(domains[v]), k * max(domains[v]))
            low, high = low + min(ends), high + max(ends)
        else:
            low, high = low + k * values[v], high + k * values[v]
    if con.op == "==":
        return low <= con.rhs <= high
    if con.op == "<=":
        return low <= con.rhs
    if con.op == ">=":
        return high >= con.rhs
    return not (low == high == con.rhs)


def brute_solutions(model: Model, limit: int = 10 ** 9) -> list[tuple[int, ...]]:
    domains = model.domains()
    n = len(domains)
    watching = [[] for _ in range(n)]
    for con in model.structure.constraints:
        for v in set(constraint_vars(con)):
            watching[v].append(con)
    values: list = [None] * n
    found: list[tuple[int, ...]] = []

    def search(var: int) -> None:
        if var == n:
            found.append(tuple(values))
            return
        for value in domains[var]:
            values[var] = value
            if all(_holds(c, values, domains) for c in watching[var]):
                search(var + 1)
                if len(found) >= limit:
                    break
        values[var] = None

    search(0)
    return found


# ----- CP-SAT straight from the model -------------------------------------------------
def _cpsat(model: Model):
    from ortools.sat.python import cp_model

    cp = cp_model.CpModel()
    xs = [cp.NewIntVarFromDomain(cp_model.Domain.FromValues(list(d)), f"x{i}")
          for i, d in enumerate(model.domains())]
    for con in model.structure.constraints:
        if isinstance(con, AllDifferent):
            cp.AddAllDifferent([xs[v] for v in con.vars])
        elif isinstance(con, NotEqualOffset):
            cp.Add(xs[con.x] != xs[con.y] + con.c)
        elif isinstance(con, Table):
            cp.AddAllowedAssignments([xs[v] for v in con.vars], list(con.tuples))
        else:
            total = sum(k * xs[v] for k, v in zip(con.coeffs, con.vars))
            cp.Add({"==": total == con.rhs, "!=": total != con.rhs,
                    "<=": total <= con.rhs, ">=": total >= con.rhs}[con.op])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    return cp, xs, solver


def cpsat_solutions(model: Model, limit: int = 10 ** 9) -> list[tuple[int, ...]]:
    from ortools.sat.python import cp_model

    cp, xs, solver = _cpsat(model)

    class Collect(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.found = []

        def on_solution_callback(self):
            self.found.append(tuple(self.Value(x) for x in xs))
            if len(self.found) >= limit:
                self.StopSearch()

    solver.parameters.enumerate_all_solutions = True
    collect = Collect()
    solver.Solve(cp, collect)
    return collect.found


def cpsat_lexfirst(model: Model) -> tuple[int, ...] | None:
    """The lexicographically smallest solution: minimise each variable in turn, then fix it.

    A variable the latest solution already holds at its domain's least value
    is fixed without a solve (that solution agrees with every fixed one), so
    one-hot models take a few solves, not one per Boolean.
    """
    from ortools.sat.python import cp_model

    cp, xs, solver = _cpsat(model)
    if any(not d for d in model.domains()):
        return None
    current: list[int] | None = None
    for i, (x, dom) in enumerate(zip(xs, model.domains())):
        if current is None or current[i] != min(dom):
            cp.Minimize(x)
            if solver.Solve(cp) != cp_model.OPTIMAL:
                return None
            current = [int(solver.Value(v)) for v in xs]
        cp.Add(x == current[i])
    return tuple(current or ())


# ----- bad input ------------------------------------------------------------------------
def assert_located_error(read, text: str, source: str, line: int | None, message: str):
    """``read(text, source)`` fails with one line naming ``source``, ``line`` and ``message``."""
    from puzzles.errors import PuzzleInputError
    with pytest.raises(PuzzleInputError) as caught:
        read(text, source)
    err = caught.value
    assert (err.source, err.line) == (source, line)
    assert message in err.message and "\n" not in str(err)
    return err


# ----- engines, as far as they support a model ------------------------------------------
def engine_or_skip(name: str, model: Model, mode: str):
    """The registered engine ``name`` when it can answer ``model`` in ``mode``; else skip."""
    import engines
    try:
        engine = engines.get_engine(name)
    except ImportError as exc:
        pytest.skip(f"engine {name} is not importable here: {exc}")
    if not engine.available():
        pytest.skip(f"engine {name} is not installed")
    reason = engine.unsupported_reason(model, mode)
    if reason:
        pytest.skip(reason)
    return engine


# The project's own engines, listed, so that test-only plugins registered by other
# test files (tests/fake_engines.py) never join in, whatever the test order.
OWN_ENGINES = ("backtracking:variant=seed", "backtracking", "python-constraint", "cpsat")
SMALL_ONLY = frozenset({"backtracking:variant=seed", "python-constraint"})


def engine_names(big: bool = False) -> list[str]:
    """The engines to cross-check; with ``big``, only those that take big instances
    in test time (python-constraint needs ~15 s to count 8 queens as ``alldiff``)."""
    return [name for name in OWN_ENGINES if not (big and name in SMALL_ONLY)]


def assert_engine_solves(name, puzzle, formulation, mode="first", limit=2,
                         timeout=60.0):
    """Solve with an engine (or skip) and verify every solution; the result."""
    from compare.judge.checker import verify
    model = puzzle.to_model(formulation)
    engine = engine_or_skip(name, model, mode)
    result = engine.solve(model, mode, limit, timeout)
    assert str(result.status) in ("solved", "unsatisfiable"), (result.status, result.message)
    ok, reason = verify(puzzle, model, result, formulation)
    assert ok, reason
    return result


# ----- the helpers themselves ---------------------------------------------------------
def test_both_references_count_the_empty_4x4_sudoku():
    from puzzles.kinds.sudoku import Sudoku
    model = Sudoku(4, (0,) * 16).to_model("alldiff")
    assert len(brute_solutions(model)) == 288
    assert len(cpsat_solutions(model)) == 288
    assert cpsat_lexfirst(model) == brute_solutions(model, limit=1)[0]


def test_brute_linear_bounds_prune_only_what_is_broken():
    from puzzles.model import Structure
    s = Structure("t", ("a", "b"), ((0, 1, 2), (0, 1, 2)),
                  (Linear((1, 1), (0, 1), ">=", 3), Table((0, 1), ((1, 2), (2, 2), (0, 0)))))
    assert brute_solutions(Model(s)) == [(1, 2), (2, 2)]
    assert sorted(cpsat_solutions(Model(s))) == [(1, 2), (2, 2)]


def test_own_engines_are_registered_and_big_ones_a_subset():
    import engines
    registered = {engines.EngineSpec.parse(name).name for name in engine_names()}
    assert registered == {"backtracking", "python-constraint", "cpsat"} <= set(engines.names())
    assert "cpsat" in engine_names(big=True) and set(engine_names(big=True)) < set(engine_names())
