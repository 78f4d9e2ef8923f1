"""The ``fast`` variant's search: singles to a fixpoint, then branch on a field.

The state is the one-int layout of ``layout``. Every open field
has its flag bit set, so subtracting one unit per open field (``lo``) never
borrows across fields, and ``X & (X - lo)`` clears the lowest bit of every
open field at once. Applied twice, a field's flag survives only if it had at
least two candidates:

* flag gone after the first strip: no candidate left, a conflict;
* flag gone after the second strip: exactly one, a naked single (variable
  field) or a hidden single (unit field); all of them are placed in one sweep;
* stripping further finds the fields with the fewest candidates, which is
  where ``first`` and ``count`` branch (minimum remaining values over
  variables *and* over unit-value places, like Knuth's exact-cover choice).

On big shapes (16 or more values, see ``Layout.probe``) each node also
probes its small fields once singles are exhausted (``probing``):
failed literals are removed, and ``first`` and ``count`` branch on the
two-candidate field whose branches prune most.

Branching on a field is exhaustive and exclusive because every field wants
exactly one of its candidates, so ``count`` counts every solution once. With
``lex`` the search branches on the lowest open variable, values ascending;
propagation only removes candidates that belong to no solution, so the first
solution reached is the lexicographically smallest (the BOJ 2239 answer)
while singles prune the subtrees the ``seed`` order wanders into.
"""
from __future__ import annotations

from engines.backtracking.python.layout import LAYOUT_MAX_BYTES, Layout, layout_bytes
from engines.backtracking.report import Goal, Report

CHECK_EVERY = 256      # nodes between deadline checks (a power of two)


class FastSearch:
    """The ``fast`` variant on an AllDifferent-only shape. Built once per
    shape: the layout costs more than most 9x9 searches."""

    def __init__(self, shape):
        self.shape = shape
        self.unsat = shape.unsat_reason
        self.layout = None if self.unsat else Layout(shape)

    @staticmethod
    def fits(shape) -> bool:
        """Whether the layout of ``shape`` fits in ``LAYOUT_MAX_BYTES``; a shape that
        does not is searched by the general search, in a fraction of the memory."""
        return layout_bytes(shape) <= LAYOUT_MAX_BYTES

    def start(self, givens) -> "tuple[int, int] | str":
        """The state ``(X, placed)`` after placing the givens, or why they conflict."""
        shape, layout = self.shape, self.layout
        X, placed = layout.start, 0
        nv, NK, B0 = layout.nvalues, layout.NK, layout.B0
        for var, value in givens:
            vi = shape.value_index(var, value)
            if vi is None:
                return f"given {value} is outside the domain of variable {var}"
            cd = var * nv + vi
            b = B0[cd]
            if X & b:
                X &= NK[cd]
                placed |= b
            elif not placed & b:
                return f"given {value} at variable {var} conflicts with another given"
        return X, placed

    def run(self, state, goal: Goal, deadline: float | None) -> tuple[Report, list[tuple]]:
        report = search(self.layout, *state, goal.lex, goal.limit, goal.keep, deadline)
        return report, [self.layout.decode(p) for p in report.solutions]


def search(layout, X: int, placed: int, lex: bool, limit: int, keep: int,
           deadline: float | None) -> Report:
    """Depth-first search from state ``X`` until ``limit`` solutions or the end.

    The layout's ``probe`` (see ``probing``), if any, runs at every node
    once singles are exhausted; its nodes are costly, so the deadline is then
    checked at each. Solutions are ``placed`` ints for ``Layout.decode``.
    """
    RS, W1, probe, settle = layout.RS, layout.W - 1, layout.probe, layout.settle
    MAP, NK, B0, BITS = layout.MAP, layout.NK, layout.B0, layout.BITS
    report = Report()
    nodes = backtracks = 0
    stack = []
    earlier = {}                          # the last probe pass's results
    mask = 0 if probe else CHECK_EVERY - 1
    while True:
        while True:                       # propagate, then branch or give up
            got = settle(X, placed)       # singles to a fixpoint
            if got is None:               # a field lost its last candidate
                backtracks += 1
                break
            X, placed, o, lo, y2 = got
            if not X:                     # every field satisfied: a solution
                if report.found(placed, keep) >= limit:
                    return report.finish(nodes, backtracks)
                break
            flag = 0
            if probe is not None:
                got = probe(X, placed, o, lo, y2, earlier)
                if got is None:
                    backtracks += 1
                    break
                earlier = got[3]
                if got[0] is not X:
                    X, placed = got[0], got[1]
                    continue
                flag = got[2]
            if lex:
                flag = o & -o
            elif not flag:
                strip = y2
                while True:
                    strip &= strip - lo
                    fewest = o ^ (o & strip)
                    if fewest:
                        break
                flag = fewest & -fewest
            base = flag.bit_length() - 1 - W1
            f = (X >> base) & RS
            cands = []                    # descending, so pop() takes the least
            while f:
                k = f.bit_length() - 1
                f ^= BITS[k]
                cands.append(MAP[base + k])
            stack.append((X, placed, cands, earlier))
            break
        if not stack:
            break
        X, placed, cands, earlier = stack[-1]
        cd = cands.pop()
        if not cands:
            stack.pop()
        X &= NK[cd]
        placed |= B0[cd]
        nodes += 1
        if not nodes & mask and report.out_of_time(deadline):
            break
    return report.finish(nodes, backtracks)

