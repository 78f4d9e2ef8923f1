"""What every compiled search shares: numba, the packed layout's slots, bit helpers.

The packer and the searches agree on one layout of two int64 arrays per
shape: ``blob``, the tables (written once by ``packer``), and ``work``, the
queues, undo logs, probe caches and solutions (written by the searches). The
slot constants below name where each part starts.
"""
from __future__ import annotations

import time

import numpy as np

try:
    import numba
    from numba import njit, objmode, types
    from numba.extending import intrinsic
    WHY_NOT = "numba is disabled (NUMBA_DISABLE_JIT is set)" if numba.config.DISABLE_JIT else ""
except ImportError:
    numba = None
    WHY_NOT = "numba is not installed (pip install numba)"

    def njit(*args, **kwargs):      # plain functions; never called without numba
        return args[0] if args and callable(args[0]) else (lambda fn: fn)


SAT = -(1 << 63)                # a unit-value field already satisfied (sign bit)
CHECK_FAST = 1023               # nodes between deadline checks (mask), no probing
CHECK_SEED = 16383              # ... for seed

# Kernel status codes (the Python wrapper maps them to ``Status``).
UNSAT, SOLVED, TIMEOUT, BADVAR = 0, 1, 2, 3
# Why the givens are hopeless (info[0]); info[1:4] = variable, value, group.
OUTSIDE, TWO_VALUES, REPEATS, CLASH = 1, 2, 3, 4
# ``work`` (one int64 array per shape) starts with a header: undo-log length
# (-1: not logging), where the log starts, a stamp counter,
# the probe pass (stamps the literal cache) and the top of the probe arena.
LOG, PLOG, LOGAT, STAMP, PASS, ARENA_TOP = range(6)
HEAD = 16                      # the naked queue, then the hidden queue follow
# Tables packed in one int64 ``blob`` (one array to unbox per call). Header:
# N, V, U, G, then where ``work`` keeps info (4 slots), the probe scratch
# (3 arrays of N), the literal cache (4 arrays of N*V), the probe arena, the
# undo logs, the seed search's arrays and the solutions; then the start of
# each table and the end of the last.
(N_VARS, N_VALUES, N_UNITS, N_GROUPS, W_INFO, W_SCRATCH, W_LITS, W_ARENA, W_LOG, W_SEED, W_SOLS,
 BLOB_HEAD) = range(12)
ARENA_PER_LITERAL = 8           # arena entries (changed variables) per literal, on average
TABLES = ("vals", "dom", "loose_ptr", "loose_idx", "unit_ptr", "unit_idx",
           "uof_ptr", "uof_idx", "uof_pos", "gof_ptr", "gof_idx", "plc0", "single0",
           "hidden0", "cross_ptr", "cross_idx", "peer_ptr", "peer_idx", "ufull")
(VALS, DOM, LOOSE_PTR, LOOSE_IDX, UNIT_PTR, UNIT_IDX, UOF_PTR, UOF_IDX, UOF_POS,
 GOF_PTR, GOF_IDX, PLC0, SINGLE0, HIDDEN0, CROSS_PTR, CROSS_IDX, PEER_PTR, PEER_IDX,
 UFULL) = range(len(TABLES))


