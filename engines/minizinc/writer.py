"""A model (``puzzles.model``) written as MiniZinc text, every constraint kind exactly.

Variable ``i`` of the model is ``x{i}``, declared with its base domain (a range
when the values are consecutive, else a set); each given is an equality. Each
kind is written so that the MiniZinc model has exactly the model's solutions
(docs/kinds.md, "Constraint kinds of the model"):

* ``AllDifferent``: ``alldifferent([...])``;
* ``Linear``: ``c1*xa + c2*xb ... op rhs``;
* ``NotEqualOffset``: ``x != y + c``;
* ``Table``: ``table([...], array2d(1..m, 1..k, [...]))``;
* ``ReifiedLinear``: ``(xL == 1) <-> (linear)``, ``->`` when implied, with the
  literal kept to 0..1 (a literal outside 0/1 breaks the constraint);
* ``Clause``: ``(xa == 1) \\/ (xb == 0) ...`` with every variable kept to 0..1
  (``false`` when there is no literal);
* ``Element``: the index kept to ``base .. base + k - 1`` stated apart, then
  ``value = [vars][index - base + 1]``: an index out of range fails the
  constraint, whatever the compiler makes of an undefined access;
* ``AllDifferentList``: per pair of lists, ``(a1 != b1) \\/ (a2 != b2) ...``;
* ``Arith``: ``*``, ``div``, ``mod``, ``pow``, ``abs``, ``min``, ``max``; a zero
  divisor and a negative exponent are excluded apart (``div`` and ``mod`` are
  MiniZinc's, truncating toward zero, the model's reading).

The solve item carries ``int_search(x0..x{n-1}, input_order, indomain_min,
complete)``: a solver that follows it finds the lexicographically first
solution first; the engine drops it where the solver's own search is wanted.
The output item prints every variable's value, in model order, as one list.
"""
from __future__ import annotations

from puzzles.model import (
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
)

INCLUDES = ('include "alldifferent.mzn";', 'include "table.mzn";')
ARITH_INFIX = {"times": "*", "div": "div", "mod": "mod"}


def name(var: int) -> str:
    return f"x{var}"


def domain_text(values) -> str:
    """``lo..hi`` for consecutive values, else ``{a, b, ...}`` (``{}`` for none)."""
    values = sorted(set(values))
    if values and values[-1] - values[0] + 1 == len(values):
        return f"{values[0]}..{values[-1]}"
    return "{" + ", ".join(map(str, values)) + "}"


def _term(coeff: int, var: int) -> str:
    return f"{coeff}*{name(var)}" if coeff >= 0 else f"({coeff})*{name(var)}"


def linear_text(coeffs, vars_, op: str, rhs: int) -> str:
    total = " + ".join(_term(c, v) for c, v in zip(coeffs, vars_)) or "0"
    if op not in ("==", "!=", "<=", ">="):
        raise ValueError(f"Linear with unknown operator {op!r}")
    return f"{total} {op} {rhs}"


def _array(vars_) -> str:
    return "[" + ", ".join(name(v) for v in vars_) + "]"


def _boolean(var: int) -> str:
    return f"{name(var)} in 0..1"


def constraint_text(con) -> str:
    """One constraint of the model as a MiniZinc Boolean expression."""
    if isinstance(con, AllDifferent):
        return f"alldifferent({_array(con.vars)})" if len(con.vars) > 1 else "true"
    if isinstance(con, Linear):
        return linear_text(con.coeffs, con.vars, con.op, con.rhs)
    if isinstance(con, NotEqualOffset):
        return f"{name(con.x)} != {name(con.y)} + ({con.c})"
    if isinstance(con, Table):
        return _table(con)
    if isinstance(con, ReifiedLinear):
        arrow = "->" if con.implied else "<->"
        inner = linear_text(con.coeffs, con.vars, con.op, con.rhs)
        return f"{_boolean(con.literal)} /\\ (({name(con.literal)} == 1) {arrow} ({inner}))"
    if isinstance(con, Clause):
        literals = ([f"{name(v)} == 1" for v in con.positive]
                    + [f"{name(v)} == 0" for v in con.negative])
        ranges = [_boolean(v) for v in dict.fromkeys((*con.positive, *con.negative))]
        return " /\\ ".join([*ranges, "(" + (" \\/ ".join(literals) or "false") + ")"])
    if isinstance(con, Element):
        k = len(con.vars)
        if k == 0:
            return "false"
        index = name(con.index)
        return (f"{index} in {con.base}..{con.base + k - 1} /\\ {name(con.value)} = "
                f"{_array(con.vars)}[{index} - ({con.base}) + 1]")
    if isinstance(con, Arith):
        return _arith(con)
    if isinstance(con, AllDifferentList):
        pairs = [" \\/ ".join(f"{name(a)} != {name(b)}" for a, b in zip(one, other)) or "false"
                 for i, one in enumerate(con.lists) for other in con.lists[i + 1:]]
        return " /\\ ".join(f"({p})" for p in pairs) or "true"
    raise ValueError(f"no MiniZinc form for constraint kind {type(con).__name__}")


def _table(con: Table) -> str:
    if not con.vars:
        return "true" if () in con.tuples else "false"
    rows = [row for row in con.tuples if len(row) == len(con.vars)]
    flat = ", ".join(str(value) for row in rows for value in row)
    return (f"table({_array(con.vars)}, array2d(1..{len(rows)}, 1..{len(con.vars)}, "
            f"[{flat}]))")


def _arith(con: Arith) -> str:
    result = name(con.result)
    args = [name(v) for v in con.args]
    if con.op in ARITH_INFIX:
        a, b = args
        guard = f"{b} != 0 /\\ " if con.op in ("div", "mod") else ""
        return f"{guard}{result} = {a} {ARITH_INFIX[con.op]} {b}"
    if con.op == "pow":
        a, b = args
        return f"{b} >= 0 /\\ {result} = pow({a}, {b})"
    if con.op == "abs":
        return f"{result} = abs({args[0]})"
    if con.op in ("min", "max"):
        return f"{result} = {con.op}([{', '.join(args)}])"
    raise ValueError(f"Arith with unknown operation {con.op!r}")


def write(model: Model) -> str:
    """The whole MiniZinc model of ``model``: includes, variables, givens, constraints,
    the solve item and the output item."""
    structure = model.structure
    n = structure.size
    lines = [*INCLUDES, f"% {model.name or structure.key}: {n} variables"]
    lines += [f"var {domain_text(d)}: {name(i)};" for i, d in enumerate(structure.domains)]
    lines += [f"constraint {name(v)} = {value};" for v, value in model.givens]
    lines += [f"constraint {constraint_text(c)};" for c in structure.constraints]
    everything = _array(range(n))
    lines.append(f"solve :: int_search({everything}, input_order, indomain_min, complete) "
                 "satisfy;" if n else "solve satisfy;")
    lines.append(f"output [show({everything}), \"\\n\"];")
    return "\n".join(lines) + "\n"


def read_values(line: str, size: int) -> tuple[int, ...]:
    """One solution as the output item prints it (``[3, -1, 0]``), checked for ``size``
    values."""
    text = line.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"not a solution line: {line[:80]!r}")
    inner = text[1:-1].strip()
    values = tuple(int(v) for v in inner.split(",")) if inner else ()
    if len(values) != size:
        raise ValueError(f"a solution of {len(values)} values for {size} variables")
    return values
