"""CPMpy behind the engine template: one modelling layer, several solvers.

``cpmpy:solver=NAME`` hands the model to one of CPMpy's backends:

* ``ortools`` (default): OR-Tools CP-SAT, lazy clause generation (CP + SAT);
* ``choco``: Choco, a classic propagate-and-branch CP solver (pychoco);
* ``exact``: Exact, a pseudo-Boolean solver with cutting planes;
* ``pysat``: a CDCL SAT solver from PySAT (Glucose 4 by default) on CPMpy's
  own Boolean encoding of the integer model;
* ``z3``: the Z3 SMT solver;
* ``pindakaas``: Pindakaas, pseudo-Boolean encodings into CaDiCaL.

A backend whose package is missing (or broken) is not an error: the engine
answers ``unsupported`` with the reason and the package to install, so the
harness shows n/a. ``CpmpyEngine.backends()`` tells which ones work here.

Options, passed through only where the backend has them (others refuse a
value other than the default, so a spec never silently means nothing):

* ``workers`` (default 1): CP-SAT search workers, ``ortools`` only; in
  ``first`` mode only, ``count`` and ``lexfirst`` run one (stats
  ``workers_used``);
* ``seed`` (default 0): random seed for ``ortools`` (``random_seed``),
  ``exact`` (``seed``; 0 keeps Exact's own default, as Exact refuses 0) and
  ``z3`` (``random_seed``).

Modes, all exact on every backend: ``first`` is one solve; ``count`` is
CPMpy's ``solveAll`` with ``solution_limit``; ``lexfirst`` checks a first
solution with "is there a lexicographically smaller one?" and only if so
turns to ``lexprobe.lexfirst_by_probes``. Extra constraints for those checks
go in as assumptions (one solver, reused) where the backend takes
assumptions, else into a fresh solver per check (``choco``).

Effort figures are each backend's own, summed over its solve calls (stats
``effort`` names them): CP-SAT branches and conflicts; Choco nodes and
backtracks; Exact, PySAT and Z3 decisions and conflicts; Pindakaas reports
none (0).

What each backend needs and whether it works here is in ``cpmpy_backends``;
the model's translation into CPMpy expressions in ``cpmpy_translate``.
"""
from __future__ import annotations

import hashlib
import time
import warnings
from array import array
from typing import Any, Callable

from engines.base import Engine, EngineOptionError
from engines.contract import KEEP_SOLUTIONS, Outcome, Status
from engines.cpmpy.backends import (
    BACKENDS,
    SAT_LINEAR_SPAN,
    SPANS,
    Backend,
    ExitStatus,
    SolverLookup,
    cp,
    linear_span,
    probe_backend,
)
from engines.cpmpy.kinds import KIND_EXPRESSIONS
from engines.cpmpy.translate import SHAPES, CpmTask, Shape
from engines.spec import EngineSpec
from engines.support.lexprobe import SearchTimeout, lexfirst_by_probes
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Table

__all__ = ["BACKENDS", "MAX_LIMIT_S", "MIN_LIMIT_S", "OPTION_RANGES", "SAT_LINEAR_SPAN",
           "Backend", "Checks", "CpmTask", "CpmpyEngine", "Runner", "Shape", "cp",
           "linear_span", "probe_backend", "values"]

# CPMpy turns a time limit into a string for Choco ("<float>s"), and Choco reads
# "1e-05s" as five seconds: limits are kept where str() writes plain decimals.
MIN_LIMIT_S, MAX_LIMIT_S = 0.001, 1e6


class _OutOfTime(Exception):
    """Raised from a ``solveAll`` callback that runs in CPMpy's Python loop."""


