"""The Python side of the compiled general search: givens in, values and
statistics out.

``solve(packed, givens, mode, limit, keep, deadline, heuristic, restarts)``
places the givens, runs ``search.search`` on a fresh workspace and decodes
its answer. ``warm_up`` compiles (or loads from numba's disk cache) every
kernel on a small model of every kind, before any timed solve.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from engines.backtracking.compiled.cache import healing
from engines.backtracking.compiled.kernel.general import layout as L
from engines.backtracking.compiled.kernel.general import search as compiled
from engines.backtracking.compiled.kernel.general.pack import Packed
from puzzles.model import Linear, Structure, Table

MODES = {"first": 0, "lexfirst": 1, "count": 2}
HEURISTICS = {"domwdeg": L.H_DOMWDEG, "cacd": L.H_CACD}
RESTARTS = {"geometric": L.RS_GEOMETRIC, "luby": L.RS_LUBY, "none": L.RS_NONE}
STATS = ("nodes", "failures", "propagations", "restarts", "nogoods")


class Answer(NamedTuple):
    status: int               # layout.UNSAT, SOLVED or TIMEOUT
    solutions: list
    count: int
    stats: dict
    message: str = ""


def solve(packed: Packed, givens, mode: str = "first", limit: int = 1, keep: int = 1,
          deadline: float | None = None, heuristic: str = "domwdeg",
          restarts: str = "geometric") -> Answer:
    none = dict.fromkeys(STATS, 0)
    if packed.unsat:
        return Answer(L.UNSAT, [], 0, none, packed.unsat)
    placed: dict[int, int] = {}
    for var, x in givens:
        k = packed.index[var].get(x) if 0 <= var < packed.n else None
        if k is None or placed.get(var, k) != k:
            return Answer(L.UNSAT, [], 0, none, f"given {x} for "
                          f"{packed.structure.variables[var]} is outside its domain or "
                          "contradicts another given")
        placed[var] = k
    code = MODES[mode]
    if code != 2:
        limit = keep = 1
    limit, keep = max(1, int(limit)), max(0, int(keep))
    sols = np.zeros(max(keep, 1) * packed.n, np.int64)
    stats = np.zeros(5, np.int64)
    end = math.inf if deadline is None else float(deadline)
    try:
        status, count = healing(
            compiled.search, packed.K, packed.workspace(), code, limit, keep, end,
            HEURISTICS[heuristic], RESTARTS[restarts], np.array(list(placed), np.int64),
            np.array(list(placed.values()), np.int64), sols, stats)
    except SystemError as exc:       # Ctrl-C, raised where the kernel reads the clock
        if isinstance(exc.__cause__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    kept = min(count, keep)
    rows = sols[:kept * packed.n].reshape(kept, packed.n).tolist() if kept else []
    return Answer(int(status), [tuple(r) for r in rows], int(count),
                  dict(zip(STATS, stats.tolist())))


def warm_up() -> None:
    """Compile the general search (or load it from the disk cache): one solve
    compiles every propagator, the argument types being the same for all models."""
    warm = Structure("numba-general-warm-up", ("a", "b"), ((0, 1), (0, 1)),
                     (Linear((1, 1), (0, 1), "==", 1), Table((0, 1), ((0, 1), (1, 0)))))
    packed = Packed(warm)
    for mode in MODES:
        solve(packed, (), mode, limit=2, keep=2)
