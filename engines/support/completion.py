"""A partial assignment completed into a full one: ``complete(model, known, deadline)``.

An engine that solves another formulation of a problem (a solver run on the user's
own MiniZinc model, say) knows the values of some model variables only; the judge
checks a value for every one. ``complete`` fixes ``known``, then finds values for
the rest with a small solver of its own:

* propagation: a constraint with one open variable keeps the values of that
  variable under which it holds (so a variable a constraint defines, a sum's
  remainder, an ``Arith`` result, a reification literal, an ``Element`` value, is
  fixed once the others are); a constraint with none must hold. With more open
  variables: ``AllDifferent`` removes its fixed values from the others, ``Linear``
  (and ``ReifiedLinear`` with a fixed literal) narrows every bound by the others'
  bounds, a ``ReifiedLinear`` literal is fixed once the bounds decide the sum,
  ``Element`` with a fixed index joins the value and the element picked, ``Table``
  keeps the values some row consistent with the domains still supports (while at
  most ``TABLE_SCAN_MOST`` rows are; a search state keeps each table's consistent
  rows, which only shrink along a branch);
* search: depth first, the open variable with the smallest domain first, its
  values in increasing order, propagation after every choice.

None when no completion exists; TimeoutError past ``deadline`` (a
``time.perf_counter`` instant). Every constraint is evaluated as the model reads
it (``Arith`` through ``engines.support.arith.arith_value``).
"""
from __future__ import annotations

import operator
import time
from bisect import bisect_left, bisect_right
from functools import partial
from itertools import islice

from engines.support.arith import NEGATED, arith_value
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
    constraint_vars,
)

__all__ = ["answer", "complete", "holds"]

CHECK_EVERY = 512          # revisions between two looks at the clock
# A table with several open variables is read for the values its rows still support
# only while it has at most this many rows consistent with the domains (a larger one
# is read once one variable is left open): every revision reads them all.
TABLE_SCAN_MOST = 256


class _Conflict(Exception):
    """A domain emptied or a constraint violated: this branch has no completion."""


def complete(model: Model, known: dict[int, int],
             deadline: float | None = None) -> list[int] | None:
    """A value for every variable of ``model`` with ``known`` (index -> value) kept,
    every constraint and given satisfied; None when there is none."""
    doms = [_sorted(d) for d in model.domains()]
    for var, value in known.items():
        if not 0 <= var < len(doms):
            raise ValueError(f"known value of unknown variable {var}")
        if not _contains(doms[var], value):
            return None
        doms[var] = (value,)
    return _Completion(model, deadline).run(doms)


def answer(model: Model, known: dict[int, int], deadline: float | None, stats: dict,
           possible: bool = True) -> tuple[tuple[int, ...], bool]:
    """``complete`` as an engine gives out its answer: ``(values, True)``; or, where no
    completion exists (or the caller knows none can: ``possible`` false), ``(the known
    values with every other variable at its least value, False)``, which the judge
    then finds breaking a constraint. ``stats`` gains ``completion_s``; TimeoutError
    past ``deadline``."""
    values, started = None, time.perf_counter()
    try:
        if possible:
            values = complete(model, known, deadline)
    finally:
        stats["completion_s"] = round(time.perf_counter() - started, 6)
    if values is not None:
        return tuple(values), True
    least = [min(d) if d else 0 for d in model.domains()]
    for place, value in known.items():
        least[place] = value
    return tuple(least), False


def holds(con, value, rows: frozenset | None = None) -> bool:
    """Whether ``con`` holds where ``value(v)`` is variable ``v``'s value (``rows``: a
    ``Table``'s rows as a set, where the caller keeps one)."""
    if isinstance(con, AllDifferent):
        taken = [value(v) for v in con.vars]
        return len(set(taken)) == len(taken)
    if isinstance(con, Linear):
        return OPERATORS[con.op](sum(a * value(v) for a, v in zip(con.coeffs, con.vars)),
                                 con.rhs)
    if isinstance(con, NotEqualOffset):
        return value(con.x) != value(con.y) + con.c
    if isinstance(con, Table):
        return tuple(value(v) for v in con.vars) in (con.tuples if rows is None else rows)
    if isinstance(con, ReifiedLinear):
        literal = value(con.literal)
        if literal not in (0, 1):
            return False
        total = sum(a * value(v) for a, v in zip(con.coeffs, con.vars))
        truth = OPERATORS[con.op](total, con.rhs)
        return truth == bool(literal) or (con.implied and not literal)
    if isinstance(con, Clause):
        every = (*con.positive, *con.negative)
        if any(value(v) not in (0, 1) for v in every):
            return False
        return any(value(v) == 1 for v in con.positive) or \
            any(value(v) == 0 for v in con.negative)
    if isinstance(con, Element):
        position = value(con.index) - con.base
        return 0 <= position < len(con.vars) and value(con.vars[position]) == value(con.value)
    if isinstance(con, Arith):
        result = arith_value(con.op, [value(v) for v in con.args])
        return result is not None and result == value(con.result)
    if isinstance(con, AllDifferentList):
        taken = [tuple(value(v) for v in row) for row in con.lists]
        return len(set(taken)) == len(taken)
    raise ValueError(f"cannot evaluate constraint kind {type(con).__name__}")


