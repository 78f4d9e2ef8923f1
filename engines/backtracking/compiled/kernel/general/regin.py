"""AllDifferent made arc consistent by matching (Régin, AAAI 1994).

The open members and the values of the union form a bipartite graph. A
maximum matching covering every member (none: no room, a failure) is kept
between calls (``RES``, one value per member: repaired, not rebuilt, each
call). Oriented member -> its matched value and value -> every other member
that can take it, an edge belongs to some matching covering the members, and
its value stays, exactly when it is matched, or its value is reachable from a
value no member is matched to (an even alternating path), or both ends lie in
one strongly connected component (an even alternating cycle). Every other
value leaves its member.

Used where the members' values number at most ``GAC_VALUES_MOST`` and are more
than the members: the graph costs members x values per call, which small
unions repay in pruning that value elimination and Hall intervals miss (holes
inside intervals). A permutation (as many values as members) keeps Hall
intervals and hidden singles, which cost little there: matching 60 members
over 60 values made a Pentominoes instance five times slower a node.

Hot loops trade style for speed: arrays by slot, no objects; the graph
searches (augmenting paths, Tarjan's components) use explicit stacks in
``TMP``, laid out at the top of ``regin``.
"""
from __future__ import annotations

from engines.backtracking.compiled.kernel.common import njit
from engines.backtracking.compiled.kernel.general.domain import has, index_of, lo, next_in, remove
from engines.backtracking.compiled.kernel.general.layout import CTS, PDATA, RES, TMP, VOFF

GAC_VALUES_MOST = 128      # union values past which an AllDifferent is not matched
GAC_MEMBERS_MOST = 128


def scratch(n: int, nu: int) -> int:
    """``TMP`` words ``regin`` needs for ``n`` members over ``nu`` values."""
    return 14 * n + 11 * nu + 8


@njit(cache=True, _nrt=False)
def _takes(K, M, pd, xs, order, at, done, t, x):
    """Whether open member ``t`` can still take value ``x``."""
    v = pd[xs + order[at + done + t]]
    k = index_of(K, v, x)
    return k >= 0 and has(K, M, v, k) == 1


@njit(cache=True, _nrt=False)
def _next_edge(K, M, pd, xs, order, at, done, m, tmp, mt, uv, cp, x):
    """The next out-neighbour of graph node ``x`` (members ``0..m-1``, then values),
    from the position ``tmp[cp + x]``; -1 when none is left."""
    if x < m:
        if tmp[cp + x] == 0:
            tmp[cp + x] = 1
            return m + tmp[mt + x]
        return -1
    u = x - m
    t = tmp[cp + x]
    while t < m:
        if tmp[mt + t] != u and _takes(K, M, pd, xs, order, at, done, t, K[CTS][uv + u]):
            tmp[cp + x] = t + 1
            return t
        t += 1
    tmp[cp + x] = m
    return -1


