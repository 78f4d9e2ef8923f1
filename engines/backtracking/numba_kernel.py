"""A numba kernel for the backtracking engine's two variants on AllDifferent-only models.

Pure functions, no ``Engine`` subclass: an engine plugs this in behind an
option (``kernel=python|numba``). The kernel knows models, not Sudoku: it
reads variables, their base domains and the AllDifferent groups from a
``puzzles.model.Structure`` and derives peers and *permutation units* (groups
with exactly as many values as members, where hidden singles apply) itself.

API::

    available() -> bool                 # numba importable (and not disabled)
    unavailable_reason() -> str         # one line, "" when available
    unsupported_reason(structure) -> str | None
    compile_structure(structure) -> KernelShape      # cache per structure.key
    solve(kshape, givens, variant, mode, limit, keep, deadline) -> KernelResult
    warm_up() -> float                  # compiles / loads every kernel, seconds

State layout (``fast``). A search state is one int64 row::

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

Branching is binary and exclusive: the left child assigns a literal, the
right one (taken when the left is exhausted) removes it from the parent and
propagates again. Every solution lies in exactly one subtree, so ``count``
counts each once; propagation removes only values that belong to no solution,
so with ``lexfirst`` branching on the lowest open variable, smallest value
first, the first solution found is the lexicographically smallest.

``seed`` is the BOJ 2239 reference search, a port of
``engines/backtracking/seed.py`` move for move: same node and backtrack
counts (tests compare them).

Time limits: the kernels call ``time.perf_counter`` through an objmode block
every 1024 nodes (every node when probing, whose nodes are dear; every 16384
for ``seed``); that costs about a microsecond per check.

Compiled code is cached on disk (``cache=True``, in ``__pycache__``); call
``warm_up()`` once per worker before any timed solve.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import chain
from typing import NamedTuple

import numpy as np

from engines.base import Status
from puzzles.model import AllDifferent, Structure

try:
    import numba
    from numba import njit, objmode, types
    from numba.extending import intrinsic
    _WHY_NOT = "numba is disabled (NUMBA_DISABLE_JIT is set)" if numba.config.DISABLE_JIT else ""
except ImportError:
    numba = None
    _WHY_NOT = "numba is not installed (pip install numba)"

    def njit(*args, **kwargs):      # plain functions; never called, available() is False
        return args[0] if args and callable(args[0]) else (lambda fn: fn)

VARIANTS = ("seed", "fast")
MODES = {"first": 0, "lexfirst": 1, "count": 2}
MAX_VALUES = 62                 # values per model: bits of one int64 mask
PROBE_FROM_VALUES = 16          # shapes with this many values probe at every node
SAT = -(1 << 63)                # a unit-value field already satisfied (sign bit)
CHECK_FAST = 1023               # nodes between deadline checks (mask), no probing
CHECK_SEED = 16383              # ... for seed

# Kernel status codes (the Python wrapper maps them to ``Status``).
_UNSAT, _SOLVED, _TIMEOUT, _BADVAR = 0, 1, 2, 3
# Why the givens are hopeless (info[0]); info[1:4] = variable, value, group.
_OUTSIDE, _TWO_VALUES, _REPEATS, _CLASH = 1, 2, 3, 4
# ``work`` (one int64 array per shape) starts with a header: undo-log length
# (-1: not logging), where the log starts, a stamp counter,
# the probe pass (stamps the literal cache) and the top of the probe arena.
_LOG, _PLOG, _LOGAT, _STAMP, _PASS, _ARENA_TOP = range(6)
_HEAD = 16                      # the naked queue, then the hidden queue follow
# Tables packed in one int64 ``blob`` (one array to unbox per call). Header:
# N, V, U, G, then where ``work`` keeps info (4 slots), the probe scratch
# (3 arrays of N), the literal cache (4 arrays of N*V), the probe arena, the
# undo logs, the seed search's arrays and the solutions; then the start of
# each table and the end of the last.
(_N, _V, _U, _G, _W_INFO, _W_SCRATCH, _W_LITS, _W_ARENA, _W_LOG, _W_SEED, _W_SOLS,
 _BLOB_HEAD) = range(12)
ARENA_PER_LITERAL = 8           # arena entries (changed variables) per literal, on average
_TABLES = ("vals", "dom", "loose_ptr", "loose_idx", "unit_ptr", "unit_idx",
           "uof_ptr", "uof_idx", "uof_pos", "gof_ptr", "gof_idx", "plc0", "single0",
           "hidden0", "cross_ptr", "cross_idx", "peer_ptr", "peer_idx", "ufull")
(_VALS, _DOM, _LOOSE_PTR, _LOOSE_IDX, _UNIT_PTR, _UNIT_IDX, _UOF_PTR, _UOF_IDX, _UOF_POS,
 _GOF_PTR, _GOF_IDX, _PLC0, _SINGLE0, _HIDDEN0, _CROSS_PTR, _CROSS_IDX, _PEER_PTR, _PEER_IDX,
 _UFULL) = range(len(_TABLES))


def available() -> bool:
    """Whether the compiled kernels can run here."""
    return not _WHY_NOT


def unavailable_reason() -> str:
    """One line saying why not, or "" when ``available()``."""
    return _WHY_NOT


# ----- bit helpers -------------------------------------------------------------
if available():
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
    def _now():
        with objmode(t="float64"):
            t = time.perf_counter()
        return t
else:
    def popcount(x):
        return bin(int(x)).count("1")

    def ctz(x):
        x = int(x)
        return (x & -x).bit_length() - 1

    def _now():
        return time.perf_counter()


# ----- the shape -------------------------------------------------------------
@dataclass(eq=False)
class KernelShape:
    """What the kernels need of one structure: build once per ``structure.key``."""
    key: str
    nvars: int
    values: tuple                     # sorted; bit k of a mask stands for values[k]
    groups: tuple                     # AllDifferent groups kept (tuples of variables)
    units: tuple                      # indices into groups of the permutation units
    blob: np.ndarray                  # the packed tables (see ``_TABLES``)
    probe: bool                       # failed-literal probing at every node
    unsat_reason: str = ""
    _rows: np.ndarray | None = field(default=None, repr=False)
    _work: np.ndarray | None = field(default=None, repr=False)
    _keep: int = field(default=-1, repr=False)     # solutions the work array has room for

    @property
    def nvalues(self) -> int:
        return len(self.values)

    def __post_init__(self):
        self.info_at = int(self.blob[_W_INFO])          # where ``work`` keeps them
        self.sols_at = int(self.blob[_W_SOLS])

    def workspace(self, keep: int) -> tuple[np.ndarray, np.ndarray]:
        """Search rows and the work array (queues, info, log, ``keep`` solutions), kept."""
        n, nf = self.nvars, len(self.units) * len(self.values)
        if keep > self._keep:
            self._keep = max(keep, 1)
            self._work = np.zeros(int(self.blob[_W_SOLS]) + self._keep * n, np.int64)
        if self._rows is None:
            self._rows = np.zeros((n + 1, 3 + n + max(nf, 3 * len(self.units))), np.int64)
        return self._rows, self._work


def unsupported_reason(structure: Structure) -> str | None:
    """Why the kernel cannot take this structure, or None when it can."""
    if any(not isinstance(con, AllDifferent) for con in structure.constraints):
        return "the numba kernel takes AllDifferent-only models"
    values = {v for dom in structure.domains for v in dom}
    if len(values) > MAX_VALUES:
        return f"the numba kernel takes at most {MAX_VALUES} distinct values"
    if values and not -2 ** 63 <= min(values) <= max(values) < 2 ** 63:
        return "the numba kernel takes 64-bit integer values"
    return None


def compile_structure(structure: Structure) -> KernelShape:
    """Derive peers, permutation units and initial counts; pack them for the kernels.

    Groups as the Python engine keeps them: a group naming a variable twice,
    a pigeonhole group or an empty domain make the shape UNSAT
    (``unsat_reason``); groups of fewer than two variables and repeats of the
    same set are dropped.
    """
    reason = unsupported_reason(structure)
    if reason:
        raise ValueError(reason)
    n = structure.size
    values = tuple(sorted({v for dom in structure.domains for v in dom}))
    vidx = {v: k for k, v in enumerate(values)}
    dom = [sum(1 << vidx[v] for v in set(d)) for d in structure.domains]
    groups, unsat = _kept_groups(structure, dom)
    units = tuple(g for g, group in enumerate(groups)
                  if _union(group, dom).bit_count() == len(group))
    nv = len(values)
    loose = [set() for _ in range(n)]          # peers through groups that are not units
    peers = [set() for _ in range(n)]          # peers through any group
    groups_of = [[] for _ in range(n)]
    units_of = [[] for _ in range(n)]
    for g, group in enumerate(groups):
        for var in group:
            groups_of[var].append(g)
            peers[var].update(group)
            if g not in units:
                loose[var].update(group)
    for u, g in enumerate(units):
        for pos, var in enumerate(groups[g]):
            units_of[var].append((u, pos))
    plc0 = [SAT] * (len(units) * nv)
    for u, g in enumerate(units):
        for vi in range(nv):
            places = sum(1 << pos for pos, var in enumerate(groups[g]) if dom[var] >> vi & 1)
            if places:
                plc0[u * nv + vi] = places
    unit_lists = [groups[g] for g in units]
    tables = {
        "vals": values, "dom": dom,
        **_csr("loose", [sorted(p - {var}) for var, p in enumerate(loose)]),
        **_csr("unit", unit_lists), **_csr("gof", groups_of),
        **_csr("uof", [[u for u, _ in places] for places in units_of]),
        "uof_pos": [pos for places in units_of for _, pos in places],
        "plc0": plc0,
        "single0": [i for i in range(n) if dom[i].bit_count() == 1],
        "hidden0": [f for f, c in enumerate(plc0) if c > 0 and c.bit_count() == 1],
        **_csr("cross", _crossings(unit_lists)),
        **_csr("peer", [sorted(p - {var}) for var, p in enumerate(peers)]),
        "ufull": [_union(group, dom) for group in unit_lists],
    }
    nf = len(units) * nv
    # the undo logs hold one entry per write: at most one per candidate
    # removed, then one per place it removes, plus the SAT marks
    log = n * nv + nv * len(tables["uof_idx"]) + nf
    info = _HEAD + n + nf
    lits = info + 4 + 3 * n
    arena = lits + 4 * n * nv
    at = arena + 2 * ARENA_PER_LITERAL * n * nv
    seed = at + 2 * log                        # the seed search: 3 arrays of N, one of G
    header = [n, nv, len(units), len(groups), info, info + 4, lits, arena, at, seed,
              seed + 3 * n + 1 + len(groups)]
    starts, at = [], len(header) + len(_TABLES) + 1
    for name in _TABLES:
        starts.append(at)
        at += len(tables[name])
    blob = np.array(header + starts + [at] + list(chain.from_iterable(
        tables[name] for name in _TABLES)), dtype=np.int64)
    return KernelShape(structure.key, n, values, groups, units, blob,
                       nv >= PROBE_FROM_VALUES, unsat)


def _union(group, dom) -> int:
    bits = 0
    for var in group:
        bits |= dom[var]
    return bits


def _kept_groups(structure: Structure, dom: list[int]) -> tuple[tuple, str]:
    kept, seen = [], set()
    for con in structure.constraints:
        group = tuple(con.vars)
        if len(set(group)) < len(group):
            return (), f"AllDifferent{group} names a variable twice"
        if len(group) < 2 or frozenset(group) in seen:
            continue
        seen.add(frozenset(group))
        have = _union(group, dom).bit_count()
        if have < len(group):
            return (), f"AllDifferent over {len(group)} variables has only {have} values " \
                       "(pigeonhole)"
        kept.append(group)
    empty = [i for i, d in enumerate(dom) if not d]
    if empty:
        return (), f"variable {structure.variables[empty[0]]} has an empty domain"
    return tuple(kept), ""


def _crossings(unit_lists) -> list[list[int]]:
    """For each two units sharing two or more variables: the shared ones, the
    rest of the first, the rest of the second (three lists in a row)."""
    out = []
    sets = [set(u) for u in unit_lists]
    for a in range(len(sets)):
        for b in range(a + 1, len(sets)):
            both = sets[a] & sets[b]
            if len(both) >= 2:
                out += [sorted(both), sorted(sets[a] - both), sorted(sets[b] - both)]
    return out


def _csr(name: str, lists) -> dict[str, list[int]]:
    """Lists of ints as ``<name>_ptr`` (offsets) and ``<name>_idx`` (concatenation)."""
    ptr = [0]
    for items in lists:
        ptr.append(ptr[-1] + len(items))
    return {f"{name}_ptr": ptr, f"{name}_idx": [x for items in lists for x in items]}


# ----- solving -----------------------------------------------------------------
class KernelResult(NamedTuple):
    """``status`` (engines.base.Status), up to ``keep`` solutions (value tuples in
    variable order), ``count`` of solutions found, search effort, and a message
    when the givens alone are hopeless."""
    status: Status
    solutions: list
    count: int
    nodes: int
    backtracks: int
    message: str = ""


def solve(kshape: KernelShape, givens, variant: str = "fast", mode: str = "first",
          limit: int = 1, keep: int = 1, deadline: float | None = None) -> KernelResult:
    """Search the model ``kshape`` + ``givens`` (``(var, value)`` pairs).

    ``first`` and ``lexfirst`` stop at one solution; ``count`` stops at
    ``limit`` and keeps the first ``keep``. ``deadline`` is absolute, on the
    ``time.perf_counter()`` scale; past it the result is TIMEOUT with what was
    found so far. Raises ``ValueError`` for a given naming an unknown variable.
    """
    if not available():
        raise RuntimeError(_WHY_NOT)
    if kshape.unsat_reason:
        return KernelResult(Status.UNSAT, [], 0, 0, 0, kshape.unsat_reason)
    code = MODES[mode]
    if code != 2:
        limit = keep = 1
    limit, keep = max(1, int(limit)), max(0, int(keep))
    try:
        flat = np.fromiter(chain.from_iterable(givens), np.int64, 2 * len(givens))
    except OverflowError:
        return _huge_given(kshape, givens)
    rows, work = (kshape._rows, kshape._work) if keep <= kshape._keep else \
        kshape.workspace(keep)
    end = math.inf if deadline is None else float(deadline)
    if variant == "seed":
        status, count, nodes, backtracks = _seed(kshape.blob, flat, limit, keep, end, work)
    elif variant == "fast" and not kshape.probe:
        status, count, nodes, backtracks = _lean(kshape.blob, flat, code, limit, keep, end,
                                                 rows, work)
    elif variant == "fast":
        status, count, nodes, backtracks = _fast(kshape.blob, flat, code, kshape.probe,
                                                 limit, keep, end, rows, work)
    else:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    n, at = kshape.nvars, kshape.sols_at
    if status == _BADVAR:
        raise ValueError(f"given for unknown variable {work[kshape.info_at + 1]}")
    kept = min(count, keep)
    if kept == 1:                              # the common case, without a reshape
        solutions = [tuple(work[at:at + n].tolist())]
    else:
        solutions = [tuple(r) for r in work[at:at + kept * n].reshape(kept, n).tolist()]
    message = ""
    if status == _UNSAT and not nodes:
        message = _why(kshape, work[kshape.info_at:kshape.info_at + 4])
    return KernelResult(_STATUS[status], solutions, count, nodes, backtracks, message)


_STATUS = {_UNSAT: Status.UNSAT, _SOLVED: Status.SOLVED, _TIMEOUT: Status.TIMEOUT}


def _why(kshape: KernelShape, info) -> str:
    kind, var, value, group = (int(x) for x in info)
    if kind == _OUTSIDE:
        return f"given {value} is outside the domain of variable {var}"
    if kind == _TWO_VALUES:
        return f"variable {var} is given two values"
    if kind == _REPEATS:
        return f"given {value} repeats in AllDifferent{kshape.groups[group]}"
    if kind == _CLASH:
        return f"given {value} at variable {var} conflicts with another given"
    return ""


def _huge_given(kshape: KernelShape, givens) -> KernelResult:
    """A given beyond 64 bits: an unknown variable, or a value outside every domain."""
    for var, _value in givens:
        if not 0 <= var < kshape.nvars:
            raise ValueError(f"given for unknown variable {var}")
    var, value = next((v, x) for v, x in givens if not -2 ** 63 <= x < 2 ** 63)
    return KernelResult(Status.UNSAT, [], 0, 0, 0,
                        f"given {value} is outside the domain of variable {var}")


def warm_up() -> float:
    """Compile every kernel signature (or load it from the disk cache); seconds spent.

    Workers call this during warm-up, never inside a timed task.
    """
    if not available():
        return 0.0
    start = time.perf_counter()
    square = Structure("numba-kernel-warm-up", ("a", "b", "c", "d"), ((1, 2),) * 4,
                       (AllDifferent((0, 1)), AllDifferent((2, 3)),
                        AllDifferent((0, 2)), AllDifferent((1, 3))))
    kshape = compile_structure(square)
    for variant in VARIANTS:
        for mode in MODES:
            solve(kshape, ((0, 1),), variant, mode, limit=2, keep=2)
    kshape.probe = True
    solve(kshape, (), "fast", "count", limit=2, keep=2)
    return time.perf_counter() - start


# ----- the kernels -----------------------------------------------------------
# The hot loops below trade style for speed: flat int64 arrays, offsets by
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
def _table(blob, k):
    return blob[blob[_BLOB_HEAD + k]:blob[_BLOB_HEAD + 1 + k]]


@njit(cache=True, _nrt=False)
def _copy(dst, src):
    """``dst[:src.size] = src`` without NRT (slice assignment may allocate)."""
    for k in range(src.size):
        dst[k] = src[k]


@njit(cache=True, _nrt=False)
def _value_index(vals, dom, var, value):
    """The bit of ``value`` in ``var``'s base domain, or -1."""
    k = np.searchsorted(vals, value)
    if k < vals.size and vals[k] == value and dom[var] >> k & 1:
        return k
    return -1