def _sorted(domain):
    """The domain as a sorted sequence of distinct values (a range kept as it is)."""
    if isinstance(domain, range) and domain.step == 1:
        return domain
    if all(map(operator.lt, domain, islice(domain, 1, None))):
        return tuple(domain)
    return tuple(sorted(set(domain)))


def _contains(domain, value) -> bool:
    at = bisect_left(domain, value)
    return at < len(domain) and domain[at] == value


def _between(domain, low=None, high=None):
    """The values of a sorted domain within [low, high]."""
    start = 0 if low is None else bisect_left(domain, low)
    stop = len(domain) if high is None else bisect_right(domain, high)
    return domain if (start, stop) == (0, len(domain)) else domain[start:stop]


def _linear_bounds(op: str, coeff: int, rest: int, domain):
    """The values x of ``domain`` with ``coeff * x op rest``."""
    if coeff == 0:
        return domain if OPERATORS[op](0, rest) else ()
    if op == "==":
        if rest % coeff:
            return ()
        x = rest // coeff
        return (x,) if _contains(domain, x) else ()
    if op == "!=":
        if rest % coeff or not _contains(domain, rest // coeff):
            return domain
        return tuple(v for v in domain if v != rest // coeff)
    at_most = (op == "<=") == (coeff > 0)      # x <= rest/coeff, else x >= rest/coeff
    if at_most:
        return _between(domain, high=rest // coeff)
    return _between(domain, low=-(-rest // coeff))


class _TableRows(dict):
    """A table's rows as a set, made the first time a full row is looked up; None for
    any other constraint."""

    def __init__(self, constraints):
        super().__init__()
        self.constraints = constraints

    def get(self, at, default=None):
        con = self.constraints[at]
        if not isinstance(con, Table):
            return default
        if at not in self:
            self[at] = frozenset(con.tuples)
        return self[at]


class _Completion:
    def __init__(self, model: Model, deadline: float | None):
        structure = model.structure
        self.constraints = structure.constraints
        self.deadline = deadline
        self.scopes = [tuple(dict.fromkeys(constraint_vars(c))) for c in self.constraints]
        self.terms: dict[int, tuple[tuple[int, int], ...]] = {}
        for at, con in enumerate(self.constraints):
            if isinstance(con, (Linear, ReifiedLinear)):
                merged: dict[int, int] = {}
                for a, v in zip(con.coeffs, con.vars):
                    merged[v] = merged.get(v, 0) + a
                self.terms[at] = tuple((v, a) for v, a in merged.items() if a)
        self.watchers: list[list[int]] = [[] for _ in structure.variables]
        for at, scope in enumerate(self.scopes):
            for v in scope:
                self.watchers[v].append(at)
        self.rows = _TableRows(self.constraints)
        # A search state is the domains, then per table the numbers of its rows still
        # consistent with them (``slots``): they only shrink along a branch.
        self.size = len(structure.variables)
        tables = [at for at, con in enumerate(self.constraints) if isinstance(con, Table)]
        self.slots = {at: self.size + k for k, at in enumerate(tables)}
        self.revisions = 0

    # ----- the search ----------------------------------------------------------------
    def run(self, doms: list) -> list[int] | None:
        doms = doms + [range(len(self.constraints[at].tuples)) for at in self.slots]
        try:
            self._propagate(doms, range(len(self.constraints)))
        except _Conflict:
            return None
        stack = []
        state = doms
        while True:
            self._clock()
            var = self._open(state, self.size)
            if var is None:
                return [d[0] for d in state[:self.size]]
            stack.append((state, var, iter(state[var])))
            state = None
            while stack and state is None:
                parent, var, values = stack[-1]
                for value in values:
                    child = list(parent)
                    child[var] = (value,)
                    try:
                        self._propagate(child, self.watchers[var])
                    except _Conflict:
                        self._clock()
                        continue
                    state = child
                    break
                else:
                    stack.pop()
            if state is None:
                return None

    @staticmethod
    def _open(doms: list, variables: int) -> int | None:
        best, size = None, 0
        for v, d in enumerate(islice(doms, variables)):
            n = len(d)
            if n > 1 and (best is None or n < size):
                best, size = v, n
                if n == 2:
                    break
        return best

    def _clock(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise TimeoutError("no completion found before the deadline")

    def _propagate(self, doms: list, start) -> None:
        queue = list(dict.fromkeys(start))
        queued = set(queue)
        while queue:
            at = queue.pop()
            queued.discard(at)
            self.revisions += 1
            if self.revisions % CHECK_EVERY == 0:
                self._clock()
            for var, narrowed in self._revise(at, doms):
                if not narrowed:
                    raise _Conflict
                if len(narrowed) == len(doms[var]):
                    continue
                doms[var] = narrowed
                for other in self.watchers[var]:
                    if other not in queued:
                        queued.add(other)
                        queue.append(other)

    # ----- one constraint ------------------------------------------------------------
    def _revise(self, at: int, doms: list) -> list:
        con = self.constraints[at]
        free = [v for v in self.scopes[at] if len(doms[v]) > 1]
        if not free:
            if not holds(con, lambda v: doms[v][0], self.rows.get(at)):
                raise _Conflict
            return []
        if len(free) == 1:
            return [(free[0], self._only_open(at, con, free[0], doms))]
        return self._several_open(at, con, free, doms)

    def _only_open(self, at: int, con, var: int, doms: list):
        """``var``'s values under which ``con`` holds, every other variable fixed."""
        domain = doms[var]
        if isinstance(con, Linear):
            return self._linear_one(at, con.op, con.rhs, var, doms)
        if isinstance(con, ReifiedLinear) and var != con.literal:
            literal = doms[con.literal][0]
            if literal == 1:
                return self._linear_one(at, con.op, con.rhs, var, doms)
            if literal == 0 and not con.implied:
                op, rhs = NEGATED[con.op](con.rhs)
                return self._linear_one(at, op, rhs, var, doms)
            return domain if literal == 0 else ()
        if isinstance(con, Arith) and var == con.result and var not in con.args:
            value = arith_value(con.op, [doms[v][0] for v in con.args])
            return (value,) if value is not None and _contains(domain, value) else ()
        if isinstance(con, Element) and var == con.value and var != con.index \
                and var not in con.vars:
            position = doms[con.index][0] - con.base
            if not 0 <= position < len(con.vars):
                return ()
            value = doms[con.vars[position]][0]
            return (value,) if _contains(domain, value) else ()
        if isinstance(con, Table):
            return self._supported(at, con, doms)[var]

        def value_with(x):
            return lambda v: x if v == var else doms[v][0]
        return tuple(x for x in domain if holds(con, value_with(x), self.rows.get(at)))

    def _linear_one(self, at: int, op: str, rhs: int, var: int, doms: list):
        coeff, rest = 0, rhs
        for v, a in self.terms[at]:
            if v == var:
                coeff += a
            else:
                rest -= a * doms[v][0]
        return _linear_bounds(op, coeff, rest, doms[var])

    def _several_open(self, at: int, con, free: list, doms: list) -> list:
        if isinstance(con, AllDifferent):
            fixed = [doms[v][0] for v in con.vars if len(doms[v]) == 1]
            taken = set(fixed)
            if len(taken) != len(fixed):
                raise _Conflict
            return [(v, tuple(x for x in doms[v] if x not in taken)) for v in free
                    if any(_contains(doms[v], x) for x in taken)]
        if isinstance(con, Linear):
            return self._linear_bounded(at, con.op, con.rhs, doms)
        if isinstance(con, ReifiedLinear):
            return self._reified(at, con, doms)
        if isinstance(con, Element):
            return self._element(con, doms)
        if isinstance(con, Table) and len(doms[self.slots[at]]) <= TABLE_SCAN_MOST:
            supported = self._supported(at, con, doms)
            return [(v, supported[v]) for v in free]
        if isinstance(con, AllDifferentList):
            done = [tuple(doms[v][0] for v in row) for row in con.lists
                    if all(len(doms[v]) == 1 for v in row)]
            if len(set(done)) != len(done):
                raise _Conflict
        return []

    def _linear_bounded(self, at: int, op: str, rhs: int, doms: list) -> list:
        """Each variable's bounds narrowed by the others' (``==``, ``<=``, ``>=``)."""
        if op == "!=":
            return []
        terms = self.terms[at]
        lows = [min(a * doms[v][0], a * doms[v][-1]) for v, a in terms]
        highs = [max(a * doms[v][0], a * doms[v][-1]) for v, a in terms]
        low, high = sum(lows), sum(highs)
        if (op in ("==", "<=") and low > rhs) or (op in ("==", ">=") and high < rhs):
            raise _Conflict
        changes = []
        for (v, a), lo, hi in zip(terms, lows, highs):
            if len(doms[v]) == 1:
                continue
            domain = doms[v]
            if op in ("==", "<="):      # a*x <= rhs - (low - lo)
                domain = _linear_bounds("<=", a, rhs - (low - lo), domain)
            if op in ("==", ">="):      # a*x >= rhs - (high - hi)
                domain = _linear_bounds(">=", a, rhs - (high - hi), domain)
            if len(domain) != len(doms[v]):
                changes.append((v, domain))
        return changes

    def _reified(self, at: int, con: ReifiedLinear, doms: list) -> list:
        literal = doms[con.literal]
        if len(literal) == 1 and con.literal not in con.vars:
            if literal[0] == 1:
                return self._linear_bounded(at, con.op, con.rhs, doms)
            if not con.implied:
                return self._linear_bounded(at, *NEGATED[con.op](con.rhs), doms)
            return []
        if con.literal in con.vars:
            return []
        terms = self.terms[at]
        low = sum(min(a * doms[v][0], a * doms[v][-1]) for v, a in terms)
        high = sum(max(a * doms[v][0], a * doms[v][-1]) for v, a in terms)
        truth = _decided(con.op, con.rhs, low, high)
        if truth is None:
            return []
        keep = (1,) if truth and not con.implied else (0, 1) if truth else (0,)
        return [(con.literal, tuple(x for x in literal if x in keep))]

    @staticmethod
    def _element(con: Element, doms: list) -> list:
        index = doms[con.index]
        if len(index) > 1:
            inside = _between(index, con.base, con.base + len(con.vars) - 1)
            return [(con.index, inside)] if len(inside) != len(index) else []
        position = index[0] - con.base
        if not 0 <= position < len(con.vars):
            raise _Conflict
        picked = con.vars[position]
        if picked == con.value:
            return []
        common = set(doms[picked]).intersection(doms[con.value])
        return [(v, tuple(x for x in doms[v] if x in common)) for v in (picked, con.value)
                if len(common) != len(doms[v])]

    def _supported(self, at: int, con: Table, doms: list) -> dict[int, tuple]:
        """Per variable of the table, the values some row consistent with every domain
        gives it (a variable named twice takes one value in a row); the rows still
        consistent are kept in the state for the next revision."""
        slot = self.slots[at]
        rows = doms[slot]
        allowed = {v: set(doms[v]).__contains__ if len(doms[v]) <= len(rows)
                   else partial(_contains, doms[v]) for v in set(con.vars)}
        support: dict[int, set] = {v: set() for v in allowed}
        kept = []
        for number in rows:
            seen: dict[int, int] = {}
            for v, x in zip(con.vars, con.tuples[number]):
                if not allowed[v](x) or seen.setdefault(v, x) != x:
                    break
            else:
                kept.append(number)
                for v, x in seen.items():
                    support[v].add(x)
        if len(kept) != len(rows):
            doms[slot] = kept
        return {v: doms[v] if len(support[v]) == len(doms[v])
                else tuple(x for x in doms[v] if x in support[v]) for v in allowed}


def _decided(op: str, rhs: int, low: int, high: int) -> bool | None:
    """Whether ``sum op rhs`` holds for every sum in [low, high] (True), none (False),
    or depends (None)."""
    if op == "<=":
        return True if high <= rhs else False if low > rhs else None
    if op == ">=":
        return True if low >= rhs else False if high < rhs else None
    equal = True if low == high == rhs else False if rhs < low or rhs > high else None
    if op == "==" or equal is None:
        return equal
    return not equal
