"""Failed-literal probing and look-ahead branching for the ``fast`` search.

Why: on 16x16 and 25x25 grids singles alone leave wide trees; a 16x16 puzzle
that CP-SAT solves without branching took 80,000 nodes. A *probe* places one
candidate on a copy of the state (the one-int layout of
``layout``, so a copy is free) and runs singles to a fixpoint.
If that ends in a conflict, no solution holds the candidate and it is removed
(failed-literal elimination). Removing only candidates that belong to no
solution keeps ``count`` and ``lexfirst`` exact.

Both probes of a two-candidate field together prove more: one of the two
holds in every solution, so a candidate that neither branch leaves alive
belongs to no solution, and a candidate both branches place belongs to all
(dual probing, the "forcing chains" of Sudoku players).

Probes also measure how much each candidate prunes. Where the search may pick
its branching field (``first`` and ``count``), it takes the two-candidate
field whose two branches prune most (the product of both reductions, as
look-ahead SAT solvers do): both children then start far smaller.

Only fields with at most ``width`` candidates are probed: those are the
candidates most likely to fail and the fields the search branches on. A pass
costs one singles fixpoint per probed candidate, so the engine turns probing
on only where nodes are expensive anyway (big shapes, see ``Layout``).

Probes start from an ancestor's result. Singles to a fixpoint (``F``) only
ever remove candidates, and fewer candidates never remove fewer, so for a
state ``X'`` below an earlier state ``X`` the probe of ``c`` satisfies
``F(X' + c) = F(X' & R)`` with ``R = F(X + c)`` the earlier result. The
fixpoint from ``X' & R`` mostly needs one sweep instead of the whole chain of
singles. It is a conflict outright when ``R`` placed a candidate ``X'`` has
lost (that cell has no value left), and it is ``R`` itself when ``R`` lies
within ``X'``. Nothing else can clash: a candidate missing from ``R`` was
missing from ``X`` already or was removed by one of ``R``'s placements, so a
placement of ``X'`` that ``R`` lacks would have removed one of those. Each
node hands its last pass's results to its children; on 25x25 that halves the
time per probe.
"""
from __future__ import annotations


def settler(layout):
    """Singles to a fixpoint on a copy: ``settle(X, placed)`` -> None on a conflict,
    else ``(X, placed, o, lo, y2)``: the state, and the masks of its last sweep
    (the open fields' flags, one unit per open field, the state stripped
    twice), from which ``fast.search`` finds the fields to branch on.

    One sweep strips the lowest candidate of every open field twice (see
    ``fast``): a flag gone after the first strip is a field with no candidate
    left, one gone after the second a single, and every single is placed at
    once. The search calls it once per node, the probes once per literal.
    """
    O, RS, W1 = layout.O, layout.RS, layout.W - 1  # noqa: E741  (the layout's own names, bound locally)
    MAP, NK, B0, BITS = layout.MAP, layout.NK, layout.B0, layout.BITS

    def settle(X: int, placed: int):
        while True:
            o = X & O
            lo = o >> W1
            y = X & (X - lo)
            if o & y != o:                # an open field lost its last candidate
                return None
            y2 = y & (y - lo)
            forced = o ^ (o & y2)
            if not forced:
                return X, placed, o, lo, y2
            m = ((forced >> W1) * RS) & X
            while m:
                q = m.bit_length() - 1
                m ^= BITS[q]
                cd = MAP[q]
                b = B0[cd]
                if X & b:
                    X &= NK[cd]
                    placed |= b
                elif not placed & b:      # ruled out by a single of this sweep
                    return None
    return settle


def resumer(layout, settle):
    """``outcome(cd, X, placed, earlier)``: ``settle`` after placing ``cd``,
    started from ``earlier[cd]`` (a fixpoint at a state above) if there is one.
    """
    NK, B0 = layout.NK, layout.B0

    def outcome(cd: int, X: int, placed: int, earlier: dict):
        old = earlier.get(cd)
        if old is None:
            return settle(X & NK[cd], placed | B0[cd])
        xr, pr = old[0], old[1]
        gained = pr & ~placed
        if X & gained != gained:
            return None                   # R placed a candidate X has lost
        if X & xr == xr:
            return old
        return settle(X & xr, placed | pr)
    return outcome


def prober(layout, width: int):
    """``probe(X, placed, o, lo, y2, earlier)`` for a state at its singles
    fixpoint, ``earlier`` being the results of a pass at this state or above.

    Returns None when the state has no solution, a new ``(X, placed, 0,
    results)`` when probes removed or placed candidates (the caller settles
    and probes again), or ``(X, placed, flag, results)`` unchanged with
    ``flag`` the field to branch on (0 when no two-candidate field was
    probed). ``results`` maps each probed candidate to its fixpoint, for the
    next pass here or below.
    """
    W1, RS = layout.W - 1, layout.RS
    MAP, NK, B0, BITS = layout.MAP, layout.NK, layout.B0, layout.BITS
    S, V, OFF = layout.S, layout.nvalues, layout.unit_bits
    VARS = (1 << layout.unit_base) - 1      # the variable fields
    VCANDS = VARS & ~layout.O                # ... without their flags
    settle = layout.settle
    outcome = resumer(layout, settle)

    def apply(X: int, placed: int, dead: int, both: int):
        """Remove the candidates on the variable-field bits ``dead``, place
        those on ``both``, then settle."""
        while dead:
            q = dead.bit_length() - 1
            dead ^= BITS[q]
            cd = MAP[q]
            X &= ~(B0[cd] | OFF[cd // V] << (cd % V * S))
        while both:
            q = both.bit_length() - 1
            both ^= BITS[q]
            cd = MAP[q]
            if X & B0[cd]:
                X &= NK[cd]
                placed |= B0[cd]
        return settle(X, placed)

    def probe(X: int, placed: int, o: int, lo: int, y2: int, earlier: dict):
        strip = y2
        for _ in range(width - 1):
            strip &= strip - lo
        fields = o ^ (o & strip)          # flags of fields with 2..width candidates
        size = X.bit_count()
        after = {}                        # candidate -> its fixpoint (``settle``) once placed
        best, best_flag, changed = -1, 0, False
        while fields:
            flag = fields & -fields
            fields ^= flag
            base = flag.bit_length() - 1 - W1
            f = (X >> base) & RS
            pair, score = [], 1
            while f:
                k = f.bit_length() - 1
                f ^= BITS[k]
                cd = MAP[base + k]
                got = after.get(cd)
                if got is None:
                    got = outcome(cd, X, placed, earlier)
                    if got is None:       # a failed literal: no solution holds cd
                        got = apply(X, placed, B0[cd], 0)
                        break
                    after[cd] = got
                pair.append(got)
                score *= size - got[0].bit_count() + 1
            else:
                if len(pair) != 2:
                    continue
                (xa, pa, *_), (xb, pb, *_) = pair
                dead = X & VCANDS & ~((xa & VARS) | pa | (xb & VARS) | pb)
                both = pa & pb & ~placed
                if not (dead or both):
                    if score > best:
                        best, best_flag = score, flag
                    continue
                got = apply(X, placed, dead, both)
            if got is None:
                return None
            X, placed, changed = got[0], got[1], True
            size = X.bit_count()
        return (X, placed, 0, after) if changed else (X, placed, best_flag, after)
    return probe