# ----- bit helpers -------------------------------------------------------------
if not WHY_NOT:
    @intrinsic
    def popcount(typingctx, x):
        """Set bits of an int64 (llvm.ctpop: one instruction)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])
        return x(x), codegen

    @intrinsic
    def ctz(typingctx, x):
        """Index of the lowest set bit of a nonzero int64 (llvm.cttz)."""
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return x(x), codegen

    @njit(cache=True)
    def now():
        with objmode(t="float64"):
            t = time.perf_counter()
        return t
else:
    def popcount(x):
        return bin(int(x)).count("1")

    def ctz(x):
        x = int(x)
        return (x & -x).bit_length() - 1

    def now():
        return time.perf_counter()


# ----- shared by the searches ------------------------------------------------
# The searches' hot loops trade style for speed: flat int64 arrays, offsets by
# hand, state passed as array views, no helper objects. Where an index is
# read from a table or computed, the hottest loops cast it (or the range it
# comes from) to ``np.uint64``: numba wraps a signed index that might be
# negative around (a compare and a select on every access), and an unsigned
# one it does not. Measured: a fifth off forum_hardest, a third off the
# hardest 25x25 grids and off the seed search, the same nodes. (Arithmetic
# of a uint64 with an int64 or a literal is signed again, so an index
# computed that way is cast again; and a variable that holds a uint64 on one
# path and an int64 on another becomes float64.)

@njit(cache=True, inline="always")
def table(blob, k):
    return blob[blob[BLOB_HEAD + k]:blob[BLOB_HEAD + 1 + k]]


@njit(cache=True, _nrt=False)
def copy_into(dst, src):
    """``dst[:src.size] = src`` without NRT (slice assignment may allocate)."""
    for k in range(src.size):
        dst[k] = src[k]


@njit(cache=True, _nrt=False)
def value_index(vals, dom, var, value):
    """The bit of ``value`` in ``var``'s base domain, or -1."""
    k = np.searchsorted(vals, value)
    if k < vals.size and vals[k] == value and dom[var] >> k & 1:
        return k
    return -1


@njit(cache=True, _nrt=False)
def given_bit(vals, dom, givens, g, info):
    """The given at ``g`` as (variable, value bit), kept in ``info`` for the message;
    bit 0 when the value is outside the variable's domain (``info[0]`` OUTSIDE).
    Read once per given before the search: the searches share it."""
    var, value = givens[g], givens[g + 1]
    info[1], info[2] = var, value
    k = value_index(vals, dom, var, value)
    if k < 0:
        info[0] = OUTSIDE
        return var, np.int64(0)
    return var, np.int64(1) << k


@njit(cache=True, _nrt=False)
def bad_var(givens, n, info):
    """Store the first given naming an unknown variable in info; True if any."""
    for g in range(0, givens.size, 2):
        if not 0 <= givens[g] < n:
            info[1] = givens[g]
            return True
    return False


@njit(cache=True, inline="always")
def union(cand, idx, lo, hi):
    """The candidates of the variables ``idx[lo:hi]``, OR-ed."""
    m = 0
    for k in range(np.uint64(lo), np.uint64(hi)):
        m |= cand[np.uint64(idx[k])]
    return m


@njit(cache=True, inline="always")
def crossing(cand, ptr, idx, x):
    """The three masks of crossing ``x`` of the ``CROSS`` tables, for locked candidates:
    the values inside both units, in unit a only, in unit b only."""
    return (union(cand, idx, ptr[x], ptr[x + 1]), union(cand, idx, ptr[x + 1], ptr[x + 2]),
            union(cand, idx, ptr[x + 2], ptr[x + 3]))


# ----- what every search does first and last ------------------------------------
@njit(cache=True, inline="always")
def opening(blob, givens, work):
    """The search's ``info`` (why the givens are hopeless, for the message) and
    ``sols`` (the solutions kept) in ``work``, cleared; and BADVAR when a given
    names an unknown variable, else 0. Inlined: the views never leave numba."""
    info = work[blob[W_INFO]:blob[W_INFO] + 4]
    info[0] = 0
    return info, work[blob[W_SOLS]:], BADVAR if bad_var(givens, blob[N_VARS], info) else 0


@njit(cache=True, inline="always")
def record(sols, count, keep, vals, bits):
    """A solution (one value bit per variable in ``bits``) kept as values, while
    fewer than ``keep`` are; the count with it."""
    if count < keep:
        n = bits.size
        for i in range(n):
            sols[count * n + i] = vals[ctz(bits[i])]
    return count + 1


@njit(cache=True, inline="always")
def exhausted(count, nodes, backtracks):
    """The answer once the whole tree is searched: SOLVED with a solution, else UNSAT."""
    return (SOLVED if count else UNSAT), count, nodes, backtracks

