"""The puzzle-agnostic CSP model that every engine translates.

A model is split in two so engines can cache work per shape:

* ``Structure``: variables, base domains and constraints. Every puzzle of one
  kind and size shares one ``Structure`` object (puzzle modules cache them), so
  an engine may key caches on ``structure.key``.
* ``Model``: a structure plus the givens, i.e. unary facts ``var = value``.

Variable order is the order of ``structure.variables``; ``lexfirst`` means the
lexicographically smallest solution in that order.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Union


@dataclass(frozen=True)
class AllDifferent:
    """Pairwise distinct values over ``vars``."""
    vars: tuple[int, ...]


@dataclass(frozen=True)
class Linear:
    """``sum(coeffs[i] * vars[i]) <op> rhs`` with op in ``==, !=, <=, >=``."""
    coeffs: tuple[int, ...]
    vars: tuple[int, ...]
    op: str
    rhs: int


@dataclass(frozen=True)
class NotEqualOffset:
    """``x != y + c``: the building block of pairwise formulations."""
    x: int
    y: int
    c: int = 0


@dataclass(frozen=True)
class Table:
    """``vars`` must take one of the allowed ``tuples``."""
    vars: tuple[int, ...]
    tuples: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class ReifiedLinear:
    """``literal = 1`` exactly when ``sum(coeffs[i] * vars[i]) <op> rhs`` holds; with
    ``implied``, ``literal = 1`` only implies it. ``literal`` is a 0/1 variable.

    FlatZinc's ``_reif`` and ``_imp`` forms of every integer and Boolean comparison.
    A kind of its own, not a field of ``Linear``: an engine that knows only
    ``Linear`` must answer n/a, never drop the literal and solve another problem.
    """
    coeffs: tuple[int, ...]
    vars: tuple[int, ...]
    op: str
    rhs: int
    literal: int
    implied: bool = False


@dataclass(frozen=True)
class Clause:
    """Some variable of ``positive`` is 1 or some variable of ``negative`` is 0; every
    variable named is 0/1. The Boolean core: clauses, and/or, implications."""
    positive: tuple[int, ...]
    negative: tuple[int, ...] = ()


@dataclass(frozen=True)
class Element:
    """``value = vars[index - base]``: a variable picked from an array of variables by
    a variable (an array of constants is a two-column ``Table`` instead)."""
    index: int
    vars: tuple[int, ...]
    value: int
    base: int = 1


@dataclass(frozen=True)
class Arith:
    """``result = op(args)``: ``times``, ``div``, ``mod`` and ``pow`` of two arguments,
    ``abs`` of one, ``min`` and ``max`` of one or more.

    ``div`` truncates toward zero and ``mod`` takes the dividend's sign (MiniZinc
    and XCSP3 both); a zero divisor and a negative exponent have no value, so the
    constraint fails there.
    """
    op: str
    args: tuple[int, ...]
    result: int


@dataclass(frozen=True)
class AllDifferentList:
    """No two of ``lists`` (variables, all of one length) take the same values
    position by position: each two differ somewhere."""
    lists: tuple[tuple[int, ...], ...]


Constraint = Union[AllDifferent, Linear, NotEqualOffset, Table, ReifiedLinear, Clause,
                   Element, Arith, AllDifferentList]
# The one operator table: engines translate through it; the checker keeps its own.
OPERATORS: dict[str, Callable[[object, object], object]] = {
    "==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge}
LINEAR_OPS = tuple(OPERATORS)
# Arith's operations and how many arguments each takes (None: one or more).
ARITH_ARITY: dict[str, int | None] = {"times": 2, "div": 2, "mod": 2, "pow": 2, "abs": 1,
                                      "min": None, "max": None}


class ModelError(ValueError):
    """A model that cannot be built as asked (bad variable, empty domain...)."""


@dataclass(frozen=True, eq=False)
class Structure:
    """What all models of one shape share; engines cache on ``key``.

    ``unsupported`` names the part of a problem that has no exact form in
    these constraint kinds (an input format's constraint that cannot be
    translated); every engine then answers n/a with that reason instead of
    solving a different problem.
    """
    key: str
    variables: tuple[str, ...]
    domains: tuple[tuple[int, ...], ...]
    constraints: tuple[Constraint, ...]
    unsupported: str = ""

    def __post_init__(self):
        if len(self.variables) != len(self.domains):
            raise ModelError("one domain per variable is required")
        n = len(self.variables)
        for con in self.constraints:
            for v in constraint_vars(con):
                if not 0 <= v < n:
                    raise ModelError(f"constraint {con!r} names unknown variable {v}")
            if isinstance(con, AllDifferentList) and len({len(x) for x in con.lists}) > 1:
                raise ModelError("AllDifferentList over lists of different lengths")
            if isinstance(con, Arith):
                wanted = ARITH_ARITY.get(con.op, -1)
                if wanted == -1 or (len(con.args) != wanted if wanted else not con.args):
                    raise ModelError(f"Arith {con.op!r} with {len(con.args)} argument(s)")

    @property
    def size(self) -> int:
        return len(self.variables)

    @cached_property
    def constraint_kinds(self) -> frozenset[type]:
        """Computed once: engines ask on every solve, for every puzzle of the shape."""
        return frozenset(type(c) for c in self.constraints)

    def kinds(self) -> frozenset[type]:
        return self.constraint_kinds

    @cached_property
    def magnitude(self) -> int:
        """The largest absolute value the structure states (domain values, Linear
        coefficients and sides, offsets): what an engine with a value range checks
        before it translates anything. Computed once per structure."""
        largest = max((max(-min(d), max(d)) for d in self.domains if d), default=0)
        for con in self.constraints:
            if isinstance(con, (Linear, ReifiedLinear)):
                largest = max(largest, abs(con.rhs), *map(abs, con.coeffs))
            elif isinstance(con, NotEqualOffset):
                largest = max(largest, abs(con.c))
        return largest


@dataclass(frozen=True)
class Source:
    """The input a model was translated from, for an engine that runs that input itself
    (a MiniZinc solver on the user's own model) and maps its answer back.

    ``format`` names the input (``"minizinc"``); ``files`` are its paths, the model
    first, then the data if any. ``outputs`` say where the values an answer of the
    input gives sit in the model: ``("var", name, index)``, or ``("array", name, dims,
    items)`` with ``items`` in the array's order, each a model index or a constant
    ``(type, value)``. ``booleans`` are the model indices of Boolean variables, which
    an answer writes ``true``/``false``. An XCSP3 file (``"xcsp3"``) has one file and,
    as ``outputs``, the instance's variable names: the model's first variables, in
    that order.
    """
    format: str
    files: tuple[str, ...]
    outputs: tuple = ()
    booleans: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Model:
    """A structure plus givens; the unit of work handed to an engine. ``source``, where
    set, is the input it was translated from (see ``Source``); engines that do not run
    that input ignore it."""
    structure: Structure
    givens: tuple[tuple[int, int], ...] = ()
    name: str = ""
    source: Source | None = None

    def domains(self) -> list[tuple[int, ...]]:
        """Base domains narrowed by the givens (a given outside its domain empties it)."""
        doms = list(self.structure.domains)
        for var, value in self.givens:
            doms[var] = (value,) if value in doms[var] else ()
        return doms

    def kinds(self) -> frozenset[type]:
        return self.structure.kinds()

    def magnitude(self) -> int:
        """The largest absolute value of the structure or the givens."""
        return max(self.structure.magnitude, max((abs(v) for _, v in self.givens), default=0))


def constraint_vars(con: Constraint) -> tuple[int, ...]:
    """The variables a constraint mentions, whatever its kind."""
    if isinstance(con, NotEqualOffset):
        return (con.x, con.y)
    if isinstance(con, ReifiedLinear):
        return (*con.vars, con.literal)
    if isinstance(con, Clause):
        return (*con.positive, *con.negative)
    if isinstance(con, Element):
        return (con.index, *con.vars, con.value)
    if isinstance(con, Arith):
        return (*con.args, con.result)
    if isinstance(con, AllDifferentList):
        return tuple(v for row in con.lists for v in row)
    return con.vars


def merged_terms(con: Linear) -> Linear:
    """The same constraint with each variable once and no zero coefficient.

    Solvers that key bounds by variable (python-constraint's sums, bounds
    propagation) count a repeated variable wrong, so engines merge first.
    """
    if con.op not in OPERATORS:
        raise ModelError(f"Linear with unknown operator {con.op!r}")
    if len(con.coeffs) != len(con.vars):
        raise ModelError(
            f"Linear with {len(con.coeffs)} coefficients for {len(con.vars)} variables")
    merged: dict[int, int] = {}
    for a, v in zip(con.coeffs, con.vars):
        merged[v] = merged.get(v, 0) + a
    terms = [(v, a) for v, a in merged.items() if a]
    return Linear(tuple(a for _, a in terms), tuple(v for v, _ in terms), con.op, con.rhs)
