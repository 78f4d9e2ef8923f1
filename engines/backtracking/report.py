"""What every search of the engine hands back, before decoding.

One class for all four searches so the engine turns any of them into an
``Outcome`` the same way. Solutions stay in each search's own encoding (the
cheapest to record in its hot loop); the search's strategy object decodes
them to values.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    solutions: list = field(default_factory=list)
    count: int = 0
    nodes: int = 0
    backtracks: int = 0
    timed_out: bool = False
    message: str = ""            # why there is no solution, when a search can tell

    def found(self, solution, keep: int) -> int:
        """Count a solution, keeping the first ``keep``; the count so far."""
        self.count += 1
        if len(self.solutions) < keep:
            self.solutions.append(solution)
        return self.count