class Runner:
    """Solve calls of one search against one deadline, adding up the backend's effort."""

    def __init__(self, engine: "CpmpyEngine", deadline: float | None, workers: int = 1):
        self.engine, self.backend, self.deadline = engine, engine.backend, deadline
        self.workers = workers
        self.calls = 0
        self.effort: dict[str, float] = {}
        self._seen: dict[int, dict[str, float]] = {}

    def left(self) -> float | None:
        """Seconds left for the next call, in the range every backend reads right."""
        if self.deadline is None:
            return None
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise SearchTimeout
        return min(max(round(left, 3), MIN_LIMIT_S), MAX_LIMIT_S)

    def measure(self, solver) -> None:
        self.calls += 1
        now = self.backend.effort(solver)
        before = self._seen.get(id(solver), {}) if self.backend.cumulative else {}
        if self.backend.cumulative:
            self._seen[id(solver)] = now
        for key, value in now.items():
            self.effort[key] = self.effort.get(key, 0) + value - before.get(key, 0)

    def solve(self, solver, assumptions=None) -> bool:
        """One solve: True with a solution, False when proven infeasible."""
        kwargs = self.engine.solve_kwargs(self.workers)
        if assumptions:
            kwargs["assumptions"] = assumptions
        found = solver.solve(time_limit=self.left(), **kwargs)
        self.measure(solver)
        if found:
            return True
        if self.backend.name == "choco":   # CPMpy guesses from the clock; Choco knows
            if solver.chc_solver.get_search_state() != "TERMINATED":
                raise SearchTimeout
        elif solver.status().exitstatus != ExitStatus.UNSATISFIABLE:
            raise SearchTimeout
        return False

    def outcome(self, status: Status, **kw) -> Outcome:
        stats = {"backend": self.backend.name, "solve_calls": self.calls,
                 "effort": self.backend.effort_note, **self.effort}
        if self.backend.name == "ortools":
            stats["workers_used"] = self.workers
        stats.update(kw.pop("stats", {}))
        return Outcome(status, nodes=int(self.effort.get(self.backend.nodes_key, 0)),
                       backtracks=int(self.effort.get(self.backend.backtracks_key, 0)),
                       stats=stats, **kw)


def values(xs) -> tuple[int, ...]:
    return tuple(int(x.value()) for x in xs)


class Checks:
    """Solves of one model under extra constraints that come and go.

    With assumptions, each extra constraint is posted once behind its own
    literal (``lit -> expr``, kept by key) and a check assumes the literals it
    needs, so one solver keeps what it learnt. Without (Choco), each check is
    a fresh solver with the extra constraints posted for good.
    """

    def __init__(self, engine: "CpmpyEngine", task: CpmTask, runner: Runner):
        self.engine, self.task, self.runner = engine, task, runner
        self.literals: dict[Any, Any] = {}
        self.unused = task.solver     # the translated solver, until its one solve

    def solve(self, extra: list[tuple[Any, Callable[[], Any]]] | None = None
              ) -> tuple[int, ...] | None:
        """A solution under ``extra`` (``(key, make_expr)`` pairs), or None if there is none."""
        extra = extra or []
        if self.engine.backend.assumptions:
            solver, assumed = self.task.solver, []
            for key, make in extra:
                if key not in self.literals:
                    lit = cp.boolvar()
                    solver += lit.implies(make())
                    self.literals[key] = lit
                assumed.append(self.literals[key])
        elif not extra and self.unused is not None:
            solver, assumed, self.unused = self.unused, None, None
        else:
            solver, assumed = self.engine.new_solver(
                self.task.constraints + [make() for _, make in extra], self.task.xs), None
        if not self.runner.solve(solver, assumed):
            return None
        return values(self.task.xs)


def _in_domain(x, allowed: tuple[int, ...], base: tuple[int, ...]):
    """``x`` restricted to ``allowed`` (a subset of ``base``), as simply as it goes."""
    if len(allowed) == 1:
        return x == allowed[0]
    if set(allowed) == {v for v in base if v <= max(allowed)}:
        return x <= max(allowed)
    return cp.InDomain(x, list(allowed))


# What every backend that takes the option accepts (OR-Tools' seed is an int32).
OPTION_RANGES = {"workers": (1, 256), "seed": (0, 2 ** 31 - 1)}


