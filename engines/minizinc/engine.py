"""Any MiniZinc solver behind the engine template, the way mzn-bench runs them.

``minizinc:solver=ID`` names a solver as ``minizinc --solvers`` lists it (its
id ``org.gecode.gecode``, or ``gecode``); ``gecode`` is the same engine with
Gecode fixed. A model translated from a MiniZinc pair runs, in ``first`` mode, as
the user's own model (``engines.minizinc.source``: compiled with the solver's
library or ``-G std``, its answer completed in the project's flattening; stats
``ran = "source"``, ``library``, ``completion_s``). Otherwise, per task
(``ran = "translation"``):

* ``translate`` (``build_s``): the model written as MiniZinc
  (``engines.minizinc.writer``) and compiled for the solver with
  ``minizinc --solver ID -c`` into FlatZinc and its output specification, in a
  temporary folder;
* ``search`` (``solve_s``: the solver process's wall time): the FlatZinc run by
  the solver's own executable when its configuration names one taking ``-a``,
  ``-n`` and ``-s`` (else by ``minizinc --solver ID`` on the FlatZinc file),
  with the time left as ``-t`` and the process tree held by
  ``engines.external.run_solver``; the first ``KEEP_SOLUTIONS`` solutions are
  turned into values by MiniZinc's ``--ozn-file`` (solns2out).

Modes: ``first`` (one solution), ``count`` (``-n limit``; the count is the
solutions printed, or the solver's ``nSolutions`` when the output was cut),
``lexfirst`` only for solvers that follow the search annotation exactly
(``input_order``, ``indomain_min``, complete, no restarts: Gecode); others
answer n/a. In ``first`` and ``count`` the translation's annotation is dropped, so
the solver searches its own way; the user's own model keeps its annotations.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import weakref
from dataclasses import dataclass, replace
from typing import Any

from engines.base import Engine
from engines.contract import KEEP_SOLUTIONS, Outcome, Result, Status, Unsupported
from engines.external import Finished, missing_reason, run_solver
from engines.minizinc import solvers as listing
from engines.minizinc import source as own
from engines.minizinc.writer import read_values, write
from engines.spec import EngineOptionError, EngineSpec
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Table,
)

COMPILE_TIMEOUT_S = 3600.0     # the harness's own limit ends a longer compile first
NO_DEADLINE_S = 10 ** 6        # a solve without a deadline
GRACE_S = 1.0                  # past the solver's own -t before its tree is ended
FORMAT_TIMEOUT_S = 60.0
SEPARATOR, COMPLETE = "----------", "=========="
UNSAT, UNKNOWN, ERROR = "=====UNSATISFIABLE=====", "=====UNKNOWN=====", "=====ERROR====="
# Solvers whose search follows ``int_search(vars, input_order, indomain_min, complete)``
# exactly when run without -f, -p or -r: their first solution is the least one.
LEX_EXACT = frozenset({"org.gecode.gecode"})
SOLVE_ITEM = re.compile(r"^solve\b", re.MULTILINE)    # the last item of a FlatZinc file
STAT = re.compile(r"^%%%mzn-stat:\s*(\w+)=(\S+)", re.MULTILINE)


@dataclass
class Compiled:
    """One model compiled for one solver, in a folder ``search`` removes."""
    folder: str
    fzn: str
    ozn: str
    size: int
    solver: listing.Solver
    compile_s: float
    model: Model | None = None     # the model whose source ran (``source``), else None
    library: str = ""              # the source's compile: "solver" or "std"


class MinizincEngine(Engine):
    name = "minizinc"
    library = "minizinc"
    constraint_kinds = frozenset({AllDifferent, Linear, NotEqualOffset, Table, ReifiedLinear,
                                  Clause, Element, Arith, AllDifferentList})
    option_defaults: dict[str, Any] = {"solver": "gecode"}
    in_default_set = False
    value_range = (62, "MiniZinc's integers (64-bit)")

    @property
    def solver_name(self) -> str:
        return self.options["solver"]

    @property
    def spec(self) -> EngineSpec:
        """Always names the solver: ``minizinc`` alone would hide which one ran."""
        return EngineSpec(self.name, self.options.items())

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        if "solver" in options and not str(options["solver"]).strip():
            raise EngineOptionError(f"engine {cls.name!r}: solver= needs a solver id "
                                    "(minizinc --solvers lists them)")

    # ----- identity -------------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        return not cls.unavailable_reason()

    @classmethod
    def unavailable_reason(cls) -> str:
        return missing_reason("minizinc", listing.PACKAGE_HINT)

    @classmethod
    def version(cls) -> str:
        try:
            return f"MiniZinc {listing.installed()[1]}"
        except Unsupported:
            return "missing"

    @classmethod
    def details(cls) -> dict[str, Any]:
        try:
            solvers = listing.installed()[0]
        except Unsupported:
            return {}
        return {"solvers": [f"{s.id} {s.version}" for s in solvers]}

    # ----- support --------------------------------------------------------
    def unsupported_reason(self, model: Model, mode: str) -> str | None:
        reason = super().unsupported_reason(model, mode)
        if reason:
            return reason
        try:
            solver = listing.resolve(self.solver_name)
        except Unsupported as exc:
            return str(exc)
        if mode == "lexfirst" and solver.id not in LEX_EXACT:
            return (f"{self.label}: lexfirst needs a solver known to follow the search "
                    f"annotation exactly ({', '.join(sorted(LEX_EXACT))})")
        if "gecode" in solver.id and model.magnitude() >= 1 << 31:
            return f"{self.label}: values beyond ±2^31: outside Gecode's integers"
        return None

    # ----- the template ---------------------------------------------------
    def solve(self, model: Model, mode: str = "first", limit: int = 2,
              timeout: float | None = None):
        """The base's; the model's MiniZinc source runs in ``first`` mode only (the
        search annotation and the solutions counted belong to the project's flattening)."""
        if mode != "first" and model.source is not None:
            model = replace(model, source=None)
        return super().solve(model, mode, limit, timeout)

    def translate(self, model: Model) -> Compiled:
        """The compiled model, in a folder ``search`` removes (or, when no search follows,
        as a warm-up's translation, the compiled model's collection)."""
        solver = listing.resolve(self.solver_name)
        folder = tempfile.mkdtemp(prefix="csp-compare-minizinc-")
        try:
            compiled = self._compile(model, solver, folder)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        weakref.finalize(compiled, shutil.rmtree, folder, ignore_errors=True)
        return compiled

    def _compile(self, model: Model, solver: listing.Solver, folder: str) -> Compiled:
        if own.runs_source(model):
            return self._compile_source(model, solver, folder)
        mzn = os.path.join(folder, "model.mzn")
        with open(mzn, "w", encoding="utf-8") as handle:
            handle.write(write(model))
        compiled = Compiled(folder, os.path.join(folder, "model.fzn"),
                            os.path.join(folder, "model.ozn"), model.structure.size,
                            solver, 0.0)
        run = run_solver([listing.minizinc(), "--solver", solver.id, "-c", mzn,
                          "--fzn", compiled.fzn, "--ozn", compiled.ozn],
                         timeout_s=COMPILE_TIMEOUT_S, cwd=folder)
        compiled.compile_s = run.wall_s
        if run.limit_status() is not None or run.returncode != 0 \
                or not os.path.isfile(compiled.fzn):
            raise RuntimeError(f"minizinc -c failed ({run.ended}): {_last_line(run)}")
        return compiled

    def _compile_source(self, model: Model, solver: listing.Solver, folder: str) -> Compiled:
        """The user's pair compiled with the solver's library, or with ``-G std`` where
        that library does not type-check it."""
        compiled = Compiled(folder, os.path.join(folder, "model.fzn"),
                            os.path.join(folder, "model.ozn"), model.structure.size,
                            solver, 0.0, model)
        for library in ("solver", "std"):
            run = run_solver(own.compile_command(listing.minizinc(), solver.id, model,
                                                 compiled.fzn, compiled.ozn, library == "std"),
                             timeout_s=COMPILE_TIMEOUT_S, cwd=folder)
            compiled.compile_s += run.wall_s
            if run.limit_status() is None and run.returncode == 0 \
                    and os.path.isfile(compiled.fzn):
                compiled.library = library
                return compiled
            if library == "std" or run.limit_status() is not None \
                    or not own.type_error(run.stderr):
                break
        raise RuntimeError(f"minizinc -c failed ({run.ended}): {_last_line(run)}")

    def search(self, compiled: Compiled, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        try:
            outcome = self._search(compiled, mode, limit, deadline)
            if compiled.model is not None:
                if outcome.status is Status.SOLVED:
                    self._complete(compiled.model, outcome, deadline)
                else:
                    outcome.solutions = []
            return outcome
        finally:
            shutil.rmtree(compiled.folder, ignore_errors=True)

    @staticmethod
    def _complete(model: Model, outcome: Outcome, deadline: float | None) -> None:
        """The solver's named values as model values (``source.completed``); past the
        deadline, a timeout."""
        try:
            values, message = own.completed(model, outcome.solutions[0], deadline,
                                            outcome.stats)
        except TimeoutError:
            outcome.status, outcome.solutions = Status.TIMEOUT, []
            outcome.message = ("the solver answered; completing its answer in the "
                               "project's flattening ran out of time")
            return
        outcome.solutions = [values]
        outcome.message = message

    def _search(self, compiled: Compiled, mode: str, limit: int,
                deadline: float | None) -> Outcome:
        solver = compiled.solver
        stats: dict[str, Any] = {"solver": solver.id, "solver_version": solver.version,
                                 "compile_s": round(compiled.compile_s, 6)}
        if compiled.model is not None:
            stats["ran"], stats["library"] = "source", compiled.library
        else:
            stats["ran"] = "translation"
        left = NO_DEADLINE_S if deadline is None else deadline - time.perf_counter()
        if left <= 0:
            return Outcome(Status.TIMEOUT, count=0 if mode == "count" else None, stats=stats)
        # the translation's annotation is the project's: dropped but for lexfirst; the
        # user's own model keeps its own
        fzn = compiled.fzn if mode == "lexfirst" or compiled.model is not None \
            else _own_search(compiled.fzn)
        wanted = max(1, limit) if mode == "count" else 1
        run = run_solver(self._command(solver, fzn, wanted, left if deadline else None),
                         timeout_s=left + GRACE_S, cwd=compiled.folder)
        stats["solver_wall_s"] = run.wall_s
        if run.peak_rss_mb is not None:
            stats["solver_peak_rss_mb"] = round(run.peak_rss_mb, 1)
        return self._read(run, compiled, mode, wanted, stats)

    @staticmethod
    def _command(solver: listing.Solver, fzn: str, wanted: int,
                 left: float | None) -> list[str]:
        ms = None if left is None else str(max(1, int(left * 1000)))
        if solver.runs_directly:
            argv = [solver.executable, "-s", "-n", str(wanted)]
            if ms and "-t" in solver.std_flags:
                argv += ["-t", ms]
            return [*argv, fzn]
        argv = [listing.minizinc(), "--solver", solver.id, "-s", "--num-solutions", str(wanted)]
        if ms:
            argv += ["--time-limit", ms]
        return [*argv, fzn]

    def _read(self, run: Finished, compiled: Compiled, mode: str, wanted: int,
              stats: dict[str, Any]) -> Outcome:
        raw = run.stdout
        lines = raw.splitlines()
        found = sum(1 for line in lines if line.strip() == SEPARATOR)
        reported = {key: value for key, value in STAT.findall(raw)}
        for key in ("nSolutions", "solutions"):
            if run.stdout_dropped and key in reported and reported[key].isdigit():
                found = max(found, int(reported[key]))
        nodes, backtracks = _int(reported.get("nodes")), _int(reported.get("failures"))
        if "solveTime" in reported:
            stats["solver_time_s"] = float(reported["solveTime"])
        marks = {line.strip() for line in lines}
        solutions = self._values(raw, compiled, min(found, KEEP_SOLUTIONS)) if found else []
        count = min(found, wanted) if mode == "count" else None

        more = {key: _int(reported[key]) for key in ("failures", "propagations", "restarts",
                                                     "nogoods") if key in reported}

        def outcome(status: Status, message: str = "") -> Outcome:
            return Outcome(status, solutions[:wanted], count, nodes, backtracks, stats, message,
                           **more)
        if ERROR in marks:
            return outcome(Status.ERROR, f"the solver printed {ERROR}: {_last_line(run)}")
        if found >= wanted or (found and COMPLETE in marks):
            return outcome(Status.SOLVED)
        if UNSAT in marks or (COMPLETE in marks and not found):
            return outcome(Status.UNSAT)
        limit = run.limit_status()
        if limit is not None:
            return outcome(limit, "solver stopped at the " + limit.value)
        if UNKNOWN in marks or run.returncode == 0:
            return outcome(Status.TIMEOUT, "the solver stopped without an answer "
                                           "(its own time limit)")
        return outcome(Status.ERROR, f"solver ended ({run.ended}): {_last_line(run)}")

    def _values(self, raw: str, compiled: Compiled, keep: int) -> list:
        """The first ``keep`` solutions of the solver's output, through solns2out; of the
        user's own model, the first solution's values by name (``source``)."""
        if compiled.model is not None:
            return [own.named_values(raw)]
        head, seen = [], 0
        for line in raw.splitlines():
            if line.startswith("%"):
                continue
            head.append(line)
            if line.strip() == SEPARATOR:
                seen += 1
                if seen == keep:
                    break
        run = run_solver([listing.minizinc(), "--ozn-file", compiled.ozn],
                         timeout_s=FORMAT_TIMEOUT_S, stdin="\n".join(head) + "\n",
                         cwd=compiled.folder)
        values = [read_values(line, compiled.size) for line in run.stdout.splitlines()
                  if line.startswith("[")]
        if len(values) != keep:
            raise RuntimeError(f"minizinc --ozn-file gave {len(values)} of {keep} "
                               f"solutions: {_last_line(run)}")
        return values

    @staticmethod
    def _fill(result: Result, outcome: Outcome, mode: str, limit: int) -> None:
        """The base's, then ``solve_s`` is the solver process's wall time (reading its
        output back into values is not the solver's)."""
        Engine._fill(result, outcome, mode, limit)
        if "solver_wall_s" in outcome.stats:
            result.solve_s = outcome.stats["solver_wall_s"]


class GecodeEngine(MinizincEngine):
    """``gecode``: ``minizinc:solver=gecode`` under the solver's own name."""
    name = "gecode"
    option_defaults: dict[str, Any] = {}
    solver_id = "org.gecode.gecode"

    @property
    def solver_name(self) -> str:
        return self.solver_id

    @property
    def spec(self) -> EngineSpec:
        return EngineSpec(self.name)

    @classmethod
    def unavailable_reason(cls) -> str:
        return missing_reason("minizinc", listing.PACKAGE_HINT) or listing.missing(cls.solver_id)

    @classmethod
    def version(cls) -> str:
        try:
            return f"Gecode {listing.resolve(cls.solver_id).version} " \
                   f"(MiniZinc {listing.installed()[1]})"
        except Unsupported:
            return "missing"


def _own_search(fzn: str) -> str:
    """A copy of ``fzn`` whose solve item has no search annotation, beside it."""
    with open(fzn, encoding="utf-8") as handle:
        text = handle.read()
    items = list(SOLVE_ITEM.finditer(text))
    if not items:
        raise RuntimeError("the compiled FlatZinc has no solve item")
    plain = fzn[:-len(".fzn")] + "-own.fzn"
    with open(plain, "w", encoding="utf-8") as handle:
        handle.write(text[:items[-1].start()] + "solve satisfy;\n")
    return plain


def _int(text: str | None) -> int:
    try:
        return int(text) if text is not None else 0
    except ValueError:
        return 0


def _last_line(run: Finished) -> str:
    """The last meaningful line the run printed (stderr first), for a one-line message."""
    for stream in (run.stderr, run.stdout):
        lines = [line.strip() for line in stream.splitlines()
                 if line.strip() and not line.startswith("%") and "deprecated" not in line]
        if lines:
            return lines[-1][:300]
    return "no output"


__all__ = ["Compiled", "GecodeEngine", "MinizincEngine"]
