"""OR-Tools CP-SAT behind the engine template.

Options (``cpsat:workers=8:seed=3``):

* ``workers`` (default 1): CP-SAT search workers. One by default so the
  comparison with the single-threaded Python engines is fair. ``count`` always
  runs one worker, whatever is asked (stats record ``workers_used``), because
  solution enumeration is only exact with one.
* ``seed`` (default 0): CP-SAT's ``random_seed``, fixed so runs repeat.

The time limit of ``solve`` becomes ``max_time_in_seconds`` (what remains of
it, for every solve call); a solve that stops there with status UNKNOWN is a
``timeout``. Ctrl-C: where this process handles SIGINT itself (the main
thread, not ignoring it) CP-SAT is let catch it and stop at once; a search
that stops before its time limit and not by our own hand was interrupted, so
``KeyboardInterrupt`` is raised, never a timeout. CP-SAT leaves SIGINT at its
default action afterwards, so Python's handler is put back. Elsewhere (harness
workers ignore SIGINT) CP-SAT is told not to catch it. ``nodes`` and ``backtracks`` are CP-SAT's own branches and
conflicts, summed over solve calls; ``stats`` adds its wall time and the
number of solve calls.
"""
from __future__ import annotations

import hashlib
import signal
import threading
import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from engines.base import Engine
from engines.contract import KEEP_SOLUTIONS, Outcome, Status
from engines.cpsat_kinds import ADD_KINDS
from engines.support.lexprobe import SearchTimeout, lexfirst_by_probes
from puzzles.model import OPERATORS, AllDifferent, Linear, Model, NotEqualOffset, Table

try:
    from ortools.sat.python import cp_model
except ImportError:  # the registry still lists the engine, as unavailable
    cp_model = None


# CP-SAT takes a 32-bit seed; more search workers than this is no comparison.
OPTION_RANGES = {"workers": (1, 256), "seed": (0, 2 ** 31 - 1)}


class InvalidModel(Exception):
    """CP-SAT refused the model (status MODEL_INVALID)."""


def _add_all_different(cp, xs, con: AllDifferent) -> None:
    cp.add_all_different([xs[v] for v in con.vars])




def _add_linear(cp, xs, con: Linear) -> None:
    total = cp_model.LinearExpr.weighted_sum([xs[v] for v in con.vars], list(con.coeffs))
    cp.add(OPERATORS[con.op](total, con.rhs))


def _add_not_equal_offset(cp, xs, con: NotEqualOffset) -> None:
    """An AllDifferent of two affine terms: the same constraint as the linear
    ``x != y + c``, and CP-SAT counts the 724 solutions of 10 queens as
    ``pairwise`` about five times faster this way (1.3 s against 6.5 s)."""
    cp.add_all_different([xs[con.x], xs[con.y] + con.c])


def _add_table(cp, xs, con: Table) -> None:
    if not con.vars:    # CP-SAT refuses a table over nothing; it holds iff () is allowed
        if () not in con.tuples:
            cp.add_bool_or([])
        return
    cp.add_allowed_assignments([xs[v] for v in con.vars], [list(t) for t in con.tuples])


# One entry per constraint kind (the others are ``cpsat_kinds.ADD_KINDS``). Variables
# a translation adds come after the model's, which stay the first ones in the proto
# (``CpTask.restrict`` relies on it).
_ADD = {AllDifferent: _add_all_different, Linear: _add_linear,
        NotEqualOffset: _add_not_equal_offset, Table: _add_table}


def _sigint_handler():
    """Python's SIGINT handler when this thread may let CP-SAT catch SIGINT, else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGINT)
    if handler in (None, signal.SIG_IGN):
        return None
    return handler


def intervals(values) -> list[int]:
    """A sorted value set as CP-SAT's flat ``[lo, hi, lo, hi, ...]`` list."""
    flat: list[int] = []
    for v in sorted(set(values)):
        if flat and v == flat[-1] + 1:
            flat[-1] = v
        else:
            flat += [v, v]
    return flat


@dataclass
class CpTask:
    """A translated model: the CP-SAT model, its variables, the narrowed domains."""
    domains: list[tuple[int, ...]]
    cp: Any = None
    xs: list = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """A given outside its domain: unsatisfiable before any search."""
        return any(not d for d in self.domains)

    def restrict(self, domains) -> None:
        """Narrow the variables' domains in place (each probe resets them all)."""
        for var, dom in zip(self.cp.proto.variables, domains):
            var.domain.clear()
            var.domain.extend(intervals(dom))


