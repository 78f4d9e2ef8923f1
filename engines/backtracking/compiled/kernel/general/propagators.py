"""The propagation rule of each kind but Table (``table``) and AllDifferent
(``alldifferent``).

Linear (with its reified and implied forms; Clause and NotEqualOffset are
packed as Linear): bounds consistency to a fixpoint, ``!=`` when one term is
open. Element: the index keeps the positions whose variable meets the value's
domain, the value keeps what some such variable can take, and a fixed index
makes the picked variable and the value equal. Arith and AllDifferentList:
forward checking (each is checked once every variable is fixed, and the last
open one keeps the values that pass). Each returns False on a wipe-out.

Hot loops trade style for speed: arrays by slot, no objects.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel.common import njit
from engines.backtracking.compiled.kernel.general.domain import (
    has,
    hi,
    index_of,
    keep_values,
    lo,
    next_in,
    remove,
    size,
    value,
)
from engines.backtracking.compiled.kernel.general.layout import (
    A_ABS,
    A_DIV,
    A_MAX,
    A_MIN,
    A_MOD,
    A_TIMES,
    OP_EQ,
    OP_GE,
    OP_LE,
    OP_NE,
    PDATA,
    TMP,
)

BIG = np.iinfo(np.int64).max
SMALL = np.iinfo(np.int64).min
LIMIT = np.int64(1) << 62       # beyond it a product or power counts as no value


# ----- Linear -------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _sum_bounds(K, M, at, n):
    pd = K[PDATA]
    slo = np.int64(0)
    shi = np.int64(0)
    for i in range(n):
        a, v = pd[at + 2 * i], pd[at + 2 * i + 1]
        x0, x1 = a * value(K, v, lo(K, M, v)), a * value(K, v, hi(K, M, v))
        if x0 <= x1:
            slo += x0
            shi += x1
        else:
            slo += x1
            shi += x0
    return slo, shi


@njit(cache=True, _nrt=False)
def _at_most(K, M, at, n, sign, rhs):
    """sum(sign * a * x) <= rhs by bounds: 0 wipe-out, 1 nothing changed, 2 changed."""
    pd = K[PDATA]
    changed = 1
    while True:
        slo = span = np.int64(0)
        for i in range(n):
            a, v = sign * pd[at + 2 * i], pd[at + 2 * i + 1]
            x0, x1 = a * value(K, v, lo(K, M, v)), a * value(K, v, hi(K, M, v))
            slo += min(x0, x1)
            span = max(span, abs(x1 - x0))
        if slo > rhs:
            return 0
        if rhs - slo >= span:       # every term fits in the slack: nothing to narrow
            return changed
        again = False
        for i in range(n):
            a, v = sign * pd[at + 2 * i], pd[at + 2 * i + 1]
            vmin, vmax = value(K, v, lo(K, M, v)), value(K, v, hi(K, M, v))
            slack = rhs - (slo - min(a * vmin, a * vmax))   # a * x <= slack
            if a > 0:
                ub = slack // a
                if ub < vmax:
                    if not keep_values(K, M, v, SMALL, ub):
                        return 0
                    again = True
            else:
                lb = -((-slack) // a)
                if lb > vmin:
                    if not keep_values(K, M, v, lb, BIG):
                        return 0
                    again = True
        if not again:
            return changed
        changed = 2


@njit(cache=True, _nrt=False)
def _not_equal(K, M, at, n, rhs):
    pd = K[PDATA]
    total = np.int64(0)
    open_i = -1
    for i in range(n):
        v = pd[at + 2 * i + 1]
        if size(K, M, v) == 1:
            total += pd[at + 2 * i] * value(K, v, lo(K, M, v))
        elif open_i >= 0:
            return True
        else:
            open_i = i
    if open_i < 0:
        return total != rhs
    a, v = pd[at + 2 * open_i], pd[at + 2 * open_i + 1]
    rest = rhs - total
    if rest % a == 0:
        k = index_of(K, v, rest // a)
        if k >= 0:
            return remove(K, M, v, k)
    return True


@njit(cache=True, _nrt=False)
def _enforce(K, M, at, n, op, rhs):
    if op == OP_NE:
        return _not_equal(K, M, at, n, rhs)
    if op == OP_LE:
        return _at_most(K, M, at, n, 1, rhs) > 0
    if op == OP_GE:
        return _at_most(K, M, at, n, -1, -rhs) > 0
    while True:                                  # ==: both ways to a common fixpoint
        r1 = _at_most(K, M, at, n, 1, rhs)
        if r1 == 0:
            return False
        r2 = _at_most(K, M, at, n, -1, -rhs)
        if r2 == 0:
            return False
        if r2 == 1:
            return True


@njit(cache=True, _nrt=False)
def linear(K, M, base):
    """[literal or -1, implied, op, rhs, n, (coefficient, variable) * n]."""
    pd = K[PDATA]
    lit, implied, op, rhs, n = pd[base], pd[base + 1], pd[base + 2], pd[base + 3], pd[base + 4]
    at = base + 5
    if lit < 0:
        return _enforce(K, M, at, n, op, rhs)
    while True:
        if size(K, M, lit) == 1:
            if value(K, lit, lo(K, M, lit)) == 1:
                return _enforce(K, M, at, n, op, rhs)
            if implied:
                return True
            if op == OP_EQ:
                return _enforce(K, M, at, n, OP_NE, rhs)
            if op == OP_NE:
                return _enforce(K, M, at, n, OP_EQ, rhs)
            if op == OP_LE:
                return _enforce(K, M, at, n, OP_GE, rhs + 1)
            return _enforce(K, M, at, n, OP_LE, rhs - 1)
        slo, shi = _sum_bounds(K, M, at, n)
        if op == OP_EQ:
            ent, dis = slo == shi == rhs, rhs < slo or rhs > shi
        elif op == OP_NE:
            ent, dis = rhs < slo or rhs > shi, slo == shi == rhs
        elif op == OP_LE:
            ent, dis = shi <= rhs, slo > rhs
        else:
            ent, dis = slo >= rhs, shi < rhs
        if dis:
            k = index_of(K, lit, 1)
            if k >= 0 and not remove(K, M, lit, k):
                return False
        elif ent and not implied:
            k = index_of(K, lit, 0)
            if k >= 0 and not remove(K, M, lit, k):
                return False
        else:
            return True
        if size(K, M, lit) != 1:
            return True


# ----- Element --------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _meets(K, M, a, b):
    """Whether the domains of ``a`` and ``b`` share a value."""
    if size(K, M, a) > size(K, M, b):
        a, b = b, a
    k = lo(K, M, a)
    while k >= 0:
        j = index_of(K, b, value(K, a, k))
        if j >= 0 and has(K, M, b, j):
            return True
        k = next_in(K, M, a, k + 1)
    return False


@njit(cache=True, _nrt=False)
def _within(K, M, a, b):
    """Keep in ``a`` only the values ``b`` has; False on a wipe-out."""
    k = lo(K, M, a)
    while k >= 0:
        j = index_of(K, b, value(K, a, k))
        if j < 0 or not has(K, M, b, j):
            if not remove(K, M, a, k):
                return False
        k = next_in(K, M, a, k + 1)
    return True


@njit(cache=True, _nrt=False)
def element(K, M, base):
    """[index, value, base, n, variables]: value = variables[index - base]."""
    pd = K[PDATA]
    ix, val, b0, n = pd[base], pd[base + 1], pd[base + 2], pd[base + 3]
    xs = base + 4
    k = lo(K, M, ix)
    while k >= 0:
        p = value(K, ix, k) - b0
        if p < 0 or p >= n or not _meets(K, M, pd[xs + p], val):
            if not remove(K, M, ix, k):
                return False
        k = next_in(K, M, ix, k + 1)
    if size(K, M, ix) == 1:
        x = pd[xs + value(K, ix, lo(K, M, ix)) - b0]
        return _within(K, M, val, x) and _within(K, M, x, val)
    k = lo(K, M, val)
    while k >= 0:
        y = value(K, val, k)
        seen = False
        j = lo(K, M, ix)
        while j >= 0 and not seen:
            x = pd[xs + value(K, ix, j) - b0]
            t = index_of(K, x, y)
            seen = t >= 0 and has(K, M, x, t) == 1
            j = next_in(K, M, ix, j + 1)
        if not seen and not remove(K, M, val, k):
            return False
        k = next_in(K, M, val, k + 1)
    return True


# ----- Arith ----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def compute(op, args, nargs):
    """op(args), and whether it has a value (a zero divisor, a negative exponent and
    anything past 2^62 have none)."""
    a = args[0]
    if op == A_ABS:
        return abs(a), True
    if op == A_MIN or op == A_MAX:
        r = a
        for i in range(1, nargs):
            r = min(r, args[i]) if op == A_MIN else max(r, args[i])
        return r, True
    b = args[1]
    if op == A_TIMES:
        if a != 0 and abs(b) > LIMIT // abs(a):
            return 0, False
        return a * b, True
    if op == A_DIV or op == A_MOD:
        if b == 0:
            return 0, False
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return (q, True) if op == A_DIV else (a - b * q, True)
    if b < 0 or (b > 64 and abs(a) > 1):              # A_POW
        return 0, False
    r = np.int64(1)
    for _ in range(b):
        if a != 0 and abs(r) > LIMIT // abs(a):
            return 0, False
        r *= a
    return r, True


@njit(cache=True, _nrt=False)
def _arith_holds(K, M, base, var, x, args):
    """Whether the Arith holds with every variable fixed but ``var``, set to ``x``."""
    pd = K[PDATA]
    op, nargs, res = pd[base], pd[base + 1], pd[base + 2]
    for i in range(nargs):
        u = pd[base + 3 + i]
        args[i] = x if u == var else value(K, u, lo(K, M, u))
    r, ok = compute(op, args, nargs)
    want = x if res == var else value(K, res, lo(K, M, res))
    return ok and r == want


@njit(cache=True, _nrt=False)
def arith(K, M, base):
    """[op, n, result, arguments]: forward checking."""
    pd = K[PDATA]
    nargs, res = pd[base + 1], pd[base + 2]
    open_v = -1
    for i in range(nargs + 1):
        u = pd[base + 2 + i]
        if size(K, M, u) > 1 and u != open_v:
            if open_v >= 0:
                return True
            open_v = u
    args = M[TMP]                 # scratch, at least as long as any Arith's arguments
    if open_v < 0:
        return _arith_holds(K, M, base, -1, 0, args)
    if open_v == res:
        only = True
        for i in range(nargs):
            only = only and pd[base + 3 + i] != res
        if only:
            for i in range(nargs):
                args[i] = value(K, pd[base + 3 + i], lo(K, M, pd[base + 3 + i]))
            r, ok = compute(pd[base], args, nargs)
            k = index_of(K, res, r) if ok else -1
            if k < 0 or not has(K, M, res, k):
                return False
            return keep_values(K, M, res, r, r)
    k = lo(K, M, open_v)
    while k >= 0:
        if not _arith_holds(K, M, base, open_v, value(K, open_v, k), args):
            if not remove(K, M, open_v, k):
                return False
        k = next_in(K, M, open_v, k + 1)
    return True


# ----- AllDifferentList -----------------------------------------------------------------
@njit(cache=True, _nrt=False)
def all_different_list(K, M, base):
    """[lists, length, variables]: two lists equal at every position but one open
    one, where one side is fixed, lose that value on the other side."""
    pd = K[PDATA]
    nl, ln = pd[base], pd[base + 1]
    at = base + 2
    for i in range(nl):
        for j in range(i + 1, nl):
            open_p = -1
            differ = False
            for p in range(ln):
                a, b = pd[at + i * ln + p], pd[at + j * ln + p]
                if a == b:
                    continue
                if size(K, M, a) == 1 and size(K, M, b) == 1:
                    if value(K, a, lo(K, M, a)) != value(K, b, lo(K, M, b)):
                        differ = True
                        break
                    continue
                if open_p >= 0:
                    differ = True           # two open positions: nothing to say
                    break
                open_p = p
            if differ:
                continue
            if open_p < 0:
                return False
            a, b = pd[at + i * ln + open_p], pd[at + j * ln + open_p]
            if size(K, M, a) == 1:
                a, b = b, a
            if size(K, M, b) == 1:
                k = index_of(K, a, value(K, b, lo(K, M, b)))
                if k >= 0 and not remove(K, M, a, k):
                    return False
    return True
