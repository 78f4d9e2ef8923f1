"""The ``seed`` variant: the BOJ 2239 reference algorithm, kept as the baseline.

The reference solution walks the cells in row-major order, skips givens, and
tries the values 1..9 ascending at each blank, keeping one used-value bitmask
per row, column and box; it does no propagation and backtracks when a cell has
no value left. Here the same search runs on the model: variables in variable
order, values ascending, one used-value bitmask per AllDifferent group (a
Sudoku's rows, columns and boxes). Its first solution is therefore the
lexicographically smallest, so ``first`` and ``lexfirst`` are one search, and
``count`` simply keeps going.

It is exponential by design: tens of seconds on some 9x9 puzzles, hours on
17-clue ones. The recursion of the reference is an explicit stack here, so
625 variables cannot overflow anything, and the deadline is checked every few
thousand nodes.
"""
from __future__ import annotations

from engines.backtracking.report import Goal, Report

CHECK_EVERY = 4096     # nodes between deadline checks (a power of two)


class SeedSearch:
    """The ``seed`` variant on an AllDifferent-only shape: it needs nothing
    beyond the shape's groups, so building it is free."""

    def __init__(self, shape):
        self.shape = shape
        self.unsat = shape.unsat_reason

    @staticmethod
    def fits(shape) -> bool:
        return True      # it keeps the shape's groups only

    def start(self, givens) -> "list[int] | str":
        """Value bits per variable after the givens, or why the givens conflict."""
        shape = self.shape
        assigned = [0] * shape.nvars
        used = [0] * len(shape.groups)
        for var, value in givens:
            vi = shape.value_index(var, value)
            if vi is None:
                return f"given {value} is outside the domain of variable {var}"
            bit = 1 << vi
            if assigned[var]:
                if assigned[var] != bit:
                    return f"variable {var} is given two values"
                continue
            for g in shape.groups_of[var]:
                if used[g] & bit:
                    return f"given {value} repeats in AllDifferent{shape.groups[g]}"
                used[g] |= bit
            assigned[var] = bit
        return assigned

    def run(self, state, goal: Goal, deadline: float | None) -> tuple[Report, list[tuple]]:
        """``lexfirst`` changes nothing: the first solution is the least anyway."""
        report = search(self.shape, list(state), goal.limit, goal.keep, deadline)
        values = self.shape.values
        return report, [tuple(values[bit.bit_length() - 1] for bit in bits)
                        for bits in report.solutions]


def search(shape, assigned: list[int], limit: int, keep: int,
           deadline: float | None) -> Report:
    """Enumerate in variable order from ``assigned`` (value bits, 0 = blank).

    The general path's ``SeedSearch.search`` makes the same moves with a check
    per constraint kind; here the checks are one used-value mask per group,
    written inline so the baseline the reports quote pays no call per value
    tried. The compiled ``seed`` is this walk for numba, move for move.
    """
    groups_of, domain_bits = shape.groups_of, shape.domain_bits
    used = [0] * len(shape.groups)
    for var, bit in enumerate(assigned):
        for g in groups_of[var]:
            used[g] |= bit
    order = [var for var, bit in enumerate(assigned) if not bit]
    depth_max = len(order)
    remaining = [0] * depth_max        # values still to try at each depth
    report = Report()
    nodes = backtracks = 0
    mask = CHECK_EVERY - 1
    depth, entering = 0, True
    while depth >= 0:
        if depth == depth_max:         # every blank filled: a solution
            if report.found(tuple(assigned), keep) >= limit:
                break
            depth -= 1
            entering = False
            continue
        var = order[depth]
        gs = groups_of[var]
        if entering:
            free = domain_bits[var]
            for g in gs:
                free &= ~used[g]
            remaining[depth] = free
        else:                          # back from below: take the value off
            bit = assigned[var]
            for g in gs:
                used[g] ^= bit
            assigned[var] = 0
        free = remaining[depth]
        if not free:
            backtracks += 1
            depth -= 1
            entering = False
            continue
        bit = free & -free             # the least value left
        remaining[depth] = free ^ bit
        assigned[var] = bit
        for g in gs:
            used[g] |= bit
        nodes += 1
        depth += 1
        entering = True
        if not nodes & mask and report.out_of_time(deadline):
            break
    return report.finish(nodes, backtracks)

