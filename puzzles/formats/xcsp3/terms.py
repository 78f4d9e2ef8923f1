"""Expression trees of the XCSP3 translation: linear forms, scopes, and every
combination of a scope's values evaluated at once (numpy).

A tree is an int, ``("var", index)`` or ``(operator, *children)``, as
``puzzles.formats.xcsp3.reader`` records it.
"""
from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

FLIP = {"lt": "gt", "le": "ge", "ge": "le", "gt": "lt", "eq": "eq", "ne": "ne"}


class Untranslatable(Exception):
    """A form with no exact translation here; the message names it."""


def comparison(op: str, left, right):
    if op in FLIP:
        return (op, left, right)
    return (op, left, right)      # in / notin with a range or set operand


def pairs(terms):
    return [(a, b) for i, a in enumerate(terms) for b in terms[i + 1:]]


def product(choices):
    cols = grid([sorted(c) for c in choices])
    return map(tuple, np.column_stack(cols).tolist())


def scope_of(tree) -> list[int]:
    found: dict[int, None] = {}

    def walk(node):
        if isinstance(node, int):
            return
        if node[0] == "var":
            found[node[1]] = None
            return
        for child in node[1:]:
            walk(child)
    walk(tree)
    return list(found)


def grid(domains) -> list[np.ndarray]:
    arrays = np.meshgrid(*[np.asarray(d, np.int64) for d in domains], indexing="ij")
    return [a.ravel() for a in arrays]


def evaluate_all(domains, tree, scope):
    """Every combination of the scope's values, the tree's value on each, and where
    it is defined (no division by zero)."""
    cols = grid([domains[v] for v in scope])
    size = len(cols[0]) if cols else 1
    env = dict(zip(scope, cols))
    ok = np.ones(size, bool)
    value = np.broadcast_to(_vector(tree, env, ok), (size,)).astype(np.int64)
    return cols, value, ok


def _vector(node, env, ok):
    """The tree's value on arrays; Booleans are 0/1; ``ok`` is cleared where undefined."""
    if isinstance(node, int):
        return np.int64(node)
    op = node[0]
    if op == "var":
        return env[node[1]]
    if op in ("in", "notin"):
        x = _vector(node[1], env, ok)
        kind, *spec = node[2]
        if kind == "range":
            hit = (x >= spec[0]) & (x <= spec[1])
        else:
            hit = np.isin(x, [s for s in spec])
        return (hit if op == "in" else ~hit).astype(np.int64)
    args = [_vector(c, env, ok) for c in node[1:]]
    if op in _UNARY:
        return _UNARY[op](args[0])
    if op in ("div", "mod"):
        a, b = args
        zero = b == 0
        ok &= ~np.broadcast_to(zero, ok.shape)
        safe = np.where(zero, 1, b)
        q = np.trunc(a / safe).astype(np.int64)     # truncation toward zero
        return q if op == "div" else a - q * safe
    if op == "pow":              # integer powers: a negative exponent is undefined
        base, exponent = args[0], args[1]
        negative = exponent < 0
        ok &= ~np.broadcast_to(negative, ok.shape)
        out = np.power(base, np.where(negative, 0, exponent))
        for extra in args[2:]:   # pow(a, b, c) as ((a^b)^c), each step an integer power
            negative = extra < 0
            ok &= ~np.broadcast_to(negative, ok.shape)
            out = np.power(out, np.where(negative, 0, extra))
        return out
    if op == "if":
        return np.where(args[0] != 0, args[1], args[2])
    if op in _CHAINS:
        out = np.int64(1)
        for a, b in pairwise(args):
            out = out & _CHAINS[op](a, b)
        return np.asarray(out).astype(np.int64)
    if op in _FOLDS:
        out = args[0]
        for a in args[1:]:
            out = _FOLDS[op](out, a)
        return np.asarray(out).astype(np.int64)
    raise Untranslatable(f"intension operator {op!r} has no exact translation into the model")


_UNARY = {"neg": lambda a: -a, "abs": np.abs, "sqr": lambda a: a * a,
          "not": lambda a: (a == 0).astype(np.int64)}
_CHAINS = {"eq": np.equal, "lt": np.less, "le": np.less_equal, "ge": np.greater_equal,
           "gt": np.greater}
_FOLDS = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
          "sub": np.subtract,
          "dist": lambda a, b: np.abs(a - b),
          "and": lambda a, b: (a != 0) & (b != 0), "or": lambda a, b: (a != 0) | (b != 0),
          "xor": lambda a, b: (a != 0) ^ (b != 0),
          "iff": lambda a, b: (a != 0) == (b != 0),
          "imp": lambda a, b: (a == 0) | (b != 0),
          "ne": np.not_equal}


def holds(a: int, op: str, b: int) -> bool:
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "ge": a >= b,
            "gt": a > b}[op]


def linear_form(tree) -> tuple[dict, int] | None:
    """``(terms, const)`` when ``tree`` is linear in its variables, else None."""
    if isinstance(tree, int):
        return {}, tree
    op = tree[0]
    if op == "var":
        return {tree[1]: 1}, 0
    if op == "neg":
        inner = linear_form(tree[1])
        return None if inner is None else ({v: -a for v, a in inner[0].items()}, -inner[1])
    if op in ("add", "sub"):
        parts = [linear_form(c) for c in tree[1:]]
        if any(p is None for p in parts):
            return None
        terms, const = dict(parts[0][0]), parts[0][1]
        sign = -1 if op == "sub" else 1
        for found, k in parts[1:]:
            const += sign * k
            for v, a in found.items():
                terms[v] = terms.get(v, 0) + sign * a
        return terms, const
    if op == "mul":
        parts = [linear_form(c) for c in tree[1:]]
        if any(p is None for p in parts) or sum(1 for p in parts if p[0]) > 1:
            return None
        factor = math.prod(p[1] for p in parts if not p[0])
        moving = [p for p in parts if p[0]]
        if not moving:
            return {}, factor
        found, k = moving[0]
        return {v: a * factor for v, a in found.items()}, k * factor
    return None


def compared_sides(tree) -> tuple[str, dict, int] | None:
    """``(op, terms, const)`` for a comparison of two linear sides: ``lin op 0``."""
    if isinstance(tree, int) or tree[0] not in FLIP or len(tree) != 3:
        return None
    left, right = linear_form(tree[1]), linear_form(tree[2])
    if left is None or right is None:
        return None
    terms = dict(left[0])
    for v, a in right[0].items():
        terms[v] = terms.get(v, 0) - a
    return tree[0], {v: a for v, a in terms.items() if a}, left[1] - right[1]


def shown(tree, most: int = 60) -> str:
    def text(node):
        if isinstance(node, int):
            return str(node)
        if node[0] == "var":
            return f"x{node[1]}"
        return f"{node[0]}({','.join(text(c) for c in node[1:])})"
    shown = text(tree)
    return shown if len(shown) <= most else shown[:most] + "..."
