"""MiniZinc pairs: every FlatZinc constraint as MiniZinc wrote it, on the file's own variables.

This reads the parsed FlatZinc (``puzzle.instance``: variables, arrays,
parameters and constraints as plain data) and evaluates each constraint on the
answer with the FlatZinc builtins' meaning written out here. It never looks at
the model nor at the code that translates the FlatZinc into one, so a wrong
translation shows up as a rejected answer.

The answer holds a value per FlatZinc variable not assigned another (``var int:
y = x`` is ``x``'s value), in the file's order, a Boolean as 0 or 1: the order
in which the translation numbers the file's variables. Integer division
truncates toward zero and the remainder takes the dividend's sign, as in
MiniZinc; a division by zero or a negative power leaves its constraint false.
"""
from __future__ import annotations

import operator

from compare.judge.rulebook import register_rules, values_of
from puzzles.formats.flatzinc import ast as fz

_RELATIONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le}


class _Undefined(Exception):
    """An expression without a value (division by zero): its constraint fails."""


class _Unknown(Exception):
    """A builtin or an argument this judge does not know."""


class _Values:
    """What a FlatZinc argument stands for under one answer."""

    def __init__(self, flat: fz.FlatZinc, values: dict[str, int]):
        self.values = values
        self.aliases = {v.name: v.value for v in flat.variables
                        if isinstance(v.value, (fz.Ref, fz.Index))}
        self.params = {p.name: p.value for p in flat.parameters}
        self.arrays = {a.name: a.items for a in flat.arrays}

    def scalar(self, arg, depth: int = 0) -> int:
        if depth > 100:
            raise _Unknown("aliases that never end")
        if isinstance(arg, (bool, int)):
            return int(arg)
        if isinstance(arg, fz.Ref):
            if arg.name in self.values:
                return self.values[arg.name]
            if arg.name in self.aliases:
                return self.scalar(self.aliases[arg.name], depth + 1)
            if arg.name in self.params:
                return self.scalar(self.params[arg.name], depth + 1)
            raise _Unknown(f"{arg.name} has no value")
        if isinstance(arg, fz.Index):
            items = self.arrays.get(arg.name, self.params.get(arg.name))
            if not isinstance(items, tuple) or not 1 <= arg.index <= len(items):
                raise _Unknown(f"{arg.name}[{arg.index}] names no array element")
            return self.scalar(items[arg.index - 1], depth + 1)
        raise _Unknown(f"{arg!r} where a number is expected")

    def array(self, arg) -> list[int]:
        if isinstance(arg, fz.Ref):
            if arg.name in self.arrays:
                return [self.scalar(item) for item in self.arrays[arg.name]]
            if isinstance(self.params.get(arg.name), tuple):
                return [self.scalar(item) for item in self.params[arg.name]]
        if isinstance(arg, tuple):
            return [self.scalar(item) for item in arg]
        raise _Unknown(f"{arg!r} where an array is expected")

    def set(self, arg) -> range | frozenset:
        if isinstance(arg, fz.Ref) and arg.name in self.params:
            return self.set(self.params[arg.name])
        if isinstance(arg, fz.IntRange):
            return arg.values()
        if isinstance(arg, fz.IntSet):
            return frozenset(arg.values)
        raise _Unknown(f"{arg!r} where a set of integers is expected")


def answer_names(flat: fz.FlatZinc) -> tuple[str, ...]:
    """The variables an answer gives values of, in order (see the module)."""
    return tuple(v.name for v in flat.variables if not isinstance(v.value, (fz.Ref, fz.Index)))


def check_minizinc(puzzle, answer) -> str | None:
    flat = puzzle.instance
    names = answer_names(flat)
    values = values_of(answer, len(names), "variables", lambda i: names[i])
    if isinstance(values, str):
        return values
    declared = {v.name: v for v in flat.variables}
    for name, value in zip(names, values):
        why = _outside(declared[name], value)
        if why:
            return f"{name} = {value} {why}"
    env = _Values(flat, dict(zip(names, values)))
    for number, con in enumerate(flat.constraints, 1):
        judge = _BUILTINS.get(con.name)
        if judge is None:
            return f"cannot check constraint {number}: builtin {con.name} (line {con.line})"
        try:
            holds = judge(env, *con.args)
        except _Undefined:
            holds = False
        except _Unknown as why:
            return f"cannot check constraint {number} ({con.name}, line {con.line}): {why}"
        except TypeError:
            return (f"cannot check constraint {number} ({con.name}, line {con.line}): "
                    f"{len(con.args)} arguments")
        if not holds:
            return f"constraint {number} ({con.name}, line {con.line}) is violated"
    return None


def _outside(var: fz.Variable, value: int) -> str | None:
    if var.type == fz.BOOL:
        return None if value in (0, 1) else "is not a Boolean (0 or 1)"
    if var.value is not None and value != int(var.value):
        return f"but the file fixes it to {var.value}"
    domain = var.domain
    if isinstance(domain, fz.IntRange) and not domain.low <= value <= domain.high:
        return f"is outside {domain.low}..{domain.high}"
    if isinstance(domain, tuple) and value not in domain:
        return "is outside its domain"
    return None


