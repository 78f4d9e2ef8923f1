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
from typing import Any, Callable

from engines.base import Engine
from engines.contract import KEEP_SOLUTIONS, Outcome, Status, timed_out
from engines.support.arith import arith_value
from engines.support.lexprobe import SearchTimeout, lexfirst_by_probes
from puzzles.model import (
    OPERATORS,
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Table,
    merged_terms,
)

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




@dataclass(frozen=True)
class Piece:
    """One model constraint as the library takes it.

    ``make`` builds a fresh library constraint for each ``Problem``: the sum
    constraints keep bounds computed from one problem's domains, which would
    be wrong for a probe's narrower ones. ``holds(*values)`` is the same
    constraint as a plain test over ``variables`` (in order, repeats kept).
    Constraints over fewer than two distinct variables never reach the
    library: it reads an empty variable list as "all variables", and its sum
    constraints fail on a single one, so ``PcTask.fold`` applies them to the
    domains instead.
    """
    variables: tuple[int, ...]
    make: Callable[[], Any]
    holds: Callable[..., bool]


def _all_different(con: AllDifferent) -> Piece:
    def holds(*values):
        return len(set(values)) == len(values)
    return Piece(con.vars, constraint.AllDifferentConstraint, holds)


def _linear(con: Linear) -> Piece:
    """A library sum constraint where it is exact, else a plain function.

    Coefficients of a repeated variable are added up first: the library keys
    its bounds by variable, so a repeated one would be counted wrong.
    ExactSum/MinSum/MaxSum (with multipliers) bound every unassigned term by
    its least and greatest contribution, which is right for negative
    coefficients and values too; their forward checks run only when no
    unassigned term can be negative. ``!=`` has no library constraint.
    """
    merged = merged_terms(con)
    variables, coeffs = merged.vars, merged.coeffs
    compare, rhs = OPERATORS[con.op], con.rhs

    def holds(*values):
        return compare(sum(k * x for k, x in zip(coeffs, values)), rhs)
    library = {"==": "ExactSum", "<=": "MaxSum", ">=": "MinSum"}.get(con.op)
    if library is None:
        return Piece(variables, lambda: constraint.FunctionConstraint(holds), holds)
    multipliers = None if set(coeffs) <= {1} else list(coeffs)
    cls = _SUMS[library]
    return Piece(variables, lambda: cls(rhs, multipliers), holds)


def _not_equal_offset(con: NotEqualOffset) -> Piece:
    """``x != y`` is the library's AllDifferent on a pair; with an offset, a function."""
    c = con.c

    def holds(x, y):
        return x != y + c
    if c == 0:
        return Piece((con.x, con.y), constraint.AllDifferentConstraint, holds)
    return Piece((con.x, con.y), lambda: constraint.FunctionConstraint(holds), holds)


def _table(con: Table) -> Piece:
    """Membership in the allowed tuples (``InSetConstraint`` takes single values only)."""
    allowed = frozenset(con.tuples)

    def holds(*values):
        return values in allowed
    return Piece(con.vars, lambda: constraint.FunctionConstraint(holds), holds)


def _function(variables, test: Callable[[dict], bool]) -> Piece:
    """A ``FunctionConstraint`` over ``variables`` named once each (the library
    reads its arguments by position); ``test`` sees each variable's value by name.
    The library forward checks it when one variable is left open."""
    distinct = tuple(dict.fromkeys(variables))

    def holds(*values):
        return test(dict(zip(distinct, values)))
    return Piece(distinct, lambda: constraint.FunctionConstraint(holds), holds)


def _reified_linear(con: ReifiedLinear) -> Piece:
    """The literal is 0/1 and equals the Linear's truth (with ``implied``: 0, or the Linear
    holds). No library constraint carries a literal, so a function."""
    lin = merged_terms(Linear(con.coeffs, con.vars, con.op, con.rhs))
    terms, compare, rhs = tuple(zip(lin.coeffs, lin.vars)), OPERATORS[lin.op], lin.rhs
    literal, implied = con.literal, con.implied

    def test(value):
        b = value[literal]
        if b not in (0, 1):
            return False
        inner = compare(sum(a * value[v] for a, v in terms), rhs)
        return inner == bool(b) or (implied and not b)
    return _function((*lin.vars, literal), test)


def _clause(con: Clause) -> Piece:
    positive, negative = con.positive, con.negative

    def test(value):
        return all(x in (0, 1) for x in value.values()) and (
            any(value[v] == 1 for v in positive) or any(value[v] == 0 for v in negative))
    return _function((*positive, *negative), test)


