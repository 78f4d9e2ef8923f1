"""The ``fast`` search: singles, locked candidates, MRV branching, probing on big shapes.

Branching is binary and exclusive: the left child assigns a literal, the
right one (taken when the left is exhausted) removes it from the parent and
propagates again. Every solution lies in exactly one subtree, so ``count``
counts each once; propagation removes only values that belong to no solution,
so with ``lexfirst`` branching on the lowest open variable, smallest value
first, the first solution found is the lexicographically smallest. The state
row and its propagation are ``propagate``'s.

The deadline is read through an objmode block every 1024 nodes (every node
when probing, whose nodes are dear); that costs about a microsecond per check.
Shapes that do not probe take the lean search (``lean``) instead: the same
search on a smaller row. What does not depend on the row (the opening, the
masks of a crossing, keeping a solution, the answer) is ``common``'s; the
root, the locked-candidates pass, the choice and the loop are written again
for that row, so a change here goes there too (the tests hold the two to the
same answers).
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel import common, propagate
from engines.backtracking.compiled.kernel.common import copy_into, ctz, njit, now, popcount, table
from engines.backtracking.compiled.kernel.probe import probe_fields


@njit(cache=True, _nrt=False)
def root(blob, givens, row, q, info):
    """The start state: base domains, counts, givens; settled. Kernel status."""
    n = blob[common.N_VARS]
    vals, dom = table(blob, common.VALS), table(blob, common.DOM)
    cand = row[3:3 + n]
    copy_into(cand, dom)
    copy_into(row[3 + n:], table(blob, common.PLC0))
    row[0] = n
    q[common.LOG] = -1
    q[common.LOGAT] = blob[common.W_LOG]
    nt, ht, nopen, kc, kp, at = propagate.begin(row, q)
    for i in table(blob, common.SINGLE0):
        q[common.HEAD + nt] = i
        nt += 1
        nopen -= 1
    for f in table(blob, common.HIDDEN0):
        q[common.HEAD + n + ht] = f
        ht += 1
    st = (nt, ht, nopen, kc, kp, at)
    for g in range(0, givens.size, 2):
        var, bit = common.given_bit(vals, dom, givens, g, info)
        if not bit:
            return common.UNSAT
        c = cand[var]
        ok = c & bit != 0
        if ok and c != bit:
            ok, st = propagate.row_drop(row, var, c ^ bit, blob, q, st)
        if not ok:
            info[0] = common.CLASH
            return common.UNSAT
    info[0] = 0
    return common.SOLVED if propagate.settle_row(row, blob, q, st) else common.UNSAT


@njit(cache=True, _nrt=False)
def locked(row, blob, q):
    """Locked candidates: a value that a unit can only hold where it crosses
    another unit leaves the rest of that other unit. Repeated with singles
    until nothing changes. False on a conflict."""
    n = blob[common.N_VARS]
    ptr, idx = table(blob, common.CROSS_PTR), table(blob, common.CROSS_IDX)
    cand = row[3:3 + n]
    while True:
        st = propagate.begin(row, q)
        changed = False
        for x in range(0, ptr.size - 1, 3):
            inside, a_only, b_only = common.crossing(cand, ptr, idx, x)
            for side in range(2):
                gone = inside & ~a_only & b_only if side == 0 else inside & ~b_only & a_only
                if not gone:
                    continue
                lo = ptr[x + 2] if side == 0 else ptr[x + 1]
                for k in range(lo, lo + (ptr[x + 3] - ptr[x + 2] if side == 0
                                         else ptr[x + 2] - ptr[x + 1])):
                    j = idx[k]
                    if cand[j] & gone:
                        changed = True
                        ok, st = propagate.row_drop(row, j, cand[j] & gone, blob, q, st)
                        if not ok:
                            return False
        if not changed:
            return True
        if not propagate.settle_row(row, blob, q, st):
            return False


@njit(cache=True, _nrt=False)
def choose(row, blob, lex):
    """The branch literal (variable, value bit) at a settled, open state.

    ``lex``: the lowest open variable, its smallest value. Otherwise the
    field with the fewest candidates: variables first, then a unit-value
    field only if it has strictly fewer places (value-major order), its
    first place. Among variables with two values the one whose values have
    the most places left in its units wins (on forum_hardest it cuts nodes
    by a sixth and time by a tenth), else the lowest index.
    """
    n, nv, nu = blob[common.N_VARS], blob[common.N_VALUES], blob[common.N_UNITS]
    cand = row[3:3 + n]
    uof_ptr, uof_idx = table(blob, common.UOF_PTR), table(blob, common.UOF_IDX)
    best, bi, score = 99, -1, -1
    for i in range(n):
        c = cand[i]
        if c & (c - 1):
            if lex:
                return i, c & -c
            k = popcount(c)
            if k > best:
                continue
            s = 0
            if k == 2:
                v1, v2 = 3 + n + ctz(c), 3 + n + ctz(c & (c - 1))
                for u in range(uof_ptr[i], uof_ptr[i + 1]):
                    s += popcount(row[v1 + uof_idx[u] * nv]) + popcount(row[v2 + uof_idx[u] * nv])
            if k < best or s > score:
                best, bi, score = k, i, s
    if best > 2 and nu:
        plc = row[3 + n:]
        bf = -1
        for v in range(nv):
            for u in range(nu):
                m = plc[u * nv + v]
                if m > 0 and popcount(m) < best:
                    best, bf = popcount(m), u * nv + v
        if bf >= 0:
            u = bf // nv
            return (table(blob, common.UNIT_IDX)[table(blob, common.UNIT_PTR)[u] + ctz(plc[bf])],
                    np.int64(1) << (bf - u * nv))
    return bi, cand[bi] & -cand[bi]


@njit(cache=True, _nrt=False)
def search(blob, givens, mode, probe, limit, keep, deadline, rows, work):
    """Singles to a fixpoint, then branch (see the module docstring)."""
    info, sols, bad = common.opening(blob, givens, work)
    if bad:
        return bad, 0, 0, 0
    n, q = blob[common.N_VARS], work
    vals = table(blob, common.VALS)
    if root(blob, givens, rows[0], q, info) == common.UNSAT:
        return common.UNSAT, 0, 0, 1 if info[0] == 0 else 0
    lex = mode == 1
    mask = 0 if probe else common.CHECK_FAST
    count = nodes = backtracks = 0
    d = 0
    ok = True
    while True:
        row = rows[d]
        lit = -1
        if ok and (probe or (d == 0 and nodes == 0)) and row[0]:
            ok = locked(row, blob, q)
        if ok and probe and row[0]:
            lit = probe_fields(row, blob, q, deadline)
            if lit == -3:
                return common.TIMEOUT, count, nodes, backtracks
            if lit == -2:
                ok = False
        if ok and row[0] == 0:                 # every variable placed: a solution
            count = common.record(sols, count, keep, vals, row[3:3 + n])
            if count >= limit:
                return common.SOLVED, count, nodes, backtracks
        elif ok:
            i, bit = lit // 64, np.int64(1) << (lit % 64)
            if lit < 0 or lex or row[3 + i] == bit or not row[3 + i] & bit:
                i, bit = choose(row, blob, lex)
            row[1], row[2] = i, bit
            copy_into(rows[d + 1], row)
            d += 1
            nodes += 1
            ok = propagate.apply(rows[d], i, bit, True, blob, q)
            if not nodes & mask and now() >= deadline:
                return common.TIMEOUT, count, nodes, backtracks
            continue
        else:
            backtracks += 1
        if d == 0:                             # the whole tree is done
            return common.exhausted(count, nodes, backtracks)
        d -= 1                                 # the other branch: the literal is false
        row = rows[d]
        ok = propagate.apply(row, row[1], row[2], False, blob, q)
