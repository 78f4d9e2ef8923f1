"""What a FlatZinc file states, as plain frozen data: no model, no solver types.

Values inside expressions are Python values where one fits: ``int``, ``bool``,
``float``, ``str`` (annotations only) and ``tuple`` for an array literal. The
rest are the small classes below: ``IntRange`` and ``IntSet`` for set literals,
``FloatRange``, ``Ref`` for a declared name, ``Index`` for ``a[3]`` and
``Annotation`` for ``name`` or ``name(args)`` after ``::``.

A variable's ``domain`` is an ``IntRange``, a sorted ``tuple`` of ints (or of
floats), a ``FloatRange``, or None when unbounded (``var int``, ``var bool``);
a set variable's domain is the universe its elements come from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

INT, BOOL, FLOAT, SET = "int", "bool", "float", "set"
SATISFY, MINIMIZE, MAXIMIZE = "satisfy", "minimize", "maximize"


@dataclass(frozen=True, slots=True)
class IntRange:
    """``low..high``, both ends included (empty when ``low > high``)."""

    low: int
    high: int

    def values(self) -> range:
        return range(self.low, self.high + 1)


@dataclass(frozen=True, slots=True)
class FloatRange:
    """``low..high`` of floats, both ends included."""

    low: float
    high: float


@dataclass(frozen=True, slots=True)
class IntSet:
    """``{1,3,5}``: its elements sorted, each once (``{}`` is the empty tuple)."""

    values: tuple


@dataclass(frozen=True, slots=True)
class Ref:
    """A declared variable, parameter or array, by name."""

    name: str


@dataclass(frozen=True, slots=True)
class Index:
    """``name[index]``: one element of a declared array (indices start at 1)."""

    name: str
    index: int


@dataclass(frozen=True, slots=True)
class Annotation:
    """``name`` (no ``args``) or ``name(arg, ...)``; an argument is any value above,
    a nested ``Annotation`` included."""

    name: str
    args: tuple = ()


Domain = Union[IntRange, FloatRange, tuple, None]
Value = Union[int, bool, float, str, tuple, IntRange, FloatRange, IntSet, Ref, Index, Annotation]


@dataclass(frozen=True, slots=True)
class Type:
    """A declared type: ``base`` is int, bool, float or set; ``is_var`` tells ``var``
    from a parameter; ``array`` marks ``array [..] of``, ``size`` its length (None for
    a predicate's ``array [int]``)."""

    base: str
    is_var: bool = False
    domain: Domain = None
    array: bool = False
    size: int | None = None


def _has(annotations: tuple, name: str) -> bool:
    return any(a.name == name for a in annotations)


@dataclass(frozen=True, slots=True)
class Parameter:
    """``int: n = 3;``: a named constant (arrays of constants are ``ArrayDecl``)."""

    name: str
    type: str
    value: Value
    line: int


@dataclass(frozen=True, slots=True)
class Variable:
    """``var 1..9: x :: output_var;``; ``value`` is what ``= expr`` gives it (a
    constant, or a ``Ref`` to the variable it aliases), None when unassigned."""

    name: str
    type: str
    domain: Domain
    value: Value | None
    annotations: tuple
    line: int

    @property
    def output(self) -> bool:
        """Marked ``output_var``: part of the answer."""
        return _has(self.annotations, "output_var")

    @property
    def introduced(self) -> bool:
        """Marked ``var_is_introduced``: made by the compiler, not named in the model."""
        return _has(self.annotations, "var_is_introduced")

    @property
    def defined(self) -> bool:
        """Marked ``is_defined_var``: a constraint computes it from others."""
        return _has(self.annotations, "is_defined_var")


@dataclass(frozen=True, slots=True)
class ArrayDecl:
    """``array [1..n] of var int: xs = [...]`` (``is_var``) or an array of constants;
    ``items`` holds its ``n`` elements."""

    name: str
    type: str
    is_var: bool
    domain: Domain
    items: tuple
    annotations: tuple
    line: int

    @property
    def output_dims(self) -> tuple | None:
        """The ``IntRange`` of each dimension of ``output_array([...])``, or None when the
        array is not part of the answer."""
        for a in self.annotations:
            if a.name == "output_array" and a.args and isinstance(a.args[0], tuple):
                return a.args[0]
        return None


@dataclass(frozen=True, slots=True)
class Constraint:
    """``constraint name(args) :: annotations;`` on ``line``."""

    name: str
    args: tuple
    annotations: tuple
    line: int

    @property
    def defines(self) -> str | None:
        """The variable named by ``defines_var(x)``, if any."""
        for a in self.annotations:
            if a.name == "defines_var" and a.args and isinstance(a.args[0], Ref):
                return a.args[0].name
        return None


@dataclass(frozen=True, slots=True)
class Predicate:
    """``predicate name(type: param, ...);``: a solver-specific constraint's signature."""

    name: str
    params: tuple        # (name, Type) pairs
    line: int


@dataclass(frozen=True, slots=True)
class Solve:
    """``solve :: annotations satisfy|minimize x|maximize x;``"""

    kind: str
    objective: Value | None
    annotations: tuple
    line: int


@dataclass(frozen=True, slots=True)
class FlatZinc:
    """A whole FlatZinc file, each kind of item in file order."""

    predicates: tuple
    parameters: tuple
    variables: tuple
    arrays: tuple
    constraints: tuple
    solve: Solve