class Runner:
    """Solve calls against one deadline, adding up CP-SAT's own statistics."""

    def __init__(self, options: dict, deadline: float | None):
        self.options, self.deadline = options, deadline
        self.calls = self.branches = self.conflicts = 0
        self.wall = 0.0
        self.last = None    # the solver of the latest call, to read values from

    def solver(self, workers: int, enumerate_all: bool = False, guided: bool = False):
        solver = cp_model.CpSolver()
        params = solver.parameters
        if guided:   # the model's decision strategy, as a plain depth-first search
            params.search_branching = cp_model.FIXED_SEARCH
            params.cp_model_presolve = False
        params.num_workers = workers
        params.random_seed = self.options["seed"]
        params.enumerate_all_solutions = enumerate_all
        params.catch_sigint_signal = _sigint_handler() is not None
        if self.deadline is not None:
            left = self.deadline - time.perf_counter()
            if left <= 0:
                raise SearchTimeout
            params.max_time_in_seconds = left
        return solver

    def run(self, cp, workers: int, callback=None, enumerate_all: bool = False,
            guided: bool = False):
        """One solve; the status, after MODEL_INVALID and UNKNOWN are raised."""
        solver = self.solver(workers, enumerate_all, guided)
        handler = _sigint_handler()
        try:
            status = solver.solve(cp, callback)
        finally:
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
        if handler is not None and self._interrupted(status, callback, solver):
            raise KeyboardInterrupt
        self.calls += 1
        self.branches += solver.num_branches
        self.conflicts += solver.num_conflicts
        self.wall += solver.wall_time
        if status == cp_model.MODEL_INVALID:
            raise InvalidModel(cp.validate() or "CP-SAT: MODEL_INVALID")
        if status == cp_model.UNKNOWN:
            raise SearchTimeout
        self.last = solver
        return status

    def _interrupted(self, status, callback, solver) -> bool:
        """Stopped short of its time limit, and not by our callback: CP-SAT caught SIGINT.

        Judged by CP-SAT's own clock against the limit it was given, not by ours: on a
        loaded machine its clock starts late, and a search that used its whole limit
        would otherwise end before our deadline and read as an interruption."""
        if status not in (cp_model.UNKNOWN, cp_model.FEASIBLE):
            return False
        if callback is not None and getattr(callback, "stopped", False):
            return False
        if self.deadline is None:
            return True
        limit = solver.parameters.max_time_in_seconds
        return solver.wall_time < limit - max(0.01, 0.02 * limit)

    def values(self, task: CpTask, cp=None, guided: bool = False
               ) -> tuple[int, ...] | None:
        """One solution of ``cp`` (default: the task's model), or None if infeasible."""
        status = self.run(cp or task.cp, self.options["workers"], guided=guided)
        if status == cp_model.INFEASIBLE:
            return None
        return tuple(self.last.value(x) for x in task.xs)

    def outcome(self, status: Status, **kw) -> Outcome:
        stats = {"solve_calls": self.calls, "cpsat_wall_s": self.wall,
                 "branches": self.branches, "conflicts": self.conflicts}
        stats.update(kw.pop("stats", {}))
        return Outcome(status, nodes=self.branches, backtracks=self.conflicts,
                       failures=self.conflicts, stats=stats, **kw)


if cp_model is not None:
    class Counter(cp_model.CpSolverSolutionCallback):
        """Counts distinct solutions and stops the search at ``limit``.

        Distinctness is checked (by a 128-bit digest per solution) because
        enumeration with presolve has returned duplicates in some CP-SAT
        releases; any duplicate is dropped and reported in stats.
        """

        def __init__(self, xs, limit: int):
            super().__init__()
            self.xs, self.limit = xs, limit
            self.kept: list[tuple[int, ...]] = []
            self.seen: set[bytes] = set()
            self.duplicates = 0
            self.stopped = False

        def on_solution_callback(self) -> None:
            values = tuple(self.value(x) for x in self.xs)
            digest = hashlib.blake2b(array("q", values).tobytes(), digest_size=16).digest()
            if digest in self.seen:
                self.duplicates += 1
                return
            self.seen.add(digest)
            if len(self.kept) < KEEP_SOLUTIONS:
                self.kept.append(values)
            if len(self.seen) >= self.limit:
                self.stopped = True
                self.stop_search()

        @property
        def count(self) -> int:
            return len(self.seen)