@njit(cache=True, _nrt=False)
def _bad_var(givens, n, info):
    """Store the first given naming an unknown variable in info; True if any."""
    for g in range(0, givens.size, 2):
        if not 0 <= givens[g] < n:
            info[1] = givens[g]
            return True
    return False


@njit(cache=True, _nrt=False)
def _seed(blob, givens, limit, keep, deadline, work):
    """The reference search of ``backtracking.seed.search`` (same nodes)."""
    n, ng = blob[_N], blob[_G]
    vals, dom = _table(blob, _VALS), _table(blob, _DOM)
    gof_ptr, gof_idx = _table(blob, _GOF_PTR), _table(blob, _GOF_IDX)
    info = work[blob[_W_INFO]:blob[_W_INFO] + 4]
    sols = work[blob[_W_SOLS]:]
    info[0] = 0
    if _bad_var(givens, n, info):
        return _BADVAR, 0, 0, 0
    at = blob[_W_SEED]
    assigned, order = work[at:at + n], work[at + n:at + 2 * n]
    remaining, used = work[at + 2 * n:at + 3 * n + 1], work[at + 3 * n + 1:at + 3 * n + 1 + ng]
    for k in range(n):
        assigned[k] = 0
    for k in range(ng):
        used[k] = 0
    for g in range(0, givens.size, 2):
        var, value = givens[g], givens[g + 1]
        info[1], info[2] = var, value
        k = _value_index(vals, dom, var, value)
        if k < 0:
            info[0] = _OUTSIDE
            return _UNSAT, 0, 0, 0
        bit = np.int64(1) << k
        if assigned[var]:
            if assigned[var] != bit:
                info[0] = _TWO_VALUES
                return _UNSAT, 0, 0, 0
            continue
        for j in range(gof_ptr[var], gof_ptr[var + 1]):
            grp = gof_idx[j]
            if used[grp] & bit:
                info[0], info[3] = _REPEATS, grp
                return _UNSAT, 0, 0, 0
            used[grp] |= bit
        assigned[var] = bit
    info[0] = 0
    depth_max = 0
    for var in range(n):
        if not assigned[var]:
            order[depth_max] = var
            depth_max += 1
    count = nodes = backtracks = 0
    status = _UNSAT
    depth, entering = 0, True
    while depth >= 0:
        if depth == depth_max:                 # every blank filled: a solution
            if count < keep:
                for var in range(n):
                    sols[count * n + var] = vals[ctz(assigned[var])]
            count += 1
            if count >= limit:
                status = _SOLVED
                break
            depth -= 1
            entering = False
            continue
        cell = np.uint64(order[depth])         # unsigned indices: see "the kernels" above
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
        if not nodes & CHECK_SEED and _now() >= deadline:
            return _TIMEOUT, count, nodes, backtracks
    if status == _UNSAT and count:
        status = _SOLVED
    return status, count, nodes, backtracks


