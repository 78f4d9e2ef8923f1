"""Table constraints in the general path: generalised arc consistency.

Each allowed tuple is one bit of an int per (position, value), so the tuples
still alive under the other domains are one AND per position, and a value
stays while it shares a bit with them: support filtering without walking
the tuples. Two-variable tables (and two-variable Linears turned into their
allowed pairs, see ``linear``) take a cheaper route, each value's supports in
the other variable as a mask of value bits. One-variable tables filter the
base domain once instead.
"""
from __future__ import annotations

from puzzles.model import Table


def narrow(shape, con: Table) -> int:
    """The base-domain bits a one-variable table allows."""
    allowed = {row[0] for row in con.tuples}
    return shape.bits_where(con.vars[0], allowed.__contains__)


def table_bits(shape, vars_, tuples) -> tuple[int, list[list[int]]]:
    """Rows inside the base domains, as bits per (position, value index), and
    the mask of every row."""
    vidx, base = shape.vidx, shape.domain_bits
    rows = [t for t in tuples
            if all(vidx.get(x) is not None and base[v] >> vidx[x] & 1
                   for v, x in zip(vars_, t))]
    bits = [[0] * len(shape.values) for _ in vars_]
    for r, row in enumerate(rows):
        for pos, x in enumerate(row):
            bits[pos][vidx[x]] |= 1 << r
    return (1 << len(rows)) - 1, bits


def propagator(con: Table, shape):
    """The reviser for a table over two or more variables."""
    if len(con.vars) == 2:
        return pair_reviser(con, shape.vidx, len(shape.values))
    every, bits = table_bits(shape, con.vars, con.tuples)
    return table_reviser(con.vars, every, bits)


def pair_reviser(con: Table, vidx, nv: int):
    """Arc consistency on two variables through each value's supports in the other."""
    x, y = con.vars
    sup_xy, sup_yx = [0] * nv, [0] * nv
    for p, q in con.tuples:
        i, j = vidx.get(p), vidx.get(q)
        if i is not None and j is not None:
            sup_xy[i] |= 1 << j
            sup_yx[j] |= 1 << i

    def revise(doms, changed) -> bool:
        dx, dy = doms[x], doms[y]
        m, rest = 0, dx
        while rest:
            b = rest & -rest
            m |= sup_xy[b.bit_length() - 1]
            rest ^= b
        ny = dy & m
        if not ny:
            return False
        m, rest = 0, ny
        while rest:
            b = rest & -rest
            m |= sup_yx[b.bit_length() - 1]
            rest ^= b
        return store_pair(doms, changed, x, dx, dx & m, y, dy, ny)
    return revise


def store_pair(doms, changed, x, dx, nx, y, dy, ny) -> bool:
    """Keep a binary reviser's new domains (``nx`` is never empty: ``ny`` values have support)."""
    if nx != dx:
        doms[x] = nx
        changed.append(x)
    if ny != dy:
        doms[y] = ny
        changed.append(y)
    return True


def table_reviser(vars_, every: int, bits):
    """Support filtering: keep the values some still-allowed tuple uses."""
    positions = tuple(enumerate(vars_))

    def revise(doms, changed) -> bool:
        alive = every
        for pos, v in positions:
            d, row, m = doms[v], bits[pos], 0
            while d:
                b = d & -d
                m |= row[b.bit_length() - 1]
                d ^= b
            alive &= m
            if not alive:
                return False
        for pos, v in positions:
            d, row = doms[v], bits[pos]
            nd, rest = 0, d
            while rest:
                b = rest & -rest
                if alive & row[b.bit_length() - 1]:
                    nd |= b
                rest ^= b
            if nd != d:
                doms[v] = nd
                changed.append(v)
        return True
    return revise
