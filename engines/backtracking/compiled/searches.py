"""The ``kernel=numba`` searches: the same two variants, compiled.

Each class follows the protocol of the Python searches (``unsat``,
``start(givens)``, ``run(state, goal, deadline)``), so the engine picks a
compiled or an interpreted search once per translate and treats both alike.
AllDifferent-only models with at most 62 values go to the Sudoku-shaped
kernels (``numba_kernel.unsupported_reason``); every other model to the
compiled general search (``NumbaGeneralSearch``), unless it cannot hold the
model exactly, where the Python general search takes it.
"""
from __future__ import annotations

from engines.backtracking.compiled import entry as numba_kernel
from engines.backtracking.compiled.kernel.general import run as general
from engines.backtracking.compiled.kernel.general.layout import TIMEOUT
from engines.backtracking.compiled.kernel.general.pack import Packed
from engines.backtracking.compiled.kernel.packer import pack
from engines.backtracking.report import Goal, Report
from engines.contract import Status


class _CompiledSearch:
    variant = ""

    def __init__(self, shape):
        # Whether the kernel takes the shape is asked once here, not per
        # translate: the question walks every domain (most of a 9x9 translate).
        self.unsupported = numba_kernel.unsupported_reason(shape.structure)
        self.kshape = None if self.unsupported else pack(shape)
        self.unsat = ""

    def start(self, givens):
        """The kernel places and checks the givens itself (and says why they clash)."""
        return tuple(givens)

    def run(self, givens, goal: Goal, deadline: float | None) -> tuple[Report, list[tuple]]:
        found = numba_kernel.solve(self.kshape, givens, self.variant, goal.mode, goal.limit,
                                   goal.keep, deadline)
        report = Report(count=found.count, nodes=found.nodes, backtracks=found.backtracks,
                        timed_out=str(found.status) == Status.TIMEOUT.value, message=found.message)
        return report, list(found.solutions)


class NumbaSeedSearch(_CompiledSearch):
    variant = "seed"


class NumbaFastSearch(_CompiledSearch):
    variant = "fast"


class NumbaGeneralSearch:
    """The compiled general search (``kernel.general``) for every model the
    AllDifferent kernel does not take; ``unsupported`` says why a model keeps the
    Python general search instead (values or sums past 2^62, huge tables)."""

    def __init__(self, shape):
        self.packed = Packed(shape.structure)
        self.unsupported = None if not numba_kernel.available() else (self.packed.unfit or None)
        if not numba_kernel.available():
            self.unsupported = numba_kernel.unavailable_reason()
        self.unsat = self.packed.unsat

    def start(self, givens):
        """The kernel's entry places the givens (and says why they clash)."""
        return tuple(givens)

    def run(self, givens, goal: Goal, deadline: float | None) -> tuple[Report, list[tuple]]:
        found = general.solve(self.packed, givens, goal.mode, goal.limit, goal.keep, deadline,
                              goal.order, goal.restarts)
        stats = found.stats
        report = Report(count=found.count, nodes=stats["nodes"], backtracks=stats["failures"],
                        timed_out=found.status == TIMEOUT, message=found.message,
                        failures=stats["failures"], propagations=stats["propagations"],
                        restarts=stats["restarts"], nogoods=stats["nogoods"])
        return report, found.solutions
