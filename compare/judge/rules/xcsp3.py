"""XCSP3 instances: every constraint as the file states it, on the instance's own variables.

This reads the parsed instance (``puzzle.instance``: names, domains and the
constraints as plain data) and evaluates each constraint on the answer, one
value at a time, with the XCSP3 semantics written out here. It never looks at
the model nor at the code that translates the instance into one, so a wrong
decomposition shows up as a rejected answer. Integer division and remainder
truncate toward zero, as in the XCSP3 reference tools.
"""
from __future__ import annotations

from itertools import pairwise

from compare.judge.rulebook import register_rules, values_of

_RELATIONS = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
              "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
              "ge": lambda a, b: a >= b, "gt": lambda a, b: a > b}


class _Undefined(Exception):
    """An expression without a value (division by zero): its constraint fails."""


class _Unknown(Exception):
    """A form or operator this judge does not know."""


def check_xcsp3(puzzle, answer) -> str | None:
    inst = puzzle.instance
    names = inst.variables
    values = values_of(answer, len(names), "variables", lambda i: names[i])
    if isinstance(values, str):
        return values
    for name, value, domain in zip(names, values, inst.domains):
        if value not in domain:
            return f"{name} = {value} is outside its domain"
    for number, con in enumerate(inst.constraints, 1):
        if con[0] == "precedence" and con[2] is None:
            union = {v for t in con[1] if not isinstance(t, int) for v in inst.domains[t[1]]}
            con = (*con[:2], tuple(sorted(union)), *con[3:])
        judge = _FORMS.get(con[0])
        if judge is None:
            return f"cannot check constraint {number}: form {con[0]} ({con[1:2]})"
        try:
            holds = judge(values, *con[1:])
        except _Undefined:
            holds = False
        except _Unknown as why:
            return f"cannot check constraint {number}: {why}"
        if not holds:
            return f"constraint {number} ({con[0]}{_scope_text(con, names)}) is violated"
    return None


def _scope_text(con, names, most: int = 4) -> str:
    found: list[int] = []

    def walk(node):
        if isinstance(node, tuple):
            if len(node) == 2 and node[0] == "var" and isinstance(node[1], int):
                if node[1] not in found:
                    found.append(node[1])
                return
            for child in node:
                walk(child)
    walk(con[1:])
    shown = ", ".join(names[v] for v in found[:most])
    return f" over {shown}{', ...' if len(found) > most else ''}" if found else ""


# ----- expressions -----------------------------------------------------------------------
def value(node, values) -> int:
    if isinstance(node, int):
        return node
    op = node[0]
    if op == "var":
        return values[node[1]]
    if op in ("in", "notin"):
        x = value(node[1], values)
        return int(_member(x, node[2], values) == (op == "in"))
    if op == "if":
        return value(node[2] if value(node[1], values) else node[3], values)
    args = [value(c, values) for c in node[1:]]
    if op in _SCALAR:
        return int(_SCALAR[op](args))
    raise _Unknown(f"operator {op!r}")


def _member(x: int, operand, values) -> bool:
    kind, *spec = operand
    if kind == "range":
        return spec[0] <= x <= spec[1]
    return x in {value(s, values) for s in spec}


def _div(a: int, b: int) -> int:
    if b == 0:
        raise _Undefined
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int:
    return a - _div(a, b) * b


def _pow(a: int, b: int) -> int:
    """Integer powers only: a negative exponent has no integer value, like a zero divisor."""
    if b < 0:
        raise _Undefined
    return a ** b


def _product(args) -> int:
    out = 1
    for a in args:
        out *= a
    return out


def _ne(args) -> bool:
    if len(args) != 2:
        raise _Unknown("ne with more than two operands")
    return args[0] != args[1]


_SCALAR = {
    "neg": lambda a: -a[0], "abs": lambda a: abs(a[0]), "sqr": lambda a: a[0] * a[0],
    "not": lambda a: not a[0], "add": sum, "sub": lambda a: a[0] - a[1],
    "mul": _product, "div": lambda a: _div(*a), "mod": lambda a: _mod(*a),
    "pow": lambda a: _pow(*a), "dist": lambda a: abs(a[0] - a[1]),
    "min": min, "max": max,
    "eq": lambda a: all(x == y for x, y in pairwise(a)), "ne": _ne,
    "lt": lambda a: all(x < y for x, y in pairwise(a)),
    "le": lambda a: all(x <= y for x, y in pairwise(a)),
    "ge": lambda a: all(x >= y for x, y in pairwise(a)),
    "gt": lambda a: all(x > y for x, y in pairwise(a)),
    "and": lambda a: all(a), "or": lambda a: any(a),
    "xor": lambda a: sum(1 for x in a if x) % 2 == 1,
    "iff": lambda a: len({bool(x) for x in a}) == 1,
    "imp": lambda a: (not a[0]) or bool(a[1]),
}


def _holds(x: int, cond, values) -> bool:
    op, operand = cond
    if op in _RELATIONS:
        return _RELATIONS[op](x, value(operand, values))
    inside = _member(x, operand, values)
    return inside if op == "in" else not inside


# ----- the forms -------------------------------------------------------------------------
def _intension(values, tree) -> bool:
    return bool(value(tree, values))


def _extension(values, scope, rows, positive) -> bool:
    row = [value(t, values) for t in scope]
    match = any(all(r is None or r == v for r, v in zip(candidate, row)) for candidate in rows)
    return match == positive


def _all_different(values, terms, excepting) -> bool:
    seen = [value(t, values) for t in terms]
    kept = [v for v in seen if v not in set(excepting)]
    return len(kept) == len(set(kept))