class CpSatEngine(Engine):
    """Google OR-Tools CP-SAT, one worker and a fixed seed unless told otherwise."""

    name = "cpsat"
    library = "ortools"
    constraint_kinds = frozenset(_ADD) | frozenset(ADD_KINDS)
    option_defaults = {"workers": 1, "seed": 0}
    # CP-SAT refuses a domain outside [-kint64max / 2, kint64max / 2] as an invalid model.
    value_range = (62, "CP-SAT's range, ±(2^63 - 1) / 2")

    @classmethod
    def available(cls) -> bool:
        return cp_model is not None

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        cls.require_ranges(options, OPTION_RANGES)

    # ----- translate ------------------------------------------------------
    def translate(self, model: Model) -> CpTask:
        task = CpTask(model.domains())
        if task.empty:
            return task
        cp = cp_model.CpModel()
        names = model.structure.variables
        for name, dom in zip(names, task.domains):
            lo, hi = min(dom), max(dom)
            if hi - lo + 1 == len(dom):
                task.xs.append(cp.new_int_var(lo, hi, name))
            else:
                task.xs.append(cp.new_int_var_from_domain(
                    cp_model.Domain.from_flat_intervals(intervals(dom)), name))
        for con in model.structure.constraints:
            if type(con) in ADD_KINDS:
                ADD_KINDS[type(con)](cp, task.xs, con, task.domains)
            else:
                _ADD[type(con)](cp, task.xs, con)
        task.cp = cp
        return task

    # ----- search ---------------------------------------------------------
    def search(self, task: CpTask, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        runner = Runner(self.options, deadline)
        if task.empty:
            return runner.outcome(Status.UNSAT, count=0 if mode == "count" else None)
        try:
            if mode == "count":
                return self._count(task, limit, runner)
            if mode == "lexfirst":
                return self._lexfirst(task, runner)
            found = runner.values(task)
        except SearchTimeout:
            return runner.outcome(Status.TIMEOUT, message="CP-SAT time limit reached")
        except InvalidModel as exc:
            return runner.outcome(Status.ERROR, message=f"CP-SAT MODEL_INVALID: {exc}")
        if found is None:
            return runner.outcome(Status.UNSAT)
        return runner.outcome(Status.SOLVED, solutions=[found])

    def _count(self, task: CpTask, limit: int, runner: Runner) -> Outcome:
        """Enumerate with one worker, stopping at ``limit`` distinct solutions."""
        counter = Counter(task.xs, limit)
        stats = {"workers_used": 1}
        try:
            status = runner.run(task.cp, 1, counter, enumerate_all=True)
        except SearchTimeout:
            status = None
        stats["duplicates_dropped"] = counter.duplicates
        done = counter.count >= limit or status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        if not done:
            return runner.outcome(Status.TIMEOUT, solutions=counter.kept,
                                  count=counter.count, stats=stats,
                                  message="CP-SAT time limit reached (partial count)")
        verdict = Status.SOLVED if counter.count else Status.UNSAT
        return runner.outcome(verdict, solutions=counter.kept, count=counter.count,
                              stats=stats)

    def _lexfirst(self, task: CpTask, runner: Runner) -> Outcome:
        """The only solution if there is one; else a candidate, checked, then probes.

        Most puzzles have one solution, and enumerating up to two proves that
        in a single solve. Otherwise the candidate comes from a depth-first
        search in variable order, least value first, without presolve
        (``guided``); that is usually the smallest solution already, and one
        "is there a lex-smaller solution?" solve proves it. Only when that
        finds a smaller one does ``lexfirst_by_probes`` fix variables one by
        one (one solve per probe; its docstring says why that is exact).
        Correctness rests on the enumeration, the check and the probes alone;
        the search order only decides how few solves it takes. (FIXED_SEARCH
        with presolve on does not even make the candidate smallest.)
        """
        counter = Counter(task.xs, 2)
        status = runner.run(task.cp, 1, counter, enumerate_all=True)
        if counter.count < 2:
            if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
                raise SearchTimeout   # stopped by the time limit, not by us
            if not counter.count:
                return runner.outcome(Status.UNSAT)
            return runner.outcome(Status.SOLVED, solutions=counter.kept,
                                  stats={"lexfirst_by": "only solution"})
        task.cp.add_decision_strategy(task.xs, cp_model.CHOOSE_FIRST,
                                      cp_model.SELECT_MIN_VALUE)
        best = runner.values(task, guided=True)
        stats = {"lexfirst_by": "ordered search", "probes": 0}
        if self._has_smaller(task, runner, best):
            def probe(doms):
                task.restrict(doms)
                return runner.values(task, guided=True)
            best, stats["probes"] = lexfirst_by_probes(
                best, task.domains, probe, runner.deadline)
            stats["lexfirst_by"] = "probes"
        return runner.outcome(Status.SOLVED, solutions=[best], stats=stats)

    @staticmethod
    def _has_smaller(task: CpTask, runner: Runner, best) -> bool:
        check = lex_smaller_model(task, best)
        return check is not None and runner.values(task, check) is not None


def lex_smaller_model(task: CpTask, best: tuple[int, ...]):
    """A copy of the model that also demands ``x <lex best``.

    ``b_i`` means "the first difference from ``best`` is at ``x_i``, and there
    ``x_i < best_i``"; ``e_i`` means "``x_j = best_j`` for every ``j <= i``"
    (a chain, so the encoding stays linear in size). One ``b_i`` must hold.
    Variables whose ``best`` value is their least value cannot be the first
    difference and get no ``b``; one-value domains equal ``best`` already and
    are left out of the chain. None when no variable can be the first
    difference: then ``best`` is least in every variable, hence smallest.
    """
    cp = task.cp.clone()
    xs = [cp.get_int_var_from_proto_index(x.index) for x in task.xs]
    firsts, prefix = [], None   # prefix: e_j of the last free variable so far
    for i, dom in enumerate(task.domains):
        if len(dom) == 1:
            continue
        if best[i] > min(dom):
            b = cp.new_bool_var("")
            cp.add_linear_constraint(xs[i], min(dom), best[i] - 1).only_enforce_if(b)
            if prefix is not None:
                cp.add_implication(b, prefix)
            firsts.append(b)
        same = cp.new_bool_var("")
        cp.add_linear_constraint(xs[i], best[i], best[i]).only_enforce_if(same)
        if prefix is not None:
            cp.add_implication(same, prefix)
        prefix = same
    if not firsts:
        return None
    cp.add_bool_or(firsts)
    return cp
