"""AllDifferent: value elimination, then matching or Hall intervals and hidden singles.

A fixed value leaves every other member (each fixed member once per branch,
through a reversible sparse set). Where the members' values are few
(``regin``), a matching makes the open members arc consistent. Elsewhere Hall
intervals make their bounds consistent (the pigeonhole test is their first
case), and where the members have as many values as members between them, a
value left in one member's domain only is that member's.

Hot loops trade style for speed: arrays by slot, no objects.
"""
from __future__ import annotations

from engines.backtracking.compiled.kernel.common import njit
from engines.backtracking.compiled.kernel.general.domain import (
    has,
    hi,
    index_of,
    keep_between,
    keep_values,
    lo,
    next_in,
    put,
    remove,
    size,
    value,
)
from engines.backtracking.compiled.kernel.general.layout import CTI, CTS, PDATA, TMP, VOFF, S
from engines.backtracking.compiled.kernel.general.regin import regin

PERMUTATION, MATCHED = 1, 2       # the flags of an AllDifferent's PDATA


@njit(cache=True, _nrt=False)
def alldifferent(K, M, base):
    """[n, done_at, order_at, values, map_at, flags, values_at, match_at, variables]:
    a fixed value leaves every other member; then, with ``MATCHED``, the open
    members are made arc consistent by matching (``regin``: the union's
    ``values`` at ``CTS[values_at:]``, the kept matching at ``RES[match_at:]``);
    else Hall intervals make their bounds consistent, and with ``PERMUTATION``
    (as many values as members) every value must be taken, so a value left in
    one member's domain only is that member's (a hidden single) and a value in
    none fails. ``CTS[map_at:]`` maps each member's value indexes to the
    union's.

    The members whose value has been taken out of the others come first in a
    sparse set (``CTI[order_at:]``, its length at ``S[done_at]``, reversible), so
    each fixed member is handled once per branch, not at every call.
    """
    pd, s, order = K[PDATA], M[S], M[CTI]
    n, done_at, at, nu, map_at = pd[base], pd[base + 1], pd[base + 2], pd[base + 3], pd[base + 4]
    flags = pd[base + 5]
    xs = base + 8
    while True:
        done = s[done_at]
        i = done
        while i < n:
            m = order[at + i]
            v = pd[xs + m]
            if size(K, M, v) != 1:
                i += 1
                continue
            order[at + i] = order[at + done]
            order[at + done] = m
            done += 1
            x = value(K, v, lo(K, M, v))
            for t in range(done, n):
                u = pd[xs + order[at + t]]
                k = index_of(K, u, x)
                if k >= 0 and has(K, M, u, k):
                    if size(K, M, u) == 1 or not remove(K, M, u, k):
                        return False
            i = done                    # members fixed by this removal come next
        put(M, done_at, done)
        if flags & MATCHED:
            return n - done < 2 or regin(K, M, xs, order, at, done, n, nu, map_at,
                                         pd[base + 6], pd[base + 7]) > 0
        if flags & PERMUTATION and n > done and \
                not _hidden_singles(K, M, base, n, nu, map_at, xs):
            return False
        hall = _hall_intervals(K, M, xs, order, at, done, n)
        if hall != 2:
            return hall == 1


HALL_MOST = 128                   # open members past which Hall intervals are not sought


@njit(cache=True, _nrt=False)
def _hall_intervals(K, M, xs, order, at, done, n):
    """Bounds consistency over the open members (a pigeonhole test included): an
    interval [a, b] holding the bounds of b - a + 1 of them is theirs alone, so
    the others' bounds leave it. 0: no room, 1: nothing changed, 2: narrowed.
    ``TMP``: the open members' least values, greatest values, and their order
    by greatest value."""
    pd, tmp = K[PDATA], M[TMP]
    m = n - done
    if m < 2 or m > HALL_MOST:
        return 1
    for t in range(m):
        v = pd[xs + order[at + done + t]]
        tmp[t] = value(K, v, lo(K, M, v))
        tmp[m + t] = value(K, v, hi(K, M, v))
        j = t
        while j > 0 and tmp[m + tmp[2 * m + j - 1]] > tmp[m + t]:
            tmp[2 * m + j] = tmp[2 * m + j - 1]
            j -= 1
        tmp[2 * m + j] = t
    for i in range(m):
        a = tmp[i]
        inside = 0
        for jj in range(m):
            j = tmp[2 * m + jj]
            if tmp[j] < a:
                continue
            inside += 1
            b = tmp[m + j]
            if inside > b - a + 1:
                return 0
            if inside < b - a + 1:
                continue
            changed = False
            for t in range(m):
                low, high = tmp[t], tmp[m + t]
                if low >= a and high <= b:
                    continue
                new_low = b + 1 if a <= low <= b else low
                new_high = a - 1 if a <= high <= b else high
                if new_low != low or new_high != high:
                    v = pd[xs + order[at + done + t]]
                    if not keep_values(K, M, v, new_low, new_high):
                        return 0
                    changed = True
            if changed:
                return 2
    return 1


@njit(cache=True, _nrt=False)
def _hidden_singles(K, M, base, n, nu, map_at, xs):
    """A permutation's values each need a member: count the members that can take
    each value (``TMP``: the count, then the last member seen)."""
    pd, cts, tmp = K[PDATA], K[CTS], M[TMP]
    again = True
    while again:
        again = False
        for u in range(2 * nu):
            tmp[u] = 0
        at = map_at
        for m in range(n):
            v = pd[xs + m]
            nv = K[VOFF][v + 1] - K[VOFF][v]
            k = lo(K, M, v)
            while k >= 0:
                u = cts[at + k]
                if u >= 0:
                    tmp[u] += 1
                    tmp[nu + u] = m
                k = next_in(K, M, v, k + 1)
            at += nv
        for u in range(nu):
            if tmp[u] == 0:
                return False
            if tmp[u] == 1:
                m = tmp[nu + u]
                v = pd[xs + m]
                if size(K, M, v) > 1:
                    # the member's value index of union value u: scan its map
                    at = map_at
                    for j in range(m):
                        at += K[VOFF][pd[xs + j] + 1] - K[VOFF][pd[xs + j]]
                    k = lo(K, M, v)
                    while k >= 0 and cts[at + k] != u:
                        k = next_in(K, M, v, k + 1)
                    if not keep_between(K, M, v, k, k):
                        return False
                    again = True
    return True


