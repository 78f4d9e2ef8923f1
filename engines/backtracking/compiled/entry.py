"""A numba kernel for the backtracking engine's two variants on AllDifferent-only models.

Pure functions, no ``Engine`` subclass: an engine plugs this in behind an
option (``kernel=python|numba``). The kernel knows models, not Sudoku: it
reads variables, domains and the AllDifferent groups through the engine's
``Shape`` and packs what its searches need (``kernel.packer``). The searches
live in ``kernel``: ``seed`` (the BOJ 2239 reference, move for move), ``fast``
(singles, locked candidates, MRV branching, probing on 16+ values) and
``lean`` (``fast`` for the shapes that do not probe).

API::

    available() -> bool                 # numba importable (and not disabled)
    unavailable_reason() -> str         # one line, "" when available
    unsupported_reason(structure) -> str | None
    compile_structure(structure) -> KernelShape      # cache per structure.key
    solve(kshape, givens, variant, mode, limit, keep, deadline) -> KernelResult
    warm_up(variants) -> float          # compiles / loads the variants' searches, seconds
    compiled(variants) -> bool          # their compiled code is in the disk cache already
    prepare(variants) -> float          # warm_up, one process at a time on this machine

Compiled code is cached on disk (``cache=True``, in ``kernel/__pycache__``);
a worker warms up before any timed solve, so none compiles. On an empty cache
``prepare`` fills it once, for every process after it (the engine's
``prepare`` hook: the harness calls it once per run, before the workers
start). A damaged cache is discarded and rebuilt, with one warning
(``numba_cache``). numba checks a
cached function against its own file only: after editing one kernel module,
remove ``kernel/__pycache__`` so that the searches calling into it recompile.
"""
from __future__ import annotations

import math
import time
from itertools import chain
from typing import NamedTuple

import numpy as np

from engines.backtracking.compiled import cache as numba_cache
from engines.backtracking.compiled.cache import healing
from engines.backtracking.compiled.kernel import fast, lean, seed
from engines.backtracking.compiled.kernel.common import (
    BADVAR,
    CLASH,
    OUTSIDE,
    REPEATS,
    SOLVED,
    TIMEOUT,
    TWO_VALUES,
    UNSAT,
    WHY_NOT,
    numba,
)
from engines.backtracking.compiled.kernel.general import run as general
from engines.backtracking.compiled.kernel.general import search as general_search
from engines.backtracking.compiled.kernel.packer import KernelShape, pack
from engines.backtracking.shape import shape_for
from engines.contract import Status
from puzzles.model import AllDifferent, Structure

__all__ = ["VARIANTS", "MODES", "MAX_VALUES", "KernelShape", "KernelResult", "available",
           "unavailable_reason", "unsupported_reason", "compile_structure", "solve", "warm_up",
           "compiled", "prepare", "numba"]

VARIANTS = ("seed", "fast")
MODES = {"first": 0, "lexfirst": 1, "count": 2}
MAX_VALUES = 62                 # values per model: bits of one int64 mask


def available() -> bool:
    """Whether the compiled kernels can run here."""
    return not WHY_NOT


def unavailable_reason() -> str:
    """One line saying why not, or "" when ``available()``."""
    return WHY_NOT


def unsupported_reason(structure: Structure) -> str | None:
    """Why the kernel cannot take this structure, or None when it can."""
    if any(not isinstance(con, AllDifferent) for con in structure.constraints):
        return "the numba kernel takes AllDifferent-only models"
    values = {v for dom in structure.domains for v in dom}
    if len(values) > MAX_VALUES:
        return f"the numba kernel takes at most {MAX_VALUES} distinct values"
    if values and not -2 ** 63 <= min(values) <= max(values) < 2 ** 63:
        return "the numba kernel takes 64-bit integer values"
    return None


def compile_structure(structure: Structure) -> KernelShape:
    """The packed shape of ``structure`` (its ``Shape`` read once, cached).

    A group naming a variable twice, a pigeonhole group or an empty domain
    make the shape UNSAT (``unsat_reason``). Raises ``ValueError`` for a
    structure the kernel does not take (``unsupported_reason``).
    """
    reason = unsupported_reason(structure)
    if reason:
        raise ValueError(reason)
    return pack(shape_for(structure))


class KernelResult(NamedTuple):
    """``status`` (engines.contract.Status), up to ``keep`` solutions (value tuples in
    variable order), ``count`` of solutions found, search effort, and a message
    when the givens alone are hopeless."""
    status: Status
    solutions: list
    count: int
    nodes: int
    backtracks: int
    message: str = ""


