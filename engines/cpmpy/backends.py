"""The CPMpy solvers the ``cpmpy`` engine knows: what each one needs, how its
effort is read, and whether it works here.

CPMpy itself is optional: without it ``cp`` is None and every backend
reports the package to install (the engine stays listed, as unavailable).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from engines.base import library_version
from engines.support.signals import host_signals_kept
from engines.support.structure_cache import StructureCache
from puzzles.model import Linear, Structure, merged_terms

try:
    import cpmpy as cp
    from cpmpy.solvers.solver_interface import ExitStatus
    from cpmpy.solvers.utils import SolverLookup
except ImportError:  # the registry still lists the engine, as unavailable
    cp = ExitStatus = SolverLookup = None

SAT_LINEAR_SPAN = 512    # see Backend.max_linear_span


# ----- effort: each backend's own counters ----------------------------------------------
def _ortools_effort(solver) -> dict[str, float]:
    ort = solver.ort_solver
    return {"branches": ort.num_branches, "conflicts": ort.num_conflicts,
            "wall_s": ort.wall_time}


def _choco_effort(solver) -> dict[str, float]:
    """Read through pychoco's backend: pychoco 0.4's ``Solver.get_node_count`` is
    defined twice and the later one returns the time count instead."""
    from pychoco import backend
    handle = solver.chc_solver._handle
    return {"nodes": backend.get_node_count(handle),
            "backtracks": backend.get_backtrack_count(handle),
            "fails": backend.get_fail_count(handle)}


CT_BITSET_BYTES = 64 << 20   # see _choco_table


def _choco_table(solver, expr) -> bool:
    """Post a table whose Compact-Table bitsets would be too large with STR2+ instead.

    Choco's default table filtering (CT+, the only one CPMpy asks for) keeps a
    bitset of the rows for every value of every variable in the scope: a
    60,012-row table over a 60,012-value variable takes 450 MB, and the 98
    such tables of an XCSP3 WordSquare-hak instance ran out of 24 GB. STR2+
    keeps the rows themselves. CPMpy's short-table route to STR2+ does not run
    with pychoco 0.4 (a keyword it does not have), so the table goes straight
    to Choco's model; its variables are CPMpy's own, so values still read back.
    True when posted here.
    """
    if getattr(expr, "name", None) != "table":
        return False
    scope, rows = expr.args
    values = sum(int(x.ub) - int(x.lb) + 1 for x in scope)
    if len(rows) * values // 8 <= CT_BITSET_BYTES:
        return False
    solver.chc_model.table(solver.solver_vars(list(scope)),
                           [[int(v) for v in row] for row in rows], algo="STR2+").post()
    return True


def _exact_effort(solver) -> dict[str, float]:
    stats = dict(solver.xct_solver.getStats())    # counts, reported as floats
    return {k: int(stats.get(k, 0)) for k in ("decisions", "conflicts", "propagations")}


def _pysat_effort(solver) -> dict[str, float]:
    stats = solver.pysat_solver.accum_stats() or {}
    return {k: stats.get(k, 0) for k in ("decisions", "conflicts", "propagations")}


def _z3_effort(solver) -> dict[str, float]:
    stats = solver.z3_solver.statistics()
    found = {k: stats.get_key_value(k) for k in stats.keys()}
    return {k: found.get(k, found.get(f"sat {k}", 0)) for k in ("decisions", "conflicts")}


def _no_effort(solver) -> dict[str, float]:
    return {}


@dataclass(frozen=True)
class Backend:
    """What the engine needs to know of one CPMpy solver.

    ``cumulative``: its counters cover the solver object's life, not one call,
    so only the growth since the last reading is added. ``neq_as_alldiff``:
    ``x != y + c`` goes in as a two-term AllDifferent, which CPMpy encodes for
    SAT and pseudo-Boolean solvers per value (a 9x9 ``pairwise`` Sudoku: PySAT
    5 ms instead of 4 s; the ``pairwise`` killer9: Exact 0.2 s instead of 6.5 s)
    and CP-SAT handles as one constraint; Choco and Z3 are faster with the
    plain disequality. ``native_enumeration``: ``solveAll`` runs inside the
    library, so Python must not raise from its callback. ``post_natively``:
    given the solver and one expression, posts it through the backend's own
    API and says True, or leaves it to CPMpy (False).
    """
    name: str
    package: str
    what: str
    assumptions: bool
    neq_as_alldiff: bool
    native_enumeration: bool
    effort: Callable[[Any], dict[str, float]]
    effort_note: str
    nodes_key: str = ""
    backtracks_key: str = ""
    cumulative: bool = False
    seed: str = ""             # the keyword the seed travels as
    seed_at_init: bool = False
    max_linear_span: int | None = None
    post_natively: Callable[[Any, Any], bool] | None = None


BACKENDS: dict[str, Backend] = {b.name: b for b in (
    Backend("ortools", "ortools", "OR-Tools CP-SAT: lazy clause generation (CP + SAT)",
            True, True, True, _ortools_effort,
            "nodes = CP-SAT branches, backtracks = conflicts",
            "branches", "conflicts", seed="random_seed"),
    Backend("choco", "pychoco", "Choco: propagation and branching CP solver",
            False, False, True, _choco_effort,
            "nodes = Choco search nodes, backtracks = Choco backtracks",
            "nodes", "backtracks", post_natively=_choco_table),
    Backend("exact", "exact", "Exact: pseudo-Boolean solver with cutting planes",
            True, True, False, _exact_effort,
            "nodes = Exact decisions, backtracks = conflicts",
            "decisions", "conflicts", cumulative=True, seed="seed", seed_at_init=True),
    Backend("pysat", "python-sat", "PySAT (Glucose 4): CDCL SAT on CPMpy's Boolean encoding",
            True, True, False, _pysat_effort,
            "nodes = SAT decisions, backtracks = conflicts",
            "decisions", "conflicts", cumulative=True, max_linear_span=SAT_LINEAR_SPAN),
    Backend("z3", "z3-solver", "Z3: SMT solver",
            True, False, False, _z3_effort,
            "nodes = Z3 decisions, backtracks = conflicts",
            "decisions", "conflicts", seed="random_seed"),
    Backend("pindakaas", "pindakaas", "Pindakaas: pseudo-Boolean encodings into CaDiCaL",
            True, True, False, _no_effort, "not reported by the backend",
            max_linear_span=SAT_LINEAR_SPAN),
)}


def linear_span(structure: Structure) -> int:
    """The most values any linear constraint's sum can take: ``sum |a| * (max - min)``."""
    widest = 0
    for con in structure.constraints:
        if isinstance(con, Linear):
            merged = merged_terms(con)
            widest = max(widest, sum(abs(a) * (max(structure.domains[v]) - min(structure.domains[v]))
                                     for a, v in zip(merged.coeffs, merged.vars)
                                     if structure.domains[v]))
    return widest


