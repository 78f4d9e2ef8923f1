"""Each FlatZinc builtin over integers and Booleans in the model's kinds.

``HANDLERS`` maps a builtin's name to a function of the translation's builder
(``translate._Builder``: its ``var``, ``vars``, ``int_``, ``ints``, ``set_`` and
``values`` read arguments, ``add`` adds a constraint, ``parity`` a parity,
``implied`` says the builtin is an ``_imp`` form) and the builtin's arguments.
Which kind each becomes, and why, is in docs/kinds.md.
"""
from __future__ import annotations

from puzzles.model import AllDifferent, Arith, Clause, Element, Linear, ReifiedLinear, Table


def _compare(op: str, offset: int = 0):
    """``a op b`` as ``a - b op offset`` (``lt`` is ``a - b <= -1``)."""
    def handler(b, args) -> None:
        x, y = b.var(args[0]), b.var(args[1])
        linear = ((1, -1), (x, y), op, offset)
        if len(args) == 3:
            b.add(ReifiedLinear(*linear, literal=b.var(args[2]), implied=b.implied))
        else:
            b.add(Linear(*linear))
    return handler


def _linear(op: str):
    def handler(b, args) -> None:
        coeffs, xs, rhs = b.ints(args[0]), b.vars(args[1]), b.int_(args[2])
        if len(coeffs) != len(xs):
            raise ValueError(f"{len(coeffs)} coefficients for {len(xs)} variables")
        if len(args) == 4:
            b.add(ReifiedLinear(coeffs, xs, op, rhs, literal=b.var(args[3]),
                                implied=b.implied))
        else:
            b.add(Linear(coeffs, xs, op, rhs))
    return handler


def _and(b, xs: tuple[int, ...], r: int) -> None:
    """``r <-> and(xs)``."""
    for x in xs:
        b.add(Clause((x,), (r,)))
    if not b.implied:
        b.add(Clause((r,), xs))


def _or(b, xs: tuple[int, ...], r: int) -> None:
    """``r <-> or(xs)``."""
    b.add(Clause(xs, (r,)))
    if not b.implied:
        for x in xs:
            b.add(Clause((r,), (x,)))


def _xor(b, x: int, y: int, r: int) -> None:
    """``r <-> x != y``."""
    b.add(Clause((x, y), (r,)))
    b.add(Clause((), (x, y, r)))
    if not b.implied:
        b.add(Clause((x, r), (y,)))
        b.add(Clause((y, r), (x,)))


def _clause_reif(b, args) -> None:
    pos, neg, r = b.vars(args[0]), b.vars(args[1]), b.var(args[2])
    b.add(Clause(pos, (*neg, r)))
    if not b.implied:
        for p in pos:
            b.add(Clause((r,), (p,)))
        for q in neg:
            b.add(Clause((r, q), ()))


def _element_table(b, args) -> None:
    index, values, value = b.var(args[0]), b.ints(args[1]), b.var(args[2])
    b.add(Table((index, value), tuple((i, v) for i, v in enumerate(values, 1))))


def _set_in_reif(b, args) -> None:
    x, allowed, r = b.var(args[0]), set(b.set_(args[1])), b.var(args[2])
    rows = tuple((v, int(v in allowed)) for v in b.values(x))
    if b.implied:
        rows = tuple({*rows, *((v, 0) for v, _ in rows)})
    b.add(Table((x, r), tuple(sorted(rows))))


def _table(b, args) -> None:
    xs, flat = b.vars(args[0]), b.ints(args[1])
    k = len(xs)
    if not k or len(flat) % k:
        raise ValueError(f"{len(flat)} table entries for {k} columns")
    b.add(Table(xs, tuple(tuple(flat[i:i + k]) for i in range(0, len(flat), k))))


def _arith(op: str, arity: int | None):
    def handler(b, args) -> None:
        if arity is None:                               # array_int_minimum(m, xs)
            b.add(Arith(op, b.vars(args[1]), b.var(args[0])))
        else:
            b.add(Arith(op, tuple(b.var(a) for a in args[:arity]), b.var(args[arity])))
    return handler


_BASE = {
    "int_eq": _compare("=="), "int_ne": _compare("!="), "int_le": _compare("<="),
    "int_lt": _compare("<=", -1),
    "bool_eq": _compare("=="), "bool_le": _compare("<="), "bool_lt": _compare("<=", -1),
    "int_lin_eq": _linear("=="), "int_lin_ne": _linear("!="), "int_lin_le": _linear("<="),
    "bool_lin_eq": _linear("=="), "bool_lin_le": _linear("<="),
    "bool_and": lambda b, a: _and(b, (b.var(a[0]), b.var(a[1])), b.var(a[2])),
    "bool_or": lambda b, a: _or(b, (b.var(a[0]), b.var(a[1])), b.var(a[2])),
    "bool_xor": lambda b, a: (_xor(b, b.var(a[0]), b.var(a[1]), b.var(a[2])) if len(a) == 3
                              else b.add(Linear((1, 1), (b.var(a[0]), b.var(a[1])), "==", 1))),
    "array_bool_and": lambda b, a: _and(b, b.vars(a[0]), b.var(a[1])),
    "array_bool_or": lambda b, a: _or(b, b.vars(a[0]), b.var(a[1])),
    "bool_clause_reif": _clause_reif,
}
HANDLERS = {
    **_BASE,
    **{f"{name}_reif": fn for name, fn in _BASE.items()
       if name.startswith(("int_", "bool_eq", "bool_le", "bool_lt"))},
    **{f"{name}_imp": fn for name, fn in _BASE.items() if name != "bool_clause_reif"},
    "bool_clause_imp": _clause_reif,
    "bool_ne": lambda b, a: b.add(Linear((1, 1), (b.var(a[0]), b.var(a[1])), "==", 1)),
    "bool_ne_reif": _compare("!="),
    "bool_not": lambda b, a: b.add(Linear((1, 1), (b.var(a[0]), b.var(a[1])), "==", 1)),
    "bool2int": lambda b, a: b.add(Linear((1, -1), (b.var(a[0]), b.var(a[1])), "==", 0)),
    "bool_clause": lambda b, a: b.add(Clause(b.vars(a[0]), b.vars(a[1]))),
    "array_bool_xor": lambda b, a: b.parity(b.vars(a[0])),
    "int_times": _arith("times", 2), "int_div": _arith("div", 2), "int_mod": _arith("mod", 2),
    "int_pow": _arith("pow", 2), "int_abs": _arith("abs", 1), "int_min": _arith("min", 2),
    "int_max": _arith("max", 2),
    "int_plus": lambda b, a: b.add(Linear((1, 1, -1), tuple(b.var(x) for x in a[:3]), "==", 0)),
    "array_int_minimum": _arith("min", None), "array_int_maximum": _arith("max", None),
    "array_int_element": _element_table, "array_bool_element": _element_table,
    "array_var_int_element": lambda b, a: b.add(Element(b.var(a[0]), b.vars(a[1]),
                                                        b.var(a[2]))),
    "array_var_bool_element": lambda b, a: b.add(Element(b.var(a[0]), b.vars(a[1]),
                                                         b.var(a[2]))),
    "set_in_reif": _set_in_reif,
    "fzn_all_different_int": lambda b, a: b.add(AllDifferent(b.vars(a[0]))),
    "fzn_table_int": _table,
}