@njit(cache=True, _nrt=False, inline="always")
def _log_place(q, st, f, old, size):
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
def _drop(i, bits, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st):
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
        q[_HEAD + nt] = i
        nt += 1
        nopen -= 1
    a, b = uof_ptr[i], uof_ptr[i + 1]
    hq = _HEAD + n
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
def _settle(cand, plc, nv, loose_ptr, loose_idx, unit_ptr, unit_idx, uof_ptr, uof_idx,
            uof_pos, q, st):
    """Naked and hidden singles to a fixpoint from the queued ones.
    Returns (False on a conflict, st)."""
    n = cand.size
    hq = _HEAD + n
    nh = hh = 0
    while True:
        if nh < st[0]:                         # place a variable: its value leaves its peers
            i = q[_HEAD + nh]
            nh += 1
            bit = cand[i]
            v = ctz(bit)
            for k in range(np.uint64(uof_ptr[i]), np.uint64(uof_ptr[i + 1])):
                u = uof_idx[k]
                f = u * nv + v
                m = plc[np.uint64(f)]
                if st[3] >= 0:
                    st = _log_place(q, st, f, m, n * nv)
                plc[np.uint64(f)] = SAT
                m &= ~(SAT | np.int64(1) << uof_pos[k])
                base = unit_ptr[u]
                while m:                       # the other places of v in the unit
                    j = np.uint64(unit_idx[np.uint64(base + ctz(m))])
                    m &= m - 1
                    if cand[j] & bit:
                        ok, st = _drop(j, bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
                        if not ok:
                            return False, st
            for k in range(np.uint64(loose_ptr[i]), np.uint64(loose_ptr[i + 1])):
                p = np.uint64(loose_idx[k])
                if cand[p] & bit:
                    ok, st = _drop(p, bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
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
                ok, st = _drop(j, c ^ bit, cand, plc, nv, uof_ptr, uof_idx, uof_pos, q, st)
                if not ok:
                    return False, st
        else:
            return True, st


@njit(cache=True, _nrt=False, inline="always")
def _begin(row, q):
    """The counters of a propagation on ``row``: empty queues, its open count."""
    return 0, 0, row[0], q[_LOG], q[_PLOG], q[_LOGAT]


@njit(cache=True, _nrt=False, inline="always")
def _row_drop(row, i, bits, blob, q, st):
    """``_drop`` on a row."""
    n = blob[_N]
    return _drop(i, bits, row[3:3 + n], row[3 + n:], blob[_V], _table(blob, _UOF_PTR),
                 _table(blob, _UOF_IDX), _table(blob, _UOF_POS), q, st)


@njit(cache=True, _nrt=False)
def _settle_row(row, blob, q, st):
    """``_settle`` on a row whose queues are filled, then store its counters.
    False on a conflict."""
    n = blob[_N]
    ok, st = _settle(row[3:3 + n], row[3 + n:], blob[_V], _table(blob, _LOOSE_PTR),
                     _table(blob, _LOOSE_IDX), _table(blob, _UNIT_PTR),
                     _table(blob, _UNIT_IDX), _table(blob, _UOF_PTR),
                     _table(blob, _UOF_IDX), _table(blob, _UOF_POS), q, st)
    return _done(row, q, st, ok)


@njit(cache=True, _nrt=False, inline="always")
def _done(row, q, st, ok):
    row[0] = st[2]
    q[_LOG] = st[3]
    q[_PLOG] = st[4]
    return ok


@njit(cache=True, _nrt=False)
def _apply(row, i, bits, keep, blob, q):
    """On ``row``: remove ``bits`` from variable i (or, with ``keep``, every
    value but ``bits``), then settle. False on a conflict."""
    st = _begin(row, q)
    if keep:
        bits = row[3 + i] & ~bits
    if bits:
        ok, st = _row_drop(row, i, bits, blob, q, st)
        if not ok:
            return _done(row, q, st, False)
    return _settle_row(row, blob, q, st)


@njit(cache=True, _nrt=False)
def _root(blob, givens, row, q, info):
    """The start state: base domains, counts, givens; settled. Kernel status."""
    n = blob[_N]
    vals, dom = _table(blob, _VALS), _table(blob, _DOM)
    cand = row[3:3 + n]
    _copy(cand, dom)
    _copy(row[3 + n:], _table(blob, _PLC0))
    row[0] = n
    q[_LOG] = -1
    q[_LOGAT] = blob[_W_LOG]
    nt, ht, nopen, kc, kp, at = _begin(row, q)
    for i in _table(blob, _SINGLE0):
        q[_HEAD + nt] = i
        nt += 1
        nopen -= 1
    for f in _table(blob, _HIDDEN0):
        q[_HEAD + n + ht] = f
        ht += 1
    st = (nt, ht, nopen, kc, kp, at)
    for g in range(0, givens.size, 2):
        var, value = givens[g], givens[g + 1]
        info[1], info[2] = var, value
        k = _value_index(vals, dom, var, value)
        if k < 0:
            info[0] = _OUTSIDE
            return _UNSAT
        bit = np.int64(1) << k
        c = cand[var]
        ok = c & bit != 0
        if ok and c != bit:
            ok, st = _row_drop(row, var, c ^ bit, blob, q, st)
        if not ok:
            info[0] = _CLASH
            return _UNSAT
    info[0] = 0
    return _SOLVED if _settle_row(row, blob, q, st) else _UNSAT


@njit(cache=True, _nrt=False)
def _locked(row, blob, q):
    """Locked candidates: a value that a unit can only hold where it crosses
    another unit leaves the rest of that other unit. Repeated with singles
    until nothing changes. False on a conflict."""
    n = blob[_N]
    ptr, idx = _table(blob, _CROSS_PTR), _table(blob, _CROSS_IDX)
    cand = row[3:3 + n]
    while True:
        st = _begin(row, q)
        changed = False
        for x in range(0, ptr.size - 1, 3):
            inside = a_only = b_only = 0
            for k in range(np.uint64(ptr[x]), np.uint64(ptr[x + 1])):
                inside |= cand[np.uint64(idx[k])]
            for k in range(np.uint64(ptr[x + 1]), np.uint64(ptr[x + 2])):
                a_only |= cand[np.uint64(idx[k])]
            for k in range(np.uint64(ptr[x + 2]), np.uint64(ptr[x + 3])):
                b_only |= cand[np.uint64(idx[k])]
            for side in range(2):
                gone = inside & ~a_only & b_only if side == 0 else inside & ~b_only & a_only
                if not gone:
                    continue
                lo = ptr[x + 2] if side == 0 else ptr[x + 1]
                for k in range(lo, lo + (ptr[x + 3] - ptr[x + 2] if side == 0
                                         else ptr[x + 2] - ptr[x + 1])):
                    j = idx[k]
                    if cand[j] & gone:
                        changed = True
                        ok, st = _row_drop(row, j, cand[j] & gone, blob, q, st)
                        if not ok:
                            return False
        if not changed:
            return True
        if not _settle_row(row, blob, q, st):
            return False


@njit(cache=True, _nrt=False)
def _choose(row, blob, lex):
    """The branch literal (variable, value bit) at a settled, open state.

    ``lex``: the lowest open variable, its smallest value. Otherwise the
    field with the fewest candidates: variables first, then a unit-value
    field only if it has strictly fewer places (value-major order), its
    first place. Among variables with two values the one whose values have
    the most places left in its units wins (on forum_hardest it cuts nodes
    by a sixth and time by a tenth), else the lowest index.
    """
    n, nv, nu = blob[_N], blob[_V], blob[_U]
    cand = row[3:3 + n]
    uof_ptr, uof_idx = _table(blob, _UOF_PTR), _table(blob, _UOF_IDX)
    best, bi, score = 99, -1, -1
    for i in range(n):
        c = cand[i]
        if c & (c - 1):
            if lex:
                return i, c & -c
            k = popcount(c)
            if k > best:
                continue
            s = 0
            if k == 2:
                v1, v2 = 3 + n + ctz(c), 3 + n + ctz(c & (c - 1))
                for u in range(uof_ptr[i], uof_ptr[i + 1]):
                    s += popcount(row[v1 + uof_idx[u] * nv]) + popcount(row[v2 + uof_idx[u] * nv])
            if k < best or s > score:
                best, bi, score = k, i, s
    if best > 2 and nu:
        plc = row[3 + n:]
        bf = -1
        for v in range(nv):
            for u in range(nu):
                m = plc[u * nv + v]
                if m > 0 and popcount(m) < best:
                    best, bf = popcount(m), u * nv + v
        if bf >= 0:
            u = bf // nv
            return (_table(blob, _UNIT_IDX)[_table(blob, _UNIT_PTR)[u] + ctz(plc[bf])],
                    np.int64(1) << (bf - u * nv))
    return bi, cand[bi] & -cand[bi]


@njit(cache=True, _nrt=False)
def _trial(row, i, v, blob, q):
    """Probe literal (variable i, value index v) at ``row``, once per pass.

    The literal is placed on ``row`` in place, with every write logged, and
    undone; the variables it changed and their values after it go to the
    arena. Returns the literal's cache index; its entry holds the candidates
    removed (-1: a conflict), where its changes start in the arena and how
    many there are. A result from earlier in the pass is reused even if
    ``row`` has changed since: rows only lose candidates, so an older
    result keeps at least the candidates a fresh one would, and deductions
    from it stay sound (just weaker).
    """
    n, nv = blob[_N], blob[_V]
    lits, arena = blob[_W_LITS], blob[_W_ARENA]
    seen = blob[_W_SCRATCH] + 2 * n
    c = i * nv + v
    size = n * nv
    if q[lits + c] == q[_PASS]:
        return c
    top = q[_ARENA_TOP]
    if top + n > ARENA_PER_LITERAL * size:    # arena full: start the cache afresh
        q[_PASS] += 1
        top = 0
    open0 = row[0]
    q[_LOG] = q[_PLOG] = 0
    gone = 0 if _apply(row, i, np.int64(1) << v, True, blob, q) else -1
    at = q[_LOGAT]
    q[_STAMP] += 1
    stamp = q[_STAMP]
    start = top
    if gone >= 0:
        for k in range(np.uint64(q[_LOG])):
            w = np.uint64(at + 2 * k)
            j = q[w]
            sj = np.uint64(seen + j)
            rj = np.uint64(3 + j)
            if q[sj] != stamp:                 # the first write holds j's old value
                q[sj] = stamp
                q[np.uint64(arena + 2 * top)] = j
                q[np.uint64(arena + 2 * top + 1)] = row[rj]
                top += 1
                gone += popcount(q[w + np.uint64(1)]) - popcount(row[rj])
    for k in range(q[_LOG] - 1, -1, -1):      # undo, newest write first
        w = np.uint64(at + 2 * k)
        row[np.uint64(3 + q[w])] = q[w + np.uint64(1)]
    places = at + 2 * size
    for k in range(q[_PLOG] - 1, -1, -1):
        w = np.uint64(places + 2 * k)
        row[np.uint64(3 + n + q[w])] = q[w + np.uint64(1)]
    row[0] = open0
    q[_LOG] = -1
    q[_ARENA_TOP] = top
    q[lits + c] = q[_PASS]
    q[lits + size + c] = gone
    q[lits + 2 * size + c] = start
    q[lits + 3 * size + c] = top - start
    return c


_NO_SOLUTION, _FAILED_LITERAL, _DUAL = -1, -2, -3   # what probing a pair found


@njit(cache=True, _nrt=False)
def _pair(row, i1, i2, v1, v2, blob, q):
    """Probe the two literals of a two-candidate field at ``row``.

    A failed literal is removed from ``row``; when both hold, a value that
    neither branch keeps is removed (dual probing). Returns _NO_SOLUTION,
    _FAILED_LITERAL or _DUAL when ``row`` has no solution or changed, else
    the look-ahead score: the product of both branches' reductions (plus
    one each), as look-ahead SAT solvers choose.
    """
    n = blob[_N]
    size = n * blob[_V]
    lits, arena = blob[_W_LITS], blob[_W_ARENA]
    va = blob[_W_SCRATCH]                  # A's values and stamps
    sa = va + n
    ca = _trial(row, i1, v1, blob, q)
    cb = _trial(row, i2, v2, blob, q)
    if q[lits + ca] != q[_PASS]:           # the arena filled up and started afresh
        ca = _trial(row, i1, v1, blob, q)
    ga, gb = q[lits + size + ca], q[lits + size + cb]
    if ga < 0 and gb < 0:
        return _NO_SOLUTION
    if ga < 0 or gb < 0:
        i, v = (i1, v1) if ga < 0 else (i2, v2)
        return _FAILED_LITERAL if _apply(row, i, np.int64(1) << v, False, blob, q) \
            else _NO_SOLUTION
    q[_STAMP] += 1
    stamp = q[_STAMP]
    a = q[lits + 2 * size + ca]
    for k in range(a, a + q[lits + 3 * size + ca]):
        w = np.uint64(arena + 2 * k)
        j = q[w]
        q[np.uint64(va + j)] = q[w + np.uint64(1)]
        q[np.uint64(sa + j)] = stamp
    st = _begin(row, q)
    changed = False
    b = q[lits + 2 * size + cb]
    for k in range(b, b + q[lits + 3 * size + cb]):
        w = np.uint64(arena + 2 * k)
        j = q[w]
        if q[np.uint64(sa + j)] == stamp:
            x = row[np.uint64(3 + j)] & ~(q[np.uint64(va + j)] | q[w + np.uint64(1)])
            if x:
                changed = True
                ok, st = _row_drop(row, j, x, blob, q, st)
                if not ok:
                    return _NO_SOLUTION
    if changed:
        return _DUAL if _settle_row(row, blob, q, st) else _NO_SOLUTION
    return (ga + 1) * (gb + 1)


@njit(cache=True, _nrt=False)
def _probe(row, blob, q, deadline):
    """Failed-literal and dual probing of every two-candidate field at ``row``.

    Another pass follows a pass that found a failed literal (one that only
    removed values by dual probing does not earn one: measured on
    gecode_25x25, the extra passes cost more than they prune). Returns -2
    when the state has no solution, -3 past the deadline, else the literal
    to branch on, as ``i * 64 + v``, from the field whose branches scored
    best (-1 if there is no two-candidate field or every variable is placed;
    the literal may be stale when the last pass changed ``row``).
    """
    n, nv, nu = blob[_N], blob[_V], blob[_U]
    unit_ptr, unit_idx = _table(blob, _UNIT_PTR), _table(blob, _UNIT_IDX)
    while True:
        q[_PASS] += 1
        q[_ARENA_TOP] = 0
        again = False
        best, lit = 0, -1
        for f in range(n + nu * nv):           # variable fields, then unit-value fields
            if f < n:
                c = row[3 + f]
                if popcount(c) != 2:
                    continue
                i1 = i2 = f
                v1, v2 = ctz(c), ctz(c & (c - 1))
            else:
                m = row[3 + f]
                if m <= 0 or popcount(m) != 2:
                    continue
                u = (f - n) // nv
                v1 = v2 = f - n - u * nv
                i1 = unit_idx[unit_ptr[u] + ctz(m)]
                i2 = unit_idx[unit_ptr[u] + ctz(m & (m - 1))]
            s = _pair(row, i1, i2, v1, v2, blob, q)
            if s == _NO_SOLUTION:
                return -2
            again |= s == _FAILED_LITERAL
            if s > best:
                best, lit = s, i1 * 64 + v1
        if row[0] == 0:
            return -1
        if not again:
            return lit
        if _now() >= deadline:
            return -3


@njit(cache=True, _nrt=False)
def _fast(blob, givens, mode, probe, limit, keep, deadline, rows, work):
    """Singles to a fixpoint, then branch (see the module docstring)."""
    n = blob[_N]
    info = work[blob[_W_INFO]:blob[_W_INFO] + 4]
    sols = work[blob[_W_SOLS]:]
    info[0] = 0
    if _bad_var(givens, n, info):
        return _BADVAR, 0, 0, 0
    q = work
    vals = _table(blob, _VALS)
    if _root(blob, givens, rows[0], q, info) == _UNSAT:
        return _UNSAT, 0, 0, 1 if info[0] == 0 else 0
    lex = mode == 1
    mask = 0 if probe else CHECK_FAST
    count = nodes = backtracks = 0
    d = 0
    ok = True
    while True:
        row = rows[d]
        lit = -1
        if ok and (probe or (d == 0 and nodes == 0)) and row[0]:
            ok = _locked(row, blob, q)
        if ok and probe and row[0]:
            lit = _probe(row, blob, q, deadline)
            if lit == -3:
                return _TIMEOUT, count, nodes, backtracks
            if lit == -2:
                ok = False
        if ok and row[0] == 0:                 # every variable placed: a solution
            if count < keep:
                for i in range(n):
                    sols[count * n + i] = vals[ctz(row[3 + i])]
            count += 1
            if count >= limit:
                return _SOLVED, count, nodes, backtracks
        elif ok:
            i, bit = lit // 64, np.int64(1) << (lit % 64)
            if lit < 0 or lex or row[3 + i] == bit or not row[3 + i] & bit:
                i, bit = _choose(row, blob, lex)
            row[1], row[2] = i, bit
            _copy(rows[d + 1], row)
            d += 1
            nodes += 1
            ok = _apply(rows[d], i, bit, True, blob, q)
            if not nodes & mask and _now() >= deadline:
                return _TIMEOUT, count, nodes, backtracks
            continue
        else:
            backtracks += 1
        if d == 0:                             # the whole tree is done
            return (_SOLVED if count else _UNSAT), count, nodes, backtracks
        d -= 1                                 # the other branch: the literal is false
        row = rows[d]
        ok = _apply(row, row[1], row[2], False, blob, q)


# ----- the lean search (shapes that do not probe) ------------------------------
# Hot loops again trade style for speed: one candidate mask per variable and
# nothing else per node, so a branch copies N+3 words; hidden singles are
# found by scanning the units (an OR and an "at least twice" mask per unit)
# instead of keeping place counts up to date on every removal.

@njit(cache=True, _nrt=False)
def _lean_tables(blob):
    """The tables ``_lprop`` reads, as one tuple (from Python, call ``.py_func``:
    views returned without NRT do not survive boxing)."""
    return (_table(blob, _PEER_PTR), _table(blob, _PEER_IDX), _table(blob, _UNIT_PTR),
            _table(blob, _UNIT_IDX), _table(blob, _UFULL), _table(blob, _UOF_PTR),
            _table(blob, _UOF_IDX))


@njit(cache=True, _nrt=False)
def _lprop(row, nopen, q, nt, tabs):
    """Naked and hidden singles to a fixpoint on ``row`` (layout above).
    ``q[_HEAD:_HEAD+nt]`` holds the variables that became single and have
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
            i = q[_HEAD + nh]
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
                    q[_HEAD + nt] = p
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
                tw[u] = twice                  # for the tie-break of ``_lchoose``
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
                                q[_HEAD + nt] = j
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


@njit(cache=True, _nrt=False)
def _llocked(row, nopen, q, cross_ptr, cross_idx, tabs):
    """Locked candidates (see ``_locked``) with singles, to a fixpoint, on a
    settled row. Returns the open count, or -1 on a conflict."""
    cand = row[3:3 + tabs[0].size - 1]
    while nopen > 0:
        nt = 0
        changed = False
        for x in range(0, cross_ptr.size - 1, 3):
            inside = a_only = b_only = 0
            for k in range(cross_ptr[x], cross_ptr[x + 1]):
                inside |= cand[cross_idx[k]]
            for k in range(cross_ptr[x + 1], cross_ptr[x + 2]):
                a_only |= cand[cross_idx[k]]
            for k in range(cross_ptr[x + 2], cross_ptr[x + 3]):
                b_only |= cand[cross_idx[k]]
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
                            q[_HEAD + nt] = j
                            nt += 1
                            nopen -= 1
        if not changed:
            return nopen
        nopen = _lprop(row, nopen, q, nt, tabs)
    return nopen


@njit(cache=True, _nrt=False)
def _lchoose(row, lex, uof_ptr, uof_idx, n, nu):
    """The branch variable: the lowest open one (``lex``), else one with the
    fewest values; among two-valued ones, the one whose two values have the
    most places left in its units (counted up to three, from the masks the
    scans of ``_lprop`` keep in the row)."""
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


@njit(cache=True, _nrt=False)
def _lean(blob, givens, mode, limit, keep, deadline, rows, work):
    """``_fast`` without probing or place counts (see the section comment)."""
    n = blob[_N]
    info = work[blob[_W_INFO]:blob[_W_INFO] + 4]
    sols = work[blob[_W_SOLS]:]
    info[0] = 0
    if _bad_var(givens, n, info):
        return _BADVAR, 0, 0, 0
    q = work
    vals, dom = _table(blob, _VALS), _table(blob, _DOM)
    ufull = _table(blob, _UFULL)
    tabs = _lean_tables(blob)
    uof_ptr, uof_idx = tabs[5], tabs[6]
    nu = ufull.size
    row = rows[0]
    cand = row[3:3 + n]
    _copy(cand, dom)
    for u in range(nu):
        row[3 + n + u] = 0
    nt = 0
    nopen = n
    for i in _table(blob, _SINGLE0):
        q[_HEAD + nt] = i
        nt += 1
        nopen -= 1
    for g in range(0, givens.size, 2):
        var, value = givens[g], givens[g + 1]
        info[1], info[2] = var, value
        k = _value_index(vals, dom, var, value)
        if k < 0:
            info[0] = _OUTSIDE
            return _UNSAT, 0, 0, 0
        bit = np.int64(1) << k
        c = cand[var]
        if not c & bit:
            info[0] = _CLASH
            return _UNSAT, 0, 0, 0
        if c != bit:
            cand[var] = bit
            q[_HEAD + nt] = var
            nt += 1
            nopen -= 1
    info[0] = 0
    nopen = _lprop(row, nopen, q, nt, tabs)
    if nopen > 0:
        nopen = _llocked(row, nopen, q, _table(blob, _CROSS_PTR), _table(blob, _CROSS_IDX),
                         tabs)
    if nopen < 0:
        return _UNSAT, 0, 0, 1
    row[0] = nopen
    lex = mode == 1
    count = nodes = backtracks = 0
    d = 0
    ok = True
    width = 3 + n + nu                     # the scan masks after these are rewritten by every scan
    while True:
        row = rows[d]
        if ok and row[0] == 0:                 # every variable placed: a solution
            if count < keep:
                for i in range(n):
                    sols[count * n + i] = vals[ctz(row[3 + i])]
            count += 1
            if count >= limit:
                return _SOLVED, count, nodes, backtracks
        elif ok:
            i = _lchoose(row, lex, uof_ptr, uof_idx, n, nu)
            bit = row[3 + i] & -row[3 + i]
            row[1], row[2] = i, bit
            child = rows[d + 1]
            for k in range(width):
                child[k] = row[k]
            d += 1
            nodes += 1
            child[3 + i] = bit
            q[_HEAD] = i
            nopen = _lprop(child, child[0] - 1, q, 1, tabs)
            ok = nopen >= 0
            child[0] = nopen
            if not nodes & CHECK_FAST and _now() >= deadline:
                return _TIMEOUT, count, nodes, backtracks
            continue
        else:
            backtracks += 1
        if d == 0:                             # the whole tree is done
            return (_SOLVED if count else _UNSAT), count, nodes, backtracks
        d -= 1                                 # the other branch: the literal is false
        row = rows[d]
        i = row[1]
        c = row[3 + i] & ~row[2]
        row[3 + i] = c
        nt, nopen = 0, row[0]
        if c & (c - 1) == 0:
            q[_HEAD] = i
            nt, nopen = 1, nopen - 1
        nopen = _lprop(row, nopen, q, nt, tabs)
        ok = nopen >= 0
        row[0] = nopen
