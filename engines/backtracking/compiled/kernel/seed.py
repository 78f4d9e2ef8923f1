"""The ``seed`` variant compiled: the BOJ 2239 reference search, move for move.

A port of ``engines/backtracking/python/seed.py`` (the same node and backtrack
counts; the tests compare them). Its used-value bookkeeping is written out
inline, a deliberate copy of the Python search's walk, so the baseline the
reports quote pays no call per value tried. The deadline is read every 16384
nodes.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel.common import (
    BADVAR,
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
    W_INFO,
    W_SEED,
    W_SOLS,
    bad_var,
    ctz,
    given_bit,
    njit,
    now,
    table,
)


@njit(cache=True, _nrt=False)
def search(blob, givens, limit, keep, deadline, work):
    """The reference search of ``backtracking.seed.search`` (same nodes)."""
    n, ng = blob[N_VARS], blob[N_GROUPS]
    vals, dom = table(blob, VALS), table(blob, DOM)
    gof_ptr, gof_idx = table(blob, GOF_PTR), table(blob, GOF_IDX)
    info = work[blob[W_INFO]:blob[W_INFO] + 4]
    sols = work[blob[W_SOLS]:]
    info[0] = 0
    if bad_var(givens, n, info):
        return BADVAR, 0, 0, 0
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
            if count < keep:
                for var in range(n):
                    sols[count * n + var] = vals[ctz(assigned[var])]
            count += 1
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
            bit = assigned[cell]
            for j in range(a, b):
                used[np.uint64(gof_idx[j])] ^= bit
            assigned[cell] = 0
        free = remaining[depth]
        if not free:
            backtracks += 1
            depth -= 1
            entering = False
            continue
        bit = free & -free                     # the least value left
        remaining[depth] = free ^ bit
        assigned[cell] = bit
        for j in range(a, b):
            used[np.uint64(gof_idx[j])] |= bit
        nodes += 1
        depth += 1
        entering = True
        if not nodes & CHECK_SEED and now() >= deadline:
            return TIMEOUT, count, nodes, backtracks
    if status == UNSAT and count:
        status = SOLVED
    return status, count, nodes, backtracks
