"""Linear constraints ``sum(a_i * x_i) op rhs`` in the general path.

One kind, several revisers, because the rule worth its cost depends on the
sum's shape:

* ``==``, ``<=``, ``>=``: bounds propagation, each term kept within what the
  others' bounds leave, to a fixpoint within the constraint;
* ``!=``: nothing until one variable is left open, then the one value it
  forbids goes;
* a sum of 0/1 variables with unit coefficients (the one-hot exact cover) is
  counted instead: enough ones fix the rest to 0, too few places left fix
  them to 1, which bounds reach only one sweep at a time;
* ``x - y == c`` over consecutive integer values is a shift of one domain's
  bits into the other's: full arc consistency for two operations;
* any other two-variable Linear over small domains becomes a table of its
  allowed pairs (see ``table``), so holes in one domain reach the other,
  which bounds alone would miss;
* a one-variable Linear filters the base domain once.

The ``seed`` variant propagates nothing; it asks ``feasible`` whether the
assigned terms plus the open terms' base bounds can still meet the operator.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right

from engines.backtracking.python.general import table
from puzzles.model import OPERATORS, Linear, Table

PAIR_TABLE_MAX = 4096      # a binary Linear becomes a Table up to this many pairs


def narrow(shape, con: Linear) -> int:
    """The base-domain bits a one-variable Linear allows."""
    a, holds, rhs = con.coeffs[0], OPERATORS[con.op], con.rhs
    return shape.bits_where(con.vars[0], lambda x: holds(a * x, rhs))


def feasible(op: str, rhs: int, lo: int, hi: int) -> bool:
    """Can some total in ``lo..hi`` meet ``op rhs``?"""
    if op == "==":
        return lo <= rhs <= hi
    if op == "<=":
        return lo <= rhs
    if op == ">=":
        return hi >= rhs
    return not lo == hi == rhs


def propagator(con: Linear, base, shape):
    """The reviser for a Linear over two or more variables, ``base`` being the
    domains after one-variable constraints."""
    values = shape.values
    c = _shift(con, values)
    if c is not None:
        return _shift_reviser(*con.vars, c)
    if len(con.vars) == 2 and \
            base[con.vars[0]].bit_count() * base[con.vars[1]].bit_count() <= PAIR_TABLE_MAX:
        return table.propagator(_pairs(con, base, values), shape)
    if _is_count(con, values, base):
        return _count_reviser(con, shape.vidx)
    if con.op == "!=":
        return _not_equal_reviser(tuple(zip(con.vars, con.coeffs)), con.rhs, values)
    return _bounds_reviser(con, values)


def _indices(d: int) -> list[int]:
    out = []
    while d:
        b = d & -d
        out.append(b.bit_length() - 1)
        d ^= b
    return out


def _pairs(con: Linear, base, values) -> Table:
    (x, y), (a, b) = con.vars, con.coeffs
    holds = OPERATORS[con.op]
    xs = [values[k] for k in _indices(base[x])]
    ys = [values[k] for k in _indices(base[y])]
    return Table((x, y), tuple((p, q) for p in xs for q in ys
                               if holds(a * p + b * q, con.rhs)))


def _shift(con: Linear, values) -> int | None:
    """``c`` when ``con`` says ``x - y == c`` and the values are consecutive integers."""
    if con.op != "==" or len(con.vars) != 2 or sorted(con.coeffs) != [-1, 1]:
        return None
    if values[-1] - values[0] != len(values) - 1:
        return None
    return con.rhs if con.coeffs[0] == 1 else -con.rhs


def _shift_reviser(x: int, y: int, c: int):
    """``x == y + c`` over consecutive values: value index ``k`` of y is ``k + c`` of x."""
    def revise(doms, changed) -> bool:
        dx, dy = doms[x], doms[y]
        ny = dy & (dx >> c if c >= 0 else dx << -c)
        if not ny:
            return False
        return table.store_pair(doms, changed, x, dx,
                                dx & (ny << c if c >= 0 else ny >> -c), y, dy, ny)
    return revise


def _is_count(con: Linear, values, base) -> bool:
    """A sum of 0/1 variables with one coefficient of +-1 (one-hot rows and columns)."""
    if con.op == "!=" or len(set(con.coeffs)) != 1 or abs(con.coeffs[0]) != 1:
        return False
    binary = {k for k, x in enumerate(values) if x in (0, 1)}
    return all(not set(_indices(base[v])) - binary for v in con.vars)


def _count_reviser(con: Linear, vidx):
    """``#ones op r`` over 0/1 variables: fix the undecided ones when the count is tight."""
    sign = con.coeffs[0]
    r, op, vars_ = con.rhs * sign, con.op, con.vars
    if sign < 0 and op != "==":
        op = "<=" if op == ">=" else ">="
    zero = 1 << vidx[0] if 0 in vidx else 0
    one = 1 << vidx[1] if 1 in vidx else 0
    low_ok, high_ok = op in ("==", ">="), op in ("==", "<=")

    def revise(doms, changed) -> bool:
        ones = 0
        free = []
        for v in vars_:
            d = doms[v]
            if d == one:
                ones += 1
            elif d != zero:
                free.append(v)
        if high_ok and ones > r or low_ok and ones + len(free) < r:
            return False
        if free:
            if high_ok and ones == r:
                fill = zero
            elif low_ok and ones + len(free) == r:
                fill = one
            else:
                return True
            for v in free:
                doms[v] = fill
            changed.extend(free)
        return True
    return revise


