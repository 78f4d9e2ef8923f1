"""What every search of the engine is asked for, and what it hands back.

One class each for all the searches: a ``Goal`` travels as one value from
the engine to the search (a compiled one passes it on to the kernel as is),
and a ``Report`` comes back, so the engine turns any of them into an
``Outcome`` the same way. Solutions stay in each search's own encoding (the
cheapest to record in its hot loop); the search's strategy object decodes
them to values.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engines.contract import KEEP_SOLUTIONS, timed_out


@dataclass(frozen=True)
class Goal:
    """The mode, and how many solutions to count (``limit``) and keep; with the
    order and restart policy the compiled general search reads (the other
    searches have one strategy each and ignore them)."""
    mode: str = "first"
    limit: int = 1
    keep: int = 1
    order: str = "domwdeg"
    restarts: str = "geometric"

    @classmethod
    def of(cls, mode: str, limit: int, order: str = "domwdeg",
           restarts: str = "geometric") -> "Goal":
        """``count`` stops at ``limit`` and keeps the first few; the others at one."""
        if mode == "count":
            return cls(mode, max(1, limit), KEEP_SOLUTIONS, order, restarts)
        return cls(mode, order=order, restarts=restarts)

    @property
    def lex(self) -> bool:
        """The least solution first: branch in variable order, values ascending."""
        return self.mode == "lexfirst"


@dataclass
class Report:
    solutions: list = field(default_factory=list)
    count: int = 0
    nodes: int = 0
    backtracks: int = 0
    timed_out: bool = False
    message: str = ""            # why there is no solution, when a search can tell
    # Effort beyond nodes and backtracks, from the searches that count it (None: not counted).
    failures: int | None = None
    propagations: int | None = None
    restarts: int | None = None
    nogoods: int | None = None

    def found(self, solution, keep: int) -> int:
        """Count a solution, keeping the first ``keep``; the count so far."""
        self.count += 1
        if len(self.solutions) < keep:
            self.solutions.append(solution)
        return self.count

    def out_of_time(self, deadline: float | None) -> bool:
        """Whether ``deadline`` has passed, noted in the report: the searches ask every
        few hundred (or thousand) nodes and stop when it says so."""
        self.timed_out = timed_out(deadline)
        return self.timed_out

    def finish(self, nodes: int, backtracks: int) -> "Report":
        """The report with the search's effort, as the search hands it back."""
        self.nodes, self.backtracks = nodes, backtracks
        return self
