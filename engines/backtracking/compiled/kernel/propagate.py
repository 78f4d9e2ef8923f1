"""Propagation on one state row of the ``fast`` search: singles to a fixpoint.

A search state is one int64 row::

    row[0]                 open variables (not yet single)
    row[1], row[2]         the branch literal taken from this row: variable, value bit
    row[3 : 3+N]           cand[i]: bitmask of the values variable i may still take
    row[3+N : 3+N+U*V]     plc[u*V + v]: bitmask of the places (positions in unit
                           u) where value v may still go; SAT (the sign bit)
                           once the value is placed in the unit

``rows[d]`` is the state at depth d; branching copies ``rows[d]`` to
``rows[d+1]`` and assigns there, so the parent stays as its own snapshot (no
undo trail). Propagation is queue-driven: removing value v from variable i
updates cand[i] and the counts of v in i's units; a variable left with one
value is queued as a naked single, a count that drops to 1 queues a hidden
single, a count of 0 or an empty cand is a conflict. Placing a variable marks
its unit fields SAT and removes its value from every peer. The work per
node is proportional to what changes, which keeps 9x9 nodes around a
microsecond and makes probing affordable on 25x25.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel.common import (
    HEAD,
    LOG,
    LOGAT,
    LOOSE_IDX,
    LOOSE_PTR,
    N_VALUES,
    N_VARS,
    PLOG,
    SAT,
    UNIT_IDX,
    UNIT_PTR,
    UOF_IDX,
    UOF_POS,
    UOF_PTR,
    ctz,
    njit,
    table,
)


@njit(cache=True, _nrt=False, inline="always")
def log_place(q, st, f, old, size):
    """Remember that place mask f held ``old`` (a probe is logging); the new ``st``.
    ``size`` is N*V, the room of the candidate log in front of this one."""
    nt, ht, nopen, kc, kp, at = st
    q[at + 2 * (size + kp)] = f
    q[at + 2 * (size + kp) + 1] = old
    return nt, ht, nopen, kc, kp + 1, at


# A propagation's counters travel as a tuple ``st`` = (naked-queue tail,
# hidden-queue tail, open count, candidate-log length or -1 when not
# logging, place-log length, where the logs start) so that the hot loops
# keep them in registers: as fields of ``work`` they would be reloaded after
# every store to a candidate. The candidate log (variable, old mask) comes
# first, the place log (field, old mask) after room for N*V entries.

@njit(cache=True, _nrt=False, inline="always")
def drop(i, bits, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st):
    """Remove the value bits ``bits`` (all in cand[i]) from variable i, queueing
    the naked and hidden singles it makes. Returns (False on a conflict, st)."""
    n = cand.size
    nt, ht, nopen, kc, kp, at = st
    logging = kc >= 0
    if logging:
        q[at + 2 * kc] = i
        q[at + 2 * kc + 1] = cand[i]
        kc += 1
    places = at + 2 * n * nv
    c = cand[i] & ~bits
    cand[i] = c
    if c == 0:
        return False, (nt, ht, nopen, kc, kp, at)
    if c & (c - 1) == 0:
        q[HEAD + nt] = i
        nt += 1
        nopen -= 1
    a, b = uof_ptr[i], uof_ptr[i + 1]
    hq = HEAD + n
    while bits and a < b:
        v = ctz(bits)
        bits &= bits - 1
        for u in range(np.uint64(a), np.uint64(b)):
            f = uof_idx[u] * nv + v
            m = plc[np.uint64(f)]
            if logging:
                q[places + 2 * kp] = f
                q[places + 2 * kp + 1] = m
                kp += 1
            m &= ~(np.int64(1) << uof_pos[u])
            plc[np.uint64(f)] = m
            if m == 0:
                return False, (nt, ht, nopen, kc, kp, at)
            if m > 0 and m & (m - 1) == 0:
                q[hq + ht] = f
                ht += 1
    return True, (nt, ht, nopen, kc, kp, at)


@njit(cache=True, _nrt=False)
def settle(cand, plc, nv, loose_ptr, loose_idx, unit_ptr, unit_idx, uof_ptr, uof_idx,
            uof_pos, q, st):
    """Naked and hidden singles to a fixpoint from the queued ones.
    Returns (False on a conflict, st)."""
    n = cand.size
    hq = HEAD + n
    nh = hh = 0
    while True:
        if nh < st[0]:                         # place a variable: its value leaves its peers
            i = q[HEAD + nh]
            nh += 1
            bit = cand[i]
            v = ctz(bit)
            for k in range(np.uint64(uof_ptr[i]), np.uint64(uof_ptr[i + 1])):
                u = uof_idx[k]
                f = u * nv + v
                m = plc[np.uint64(f)]
                if st[3] >= 0:
                    st = log_place(q, st, f, m, n * nv)
                plc[np.uint64(f)] = SAT
                m &= ~(SAT | np.int64(1) << uof_pos[k])
                base = unit_ptr[u]
                while m:                       # the other places of v in the unit
                    j = np.uint64(unit_idx[np.uint64(base + ctz(m))])
                    m &= m - 1
                    if cand[j] & bit:
                        ok, st = drop(j, bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
                        if not ok:
                            return False, st
            for k in range(np.uint64(loose_ptr[i]), np.uint64(loose_ptr[i + 1])):
                p = np.uint64(loose_idx[k])
                if cand[p] & bit:
                    ok, st = drop(p, bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
                    if not ok:
                        return False, st
        elif hh < st[1]:                       # a value with one place left in a unit
            f = q[hq + hh]
            hh += 1
            m = plc[np.uint64(f)]
            if m <= 0 or m & (m - 1):
                continue
            u = f // nv
            j = np.uint64(unit_idx[np.uint64(unit_ptr[u] + ctz(m))])
            c = cand[j]
            bit = np.int64(1) << (f - u * nv)
            if c != bit:
                ok, st = drop(j, c ^ bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
                if not ok:
                    return False, st
        else:
            return True, st


@njit(cache=True, _nrt=False, inline="always")
def begin(row, q):
    """The counters of a propagation on ``row``: empty queues, its open count."""
    # Typed zeros, not literals: literal 0s made numba compile the propagation loops
    # that use them three times over (a first run compiled 25 % longer).
    return np.int64(0), np.int64(0), row[0], q[LOG], q[PLOG], q[LOGAT]


@njit(cache=True, _nrt=False, inline="always")
def row_drop(row, i, bits, blob, q, st):
    """``drop`` on a row."""
    n = blob[N_VARS]
    return drop(i, bits, row[3:3 + n], row[3 + n:], blob[N_VALUES], table(blob, UOF_PTR),
                 table(blob, UOF_IDX), table(blob, UOF_POS), q, st)


@njit(cache=True, _nrt=False)
def settle_row(row, blob, q, st):
    """``settle`` on a row whose queues are filled, then store its counters.
    False on a conflict."""
    n = blob[N_VARS]
    ok, st = settle(row[3:3 + n], row[3 + n:], blob[N_VALUES], table(blob, LOOSE_PTR),
                     table(blob, LOOSE_IDX), table(blob, UNIT_PTR),
                     table(blob, UNIT_IDX), table(blob, UOF_PTR),
                     table(blob, UOF_IDX), table(blob, UOF_POS), q, st)
    return done(row, q, st, ok)


@njit(cache=True, _nrt=False, inline="always")
def done(row, q, st, ok):
    row[0] = st[2]
    q[LOG] = st[3]
    q[PLOG] = st[4]
    return ok


@njit(cache=True, _nrt=False)
def apply(row, i, bits, keep, blob, q):
    """On ``row``: remove ``bits`` from variable i (or, with ``keep``, every
    value but ``bits``), then settle. False on a conflict."""
    st = begin(row, q)
    if keep:
        bits = row[3 + i] & ~bits
    if bits:
        ok, st = row_drop(row, i, bits, blob, q, st)
        if not ok:
            return done(row, q, st, False)
    return settle_row(row, blob, q, st)
