"""Reversible domains: a bitset per variable over its own sorted values, with
its size and its least and greatest value's index, all in ``S``.

Every write to ``S`` goes through ``put``, which saves the word's old value on
the trail the first time it changes under the current stamp (a stamp per
search level), so backtracking restores exactly what the level changed. A
removal schedules the propagators watching the variable (``notify``).

Hot loops trade style for speed: arrays by slot, no objects.
"""
from __future__ import annotations

import numpy as np

try:
    from numba import types
    from numba.extending import intrinsic
except ImportError:            # the kernels are never called without numba
    types = intrinsic = None

from engines.backtracking.compiled.kernel.common import ctz, njit, numba, popcount
from engines.backtracking.compiled.kernel.general.layout import (
    DOFF,
    I_MN,
    I_MX,
    I_NPROPS,
    I_OPEN,
    I_SZ,
    INFO,
    INQ,
    R_CUR,
    R_QLEN,
    R_QTAIL,
    R_STAMP,
    R_TLEN,
    STAMP,
    TADDR,
    TOLD,
    VALS,
    VOFF,
    WIDX,
    WPTR,
    Q,
    R,
    S,
)

ONE = np.int64(1)
ALL = np.int64(-1)


if numba is not None:
    @intrinsic
    def clz(typingctx, x):
        """Leading zero bits of a nonzero int64 (llvm.ctlz: one instruction)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))
        return x(x), codegen
else:                                   # pragma: no cover - numba absent
    def clz(x):
        return 64 - int(x & 0xFFFFFFFFFFFFFFFF).bit_length()


@njit(cache=True, inline="always", _nrt=False)
def clz_index(w):
    """Index of the highest set bit of a nonzero int64 word."""
    return 63 - clz(w)


@njit(cache=True, inline="always", _nrt=False)
def put(M, a, x):
    """``S[a] = x``, the old word saved on the trail once per stamp."""
    s = M[S]
    if s[a] == x:
        return
    st = M[STAMP]
    r = M[R]
    if st[a] != r[R_STAMP]:
        st[a] = r[R_STAMP]
        t = r[R_TLEN]
        M[TADDR][t] = a
        M[TOLD][t] = s[a]
        r[R_TLEN] = t + 1
    s[a] = x


@njit(cache=True, _nrt=False)
def undo_to(M, mark):
    """Restore every word saved since the trail had length ``mark``."""
    s, r, addr, old = M[S], M[R], M[TADDR], M[TOLD]
    t = r[R_TLEN] - 1
    while t >= mark:
        s[addr[t]] = old[t]
        t -= 1
    r[R_TLEN] = mark
    r[R_STAMP] += 1


@njit(cache=True, inline="always", _nrt=False)
def size(K, M, v):
    return M[S][K[INFO][I_SZ] + v]


@njit(cache=True, inline="always", _nrt=False)
def lo(K, M, v):
    """Index of the least value left."""
    return M[S][K[INFO][I_MN] + v]


@njit(cache=True, inline="always", _nrt=False)
def hi(K, M, v):
    return M[S][K[INFO][I_MX] + v]


@njit(cache=True, inline="always", _nrt=False)
def value(K, v, k):
    return K[VALS][K[VOFF][v] + k]


@njit(cache=True, inline="always", _nrt=False)
def has(K, M, v, k):
    return (M[S][K[DOFF][v] + (k >> 6)] >> (k & 63)) & 1


@njit(cache=True, _nrt=False)
def first_at_least(K, v, x):
    """The index of the least base value of ``v`` that is >= x (the count if none)."""
    a, b = K[VOFF][v], K[VOFF][v + 1]
    vals = K[VALS]
    while a < b:
        m = (a + b) >> 1
        if vals[m] < x:
            a = m + 1
        else:
            b = m
    return a - K[VOFF][v]


@njit(cache=True, _nrt=False)
def index_of(K, v, x):
    """The index of value ``x`` among ``v``'s base values, or -1."""
    k = first_at_least(K, v, x)
    if k < K[VOFF][v + 1] - K[VOFF][v] and K[VALS][K[VOFF][v] + k] == x:
        return k
    return -1


@njit(cache=True, _nrt=False)
def next_in(K, M, v, k):
    """The least index >= k in ``v``'s domain, or -1."""
    s = M[S]
    d = K[DOFF][v]
    nw = K[DOFF][v + 1] - d
    wi = k >> 6
    if wi >= nw:
        return -1
    w = s[d + wi] & (ALL << (k & 63))
    while w == 0:
        wi += 1
        if wi >= nw:
            return -1
        w = s[d + wi]
    return (wi << 6) + ctz(w)


@njit(cache=True, _nrt=False)
def prev_in(K, M, v, k):
    """The greatest index <= k in ``v``'s domain, or -1."""
    s = M[S]
    d = K[DOFF][v]
    wi = k >> 6
    b = k & 63
    mask = ALL if b == 63 else (ONE << (b + 1)) - 1
    w = s[d + wi] & mask
    while w == 0:
        wi -= 1
        if wi < 0:
            return -1
        w = s[d + wi]
    return (wi << 6) + clz_index(w)


