"""The bit layout the ``fast`` variant searches on: the whole state in one int.

A *candidate* is a pair (variable i, value v) still possible. A *field* is a
constraint that wants exactly one of its candidates:

* one field per variable ("takes exactly one value"): its candidates are the
  variable's values; a field with one candidate left is a naked single, with
  none a wipe-out;
* one field per (permutation unit, value) ("the value sits in exactly one
  member"): one candidate left is a hidden single, none a conflict.

The state ``X`` is a single Python int holding every field side by side, each
``W = V + 1`` bits wide: the low ``V`` bits are candidates, the top bit is the
field's *open* flag (set while the constraint is not yet satisfied). A
candidate sits in one variable field and in one field per unit containing its
variable, so it owns several bits.

Why one big int: Python pays per operation, not per bit. Placing a candidate
is ``X &= kill`` (its fields close, every candidate it rules out disappears
from every field, all in one C-level AND), and finding every naked and hidden
single of the whole grid is a handful of SWAR operations on ``X`` (see
``fast``). A search node is then an immutable int: no copying of
candidate arrays, no undo trail.

Layout of bit positions (``N`` variables, ``U`` units, ``S = U * W``)::

    variable field i:           i * W + vi        (flag at i * W + V)
    unit field (u, value vi):   N * W + vi * S + u * W + position of i in u

Ordering unit fields by value first makes the kill mask of (i, vi) a shift of
per-variable masks by ``vi`` and ``vi * S``, so big shapes (25x25) compute kill
masks on the fly instead of storing one per candidate.
"""
from __future__ import annotations

from engines.backtracking.python.probing import prober, settler

STORE_KILLS_BYTES = 48 << 20   # above this, kill masks are computed on first use
KEEP_KILLS_BYTES = 160 << 20   # ... and kept up to this (all of 25x25: 127 MB)
STORE_BITS_BYTES = 8 << 20     # the single-bit table costs about T*T/16 bytes
# Probing (``probing``) costs a singles fixpoint per small-field
# candidate at every node. On 9x9 that makes forum_hardest puzzles 4x slower
# (fewer nodes, each far dearer); from 16 values on it cuts trees by orders of
# magnitude (vu_kr 16x16: 80,000 nodes to none on its worst puzzle).
PROBE_FROM_VALUES = 16         # shapes with this many values probe at every node
PROBE_WIDTH = 2                # probe the candidates of fields this small


LAYOUT_MAX_BYTES = 256 << 20  # a shape whose per-variable masks need more: general search


