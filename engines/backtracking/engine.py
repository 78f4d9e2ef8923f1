"""``BacktrackingEngine``: picks the search once per translate, then runs it.

A variant and a path (AllDifferent-only or general) make four searches; each
is a class built once per shape (``Shape.derived``), so a translate costs a
cache hit plus placing the givens, and ``search`` calls the object it was
handed without looking at the variant again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.backtracking.report import Goal, Report
from engines.backtracking.shape import shape_for
from engines.base import Engine
from engines.contract import Outcome, Status
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    ModelError,
    NotEqualOffset,
    ReifiedLinear,
    Table,
)

VARIANTS = ("seed", "fast")
KERNELS = ("python", "numba")
ORDERS = ("domwdeg", "cacd")
RESTARTS = ("geometric", "luby", "none")


def _kernel():
    """The numba kernel's entry, imported where it is used: numba and numpy cost most
    of a second of start-up, which a ``solve`` or a worker on the python kernel never
    needs."""
    from engines.backtracking.compiled import entry
    return entry


def _searches(variant: str) -> tuple:
    """The variant's (search on AllDifferent-only shapes, search on the others), imported
    where a model is translated: a run's parent, which names the engine for its label
    and never solves, is spared 50 ms of imports (a worker imports them warming up)."""
    from engines.backtracking.python import fast, general, seed
    return {"seed": (seed.SeedSearch, general.SeedSearch),
            "fast": (fast.FastSearch, general.FastSearch)}[variant]


def _compiled_search(variant: str):
    """kernel=numba: the compiled search of the variant, for the models it takes."""
    from engines.backtracking.compiled import searches
    return {"seed": searches.NumbaSeedSearch, "fast": searches.NumbaFastSearch}[variant]


def _compiled_general():
    """kernel=numba, variant fast: the compiled general search."""
    from engines.backtracking.compiled import searches
    return searches.NumbaGeneralSearch


@dataclass
class Translated:
    """A model ready to search: the search object and its start state, or why
    the model is UNSAT before any search."""
    search: Any
    state: Any = None
    unsat: str = ""


class BacktrackingEngine(Engine):
    name = "backtracking"
    library = ""
    constraint_kinds = frozenset({AllDifferent, Linear, NotEqualOffset, Table, ReifiedLinear,
                                  Clause, Element, Arith, AllDifferentList})
    # ``order`` and ``restarts``: the compiled general search's variable order
    # (dom/wdeg or wdeg^ca.cd) and restart policy, in ``first`` mode.
    option_defaults = {"variant": "fast", "kernel": "python", "order": "domwdeg",
                       "restarts": "geometric"}
    option_choices = {"variant": VARIANTS, "kernel": KERNELS, "order": ORDERS,
                      "restarts": RESTARTS}
    baseline_preferred = True          # the engine under study: the others are measured on it

    @property
    def compiles_on_first_use(self) -> bool:
        """The numba kernel compiles each search on first use (into its disk cache):
        its warm-up gets the long limit; the python kernel's does not."""
        return self.options["kernel"] == "numba"

    @classmethod
    def default_variants(cls) -> list[str]:
        """Both variants, and the fast one compiled too where numba is installed."""
        return ["variant=seed", ""] + (["kernel=numba"] if _kernel().available() else [])

    def preparation(self) -> str | None:
        """Compiling the kernel's searches of this variant, while numba's disk cache
        lacks them: about 20 s of CPU on an empty cache, paid once for every worker
        instead of by each."""
        if self.options["kernel"] != "numba" or not _kernel().available():
            return None
        variant = (self.options["variant"],)
        if _kernel().compiled(variant):
            return None
        return f"compiling the numba kernel ({variant[0]})"

    def prepare(self) -> None:
        _kernel().prepare((self.options["variant"],))

    def unsupported_reason(self, model: Model, mode: str) -> str | None:
        if self.options["kernel"] == "numba" and not _kernel().available():
            return f"{self.label}: {_kernel().unavailable_reason()}"
        return super().unsupported_reason(model, mode)

    def translate(self, model: Model) -> Translated:
        shape = shape_for(model.structure)
        for var, _ in model.givens:
            if not 0 <= var < shape.nvars:
                raise ModelError(f"given for unknown variable {var}")
        variant = self.options["variant"]
        alldifferent_search, general_search = _searches(variant)
        numba = self.options["kernel"] == "numba"
        if not shape.alldifferent_only or not alldifferent_search.fits(shape):
            if (numba and variant == "fast" and _kernel().available()
                    and not (compiled := shape.derived(_compiled_general())).unsupported):
                search = compiled
            else:
                search = shape.derived(general_search)
        elif (numba
              and not (compiled := shape.derived(_compiled_search(variant))).unsupported):
            search = compiled
        else:
            search = shape.derived(alldifferent_search)
        if search.unsat:
            return Translated(search, unsat=search.unsat)
        state = search.start(model.givens)
        if isinstance(state, str):
            return Translated(search, unsat=state)
        return Translated(search, state)

    def search(self, translated: Translated, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        if translated.unsat:
            return Outcome(Status.UNSAT, count=0 if mode == "count" else None,
                           message=translated.unsat)
        goal = Goal.of(mode, limit, self.options["order"], self.options["restarts"])
        report, solutions = translated.search.run(translated.state, goal, deadline)
        return _outcome(report, solutions, mode)


def _outcome(report: Report, solutions: list[tuple], mode: str) -> Outcome:
    if report.timed_out:
        status = Status.TIMEOUT
    else:
        status = Status.SOLVED if report.count else Status.UNSAT
    return Outcome(status, solutions=solutions,
                   count=report.count if mode == "count" else None,
                   nodes=report.nodes, backtracks=report.backtracks,
                   message=report.message,
                   # A search that does not count these: its failures are its dead ends
                   # (backtracks), and it neither restarts nor records nogoods.
                   failures=report.backtracks if report.failures is None else report.failures,
                   propagations=report.propagations,
                   restarts=0 if report.restarts is None else report.restarts,
                   nogoods=0 if report.nogoods is None else report.nogoods)