def solve(kshape: KernelShape, givens, variant: str = "fast", mode: str = "first",
          limit: int = 1, keep: int = 1, deadline: float | None = None) -> KernelResult:
    """Search the model ``kshape`` + ``givens`` (``(var, value)`` pairs).

    ``first`` and ``lexfirst`` stop at one solution; ``count`` stops at
    ``limit`` and keeps the first ``keep``. ``deadline`` is absolute, on the
    ``time.perf_counter()`` scale; past it the result is TIMEOUT with what was
    found so far. Raises ``ValueError`` for a given naming an unknown variable.
    """
    if not available():
        raise RuntimeError(WHY_NOT)
    if kshape.unsat_reason:
        return KernelResult(Status.UNSAT, [], 0, 0, 0, kshape.unsat_reason)
    code = MODES[mode]
    if code != 2:
        limit = keep = 1
    limit, keep = max(1, int(limit)), max(0, int(keep))
    try:
        flat = np.fromiter(chain.from_iterable(givens), np.int64, 2 * len(givens))
    except OverflowError:
        return _huge_given(kshape, givens)
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    rows, work = kshape.workspace(keep)
    end = math.inf if deadline is None else float(deadline)
    status, count, nodes, backtracks = healing(_search, kshape, variant, flat, code, limit,
                                               keep, end, rows, work)
    n, at = kshape.nvars, kshape.sols_at
    if status == BADVAR:
        raise ValueError(f"given for unknown variable {work[kshape.info_at + 1]}")
    kept = min(count, keep)
    if kept == 1:                              # the common case, without a reshape
        solutions = [tuple(work[at:at + n].tolist())]
    else:
        solutions = [tuple(r) for r in work[at:at + kept * n].reshape(kept, n).tolist()]
    message = ""
    if status == UNSAT and not nodes:
        message = _why(kshape, work[kshape.info_at:kshape.info_at + 4])
    return KernelResult(_STATUS[status], solutions, count, nodes, backtracks, message)


def _search(kshape: KernelShape, variant: str, flat, code: int, limit: int, keep: int,
            end: float, rows, work):
    if variant == "seed":
        return seed.search(kshape.blob, flat, limit, keep, end, work)
    if not kshape.probe:
        return lean.search(kshape.blob, flat, code, limit, keep, end, rows, work)
    return fast.search(kshape.blob, flat, code, kshape.probe, limit, keep, end, rows, work)


_STATUS = {UNSAT: Status.UNSAT, SOLVED: Status.SOLVED, TIMEOUT: Status.TIMEOUT}


def _why(kshape: KernelShape, info) -> str:
    kind, var, value, group = (int(x) for x in info)
    if kind == OUTSIDE:
        return f"given {value} is outside the domain of variable {var}"
    if kind == TWO_VALUES:
        return f"variable {var} is given two values"
    if kind == REPEATS:
        return f"given {value} repeats in AllDifferent{kshape.groups[group]}"
    if kind == CLASH:
        return f"given {value} at variable {var} conflicts with another given"
    return ""


def _huge_given(kshape: KernelShape, givens) -> KernelResult:
    """A given beyond 64 bits: an unknown variable, or a value outside every domain."""
    for var, _value in givens:
        if not 0 <= var < kshape.nvars:
            raise ValueError(f"given for unknown variable {var}")
    var, value = next((v, x) for v, x in givens if not -2 ** 63 <= x < 2 ** 63)
    return KernelResult(Status.UNSAT, [], 0, 0, 0,
                        f"given {value} is outside the domain of variable {var}")


def warm_up(variants=VARIANTS) -> float:
    """Compile the searches of ``variants`` (or load them from the disk cache); seconds.

    Workers warm up before any timed solve, so no timed task compiles.
    """
    if not available():
        return 0.0
    start = time.perf_counter()
    square = Structure("numba-kernel-warm-up", ("a", "b", "c", "d"), ((1, 2),) * 4,
                       (AllDifferent((0, 1)), AllDifferent((2, 3)),
                        AllDifferent((0, 2)), AllDifferent((1, 3))))
    kshape = compile_structure(square)
    for variant in variants:
        for mode in MODES:
            solve(kshape, ((0, 1),), variant, mode, limit=2, keep=2)
    if "fast" in variants:           # the probing search of shapes with 16+ values
        kshape.probe = True
        solve(kshape, (), "fast", "count", limit=2, keep=2)
        general.warm_up()            # and the general search of every other model
    return time.perf_counter() - start


def _entry_points(variants) -> list:
    """The compiled functions Python calls for ``variants``; each carries the code
    it calls into in its own cache entry."""
    if not available():
        return []
    found = {"seed": [seed.search], "fast": [lean.search, fast.search, general_search.search]}
    return [d for variant in variants for d in found[variant]]


def compiled(variants=VARIANTS) -> bool:
    """Whether the disk cache holds the searches of ``variants`` for this source and
    numba: a look at index files (milliseconds), nothing compiled or loaded."""
    return available() and numba_cache.on_disk(_entry_points(variants))


def prepare(variants=VARIANTS) -> float:
    """``warm_up``, holding the cache folder's lock: processes that find the cache
    empty together compile once (the first; the others then load); seconds."""
    if not available():
        return 0.0
    with numba_cache.exclusive():
        return warm_up(variants)
