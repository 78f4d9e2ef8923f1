"""The ``seed`` variant compiled: the BOJ 2239 reference search, move for move.

A port of ``engines/backtracking/python/seed.py``: the same walk, written
again for numba because one function cannot serve both (the tests hold the
two to the same node and backtrack counts). What it shares with the other
compiled searches (the opening, the solutions kept) is ``common``'s. The
deadline is read every 16384 nodes.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel.common import (
    CHECK_SEED,
    DOM,
    GOF_IDX,
    GOF_PTR,
    N_GROUPS,
    N_VARS,
    REPEATS,
    SOLVED,
    TIMEOUT,
    TWO_VALUES,
    UNSAT,
    VALS,
    W_SEED,
    given_bit,
    njit,
    now,
    opening,
    record,
    table,
)


@njit(cache=True, inline="always")
def toggle(used, gof_idx, a, b, bit):
    """Put ``bit`` on the used-value masks of the groups ``gof_idx[a:b]``, or take it
    off (it is on every one of them, or on none)."""
    for j in range(a, b):
        used[np.uint64(gof_idx[j])] ^= bit


@njit(cache=True, _nrt=False)
def search(blob, givens, limit, keep, deadline, work):
    """The reference search of ``backtracking.seed.search`` (same nodes)."""
    info, sols, bad = opening(blob, givens, work)
    if bad:
        return bad, 0, 0, 0
    n, ng = blob[N_VARS], blob[N_GROUPS]
    vals, dom = table(blob, VALS), table(blob, DOM)
    gof_ptr, gof_idx = table(blob, GOF_PTR), table(blob, GOF_IDX)
    at = blob[W_SEED]
    assigned, order = work[at:at + n], work[at + n:at + 2 * n]
    remaining, used = work[at + 2 * n:at + 3 * n + 1], work[at + 3 * n + 1:at + 3 * n + 1 + ng]
    for k in range(n):
        assigned[k] = 0
    for k in range(ng):
        used[k] = 0
    for g in range(0, givens.size, 2):
        var, bit = given_bit(vals, dom, givens, g, info)
        if not bit:
            return UNSAT, 0, 0, 0
        if assigned[var]:
            if assigned[var] != bit:
                info[0] = TWO_VALUES
                return UNSAT, 0, 0, 0
            continue
        for j in range(gof_ptr[var], gof_ptr[var + 1]):
            grp = gof_idx[j]
            if used[grp] & bit:
                info[0], info[3] = REPEATS, grp
                return UNSAT, 0, 0, 0
            used[grp] |= bit
        assigned[var] = bit
    info[0] = 0
    depth_max = 0
    for var in range(n):
        if not assigned[var]:
            order[depth_max] = var
            depth_max += 1
    count = nodes = backtracks = 0
    status = UNSAT
    depth, entering = 0, True
    while depth >= 0:
        if depth == depth_max:                 # every blank filled: a solution
            count = record(sols, count, keep, vals, assigned)
            if count >= limit:
                status = SOLVED
                break
            depth -= 1
            entering = False
            continue
        cell = np.uint64(order[depth])         # unsigned indices: see ``common``
        a, b = np.uint64(gof_ptr[cell]), np.uint64(gof_ptr[cell + np.uint64(1)])
        if entering:
            free = dom[cell]
            for j in range(a, b):
                free &= ~used[np.uint64(gof_idx[j])]
            remaining[depth] = free
        else:                                  # back from below: take the value off
            toggle(used, gof_idx, a, b, assigned[cell])
            assigned[cell] = 0
        free = remaining[depth]
        if free:                               # the least value left goes on
            bit = free & -free
            remaining[depth], assigned[cell] = free ^ bit, bit
            toggle(used, gof_idx, a, b, bit)
            nodes += 1
            depth += 1
            entering = True
            if not nodes & CHECK_SEED and now() >= deadline:
                return TIMEOUT, count, nodes, backtracks
        else:                                  # none: back up
            backtracks += 1
            depth -= 1
            entering = False
    if status == UNSAT and count:
        status = SOLVED
    return status, count, nodes, backtracks