def _element(con: Element) -> Piece:
    index, entries, picked, base = con.index, con.vars, con.value, con.base

    def test(value):
        i = value[index] - base
        return 0 <= i < len(entries) and value[entries[i]] == value[picked]
    return _function((index, *entries, picked), test)


def _arith(con: Arith) -> Piece:
    args, result, op = con.args, con.result, con.op
    arith_value(op, (1,) * len(args))           # an unknown operation raises here

    def test(value):
        r = arith_value(op, [value[v] for v in args])
        return r is not None and r == value[result]
    return _function((*args, result), test)


def _all_different_list(con: AllDifferentList) -> list[Piece]:
    """One function per pair of lists: they differ at some position."""
    pieces = []
    for j, b in enumerate(con.lists):
        for a in con.lists[:j]:
            spots = tuple((x, y) for x, y in zip(a, b) if x != y)

            def test(value, spots=spots):
                return any(value[x] != value[y] for x, y in spots)
            pieces.append(_function(tuple(v for spot in spots for v in spot), test))
    return pieces


# One entry per constraint kind; AllDifferentList makes a piece per pair of lists.
_TRANSLATE = {AllDifferent: _all_different, Linear: _linear,
              NotEqualOffset: _not_equal_offset, Table: _table,
              ReifiedLinear: _reified_linear, Clause: _clause, Element: _element, Arith: _arith,
              AllDifferentList: _all_different_list}


@dataclass
class PcTask:
    """The translated model: narrowed domains and the constraints' pieces.

    Kept as a recipe, not a ``Problem``, because a search leaves its
    ``Problem``'s domains (and its sum constraints) in a state of its own
    and ``lexfirst`` needs fresh problems with other domains. Constraints
    over fewer than two variables are already folded into ``domains``.
    """
    domains: list[tuple[int, ...]]
    pieces: list[Piece]
    broken: bool = False    # a constraint over no variable that fails

    def fold(self, piece: Piece) -> None:
        """Apply a constraint over at most one distinct variable to the domains."""
        if not piece.variables:
            self.broken = self.broken or not piece.holds()
            return
        var = piece.variables[0]
        self.domains[var] = tuple(x for x in self.domains[var]
                                  if piece.holds(*[x] * len(piece.variables)))


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

    class _SkipOnEmpty:
        """A sum constraint's preprocessing, skipped when a domain is already empty.

        The library's ``preProcess`` takes ``min``/``max`` of every domain and
        raises on an empty one (emptied by an earlier constraint's pruning);
        the problem has no solution then, and the library says so itself
        once every constraint is preprocessed.
        """

        def preProcess(self, variables, domains, constraints, vconstraints):
            if all(domains[v] for v in variables):
                super().preProcess(variables, domains, constraints, vconstraints)

    class ExactSum(_SkipOnEmpty, constraint.ExactSumConstraint):
        pass

    class MinSum(_SkipOnEmpty, constraint.MinSumConstraint):
        pass

    class MaxSum(_SkipOnEmpty, constraint.MaxSumConstraint):
        pass

    _SUMS = {"ExactSum": ExactSum, "MinSum": MinSum, "MaxSum": MaxSum}


class PythonConstraintEngine(Engine):
    """python-constraint's backtracking with forward checking."""

    name = "python-constraint"
    library = "python-constraint2"
    constraint_kinds = frozenset(_TRANSLATE)
    option_defaults = {"solver": "backtracking"}
    option_choices = {"solver": tuple(SOLVERS)}

    @classmethod
    def available(cls) -> bool:
        return constraint is not None

    # ----- translate ------------------------------------------------------
    def translate(self, model: Model) -> PcTask:
        task = PcTask(model.domains(), [])
        for con in model.structure.constraints:
            made = _TRANSLATE[type(con)](con)
            for piece in made if isinstance(made, list) else (made,):
                if len(set(piece.variables)) < 2:
                    task.fold(piece)
                else:
                    task.pieces.append(piece)
        return task

    def solutions(self, task: PcTask, domains, watch: Watch):
        """A lazy iterator over solutions (as tuples) under ``domains``."""
        n = len(domains)
        if task.broken or any(not d for d in domains):
            return iter(())
        if n == 0:   # the library answers "no solution" to an empty problem
            return iter([()])
        problem = constraint.Problem(getattr(constraint, SOLVERS[self.options["solver"]])())
        problem.addConstraint(PassThrough(watch), list(range(n)))
        descending = self.options["solver"] in TAKES_FROM_END
        for var, dom in enumerate(domains):
            problem.addVariable(var, sorted(dom, reverse=descending))
        for piece in task.pieces:
            problem.addConstraint(piece.make(), list(piece.variables))
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
