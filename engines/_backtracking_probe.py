"""Failed-literal probing and look-ahead branching for the ``fast`` search.

Why: on 16x16 and 25x25 grids singles alone leave wide trees; a 16x16 puzzle
that CP-SAT solves without branching took 80,000 nodes. A *probe* places one
candidate on a copy of the state (the one-int layout of
``_backtracking_layout``, so a copy is free) and runs singles to a fixpoint.
If that ends in a conflict, no solution holds the candidate and it is removed
(failed-literal elimination). Removing only candidates that belong to no
solution keeps ``count`` and ``lexfirst`` exact.

Probes also measure how much each candidate prunes. Where the search may pick
its branching field (``first`` and ``count``), it takes the two-candidate
field whose two branches prune most (the product of both reductions, as
look-ahead SAT solvers do): both children then start far smaller.

Only fields with at most ``width`` candidates are probed: those are the
candidates most likely to fail and the fields the search branches on. A pass
costs one singles fixpoint per probed candidate, so the engine turns probing
on only where nodes are expensive anyway (big shapes, see ``Layout``).
"""
from __future__ import annotations


def settler(layout):
    """Singles to a fixpoint on a copy: ``settle(X, placed)`` -> state or None.

    The same sweep as the inner loop of ``_backtracking_fast.search``, kept
    apart so the 9x9 search does not pay a call per sweep.
    """
    O, RS, W1 = layout.O, layout.RS, layout.W - 1
    MAP, NK, B0, BITS = layout.MAP, layout.NK, layout.B0, layout.BITS

    def settle(X: int, placed: int):
        while True:
            o = X & O
            lo = o >> W1
            y = X & (X - lo)
            if o & y != o:
                return None
            y2 = y & (y - lo)
            forced = o ^ (o & y2)
            if not forced:
                return X, placed
            m = ((forced >> W1) * RS) & X
            while m:
                q = m.bit_length() - 1
                m ^= BITS[q]
                cd = MAP[q]
                b = B0[cd]
                if X & b:
                    X &= NK[cd]
                    placed |= b
                elif not placed & b:
                    return None
    return settle


def prober(layout, width: int):
    """``probe(X, placed, o, lo, y2)`` for a state at its singles fixpoint.

    Returns None when the state has no solution, a new ``(X, placed, 0)``
    when probes removed candidates (the caller settles and probes again), or
    ``(X, placed, flag)`` unchanged with ``flag`` the field to branch on (0
    when no two-candidate field was probed).
    """
    W1, RS = layout.W - 1, layout.RS
    MAP, NK, B0, BITS = layout.MAP, layout.NK, layout.B0, layout.BITS
    S, V, OFF = layout.S, layout.nvalues, layout.unit_bits
    settle = settler(layout)

    def probe(X: int, placed: int, o: int, lo: int, y2: int):
        strip = y2
        for _ in range(width - 1):
            strip &= strip - lo
        fields = o ^ (o & strip)          # flags of fields with 2..width candidates
        size = X.bit_count()
        shrink = {}                       # candidate -> bits its placement removes
        best, best_flag = -1, 0
        failed = False
        while fields:
            flag = fields & -fields
            fields ^= flag
            base = flag.bit_length() - 1 - W1
            f = (X >> base) & RS
            score, count = 1, 0
            while f:
                k = f.bit_length() - 1
                f ^= BITS[k]
                cd = MAP[base + k]
                count += 1
                got = shrink.get(cd)
                if got is None:
                    b = B0[cd]
                    after = settle(X & NK[cd], placed | b)
                    if after is None:     # a failed literal: no solution holds cd
                        X &= ~(b | OFF[cd // V] << (cd % V * S))
                        settled = settle(X, placed)
                        if settled is None:
                            return None
                        X, placed = settled
                        size = X.bit_count()
                        failed = True
                        break
                    got = shrink[cd] = size - after[0].bit_count()
                score *= got + 1
            else:
                if count == 2 and score > best:
                    best, best_flag = score, flag
        if failed:
            return X, placed, 0
        return X, placed, best_flag
    return probe