SPANS = StructureCache(linear_span)


# ----- discovery ----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def probe_backend(name: str) -> tuple[bool, str, str]:
    """(works, version, reason): a tiny model solved and checked, once per process.

    The backend's library is loaded and run here, in whatever process asks
    (the harness's parent asks for versions): its signal handlers are put
    back afterwards (``host_signals_kept``), so the process keeps its Ctrl-C.

    The model has each form the translation posts (AllDifferent, a weighted
    sum, a table, an offset disequality): PySAT passes CPMpy's ``supported()``
    without ``pypblib`` yet fails on the first weighted sum. ``supported()``
    may also raise rather than say no (PySAT with ``pypblib`` but without
    ``python-sat``'s ``pb`` module), so any failure is a reason, never an error.
    """
    with host_signals_kept():
        return _probe(name)


def _probe(name: str) -> tuple[bool, str, str]:
    backend = BACKENDS[name]
    hint = f"pip install {backend.package}"
    if cp is None:
        return False, "", f"cpmpy is not installed ({hint} cpmpy)"
    try:
        try:
            cls = SolverLookup.lookup(name)
        except ValueError:
            cls = None
        if cls is None:
            return False, "", f"unknown to CPMpy {library_version('cpmpy')} (pip install -U cpmpy)"
        if not cls.supported():
            return False, "", f"not installed ({hint})"
        # CPMpy before 1.0 has no version() on its solver classes
        version = (getattr(cls, "version", lambda: None)()
                   or library_version(backend.package))
        x, y = cp.intvar(1, 3, shape=2, name=f"probe_{name}")
        solver = SolverLookup.get(name)
        solver += [cp.AllDifferent([x, y]), 2 * x + 3 * y <= 9, x != y + 1,
                   cp.Table([x, y], [[1, 2], [2, 1], [1, 3]])]
        if not solver.solve() or (x.value(), y.value()) != (1, 2):
            return False, version, ("answers a two-variable test model wrongly (is this "
                                    f"{backend.package} release one CPMpy supports?)")
    except Exception as exc:   # a broken install is reported, not raised
        return False, "", f"not working: {type(exc).__name__}: {exc} ({hint})"
    return True, version, ""