def _all_different_matrix(values, matrix, excepting) -> bool:
    return (all(_all_different(values, row, excepting) for row in matrix)
            and all(_all_different(values, col, excepting) for col in zip(*matrix)))


def _all_different_lists(values, lists, excepting) -> bool:
    rows = [tuple(value(t, values) for t in row) for row in lists]
    kept = [r for r in rows if r not in {tuple(e) for e in excepting}]
    return len(kept) == len(set(kept))


def _all_equal(values, terms, excepting) -> bool:
    kept = {value(t, values) for t in terms} - set(excepting)
    return len(kept) <= 1


def _instantiation(values, terms, wanted) -> bool:
    return all(value(t, values) == w for t, w in zip(terms, wanted))


def _sum(values, terms, coeffs, cond) -> bool:
    weights = [1] * len(terms) if coeffs is None else [value(c, values) for c in coeffs]
    total = sum(w * value(t, values) for w, t in zip(weights, terms))
    return _holds(total, cond, values)


def _count(values, terms, targets, cond) -> bool:
    wanted = {value(t, values) for t in targets}
    return _holds(sum(1 for t in terms if value(t, values) in wanted), cond, values)


def _n_values(values, terms, excepting, cond) -> bool:
    distinct = {value(t, values) for t in terms} - set(excepting)
    return _holds(len(distinct), cond, values)


def _cardinality(values, terms, targets, occurs, closed) -> bool:
    seen = [value(t, values) for t in terms]
    wanted = [value(t, values) for t in targets]
    if closed and any(v not in wanted for v in seen):
        return False
    for target, occ in zip(wanted, occurs):
        n = seen.count(target)
        if isinstance(occ, tuple) and occ[0] == "range":
            if not occ[1] <= n <= occ[2]:
                return False
        elif n != value(occ, values):
            return False
    return True


def _minimum(values, terms, cond) -> bool:
    return _holds(min(value(t, values) for t in terms), cond, values)


def _maximum(values, terms, cond) -> bool:
    return _holds(max(value(t, values) for t in terms), cond, values)


def _element(values, terms, index, cond) -> bool:
    i = value(index, values)
    return 0 <= i < len(terms) and _holds(value(terms[i], values), cond, values)


def _element_matrix(values, matrix, i, j, cond) -> bool:
    a, b = value(i, values), value(j, values)
    if not (0 <= a < len(matrix) and 0 <= b < len(matrix[a])):
        return False
    return _holds(value(matrix[a][b], values), cond, values)


def _channel(values, first, second) -> bool:
    xs = [value(t, values) for t in first]
    ys = xs if second is None else [value(t, values) for t in second]
    if any(not 0 <= x < len(ys) for x in xs):
        return False
    if len(xs) == len(ys):
        return all(0 <= y < len(xs) and xs[y] == j for j, y in enumerate(ys)) and \
            all(ys[x] == i for i, x in enumerate(xs))
    return all(ys[x] == i for i, x in enumerate(xs))


def _channel_value(values, terms, index) -> bool:
    v = value(index, values)
    xs = [value(t, values) for t in terms]
    return 0 <= v < len(xs) and all((x == 1) == (i == v) for i, x in enumerate(xs))


_ORDER = {"INCREASING": "le", "STRICTLY_INCREASING": "lt", "DECREASING": "ge",
          "STRICTLY_DECREASING": "gt"}


def _ordered(values, terms, operator, lengths) -> bool:
    xs = [value(t, values) for t in terms]
    gaps = [0] * len(xs) if lengths is None else [value(g, values) for g in lengths]
    test = _RELATIONS[_ORDER[operator]]
    return all(test(xs[k] + gaps[k], xs[k + 1]) for k in range(len(xs) - 1))


def _lex(values, lists, operator) -> bool:
    rows = [[value(t, values) for t in row] for row in lists]
    test = _RELATIONS[_ORDER[operator]]
    return all(test(a, b) for a, b in pairwise(rows))     # Python compares lists by lex


def _lex_matrix(values, matrix, operator) -> bool:
    return _lex(values, matrix, operator) and _lex(values, list(zip(*matrix)), operator)


def _precedence(values, terms, targets, covered) -> bool:
    """Without listed values, the values are those of the scope's domains, in order
    (``check_xcsp3`` fills them in)."""
    xs = [value(t, values) for t in terms]
    first: dict[int, int] = {}
    for k, x in enumerate(xs):
        first.setdefault(x, k)
    for s, t in pairwise(targets):
        if t in first and (s not in first or first[s] > first[t]):
            return False
    return not covered or all(v in first for v in targets)


def _regular(values, terms, transitions, start, finals) -> bool:
    moves: dict = {}
    for a, v, b in transitions:
        moves.setdefault((a, v), set()).add(b)
    states = {start}
    for t in terms:
        x = value(t, values)
        states = {b for a in states for b in moves.get((a, x), ())}
    return bool(states & set(finals))


def _unsupported(values, name) -> bool:
    raise _Unknown(f"form {name}")


_FORMS = {
    "intension": _intension, "extension": _extension, "allDifferent": _all_different,
    "allDifferentMatrix": _all_different_matrix, "allDifferentLists": _all_different_lists,
    "allEqual": _all_equal, "instantiation": _instantiation, "sum": _sum, "count": _count,
    "nValues": _n_values, "cardinality": _cardinality, "minimum": _minimum,
    "maximum": _maximum, "element": _element, "elementMatrix": _element_matrix,
    "channel": _channel, "channelValue": _channel_value, "ordered": _ordered, "lex": _lex,
    "lexMatrix": _lex_matrix, "precedence": _precedence, "regular": _regular,
    "unsupported": _unsupported,
}

register_rules("xcsp3", check_xcsp3)