def layout_bytes(shape) -> int:
    """About what ``Layout``'s per-variable masks take: four masks of ``nbits`` bits
    for each variable. It grows with the square of the model's size: a 6,561-cell
    Sudoku of side 81 needs about 5 GB, a 25x25 one 20 MB."""
    n, nv = shape.nvars, len(shape.values)
    nbits = n * (nv + 1) + nv * len(shape.units) * (nv + 1)
    return 4 * n * (nbits // 8 + 1)


def bits_mask(positions, nbits: int) -> int:
    """An int with the given bits set, built in one pass (fast for big masks)."""
    buf = bytearray(nbits // 8 + 1)
    for p in positions:
        buf[p >> 3] |= 1 << (p & 7)
    return int.from_bytes(buf, "little")


class Layout:
    """Positions, SWAR constants and kill masks for one shape."""

    def __init__(self, shape):
        n, nv = shape.nvars, len(shape.values)
        self.nvars, self.nvalues, self.values = n, nv, shape.values
        self.W = W = nv + 1
        units = shape.units
        self.unit_base = U0 = n * W
        self.S = S = len(units) * W
        self.nbits = T = U0 + nv * S
        dom = [[vi for vi in range(nv) if bits >> vi & 1] for bits in shape.domain_bits]
        where = [[] for _ in range(n)]          # (unit index, position) per variable
        for u, unit in enumerate(units):
            for pos, var in enumerate(unit):
                where[var].append((u, pos))
        self.MAP = self._positions(dom, where)
        self.RS = (1 << nv) - 1
        self.O = bits_mask([i * W + nv for i in range(n)]
                           + [U0 + vi * S + u * W + nv for u, unit in enumerate(units)
                              for vi in range(nv) if any(vi in dom[i] for i in unit)], T)
        self.start = self.O | bits_mask(
            [p for p, cd in enumerate(self.MAP) if cd >= 0], T)
        self._kill_parts(shape.peers, dom, where)
        self._tables()
        self.settle = settler(self)
        self.probe = prober(self, PROBE_WIDTH) if nv >= PROBE_FROM_VALUES else None

    def _positions(self, dom, where) -> list[int]:
        """Bit position -> candidate id ``i * V + vi`` (-1 for flags and gaps)."""
        W, V, U0, S = self.W, self.nvalues, self.unit_base, self.S
        table = [-1] * self.nbits
        for i, values in enumerate(dom):
            for vi in values:
                table[i * W + vi] = i * V + vi
                for u, pos in where[i]:
                    table[U0 + vi * S + u * W + pos] = i * V + vi
        return table

    def _kill_parts(self, peers, dom, where) -> None:
        """Per-variable masks whose shifts by the value make a kill mask."""
        W, U0, S, T = self.W, self.unit_base, self.S, self.nbits
        field = (1 << W) - 1
        self.cell_part, self.peer_part, self.unit_part = [], [], []
        self.unit_bits = []                  # i's unit-field bits for value 0
        for i in range(self.nvars):
            own = [U0 + vi * S + u * W + pos for vi in dom[i] for u, pos in where[i]]
            self.cell_part.append((field << (i * W)) | bits_mask(own, T))
            self.unit_bits.append(bits_mask([U0 + u * W + pos for u, pos in where[i]], T))
            self.peer_part.append(bits_mask([j * W for j in peers[i]], T))
            unit_fields = 0
            for u, _ in where[i]:
                unit_fields |= field << (U0 + u * W)
            others = [U0 + u * W + pos for j in peers[i] for u, pos in where[j]]
            self.unit_part.append(unit_fields | bits_mask(others, T))

    def _tables(self) -> None:
        """Per-candidate kill masks and single bits: stored when they fit,
        else kept once used (big shapes touch a small part of them)."""
        n, nv, W, T = self.nvars, self.nvalues, self.W, self.nbits
        ncand = n * nv
        self.B0 = [1 << (cd // nv * W + cd % nv) for cd in range(ncand)]
        if ncand * T // 8 <= STORE_KILLS_BYTES:
            self.NK = [self._nkill(cd) for cd in range(ncand)]
        else:
            self.NK = _Kept(self._nkill, KEEP_KILLS_BYTES // (T // 8))
        if T * T // 16 <= STORE_BITS_BYTES:
            self.BITS = [1 << p for p in range(T)]
        else:
            self.BITS = _Computed(lambda p: 1 << p)

    def _nkill(self, cd: int) -> int:
        """``~kill``: placing candidate ``cd`` closes its fields and removes
        every candidate it rules out (its variable's other values, its value
        at every peer), in every field those candidates own."""
        i, vi = divmod(cd, self.nvalues)
        return ~(self.cell_part[i] | (self.peer_part[i] << vi)
                 | (self.unit_part[i] << (vi * self.S)))

    def decode(self, placed: int) -> tuple:
        """Values in variable order from the variable-field bits of ``placed``."""
        W, values, BITS = self.W, self.values, self.BITS
        out = [None] * self.nvars
        while placed:
            q = placed.bit_length() - 1
            placed ^= BITS[q]
            var, vi = divmod(q, W)
            out[var] = values[vi]
        return tuple(out)


class _Computed:
    """A table too big to store and seldom hit twice: computed per lookup."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, key):
        return self.fn(key)


class _Kept(dict):
    """A table too big to build up front: entries are computed on first
    lookup and kept (a hit costs a dict lookup) while fewer than ``cap`` are
    held; past that, computed per lookup. Kept across puzzles of the shape."""

    def __init__(self, fn, cap: int):
        super().__init__()
        self.fn, self.cap = fn, cap

    def __missing__(self, key):
        value = self.fn(key)
        if len(self) < self.cap:
            self[key] = value
        return value
