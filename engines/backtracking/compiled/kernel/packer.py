"""The packer: one shape's tables for the compiled searches, in one int64 array.

It reads what ``Shape`` already derived (values, domain bits, the kept
AllDifferent groups, their peers and permutation units, why the shape is
hopeless) and adds only what the compiled searches need beyond it: places of
values in units, loose peers, unit crossings and the room each part of the
``work`` array takes. The layout's slots are ``common``'s.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from engines.backtracking.compiled.kernel.common import (
    ARENA_PER_LITERAL,
    HEAD,
    SAT,
    TABLES,
    W_INFO,
    W_SOLS,
)
from engines.backtracking.shape import Shape, union_of

PROBE_FROM_VALUES = 16          # shapes with this many values probe at every node


@dataclass(eq=False)
class KernelShape:
    """What the kernels need of one structure: build once per ``structure.key``."""
    key: str
    nvars: int
    values: tuple                     # sorted; bit k of a mask stands for values[k]
    groups: tuple                     # AllDifferent groups kept (tuples of variables)
    units: tuple                      # indices into groups of the permutation units
    blob: np.ndarray                  # the packed tables (see ``common.TABLES``)
    probe: bool                       # failed-literal probing at every node
    unsat_reason: str = ""
    _rows: np.ndarray | None = field(default=None, repr=False)
    _work: np.ndarray | None = field(default=None, repr=False)
    _keep: int = field(default=-1, repr=False)     # solutions the work array has room for

    @property
    def nvalues(self) -> int:
        return len(self.values)

    def __post_init__(self):
        self.info_at = int(self.blob[W_INFO])          # where ``work`` keeps them
        self.sols_at = int(self.blob[W_SOLS])

    def workspace(self, keep: int) -> tuple[np.ndarray, np.ndarray]:
        """Search rows and the work array (queues, info, log, ``keep`` solutions), kept."""
        if keep <= self._keep:
            return self._rows, self._work
        n, nf = self.nvars, len(self.units) * len(self.values)
        self._keep = max(keep, 1)
        self._work = np.zeros(int(self.blob[W_SOLS]) + self._keep * n, np.int64)
        if self._rows is None:
            self._rows = np.zeros((n + 1, 3 + n + max(nf, 3 * len(self.units))), np.int64)
        return self._rows, self._work


def pack(shape: Shape) -> KernelShape:
    """Places of values in units, loose peers, crossings and initial counts, packed.

    The groups are the shape's (a group naming a variable twice, a
    pigeonhole group or an empty domain make it UNSAT with
    ``unsat_reason``; groups of fewer than two variables and repeats of the
    same set are dropped there).
    """
    n, values, dom = shape.nvars, shape.values, shape.domain_bits
    groups = shape.groups
    kept = set(shape.units)
    units = tuple(g for g, group in enumerate(groups) if group in kept)
    nv = len(values)
    loose = [set() for _ in range(n)]          # peers through groups that are not units
    for g, group in enumerate(groups):
        if g not in units:
            for var in group:
                loose[var].update(group)
    units_of = [[] for _ in range(n)]
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
        **_csr("unit", unit_lists), **_csr("gof", shape.groups_of),
        **_csr("uof", [[u for u, _ in places] for places in units_of]),
        "uof_pos": [pos for places in units_of for _, pos in places],
        "plc0": plc0,
        "single0": [i for i in range(n) if dom[i].bit_count() == 1],
        "hidden0": [f for f, c in enumerate(plc0) if c > 0 and c.bit_count() == 1],
        **_csr("cross", _crossings(unit_lists)),
        **_csr("peer", shape.peers),
        "ufull": [union_of(group, dom) for group in unit_lists],
    }
    nf = len(units) * nv
    # the undo logs hold one entry per write: at most one per candidate
    # removed, then one per place it removes, plus the SAT marks
    log = n * nv + nv * len(tables["uof_idx"]) + nf
    info = HEAD + n + nf
    lits = info + 4 + 3 * n
    arena = lits + 4 * n * nv
    at = arena + 2 * ARENA_PER_LITERAL * n * nv
    seed = at + 2 * log                        # the seed search: 3 arrays of N, one of G
    header = [n, nv, len(units), len(groups), info, info + 4, lits, arena, at, seed,
              seed + 3 * n + 1 + len(groups)]
    starts, at = [], len(header) + len(TABLES) + 1
    for name in TABLES:
        starts.append(at)
        at += len(tables[name])
    blob = np.array(header + starts + [at] + list(chain.from_iterable(
        tables[name] for name in TABLES)), dtype=np.int64)
    return KernelShape(shape.structure.key, n, values, groups, units, blob,
                       nv >= PROBE_FROM_VALUES, shape.unsat_reason)


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
