"""Relations: ReifiedLinear, Clause, Element and Arith in the general path.

Each of these kinds is read once (``reified``, ``element``, ``arith``) into
a ``Relation``: its distinct variables, a plain test of its meaning over
their values (the one reading of every corner case: a literal outside 0/1,
an index past the array, a zero divisor), the unary facts it states (a
literal is 0/1, an index lies within the array), and optionally a rule of
its own that prunes more.

The ``fast`` variant revises a relation with its rule, then forward checks
it: with every variable fixed the test decides, with one left open that
variable keeps the values the test accepts. Ending on the forward check is
what keeps counts exact: when the reviser returns with every variable fixed,
the test has passed on exactly those values. A relation over one variable
filters the base domain once instead. The ``seed`` variant runs the test when
a relation's last variable is placed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True, eq=False)
class Relation:
    """One constraint of the integer core, read for the general path.

    ``holds(values)`` takes one value per entry of ``vars`` (distinct
    variables, in the constraint's order); ``unary`` lists ``(var, allowed)``
    facts for the base domains; ``rule(base, shape)``, if any, builds a
    reviser that prunes ahead of the forward check.
    """
    kind: str
    vars: tuple[int, ...]
    holds: Callable[[list], bool]
    unary: tuple[tuple[int, Callable[[int], bool]], ...] = ()
    rule: Callable | None = None


def distinct(variables) -> tuple[tuple[int, ...], dict[int, int]]:
    """The variables once each, in order, and each one's position among them."""
    vs = tuple(dict.fromkeys(variables))
    return vs, {v: i for i, v in enumerate(vs)}


def boolean(x: int) -> bool:
    return x in (0, 1)


def narrowings(rel: Relation) -> list[tuple[int, Callable[[int], bool]]]:
    """What ``rel`` says of single variables: its unary facts, and the whole test
    when it has one variable."""
    out = list(rel.unary)
    if len(rel.vars) == 1:
        holds = rel.holds
        out.append((rel.vars[0], lambda x: holds([x])))
    return out


def bit_of(shape, value: int) -> int:
    """The bit of ``value``, or 0 when no domain holds it."""
    k = shape.vidx.get(value)
    return 0 if k is None else 1 << k


def low_high(d: int, values) -> tuple[int, int]:
    """The least and greatest value of a non-empty domain."""
    return values[(d & -d).bit_length() - 1], values[d.bit_length() - 1]


def keep(doms, changed, v: int, mask: int) -> int:
    """Narrow ``v`` to ``mask``: -1 on a wipe-out, 1 when it shrank, else 0."""
    d = doms[v]
    nd = d & mask
    if nd == d:
        return 0
    if not nd:
        return -1
    doms[v] = nd
    changed.append(v)
    return 1


def forward_reviser(rel: Relation, values):
    """Check with every variable fixed; with one open, keep the values that pass."""
    vs, holds = rel.vars, rel.holds
    n = len(vs)

    def revise(doms, changed) -> bool:
        open_ = -1
        vals = [0] * n
        for i, v in enumerate(vs):
            d = doms[v]
            if d & (d - 1):
                if open_ >= 0:
                    return True            # two open: nothing to say yet
                open_ = i
            else:
                vals[i] = values[d.bit_length() - 1]
        if open_ < 0:
            return holds(vals)
        v = vs[open_]
        d = doms[v]
        nd, rest = 0, d
        while rest:
            b = rest & -rest
            rest ^= b
            vals[open_] = values[b.bit_length() - 1]
            if holds(vals):
                nd |= b
        return keep(doms, changed, v, nd) >= 0
    return revise


def propagator(rel: Relation, base, shape):
    """The reviser of a relation over two or more variables: its rule (if any)
    and the forward check, again while the forward check narrows something."""
    check = forward_reviser(rel, shape.values)
    if rel.rule is None:
        return check
    rule = rel.rule(base, shape)

    def revise(doms, changed) -> bool:
        while True:
            if not rule(doms, changed):
                return False
            before = len(changed)
            if not check(doms, changed):
                return False
            if len(changed) == before:
                return True
    return revise