@njit(cache=True, _nrt=False)
def regin(K, M, xs, order, at, done, n, nu, map_at, uv, res_at):
    """Arc consistency over the open members ``order[at + done:at + n]``.
    0: no matching covers them, 1: nothing changed, 2: values removed."""
    pd, cts, tmp, res = K[PDATA], K[CTS], M[TMP], M[RES]
    m = n - done
    nn = m + nu
    ms = 0                    # per member slot: where its value map starts
    mt = ms + n               # per open member: its matched value
    vm = mt + m               # per value: its matched open member, or -1
    seen = vm + nu            # per value: the augmentation that saw it
    stk = seen + nu           # augmenting path: members, their next value, their choice
    kp = stk + m
    ch = kp + m
    idx = ch + m              # Tarjan, per node: index, low link, on stack, component
    low = idx + nn
    ons = low + nn
    comp = ons + nn
    cp = comp + nn            # per node: its next out-edge to try
    tst = cp + nn             # Tarjan's stack, then the call stack
    cs = tst + nn
    rch = cs + nn             # per node: reached from a free value; then the queue
    qu = rch + nn
    start = map_at
    for j in range(n):
        tmp[ms + j] = start
        v = pd[xs + j]
        start += K[VOFF][v + 1] - K[VOFF][v]
    for u in range(nu):
        tmp[vm + u] = -1
        tmp[seen + u] = 0
    for t in range(m):                         # the kept matching, where still valid
        u = res[res_at + order[at + done + t]]
        tmp[mt + t] = -1
        if 0 <= u < nu and tmp[vm + u] < 0 and _takes(K, M, pd, xs, order, at, done, t,
                                                      cts[uv + u]):
            tmp[mt + t] = u
            tmp[vm + u] = t
    for t0 in range(m):                        # augmenting paths for the others
        if tmp[mt + t0] >= 0:
            continue
        depth = 0
        tmp[stk] = t0
        v = pd[xs + order[at + done + t0]]
        tmp[kp] = lo(K, M, v)
        found = False
        while depth >= 0 and not found:
            t = tmp[stk + depth]
            v = pd[xs + order[at + done + t]]
            k = tmp[kp + depth]
            pushed = False
            while k >= 0:
                u = cts[tmp[ms + order[at + done + t]] + k]
                k = next_in(K, M, v, k + 1)
                if tmp[seen + u] == t0 + 1:
                    continue
                tmp[seen + u] = t0 + 1
                tmp[ch + depth] = u
                tmp[kp + depth] = k
                if tmp[vm + u] < 0:
                    found = True
                else:
                    owner = tmp[vm + u]
                    depth += 1
                    tmp[stk + depth] = owner
                    tmp[kp + depth] = lo(K, M, pd[xs + order[at + done + owner]])
                    pushed = True
                break
            if not found and not pushed:
                depth -= 1
        if not found:
            return 0
        for level in range(depth + 1):
            t, u = tmp[stk + level], tmp[ch + level]
            tmp[mt + t] = u
            tmp[vm + u] = t
    for t in range(m):
        res[res_at + order[at + done + t]] = tmp[mt + t]
    # values reachable from a free value, breadth first
    head = tail = 0
    for x in range(nn):
        tmp[rch + x] = 0
        tmp[cp + x] = 0
    for u in range(nu):
        if tmp[vm + u] < 0:
            tmp[rch + m + u] = 1
            tmp[qu + tail] = m + u
            tail += 1
    while head < tail:
        x = tmp[qu + head]
        head += 1
        y = _next_edge(K, M, pd, xs, order, at, done, m, tmp, mt, uv, cp, x)
        while y >= 0:
            if tmp[rch + y] == 0:
                tmp[rch + y] = 1
                tmp[qu + tail] = y
                tail += 1
            y = _next_edge(K, M, pd, xs, order, at, done, m, tmp, mt, uv, cp, x)
    # strongly connected components (Tarjan, iterative)
    for x in range(nn):
        tmp[idx + x] = -1
        tmp[ons + x] = 0
        tmp[cp + x] = 0
    counter = sp = 0
    for s in range(nn):
        if tmp[idx + s] >= 0:
            continue
        tmp[idx + s] = tmp[low + s] = counter
        counter += 1
        tmp[tst + sp] = s
        sp += 1
        tmp[ons + s] = 1
        top = 0
        tmp[cs] = s
        while top >= 0:
            x = tmp[cs + top]
            y = _next_edge(K, M, pd, xs, order, at, done, m, tmp, mt, uv, cp, x)
            if y >= 0:
                if tmp[idx + y] < 0:
                    tmp[idx + y] = tmp[low + y] = counter
                    counter += 1
                    tmp[tst + sp] = y
                    sp += 1
                    tmp[ons + y] = 1
                    top += 1
                    tmp[cs + top] = y
                elif tmp[ons + y] == 1 and tmp[idx + y] < tmp[low + x]:
                    tmp[low + x] = tmp[idx + y]
                continue
            top -= 1
            if tmp[low + x] == tmp[idx + x]:
                while True:
                    sp -= 1
                    w = tmp[tst + sp]
                    tmp[ons + w] = 0
                    tmp[comp + w] = x
                    if w == x:
                        break
            if top >= 0:
                p = tmp[cs + top]
                if tmp[low + x] < tmp[low + p]:
                    tmp[low + p] = tmp[low + x]
    changed = False
    for t in range(m):                          # what no covering matching uses
        j = order[at + done + t]
        v = pd[xs + j]
        k = lo(K, M, v)
        while k >= 0:
            u = cts[tmp[ms + j] + k]
            if u != tmp[mt + t] and tmp[rch + m + u] == 0 and tmp[comp + t] != tmp[comp + m + u]:
                if not remove(K, M, v, k):
                    return 0
                changed = True
            k = next_in(K, M, v, k + 1)
    return 2 if changed else 1