@njit(cache=True, _nrt=False)
def notify(K, M, v):
    """Schedule every propagator watching ``v`` (but the running one, when it is
    idempotent: it has already taken its own changes into account)."""
    r, q, inq = M[R], M[Q], M[INQ]
    wptr, widx = K[WPTR], K[WIDX]
    cur = r[R_CUR]
    np_ = K[INFO][I_NPROPS]
    for i in range(wptr[v], wptr[v + 1]):
        c = widx[i]
        if c != cur and not inq[c]:
            inq[c] = 1
            q[r[R_QTAIL]] = c
            r[R_QTAIL] = (r[R_QTAIL] + 1) % np_
            r[R_QLEN] += 1


@njit(cache=True, _nrt=False)
def _now_fixed(K, M, v):
    """``v`` was just fixed: each propagator watching it has one open variable less
    (what dom/wdeg counts)."""
    at = K[INFO][I_OPEN]
    s = M[S]
    wptr, widx = K[WPTR], K[WIDX]
    for i in range(wptr[v], wptr[v + 1]):
        c = widx[i]
        put(M, at + c, s[at + c] - 1)


@njit(cache=True, _nrt=False)
def remove(K, M, v, k):
    """Take index ``k`` out of ``v``'s domain; False when the domain is wiped out."""
    s = M[S]
    a = K[DOFF][v] + (k >> 6)
    w = s[a]
    bit = ONE << (k & 63)
    if not w & bit:
        return True
    info = K[INFO]
    n = s[info[I_SZ] + v] - 1
    if n == 0:
        return False
    put(M, a, w & ~bit)
    put(M, info[I_SZ] + v, n)
    if k == s[info[I_MN] + v]:
        put(M, info[I_MN] + v, next_in(K, M, v, k))
    if k == s[info[I_MX] + v]:
        put(M, info[I_MX] + v, prev_in(K, M, v, k))
    if n == 1:
        _now_fixed(K, M, v)
    notify(K, M, v)
    return True


@njit(cache=True, _nrt=False)
def _shrunk(K, M, v, gone, a, b):
    """``gone`` values of ``v`` were taken out and what is left lies in [a, b]: its
    size and bounds follow, and its watchers are told; False on a wipe-out."""
    if gone == 0:
        return True
    info = K[INFO]
    n = M[S][info[I_SZ] + v] - gone
    if n <= 0:
        return False
    put(M, info[I_SZ] + v, n)
    put(M, info[I_MN] + v, next_in(K, M, v, a))
    put(M, info[I_MX] + v, prev_in(K, M, v, b))
    if n == 1:
        _now_fixed(K, M, v)
    notify(K, M, v)
    return True


@njit(cache=True, _nrt=False)
def keep_between(K, M, v, a, b):
    """Keep only the indexes in [a, b] of ``v``'s domain; False on a wipe-out."""
    info = K[INFO]
    s = M[S]
    mn, mx = s[info[I_MN] + v], s[info[I_MX] + v]
    if a <= mn and b >= mx:
        return True
    if a > mx or b < mn or a > b:
        return False
    a = max(a, mn)
    b = min(b, mx)
    d = K[DOFF][v]
    gone = 0
    for wi in range(mn >> 6, (mx >> 6) + 1):
        w = s[d + wi]
        lo_bit = wi << 6
        keep = ALL
        if a > lo_bit:
            keep &= ALL << (a - lo_bit) if a - lo_bit < 64 else np.int64(0)
        if b < lo_bit + 63:
            keep &= (ONE << (b - lo_bit + 1)) - 1 if b >= lo_bit else np.int64(0)
        nw = w & keep
        if nw != w:
            gone += popcount(w) - popcount(nw)
            put(M, d + wi, nw)
    return _shrunk(K, M, v, gone, a, b)


@njit(cache=True, _nrt=False)
def keep_values(K, M, v, xlo, xhi):
    """Keep only the values in [xlo, xhi]; False on a wipe-out."""
    a = first_at_least(K, v, xlo)
    if xhi == np.iinfo(np.int64).max:
        b = K[VOFF][v + 1] - K[VOFF][v] - 1
    else:
        b = first_at_least(K, v, xhi + 1) - 1
    return keep_between(K, M, v, a, b)


@njit(cache=True, _nrt=False)
def assign(K, M, v, k):
    """Fix ``v`` to index ``k``; False when ``k`` is not in its domain."""
    if k < 0 or not has(K, M, v, k):
        return False
    return keep_between(K, M, v, k, k)


@njit(cache=True, _nrt=False)
def keep_words(K, M, v, mask):
    """Keep only the indexes of ``v`` whose bit is set in ``mask`` (one word per word
    of its domain); False on a wipe-out."""
    info = K[INFO]
    s = M[S]
    d = K[DOFF][v]
    mn, mx = s[info[I_MN] + v], s[info[I_MX] + v]
    gone = 0
    for wi in range(mn >> 6, (mx >> 6) + 1):
        w = s[d + wi]
        nw = w & mask[wi]
        if nw != w:
            gone += popcount(w) - popcount(nw)
            put(M, d + wi, nw)
    return _shrunk(K, M, v, gone, mn, mx)
