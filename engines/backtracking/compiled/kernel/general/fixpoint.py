"""The propagation queue run to a fixpoint, and the nogoods recorded at restarts.

Propagators wait in a circular queue (each at most once); ``domain.notify``
adds those watching a changed variable. When the queue is empty the nogoods
are checked: a nogood is a set of (variable, value index) decisions that
cannot all hold, so when all but one hold, the last one's value goes, and
when all hold the node fails. The deadline is read every few thousand
propagator runs, so one long propagation cannot hold the search past it.
"""
from __future__ import annotations

from engines.backtracking.compiled.kernel.common import njit, now
from engines.backtracking.compiled.kernel.general.alldifferent import alldifferent
from engines.backtracking.compiled.kernel.general.domain import has, lo, remove, size
from engines.backtracking.compiled.kernel.general.layout import (
    I_IDEMP,
    I_NPROPS,
    INFO,
    INQ,
    P_ADLIST,
    P_ALLDIFF,
    P_ARITH,
    P_BINARY,
    P_ELEMENT,
    P_LINEAR,
    PKIND,
    PPTR,
    R_CUR,
    R_FAILC,
    R_PROPS,
    R_QHEAD,
    R_QLEN,
    R_QTAIL,
    R_TIMEOUT,
    Q,
    R,
)
from engines.backtracking.compiled.kernel.general.propagators import (
    all_different_list,
    arith,
    element,
    linear,
)
from engines.backtracking.compiled.kernel.general.table import binary_table, compact_table

CHECK_PROPS = 4095             # propagator runs between deadline checks (a mask)


@njit(cache=True, _nrt=False)
def run_one(K, M, c):
    kind = K[PKIND][c]
    base = K[PPTR][c]
    if kind == P_LINEAR:
        return linear(K, M, base)
    if kind == P_ALLDIFF:
        return alldifferent(K, M, base)
    if kind == P_ELEMENT:
        return element(K, M, base)
    if kind == P_ARITH:
        return arith(K, M, base)
    if kind == P_ADLIST:
        return all_different_list(K, M, base)
    if kind == P_BINARY:
        return binary_table(K, M, base)
    return compact_table(K, M, base)


@njit(cache=True, _nrt=False)
def clear_queue(K, M):
    r, q, inq = M[R], M[Q], M[INQ]
    np_ = K[INFO][I_NPROPS]
    while r[R_QLEN] > 0:
        inq[q[r[R_QHEAD]]] = 0
        r[R_QHEAD] = (r[R_QHEAD] + 1) % np_
        r[R_QLEN] -= 1


@njit(cache=True, _nrt=False)
def schedule_all(K, M):
    r, q, inq = M[R], M[Q], M[INQ]
    np_ = K[INFO][I_NPROPS]
    for c in range(np_):
        if not inq[c]:
            inq[c] = 1
            q[r[R_QTAIL]] = c
            r[R_QTAIL] = (r[R_QTAIL] + 1) % np_
            r[R_QLEN] += 1


@njit(cache=True, _nrt=False)
def _nogoods(K, M, ngp, ngv, ngk, nng):
    """One pass over the nogoods: False when one holds entirely."""
    for g in range(nng):
        open_i = -1
        skip = False
        for i in range(ngp[g], ngp[g + 1]):
            v, k = ngv[i], ngk[i]
            if size(K, M, v) == 1:
                if lo(K, M, v) != k:
                    skip = True           # a decision that does not hold
                    break
            elif has(K, M, v, k):
                if open_i >= 0:
                    skip = True           # two open: nothing to say yet
                    break
                open_i = i
            else:
                skip = True
                break
        if skip:
            continue
        if open_i < 0:
            return False
        if not remove(K, M, ngv[open_i], ngk[open_i]):
            return False
    return True


@njit(cache=True, _nrt=False)
def propagate(K, M, deadline, ngp, ngv, ngk, nng):
    """Run the queue to a fixpoint; False on a wipe-out (``R_FAILC``: the failing
    propagator, -1 for a nogood) or past the deadline (``R_TIMEOUT`` set)."""
    r, q, inq = M[R], M[Q], M[INQ]
    info = K[INFO]
    np_ = info[I_NPROPS]
    idem = K[PKIND]
    while True:
        while r[R_QLEN] > 0:
            c = q[r[R_QHEAD]]
            r[R_QHEAD] = (r[R_QHEAD] + 1) % np_
            r[R_QLEN] -= 1
            inq[c] = 0
            r[R_CUR] = c if (info[I_IDEMP] >> idem[c]) & 1 else -1
            r[R_PROPS] += 1
            ok = run_one(K, M, c)
            r[R_CUR] = -1
            if not ok:
                r[R_FAILC] = c
                clear_queue(K, M)
                return False
            if not r[R_PROPS] & CHECK_PROPS and now() >= deadline:
                r[R_TIMEOUT] = 1
                clear_queue(K, M)
                return False
        if nng == 0:
            return True
        if not _nogoods(K, M, ngp, ngv, ngk, nng):
            r[R_FAILC] = -1
            clear_queue(K, M)
            return False
        if r[R_QLEN] == 0:
            return True
