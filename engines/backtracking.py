"""The handwritten backtracking engine (builtin, no library).

Two variants, chosen with ``backtracking:variant=seed|fast``:

* ``seed``: the BOJ 2239 reference algorithm (variables in order, values
  ascending, used-value bitmasks per AllDifferent group, no propagation). It
  is the baseline the reports compare against, kept faithful even where it is
  hopelessly slow. See ``_backtracking_seed``.
* ``fast`` (default): the whole candidate state in one Python int, naked and
  hidden singles for the entire model in a few big-int operations per sweep,
  branching on the field with the fewest candidates. See
  ``_backtracking_layout`` and ``_backtracking_fast``.

The engine knows models, not Sudoku: it reads AllDifferent groups and domains
from the structure and derives peers and permutation units itself
(``_backtracking_shape``), once per ``structure.key``. ``lexfirst`` needs no
extra machinery: ``seed`` finds the least solution first by construction, and
``fast`` gets it by branching in variable order with values ascending while
its (sound) propagation prunes.

Models with any other constraint kind (Linear, NotEqualOffset, Table) take
``_backtracking_general`` in both variants: ``fast`` propagates each kind,
``seed`` only checks the assigned variables. AllDifferent-only models never
go there, so the Sudoku paths above are untouched.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzles.model import AllDifferent, Linear, Model, ModelError, NotEqualOffset, Table

from . import _backtracking_fast as fast
from . import _backtracking_general as general
from . import _backtracking_seed as seed
from ._backtracking_shape import Shape, shape_for
from .base import KEEP_SOLUTIONS, Engine, EngineOptionError, Outcome, Status

VARIANTS = ("seed", "fast")


@dataclass
class Translated:
    """A model ready to search: its shape and start state, or why it is UNSAT."""
    variant: str
    shape: Shape
    state: Any = None
    unsat: str = ""


class BacktrackingEngine(Engine):
    name = "backtracking"
    library = ""
    constraint_kinds = frozenset({AllDifferent, Linear, NotEqualOffset, Table})
    option_defaults = {"variant": "fast"}

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        if options["variant"] not in VARIANTS:
            raise EngineOptionError(
                f"engine {cls.name!r}: variant={options['variant']!r} is not one of "
                f"{', '.join(VARIANTS)}")

    def translate(self, model: Model) -> Translated:
        if not model.kinds() <= {AllDifferent}:   # other kinds: _backtracking_general
            return general.prepare(model, self.options["variant"])
        shape = shape_for(model.structure)
        variant = self.options["variant"]
        done = Translated(variant, shape)
        for var, _ in model.givens:
            if not 0 <= var < shape.nvars:
                raise ModelError(f"given for unknown variable {var}")
        if shape.unsat_reason:
            done.unsat = shape.unsat_reason
            return done
        begin = seed.start if variant == "seed" else fast.start
        state = begin(shape, model.givens)
        if isinstance(state, str):
            done.unsat = state
        else:
            done.state = state
        return done

    def search(self, translated: Translated, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        if translated.unsat:
            return Outcome(Status.UNSAT, count=0 if mode == "count" else None,
                           message=translated.unsat)
        limit = max(1, limit) if mode == "count" else 1
        keep = KEEP_SOLUTIONS if mode == "count" else 1
        if isinstance(translated, general.Prepared):
            report, solutions = general.search(translated, mode == "lexfirst", limit, keep,
                                               deadline)
            return _outcome(report, solutions, mode)
        shape = translated.shape
        if translated.variant == "seed":
            report = seed.search(shape, list(translated.state), limit, keep, deadline)
            values = shape.values
            solutions = [tuple(values[bit.bit_length() - 1] for bit in bits)
                         for bits in report.solutions]
        else:
            X, placed = translated.state
            report = fast.search(shape.layout, X, placed, mode == "lexfirst",
                                 limit, keep, deadline)
            solutions = [shape.layout.decode(p) for p in report.solutions]
        return _outcome(report, solutions, mode)


def _outcome(report, solutions: list[tuple], mode: str) -> Outcome:
    if report.timed_out:
        status = Status.TIMEOUT
    else:
        status = Status.SOLVED if report.count else Status.UNSAT
    return Outcome(status, solutions=solutions,
                   count=report.count if mode == "count" else None,
                   nodes=report.nodes, backtracks=report.backtracks)