def _bounds_reviser(con: Linear, values):
    """Bounds propagation for ``==``, ``<=`` and ``>=``."""
    terms, op, rhs = tuple(zip(con.vars, con.coeffs)), con.op, con.rhs
    use_low, use_high = op in ("==", "<="), op in ("==", ">=")

    def revise(doms, changed) -> bool:
        while True:
            lo = hi = span = 0
            ends = []
            for v, a in terms:
                d = doms[v]
                if a > 0:
                    t0, t1 = a * values[(d & -d).bit_length() - 1], a * values[d.bit_length() - 1]
                else:
                    t0, t1 = a * values[d.bit_length() - 1], a * values[(d & -d).bit_length() - 1]
                ends.append((t0, t1))
                lo += t0
                hi += t1
                if t1 - t0 > span:
                    span = t1 - t0
            room_up = rhs - lo if use_low else span      # how far a term may rise over its low end
            room_down = hi - rhs if use_high else span   # and sink under its high end
            if room_up < 0 or room_down < 0:
                return False
            if span <= room_up and span <= room_down:
                return True                  # every term fits anywhere in its bounds
            moved = False
            for (v, a), (t0, t1) in zip(terms, ends):
                top, bottom = t0 + room_up, t1 - room_down     # a*x stays within these
                if bottom <= t0 and top >= t1:
                    continue
                if a > 0:
                    xl, xu = -(-bottom // a), top // a
                else:
                    xl, xu = -(-top // a), bottom // a
                kl, ku = bisect_left(values, xl), bisect_right(values, xu)
                if ku <= kl:
                    return False               # no whole value between the bounds
                d = doms[v]
                nd = d & ((1 << ku) - (1 << kl))
                if nd != d:
                    if not nd:
                        return False
                    doms[v] = nd
                    changed.append(v)
                    moved = True
            if not moved:
                return True
    return revise


def _not_equal_reviser(terms, rhs: int, values):
    """``!=`` waits for its last open variable, then removes the one value left forbidden."""
    def revise(doms, changed) -> bool:
        total, open_ = 0, None
        for v, a in terms:
            d = doms[v]
            if d & (d - 1):
                if open_ is not None:
                    return True            # two open: nothing to say yet
                open_ = (v, a)
            else:
                total += a * values[d.bit_length() - 1]
        if open_ is None:
            return total != rhs
        v, a = open_
        x, rem = divmod(rhs - total, a)
        if rem:
            return True
        k = bisect_left(values, x)
        if k < len(values) and values[k] == x and doms[v] >> k & 1:
            doms[v] ^= 1 << k
            changed.append(v)              # never empties: the domain was open
        return True
    return revise
