"""python-constraint (the maintained ``python-constraint2`` package) behind the template.

Option ``solver`` picks the library's search:

* ``backtracking`` (default): ``BacktrackingSolver``, forward checking with a
  dynamic minimum-remaining-values / degree variable choice;
* ``optimized``: ``OptimizedBacktrackingSolver``, the library's own default,
  which orders variables once, before search. On Sudoku that static order is
  far slower (norvig_easy50: ~60 ms against ~10 ms a puzzle; most top95
  puzzles past 10 s against a few seconds), so it is not our default;
* ``recursive``: ``RecursiveBacktrackingSolver``.

All three enumerate lazily with ``getSolutionIter``, which every mode uses.

Effort and time limits: the library reports no statistics and has no time
limit, but it calls every constraint on a variable each time it tries a value
for it. A pass-through constraint over all variables, added first, is called
once per value tried: it counts those (``nodes``) and raises at the deadline,
so even a single long search stops on time. ``backtracks`` stays 0.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import islice
from typing import Any

from puzzles.model import AllDifferent, Model

from .base import (KEEP_SOLUTIONS, Engine, EngineOptionError, Outcome, Status,
                   timed_out)
from .lexprobe import SearchTimeout, lexfirst_by_probes

try:
    import constraint
except ImportError:  # the registry still lists the engine, as unavailable
    constraint = None

SOLVERS = {"backtracking": "BacktrackingSolver",
           "optimized": "OptimizedBacktrackingSolver",
           "recursive": "RecursiveBacktrackingSolver"}
# The iterative solvers try values from the end of a domain list (list.pop), the
# recursive one from the front. Domains go in so that small values come first,
# which makes the first solution nearer the smallest (fewer lexfirst probes).
TAKES_FROM_END = {"backtracking", "optimized"}
CHECK_EVERY = 256      # values tried between two clock reads
LEX_ENUMERATE = 8      # further solutions scanned before lexfirst turns to probes
EFFORT_NOTE = ("nodes = values tried (counted by a pass-through constraint); "
               "backtracks not reported by the library")


def _all_different(con: AllDifferent):
    return constraint.AllDifferentConstraint(), list(con.vars)


# One entry per constraint kind; issue 6's kinds plug in here.
_TRANSLATE = {AllDifferent: _all_different}


@dataclass
class PcTask:
    """The translated model: narrowed domains and (library constraint, variables) pairs.

    Kept as a recipe, not a ``Problem``, because a search leaves its
    ``Problem``'s domains in a state of its own and ``lexfirst`` needs fresh
    problems with other domains. Library constraints are stateless, so
    problems share them.
    """
    domains: list[tuple[int, ...]]
    constraints: list[tuple[Any, list[int]]]


class Watch:
    """Values tried across a search's problems, and its deadline."""

    def __init__(self, deadline: float | None):
        self.deadline, self.tried = deadline, 0


if constraint is not None:
    class PassThrough(constraint.Constraint):
        """Never false; called once per value tried, so it counts and keeps time."""

        def __init__(self, watch: Watch):
            self.watch = watch

        def __call__(self, variables, domains, assignments, forwardcheck=False):
            watch = self.watch
            watch.tried += 1
            if (watch.deadline is not None and not watch.tried % CHECK_EVERY
                    and time.perf_counter() >= watch.deadline):
                raise SearchTimeout
            return True

        def preProcess(self, variables, domains, constraints, vconstraints):
            """Kept as it is, even over a single variable (the base class drops those)."""


class PythonConstraintEngine(Engine):
    """python-constraint's backtracking with forward checking."""

    name = "python-constraint"
    library = "python-constraint2"
    constraint_kinds = frozenset(_TRANSLATE)
    option_defaults = {"solver": "backtracking"}

    @classmethod
    def available(cls) -> bool:
        return constraint is not None

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        if options["solver"] not in SOLVERS:
            raise EngineOptionError(
                f"engine 'python-constraint': solver={options['solver']!r} "
                f"(choose from {', '.join(SOLVERS)})")

    # ----- translate ------------------------------------------------------
    def translate(self, model: Model) -> PcTask:
        return PcTask(model.domains(),
                      [_TRANSLATE[type(con)](con) for con in model.structure.constraints])

    def solutions(self, task: PcTask, domains, watch: Watch):
        """A lazy iterator over solutions (as tuples) under ``domains``."""
        n = len(domains)
        if any(not d for d in domains):
            return iter(())
        if n == 0:   # the library answers "no solution" to an empty problem
            return iter([()])
        problem = constraint.Problem(getattr(constraint, SOLVERS[self.options["solver"]])())
        problem.addConstraint(PassThrough(watch), list(range(n)))
        descending = self.options["solver"] in TAKES_FROM_END
        for var, dom in enumerate(domains):
            problem.addVariable(var, sorted(dom, reverse=descending))
        for con, variables in task.constraints:
            problem.addConstraint(con, variables)
        return (tuple(s[i] for i in range(n)) for s in problem.getSolutionIter())

    # ----- search ---------------------------------------------------------
    def search(self, task: PcTask, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        watch = Watch(deadline)
        found: list[tuple[int, ...]] = []
        stats = {"solver": SOLVERS[self.options["solver"]], "effort": EFFORT_NOTE}
        outcome = Outcome(Status.SOLVED, stats=stats)
        try:
            if timed_out(deadline):
                raise SearchTimeout
            if mode == "count":
                self._count(task, limit, watch, found, outcome)
            elif mode == "lexfirst":
                found[:] = self._lexfirst(task, watch, stats)
            else:
                found[:] = islice(self.solutions(task, task.domains, watch), 1)
        except SearchTimeout:
            outcome.status = Status.TIMEOUT
            outcome.message = "deadline reached inside python-constraint's search"
        outcome.solutions = found[:KEEP_SOLUTIONS]
        outcome.nodes = watch.tried
        if outcome.status is Status.SOLVED and not found:
            outcome.status = Status.UNSAT
        return outcome

    def _count(self, task: PcTask, limit: int, watch: Watch, kept: list,
               outcome: Outcome) -> None:
        """Solutions up to ``limit`` into ``outcome.count`` (partial on timeout),
        keeping only the first few; never a full list."""
        outcome.count = 0
        for solution in self.solutions(task, task.domains, watch):
            outcome.count += 1
            if len(kept) < KEEP_SOLUTIONS:
                kept.append(solution)
            if outcome.count >= limit:
                break
            if timed_out(watch.deadline):
                raise SearchTimeout

    def _lexfirst(self, task: PcTask, watch: Watch, stats: dict) -> list:
        """The smallest of a few solutions when that is all there are, else probes.

        The library's order is its own, so its first solution is only a
        candidate. Scanning on for up to ``LEX_ENUMERATE`` more either
        exhausts the search (then the least solution seen is the smallest:
        the usual case, a puzzle with one solution) or leaves a better
        candidate for ``lexfirst_by_probes``, whose docstring proves it exact.
        Each probe is a fresh problem with narrowed domains.
        """
        stream = self.solutions(task, task.domains, watch)
        seen = list(islice(stream, LEX_ENUMERATE + 1))
        if not seen:
            return []
        best = min(seen)
        stats["lexfirst_by"] = "enumeration"
        if len(seen) > LEX_ENUMERATE:
            def probe(doms):
                return next(self.solutions(task, doms, watch), None)
            best, stats["probes"] = lexfirst_by_probes(best, task.domains, probe,
                                                       watch.deadline)
            stats["lexfirst_by"] = "probes"
        return [best]