class CpmpyEngine(Engine):
    """A CPMpy backend chosen by ``solver``; one worker and a fixed seed unless told otherwise."""

    name = "cpmpy"
    library = "cpmpy"
    in_default_set = False
    constraint_kinds = frozenset({AllDifferent, Linear, NotEqualOffset, Table}) | frozenset(
        KIND_EXPRESSIONS)
    option_defaults = {"solver": "ortools", "workers": 1, "seed": 0}
    option_choices = {"solver": tuple(BACKENDS)}

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.backend = BACKENDS[self.options["solver"]]
        # Reports keep one version per engine label, and a result depends on the
        # backend's release as much as on CPMpy's: the instance names both.
        self.version = self._version_with_backend

    @property
    def spec(self) -> EngineSpec:
        """Always names the backend: ``cpmpy`` alone would hide which solver ran."""
        return EngineSpec(self.name, [(k, v) for k, v in self.options.items()
                                      if k == "solver" or v != self.option_defaults.get(k)])

    # ----- identity -------------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        return cp is not None

    @classmethod
    def backends(cls) -> list[dict[str, Any]]:
        """Every known backend: installed and working here, its version, and what
        to install when it is missing."""
        table = []
        for name, backend in BACKENDS.items():
            works, version, reason = probe_backend(name)
            table.append({"name": name, "what": backend.what, "package": backend.package,
                          "working": works, "version": version, "reason": reason,
                          "effort": backend.effort_note})
        return table

    @classmethod
    def details(cls) -> dict[str, Any]:
        return {"backends": cls.backends()} if cls.available() else {}

    def _version_with_backend(self) -> str:
        backend = probe_backend(self.backend.name)[1] or "missing"
        return f"{type(self).version()} ({self.backend.name} {backend})"

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        cls.require_ranges(options, OPTION_RANGES)
        backend = BACKENDS[options["solver"]]
        if options["workers"] != 1 and backend.name != "ortools":
            raise EngineOptionError(
                f"engine 'cpmpy': workers is an ortools option; {backend.name} runs one thread")
        if options["seed"] != 0 and not backend.seed:
            raise EngineOptionError(
                f"engine 'cpmpy': {backend.name} takes no seed (ortools, exact and z3 do)")

    def unsupported_reason(self, model: Model, mode: str) -> str | None:
        reason = super().unsupported_reason(model, mode)
        if reason:
            return reason
        works, _, why = probe_backend(self.backend.name)
        if not works:
            return f"{self.label}: CPMpy backend {self.backend.name!r} is {why}"
        cap = self.backend.max_linear_span
        if cap is not None and Linear in model.kinds():
            span = SPANS.get(model.structure)
            if span > cap:
                return (f"{self.label}: a linear constraint spans {span} values; CPMpy's SAT "
                        f"encoding of sums wider than {cap} exhausts memory")
        return None

    # ----- translate ------------------------------------------------------
    def new_solver(self, constraints: list, xs: list):
        init = {}
        if self.backend.seed_at_init and self.options["seed"]:   # Exact refuses seed 0
            init[self.backend.seed] = self.options["seed"]
        solver = SolverLookup.get(self.backend.name, **init)
        native = self.backend.post_natively
        solver += [c for c in constraints if not (native and native(solver, c))]
        solver.user_vars.update(xs)   # a variable in no constraint still gets a value
        return solver

    def solve_kwargs(self, workers: int) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if self.backend.name == "ortools":
            kwargs["num_workers"] = workers
        if self.backend.seed and not self.backend.seed_at_init:
            kwargs[self.backend.seed] = self.options["seed"]
        return kwargs

    def translate(self, model: Model) -> CpmTask:
        shape = SHAPES[self.backend.neq_as_alldiff].get(model.structure)
        task = CpmTask(shape.xs, model.domains(), [])
        if any(not d for d in task.domains):
            return task
        task.constraints = shape.constraints + [shape.xs[v] == g for v, g in model.givens]
        task.solver = self.new_solver(task.constraints, task.xs)
        return task

    # ----- search ---------------------------------------------------------
    def search(self, task: CpmTask, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        runner = Runner(self, deadline, self.options["workers"] if mode == "first" else 1)
        if task.empty:
            return runner.outcome(Status.UNSAT, count=0 if mode == "count" else None)
        if not task.xs:   # constants only; some backends enumerate nothing here
            holds = all(bool(con.value()) for con in task.constraints)
            return runner.outcome(Status.SOLVED if holds else Status.UNSAT,
                                  solutions=[()] if holds else [],
                                  count=int(holds) if mode == "count" else None)
        try:
            if mode == "count":
                return self._count(task, limit, runner)
            if mode == "lexfirst":
                return self._lexfirst(task, runner)
            if not runner.solve(task.solver):
                return runner.outcome(Status.UNSAT)
            return runner.outcome(Status.SOLVED, solutions=[values(task.xs)])
        except SearchTimeout:
            return runner.outcome(Status.TIMEOUT,
                                  message=f"{self.backend.name}: time limit reached")

    def _count(self, task: CpmTask, limit: int, runner: Runner) -> Outcome:
        """``solveAll`` up to ``limit``, distinct solutions checked by digest.

        Where CPMpy enumerates in its own Python loop (a nogood per solution,
        posted through its transformations), that loop only counts solve time
        against the limit: PySAT given 1 s spent 23 s posting nogoods. The
        callback stops it at the deadline instead.
        """
        kept, seen = [], set()
        duplicates = 0
        stop_in_callback = not self.backend.native_enumeration

        def record():
            nonlocal duplicates
            found = values(task.xs)
            digest = hashlib.blake2b(array("q", found).tobytes(), digest_size=16).digest()
            if digest in seen:
                duplicates += 1
            else:
                seen.add(digest)
                if len(kept) < KEEP_SOLUTIONS:
                    kept.append(found)
            if stop_in_callback and runner.deadline is not None \
                    and time.perf_counter() >= runner.deadline and len(seen) < limit:
                raise _OutOfTime

        solver = task.solver
        stats: dict[str, Any] = {}
        reported, exhausted = None, False
        try:
            with warnings.catch_warnings():
                # CPMpy warns that enumerating leaves the solver unusable; each
                # count builds its own solver, so the warning is only noise here.
                warnings.simplefilter("ignore", UserWarning)
                reported = solver.solveAll(display=record, time_limit=runner.left(),
                                           solution_limit=limit, **self.solve_kwargs(1))
            exhausted = self._exhausted(solver)
        except _OutOfTime:
            pass
        runner.measure(solver)
        count = len(seen)
        if duplicates:
            stats["duplicates_dropped"] = duplicates
            if reported is not None and reported >= limit > count:
                return runner.outcome(Status.ERROR, solutions=kept, count=count, stats=stats,
                                      message=f"{self.backend.name} repeated solutions; "
                                              "the count up to the limit is not known")
        if count >= limit or exhausted:
            return runner.outcome(Status.SOLVED if count else Status.UNSAT, solutions=kept,
                                  count=count, stats=stats)
        return runner.outcome(Status.TIMEOUT, solutions=kept, count=count, stats=stats,
                              message=f"{self.backend.name}: time limit reached (partial count)")

    def _exhausted(self, solver) -> bool:
        """Whether the enumeration ran to its end (not stopped by a limit)."""
        if self.backend.name == "choco":
            return solver.chc_solver.get_search_state() == "TERMINATED"
        return solver.status().exitstatus in (ExitStatus.OPTIMAL, ExitStatus.UNSATISFIABLE)

    def _lexfirst(self, task: CpmTask, runner: Runner) -> Outcome:
        """A first solution, checked; probes only when a smaller one exists.

        The check asks for a solution ``<lex`` the first one over the variables
        that could be smaller: none proves it smallest (the usual case: one
        solution). Otherwise the smaller one found starts
        ``lexfirst_by_probes``, whose docstring proves the loop exact whatever
        order the backend searches in; each probe narrows domains through
        ``Checks``.
        """
        checks = Checks(self, task, runner)
        best = checks.solve()
        if best is None:
            return runner.outcome(Status.UNSAT)
        stats: dict[str, Any] = {"lexfirst_by": "check", "probes": 0}
        smaller = self._smaller(task, checks, best)
        if smaller is not None:
            def probe(doms):
                extra = [(("in", i, dom), lambda i=i, dom=dom: _in_domain(
                    task.xs[i], dom, task.domains[i]))
                    for i, dom in enumerate(doms) if dom != task.domains[i]]
                return checks.solve(extra)
            best, stats["probes"] = lexfirst_by_probes(smaller, task.domains, probe,
                                                       runner.deadline)
            stats["lexfirst_by"] = "probes"
        return runner.outcome(Status.SOLVED, solutions=[best], stats=stats)

    @staticmethod
    def _smaller(task: CpmTask, checks: Checks, best: tuple[int, ...]):
        """A solution lexicographically below ``best``, or None.

        Variables with one value cannot differ and are left out; when every
        other one already holds its least value, nothing is smaller.
        """
        free = [i for i, dom in enumerate(task.domains) if len(dom) > 1]
        if all(best[i] == min(task.domains[i]) for i in free):
            return None
        xs, bound = [task.xs[i] for i in free], [best[i] for i in free]
        return checks.solve([(("below", tuple(bound)), lambda: cp.LexLess(xs, bound))])
