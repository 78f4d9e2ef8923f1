"""The compiled general search: binary branching over the propagation core.

A decision is ``x = v``; its refutation ``x != v`` is taken at the parent
level once the left branch is exhausted, so the tree is complete and counts
are exact. The variable order depends on the mode:

* ``first``: dom/wdeg (Boussemart et al., ECAI 2004), or its refinement
  wdeg^ca.cd (Wattez et al., CP 2019) as an option, with last-conflict
  reasoning (Lecoutre et al., AIJ 2009: a variable whose assignment failed
  is branched on again first while it is open); values by phase saving (the
  variable's last decided value when it is still there, else its least);
  restarts (geometric or Luby, counted in failures), and at each restart the
  nld-nogoods of the branch (Lecoutre et al., 2007): for each refutation
  ``x != v`` below the decisions ``d1..dk``, the set {d1..dk, x = v} cannot
  all hold;
* ``lexfirst``: the lowest open variable, least value first, no restarts and
  no last-conflict, so the first solution reached is the least;
* ``count``: dom/wdeg and last-conflict, no restarts: exhaustive.

The deadline is read every few hundred nodes and inside propagation; the
clock is read in object mode, where a pending Ctrl-C is raised.

Hot loops trade style for speed: arrays by slot, no objects.
"""
from __future__ import annotations

import numpy as np

from engines.backtracking.compiled.kernel.common import njit, now
from engines.backtracking.compiled.kernel.general.domain import (
    assign,
    has,
    lo,
    remove,
    size,
    undo_to,
    value,
)
from engines.backtracking.compiled.kernel.general.fixpoint import propagate, schedule_all
from engines.backtracking.compiled.kernel.general.layout import (
    H_CACD,
    I_N,
    I_OPEN,
    I_SLEN,
    INFO,
    R_FAILC,
    R_PROPS,
    R_STAMP,
    R_TIMEOUT,
    R_TLEN,
    RS_LUBY,
    RS_NONE,
    SCOPE,
    SOLVED,
    SPTR,
    ST_FAILURES,
    ST_NODES,
    ST_NOGOODS,
    ST_PROPS,
    ST_RESTARTS,
    TADDR,
    TIMEOUT,
    TOLD,
    UNSAT,
    VOFF,
    WIDX,
    WPTR,
    R,
    S,
)

CHECK_NODES = 255              # nodes between deadline checks (a mask)
RESTART_BASE = 100             # failures before the first restart
RESTART_GROWTH = 1.1           # geometric restarts: each cutoff this much longer
NOGOOD_LITERALS_MOST = 1 << 20  # nogood literals kept, at most


@njit(cache=True, _nrt=False)
def luby(i):
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


@njit(cache=True)
def _roomy(K, M):
    """M with a trail that holds at least one more level of saves."""
    need = M[R][R_TLEN] + K[INFO][I_SLEN] + 8
    if need <= M[TADDR].size:
        return M
    cap = max(need, 2 * M[TADDR].size)
    addr = np.empty(cap, np.int64)
    old = np.empty(cap, np.int64)
    t = M[R][R_TLEN]
    addr[:t] = M[TADDR][:t]
    old[:t] = M[TOLD][:t]
    return (M[0], M[1], addr, old, M[4], M[5], M[6], M[7], M[8], M[9])


@njit(cache=True, _nrt=False)
def _bump(K, M, c, vw, cw, cacd):
    """Weigh the failure of propagator ``c``: dom/wdeg weighs the propagator,
    wdeg^ca.cd each open variable of it, by 1 / (its open variables x its size)."""
    sptr, scope = K[SPTR], K[SCOPE]
    if not cacd:
        cw[c] += 1.0
        return
    fut = 0
    for i in range(sptr[c], sptr[c + 1]):
        if size(K, M, scope[i]) > 1:
            fut += 1
    if fut == 0:
        return
    for i in range(sptr[c], sptr[c + 1]):
        x = scope[i]
        if size(K, M, x) > 1:
            vw[x] += 1.0 / (fut * size(K, M, x))


@njit(cache=True, _nrt=False)
def _choose(K, M, n, lex, start, lc, vw, cw, cacd):
    if lex:
        v = start
        while v < n and size(K, M, v) == 1:
            v += 1
        return v if v < n else -1
    if lc >= 0 and size(K, M, lc) > 1:
        return lc
    best, score = -1, np.inf
    open_at = K[INFO][I_OPEN]
    st = M[S]
    wptr, widx = K[WPTR], K[WIDX]
    for v in range(n):
        d = size(K, M, v)
        if d > 1:
            if cacd:
                w = vw[v]
            else:                # the weights of its propagators with another open variable
                w = 1e-9
                for i in range(wptr[v], wptr[v + 1]):
                    c = widx[i]
                    if st[open_at + c] > 1:
                        w += cw[c]
            s = d / w
            if s < score:
                best, score = v, s
    return best


