"""Failed-literal and dual probing for the ``fast`` search on big shapes.

Shapes with ``PROBE_FROM_VALUES`` values or more (16x16 and up) probe every
two-candidate field at every node: each of its two literals is tried on the
row with an undo log, a literal that fails is removed, and a value that
neither branch keeps goes too. Trials are cached per pass in an arena of the
``work`` array, so the pair of a unit-value field and of a variable reuse
one another's literals.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel import common, propagate
from engines.backtracking.compiled.kernel.common import ctz, njit, now, popcount, table


@njit(cache=True, _nrt=False)
def trial(row, i, v, blob, q):
    """Probe literal (variable i, value index v) at ``row``, once per pass.

    The literal is placed on ``row`` in place, with every write logged, and
    undone; the variables it changed and their values after it go to the
    arena. Returns the literal's cache index; its entry holds the candidates
    removed (-1: a conflict), where its changes start in the arena and how
    many there are. A result from earlier in the pass is reused even if
    ``row`` has changed since: rows only lose candidates, so an older
    result keeps at least the candidates a fresh one would, and deductions
    from it stay sound (just weaker).
    """
    n, nv = blob[common.N_VARS], blob[common.N_VALUES]
    lits, arena = blob[common.W_LITS], blob[common.W_ARENA]
    seen = blob[common.W_SCRATCH] + 2 * n
    c = i * nv + v
    size = n * nv
    if q[lits + c] == q[common.PASS]:
        return c
    top = q[common.ARENA_TOP]
    if top + n > common.ARENA_PER_LITERAL * size:    # arena full: start the cache afresh
        q[common.PASS] += 1
        top = 0
    open0 = row[0]
    q[common.LOG] = q[common.PLOG] = 0
    gone = 0 if propagate.apply(row, i, np.int64(1) << v, True, blob, q) else -1
    at = q[common.LOGAT]
    q[common.STAMP] += 1
    stamp = q[common.STAMP]
    start = top
    if gone >= 0:
        for k in range(np.uint64(q[common.LOG])):
            w = np.uint64(at + 2 * k)
            j = q[w]
            sj = np.uint64(seen + j)
            rj = np.uint64(3 + j)
            if q[sj] != stamp:                 # the first write holds j's old value
                q[sj] = stamp
                q[np.uint64(arena + 2 * top)] = j
                q[np.uint64(arena + 2 * top + 1)] = row[rj]
                top += 1
                gone += popcount(q[w + np.uint64(1)]) - popcount(row[rj])
    for k in range(q[common.LOG] - 1, -1, -1):      # undo, newest write first
        w = np.uint64(at + 2 * k)
        row[np.uint64(3 + q[w])] = q[w + np.uint64(1)]
    places = at + 2 * size
    for k in range(q[common.PLOG] - 1, -1, -1):
        w = np.uint64(places + 2 * k)
        row[np.uint64(3 + n + q[w])] = q[w + np.uint64(1)]
    row[0] = open0
    q[common.LOG] = -1
    q[common.ARENA_TOP] = top
    q[lits + c] = q[common.PASS]
    q[lits + size + c] = gone
    q[lits + 2 * size + c] = start
    q[lits + 3 * size + c] = top - start
    return c


_NO_SOLUTION, _FAILED_LITERAL, _DUAL = -1, -2, -3   # what probing a pair found


@njit(cache=True, _nrt=False)
def pair(row, i1, i2, v1, v2, blob, q):
    """Probe the two literals of a two-candidate field at ``row``.

    A failed literal is removed from ``row``; when both hold, a value that
    neither branch keeps is removed (dual probing). Returns _NO_SOLUTION,
    _FAILED_LITERAL or _DUAL when ``row`` has no solution or changed, else
    the look-ahead score: the product of both branches' reductions (plus
    one each), as look-ahead SAT solvers choose.
    """
    n = blob[common.N_VARS]
    size = n * blob[common.N_VALUES]
    lits, arena = blob[common.W_LITS], blob[common.W_ARENA]
    va = blob[common.W_SCRATCH]                  # A's values and stamps
    sa = va + n
    ca = trial(row, i1, v1, blob, q)
    cb = trial(row, i2, v2, blob, q)
    if q[lits + ca] != q[common.PASS]:           # the arena filled up and started afresh
        ca = trial(row, i1, v1, blob, q)
    ga, gb = q[lits + size + ca], q[lits + size + cb]
    if ga < 0 and gb < 0:
        return _NO_SOLUTION
    if ga < 0 or gb < 0:
        i, v = (i1, v1) if ga < 0 else (i2, v2)
        return _FAILED_LITERAL if propagate.apply(row, i, np.int64(1) << v, False, blob, q) \
            else _NO_SOLUTION
    q[common.STAMP] += 1
    stamp = q[common.STAMP]
    a = q[lits + 2 * size + ca]
    for k in range(a, a + q[lits + 3 * size + ca]):
        w = np.uint64(arena + 2 * k)
        j = q[w]
        q[np.uint64(va + j)] = q[w + np.uint64(1)]
        q[np.uint64(sa + j)] = stamp
    st = propagate.begin(row, q)
    changed = False
    b = q[lits + 2 * size + cb]
    for k in range(b, b + q[lits + 3 * size + cb]):
        w = np.uint64(arena + 2 * k)
        j = q[w]
        if q[np.uint64(sa + j)] == stamp:
            x = row[np.uint64(3 + j)] & ~(q[np.uint64(va + j)] | q[w + np.uint64(1)])
            if x:
                changed = True
                ok, st = propagate.row_drop(row, j, x, blob, q, st)
                if not ok:
                    return _NO_SOLUTION
    if changed:
        return _DUAL if propagate.settle_row(row, blob, q, st) else _NO_SOLUTION
    return (ga + 1) * (gb + 1)


@njit(cache=True, _nrt=False)
def probe_fields(row, blob, q, deadline):
    """Failed-literal and dual probing of every two-candidate field at ``row``.

    Another pass follows a pass that found a failed literal (one that only
    removed values by dual probing does not earn one: measured on
    gecode_25x25, the extra passes cost more than they prune). Returns -2
    when the state has no solution, -3 past the deadline, else the literal
    to branch on, as ``i * 64 + v``, from the field whose branches scored
    best (-1 if there is no two-candidate field or every variable is placed;
    the literal may be stale when the last pass changed ``row``).
    """
    n, nv, nu = blob[common.N_VARS], blob[common.N_VALUES], blob[common.N_UNITS]
    unit_ptr, unit_idx = table(blob, common.UNIT_PTR), table(blob, common.UNIT_IDX)
    while True:
        q[common.PASS] += 1
        q[common.ARENA_TOP] = 0
        again = False
        best, lit = 0, -1
        for f in range(n + nu * nv):           # variable fields, then unit-value fields
            if f < n:
                c = row[3 + f]
                if popcount(c) != 2:
                    continue
                i1 = i2 = f
                v1, v2 = ctz(c), ctz(c & (c - 1))
            else:
                m = row[3 + f]
                if m <= 0 or popcount(m) != 2:
                    continue
                u = (f - n) // nv
                v1 = v2 = f - n - u * nv
                i1 = unit_idx[unit_ptr[u] + ctz(m)]
                i2 = unit_idx[unit_ptr[u] + ctz(m & (m - 1))]
            s = pair(row, i1, i2, v1, v2, blob, q)
            if s == _NO_SOLUTION:
                return -2
            again |= s == _FAILED_LITERAL
            if s > best:
                best, lit = s, i1 * 64 + v1
        if row[0] == 0:
            return -1
        if not again:
            return lit
        if now() >= deadline:
            return -3