# ----- the builtins ----------------------------------------------------------------------
def _with_reif(table: dict, name: str, holds) -> None:
    """``name`` and its ``_reif`` (r <-> holds) and ``_imp`` (r -> holds) forms."""
    table[name] = holds
    table[f"{name}_reif"] = lambda e, *args: bool(e.scalar(args[-1])) == holds(e, *args[:-1])
    table[f"{name}_imp"] = lambda e, *args: not e.scalar(args[-1]) or holds(e, *args[:-1])


def _div(a: int, b: int) -> int:
    if b == 0:
        raise _Undefined
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


def _pow(a: int, b: int) -> int:
    if b < 0:
        raise _Undefined
    return a ** b


def _element(e: _Values, i, array, c) -> bool:
    items, index = e.array(array), e.scalar(i)
    if not 1 <= index <= len(items):
        return False
    return items[index - 1] == e.scalar(c)


def _table(e: _Values, xs, rows) -> bool:
    row, flat_rows = tuple(e.array(xs)), e.array(rows)
    width = len(row)
    if not width:
        return True
    return any(tuple(flat_rows[k:k + width]) == row for k in range(0, len(flat_rows), width))


def _dot(e: _Values, coefficients, xs) -> int:
    return sum(a * x for a, x in zip(e.array(coefficients), e.array(xs), strict=True))


_BUILTINS: dict = {}
for _op, _rel in _RELATIONS.items():
    _with_reif(_BUILTINS, f"int_{_op}", lambda e, a, b, rel=_rel: rel(e.scalar(a), e.scalar(b)))
    _with_reif(_BUILTINS, f"int_lin_{_op}",
               lambda e, cs, xs, c, rel=_rel: rel(_dot(e, cs, xs), e.scalar(c)))
    _with_reif(_BUILTINS, f"bool_{_op}",
               lambda e, a, b, rel=_rel: rel(bool(e.scalar(a)), bool(e.scalar(b))))
_with_reif(_BUILTINS, "bool_clause", lambda e, pos, neg: any(e.array(pos))
           or not all(e.array(neg)))
_with_reif(_BUILTINS, "set_in", lambda e, x, s: e.scalar(x) in e.set(s))
_with_reif(_BUILTINS, "array_bool_xor", lambda e, xs: sum(map(bool, e.array(xs))) % 2 == 1)
_BUILTINS.update({
    "bool2int": lambda e, a, b: int(bool(e.scalar(a))) == e.scalar(b),
    "bool_not": lambda e, a, b: bool(e.scalar(a)) != bool(e.scalar(b)),
    "bool_and": lambda e, a, b, r: bool(e.scalar(r)) == (bool(e.scalar(a)) and bool(e.scalar(b))),
    "bool_or": lambda e, a, b, r: bool(e.scalar(r)) == (bool(e.scalar(a)) or bool(e.scalar(b))),
    "bool_xor": lambda e, a, b, *r: (bool(e.scalar(r[0])) if r else True)
    == (bool(e.scalar(a)) != bool(e.scalar(b))),
    "array_bool_and": lambda e, xs, r: bool(e.scalar(r)) == all(e.array(xs)),
    "array_bool_or": lambda e, xs, r: bool(e.scalar(r)) == any(e.array(xs)),
    "int_times": lambda e, a, b, c: e.scalar(a) * e.scalar(b) == e.scalar(c),
    "int_div": lambda e, a, b, c: _div(e.scalar(a), e.scalar(b)) == e.scalar(c),
    "int_mod": lambda e, a, b, c: _mod(e.scalar(a), e.scalar(b)) == e.scalar(c),
    "int_pow": lambda e, a, b, c: _pow(e.scalar(a), e.scalar(b)) == e.scalar(c),
    "int_abs": lambda e, a, b: abs(e.scalar(a)) == e.scalar(b),
    "int_min": lambda e, a, b, c: min(e.scalar(a), e.scalar(b)) == e.scalar(c),
    "int_max": lambda e, a, b, c: max(e.scalar(a), e.scalar(b)) == e.scalar(c),
    "array_int_minimum": lambda e, m, xs: e.scalar(m) == min(e.array(xs)),
    "array_int_maximum": lambda e, m, xs: e.scalar(m) == max(e.array(xs)),
    "array_int_element": _element,
    "array_var_int_element": _element,
    "array_bool_element": _element,
    "array_var_bool_element": _element,
    "fzn_all_different_int": lambda e, xs: len(set(e.array(xs))) == len(e.array(xs)),
    "fzn_table_int": _table,
})
for _name in ("bool_and", "bool_or", "bool_xor"):       # r -> (a op b)
    _BUILTINS[f"{_name}_imp"] = lambda e, a, b, r, op=_BUILTINS[_name]: (
        not e.scalar(r) or op(e, a, b, True))

register_rules("minizinc", check_minizinc)
