"""The lean ``fast`` search: the shapes that do not probe (9x9 and smaller).

Hot loops again trade style for speed: one candidate mask per variable and
nothing else per node, so a branch copies N+3 words; hidden singles are
found by scanning the units (an OR and an "at least twice" mask per unit)
instead of keeping place counts up to date on every removal.

The search loop, the root and the locked-candidates pass are ``fast``'s
written again for this row layout (one shared version would cost a call and
a layout test per node on the hottest path); what does not depend on the row
is shared through ``common``.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel import common
from engines.backtracking.compiled.kernel.common import copy_into, njit, now, popcount, table


@njit(cache=True, _nrt=False)
def tables(blob):
    """The tables ``singles`` reads, as one tuple (from Python, call ``.py_func``:
    views returned without NRT do not survive boxing)."""
    return (table(blob, common.PEER_PTR), table(blob, common.PEER_IDX), table(blob, common.UNIT_PTR),
            table(blob, common.UNIT_IDX), table(blob, common.UFULL), table(blob, common.UOF_PTR),
            table(blob, common.UOF_IDX))


@njit(cache=True, _nrt=False)
def singles(row, nopen, q, nt, tabs):
    """Naked and hidden singles to a fixpoint on ``row`` (layout above).
    ``q[HEAD:HEAD+nt]`` holds the variables that became single and have
    not yet left their peers. Returns the open count after it, or -1 on a
    conflict. The units are scanned round the ring, and the scan stops once
    every unit has been seen clean since the last change: a pass over all
    units after each find would rescan the clean ones. (Rescanning only the
    units whose variables changed was measured slower on 9x9: marking them
    costs more than the scans it saves.)"""
    peer_ptr, peer_idx, unit_ptr, unit_idx, ufull, uof_ptr, uof_idx = tabs
    n, nu = peer_ptr.size - 1, ufull.size
    cand = row[3:3 + n]
    solved = row[3 + n:3 + n + nu]
    tw = row[3 + n + nu:3 + n + 3 * nu]
    nh = 0
    u = 0                                      # the next unit of the ring to scan
    while True:
        while nh < nt:                         # a single's value leaves its peers
            i = q[common.HEAD + nh]
            nh += 1
            bit = cand[i]
            for k in range(np.uint64(uof_ptr[i]), np.uint64(uof_ptr[i + 1])):
                solved[np.uint64(uof_idx[k])] |= bit
            for k in range(np.uint64(peer_ptr[i]), np.uint64(peer_ptr[i + 1])):
                p = np.uint64(peer_idx[k])
                c = cand[p]
                x = c & ~bit                   # branch-free: whether c held bit is a coin toss
                cand[p] = x
                if (x & (x - 1) == 0) & (x != c):   # one value left, or none
                    if x == 0:
                        return -1
                    q[common.HEAD + nt] = p
                    nt += 1
                    nopen -= 1
        if nopen == 0:
            return 0
        found = False
        clean = 0                              # units scanned clean since the last change
        while clean < nu:                      # a value with one place left in a unit
            if solved[u] != ufull[u]:          # (every value placed: its masks go unread)
                a, b = np.uint64(unit_ptr[u]), np.uint64(unit_ptr[u + 1])
                once = twice = thrice = 0
                for k in range(a, b):
                    c = cand[np.uint64(unit_idx[k])]
                    thrice |= twice & c
                    twice |= once & c
                    once |= c
                if once != ufull[u]:           # a value with no place left
                    return -1
                tw[u] = twice                  # for the tie-break of ``choose``
                tw[nu + u] = thrice
                hid = once & ~twice & ~solved[u]
                if hid:
                    for k in range(a, b):
                        j = np.uint64(unit_idx[k])
                        c = cand[j]
                        h = c & hid
                        if h:
                            if h & (h - 1):    # one variable, two values it alone can take
                                return -1
                            if h != c:         # (h == c: already single; a guard only)
                                cand[j] = h
                                q[common.HEAD + nt] = j
                                nt += 1
                                nopen -= 1
                                found = True
                if found:                      # its peers first, then this unit again
                    break
            clean += 1
            u += 1
            if u == nu:
                u = 0
        if not found:
            return nopen


# ``fast.locked`` on the lean row, singles kept by ``singles`` (the tests hold lean and
# fast to the same answers).
@njit(cache=True, _nrt=False)
def locked(row, nopen, q, cross_ptr, cross_idx, tabs):
    """Locked candidates (see ``fast.locked``) with singles, to a fixpoint, on a
    settled row. Returns the open count, or -1 on a conflict."""
    cand = row[3:3 + tabs[0].size - 1]
    while nopen > 0:
        nt = 0
        changed = False
        for x in range(0, cross_ptr.size - 1, 3):
            inside, a_only, b_only = common.crossing(cand, cross_ptr, cross_idx, x)
            for side in range(2):
                if side == 0:                  # values unit a keeps inside leave b's rest
                    gone, lo, hi = inside & ~a_only & b_only, cross_ptr[x + 2], cross_ptr[x + 3]
                else:
                    gone, lo, hi = inside & ~b_only & a_only, cross_ptr[x + 1], cross_ptr[x + 2]
                if not gone:
                    continue
                for k in range(lo, hi):
                    j = cross_idx[k]
                    c = cand[j]
                    if c & gone:
                        c &= ~gone
                        if c == 0:
                            return -1
                        cand[j] = c
                        changed = True
                        if c & (c - 1) == 0:
                            q[common.HEAD + nt] = j
                            nt += 1
                            nopen -= 1
        if not changed:
            return nopen
        nopen = singles(row, nopen, q, nt, tabs)
    return nopen


# ``fast.choose`` on the lean row: it reads the scan masks ``singles`` keeps instead of
# place counts (the tests hold lean and fast to the same answers).
@njit(cache=True, _nrt=False)
def choose(row, lex, uof_ptr, uof_idx, n, nu):
    """The branch variable: the lowest open one (``lex``), else one with the
    fewest values; among two-valued ones, the one whose two values have the
    most places left in its units (counted up to three, from the masks the
    scans of ``singles`` keep in the row)."""
    best, bi, score = 99, -1, -1
    tw = 3 + n + nu
    for i in range(n):
        c = row[3 + i]
        if c & (c - 1):
            if lex:
                return i
            k = popcount(c)
            if k > best:
                continue
            s = 0
            if k == 2:
                for t in range(np.uint64(uof_ptr[i]), np.uint64(uof_ptr[i + 1])):
                    u = uof_idx[t]
                    s += (popcount(c & row[np.uint64(tw + u)])
                          + popcount(c & row[np.uint64(tw + nu + u)]))
            if k < best or s > score:
                best, bi, score = k, i, s
    return bi


# ``fast.search`` and ``fast.root`` on the lean row: a shared loop would pay a call and
# a layout test per node (the tests hold lean and fast to the same answers).
@njit(cache=True, _nrt=False)
def search(blob, givens, mode, limit, keep, deadline, rows, work):
    """``fast.search`` without probing or place counts (see the section comment)."""
    info, sols, bad = common.opening(blob, givens, work)
    if bad:
        return bad, 0, 0, 0
    n, q = blob[common.N_VARS], work
    vals, dom = table(blob, common.VALS), table(blob, common.DOM)
    ufull = table(blob, common.UFULL)
    tabs = tables(blob)
    uof_ptr, uof_idx = tabs[5], tabs[6]
    nu = ufull.size
    row = rows[0]
    cand = row[3:3 + n]
    copy_into(cand, dom)
    for u in range(nu):
        row[3 + n + u] = 0
    nt = 0
    nopen = n
    for i in table(blob, common.SINGLE0):
        q[common.HEAD + nt] = i
        nt += 1
        nopen -= 1
    for g in range(0, givens.size, 2):
        var, bit = common.given_bit(vals, dom, givens, g, info)
        if not bit:
            return common.UNSAT, 0, 0, 0
        c = cand[var]
        if not c & bit:
            info[0] = common.CLASH
            return common.UNSAT, 0, 0, 0
        if c != bit:
            cand[var] = bit
            q[common.HEAD + nt] = var
            nt += 1
            nopen -= 1
    info[0] = 0
    nopen = singles(row, nopen, q, nt, tabs)
    if nopen > 0:
        nopen = locked(row, nopen, q, table(blob, common.CROSS_PTR),
                       table(blob, common.CROSS_IDX), tabs)
    if nopen < 0:
        return common.UNSAT, 0, 0, 1
    row[0] = nopen
    lex = mode == 1
    count = nodes = backtracks = 0
    d = 0
    ok = True
    width = 3 + n + nu                     # the scan masks after these are rewritten by every scan
    while True:
        row = rows[d]
        if ok and row[0] == 0:                 # every variable placed: a solution
            count = common.record(sols, count, keep, vals, row[3:3 + n])
            if count >= limit:
                return common.SOLVED, count, nodes, backtracks
        elif ok:
            i = choose(row, lex, uof_ptr, uof_idx, n, nu)
            bit = row[3 + i] & -row[3 + i]
            row[1], row[2] = i, bit
            child = rows[d + 1]
            for k in range(width):
                child[k] = row[k]
            d += 1
            nodes += 1
            child[3 + i] = bit
            q[common.HEAD] = i
            nopen = singles(child, child[0] - 1, q, 1, tabs)
            ok = nopen >= 0
            child[0] = nopen
            if not nodes & common.CHECK_FAST and now() >= deadline:
                return common.TIMEOUT, count, nodes, backtracks
            continue
        else:
            backtracks += 1
        d -= 1                                 # the other branch: the literal is false
        if d < 0:                              # ... none: the whole tree is done
            return common.exhausted(count, nodes, backtracks)
        row = rows[d]
        i = row[1]
        c = row[3 + i] & ~row[2]
        row[3 + i] = c
        nt, nopen = 0, row[0]
        if c & (c - 1) == 0:
            q[common.HEAD] = i
            nt, nopen = 1, nopen - 1
        nopen = singles(row, nopen, q, nt, tabs)
        ok = nopen >= 0
        row[0] = nopen