@njit(cache=True)
def search(K, M, mode, limit, keep, deadline, heuristic, restarts, gvar, gk, sols, stats):
    """Status (UNSAT, SOLVED, TIMEOUT) and the count of solutions; ``sols`` gets the
    first ``keep`` as values, ``stats`` the effort."""
    n = K[INFO][I_N]
    r = M[R]
    ngp = np.zeros(1025, np.int64)
    ngv = np.empty(4096, np.int64)
    ngk = np.empty(4096, np.int64)
    nng = 0
    for g in range(gvar.size):
        if not assign(K, M, gvar[g], gk[g]):
            return UNSAT, 0
    schedule_all(K, M)
    M = _roomy(K, M)
    if not propagate(K, M, deadline, ngp, ngv, ngk, 0):
        stats[ST_FAILURES] += 1
        return (TIMEOUT if r[R_TIMEOUT] else UNSAT), 0
    lex = mode == 1
    use_restarts = mode == 0 and restarts != RS_NONE
    cacd = heuristic == H_CACD
    cw = np.ones(max(K[SPTR].size - 1, 1))          # dom/wdeg: a weight per propagator
    vw = np.full(n, 1e-9)
    sptr, scope = K[SPTR], K[SCOPE]
    for c in range(sptr.size - 1):
        for i in range(sptr[c], sptr[c + 1]):
            vw[scope[i]] += 1.0
    phase = np.full(n, -1, np.int64)
    dvar = np.empty(n + 1, np.int64)
    dval = np.empty(n + 1, np.int64)
    tmark = np.empty(n + 1, np.int64)
    total_values = K[VOFF][n] + 1
    nvar = np.empty(total_values, np.int64)
    nval = np.empty(total_values, np.int64)
    ntag = np.empty(total_values, np.int64)
    nneg = 0
    depth = 0
    count = 0
    lc = -1
    nodes = 0
    failures = 0
    since = 0
    nrestart = 0
    cutoff = RESTART_BASE
    var = 0
    while True:
        ok = True
        if not (nodes & CHECK_NODES) and now() >= deadline:
            r[R_TIMEOUT] = 1
            break
        if use_restarts and since >= cutoff and depth > 0:
            # nld-nogoods of this branch, then back to the root
            for j in range(nneg):
                tag = ntag[j]
                if ngp[nng] + tag + 1 > NOGOOD_LITERALS_MOST:
                    break
                while ngp[nng] + tag + 1 > ngv.size:
                    ngv = np.concatenate((ngv, np.empty(ngv.size, np.int64)))
                    ngk = np.concatenate((ngk, np.empty(ngk.size, np.int64)))
                if nng + 2 > ngp.size:
                    ngp = np.concatenate((ngp, np.zeros(ngp.size, np.int64)))
                at = ngp[nng]
                for d in range(tag):
                    ngv[at + d] = dvar[d]
                    ngk[at + d] = dval[d]
                ngv[at + tag] = nvar[j]
                ngk[at + tag] = nval[j]
                ngp[nng + 1] = at + tag + 1
                nng += 1
            undo_to(M, tmark[0])
            depth = 0
            nneg = 0
            lc = -1
            since = 0
            nrestart += 1
            if restarts == RS_LUBY:
                cutoff = RESTART_BASE * luby(nrestart + 1)
            else:
                cutoff = int(RESTART_BASE * RESTART_GROWTH ** nrestart)
            schedule_all(K, M)
            M = _roomy(K, M)
            ok = propagate(K, M, deadline, ngp, ngv, ngk, nng)
            if not ok:
                if r[R_TIMEOUT]:
                    break
                failures += 1
                depth = -1                       # the root itself fails: no solution
        if ok:
            var = _choose(K, M, n, lex, var if lex else 0, lc, vw, cw, cacd)
            if var < 0:                          # every variable fixed: a solution
                if count < keep:
                    for v in range(n):
                        sols[count * n + v] = value(K, v, lo(K, M, v))
                count += 1
                if mode != 2 or count >= limit:
                    break
                ok = False
            else:
                k = phase[var] if (use_restarts and phase[var] >= 0
                                   and has(K, M, var, phase[var])) else lo(K, M, var)
                phase[var] = k
                tmark[depth] = r[R_TLEN]
                dvar[depth] = var
                dval[depth] = k
                depth += 1
                r[R_STAMP] += 1                  # a fresh stamp: the new level's saves
                nodes += 1
                assign(K, M, var, k)
                M = _roomy(K, M)
                ok = propagate(K, M, deadline, ngp, ngv, ngk, nng)
                if not ok:
                    if r[R_TIMEOUT]:
                        break
                    failures += 1
                    since += 1
                    if not lex:
                        lc = var
                    if r[R_FAILC] >= 0:
                        _bump(K, M, r[R_FAILC], vw, cw, cacd)
        while not ok:                            # refute the last decision, going up
            if depth <= 0:
                break
            depth -= 1
            undo_to(M, tmark[depth])
            while nneg > 0 and ntag[nneg - 1] > depth:
                nneg -= 1
            x, k = dvar[depth], dval[depth]
            nvar[nneg], nval[nneg], ntag[nneg] = x, k, depth
            nneg += 1
            var = x
            M = _roomy(K, M)
            ok = remove(K, M, x, k) and propagate(K, M, deadline, ngp, ngv, ngk, nng)
            if not ok:
                if r[R_TIMEOUT]:
                    break
                failures += 1
                since += 1
                if r[R_FAILC] >= 0:
                    _bump(K, M, r[R_FAILC], vw, cw, cacd)
        if r[R_TIMEOUT]:
            break
        if not ok:                               # the whole tree is searched
            break
    stats[ST_NODES] = nodes
    stats[ST_FAILURES] = failures
    stats[ST_PROPS] = r[R_PROPS]
    stats[ST_RESTARTS] = nrestart
    stats[ST_NOGOODS] = nng
    if r[R_TIMEOUT]:
        return TIMEOUT, count
    if mode != 2 and count:
        return SOLVED, count
    return (SOLVED if count else UNSAT), count
