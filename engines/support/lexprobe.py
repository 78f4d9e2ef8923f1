"""``lexfirst`` for engines whose library picks its own search order.

python-constraint and CP-SAT choose variables and values as they like, so the
first solution they return is not the lexicographically smallest. Both turn
"find a solution" into "find the smallest one" with the same probing loop,
which needs nothing from the library but a feasibility check under narrowed
domains.
"""
from __future__ import annotations

from typing import Callable, Sequence

from engines.contract import timed_out

Solution = tuple[int, ...]
Probe = Callable[[list[tuple[int, ...]]], "Sequence[int] | None"]


class SearchTimeout(Exception):
    """The deadline passed inside a search; engines turn it into ``TIMEOUT``."""


def lexfirst_by_probes(start: Sequence[int], domains: Sequence[Sequence[int]],
                       probe: Probe, deadline: float | None = None
                       ) -> tuple[Solution, int]:
    """The lexicographically smallest solution, and how many probes it took.

    ``start`` is any solution; ``probe(doms)`` returns a solution whose every
    value lies in ``doms`` (one tuple of allowed values per variable), or None
    when there is none.

    Why it is correct, whatever order the library searches in. Let ``L`` be
    the smallest solution. Invariant at step ``i``: variables ``0..i-1`` are
    fixed to ``L``'s values and ``best`` is a solution agreeing with them.
    Among solutions with that prefix, ``L_i`` is the least value of ``x_i``.
    We probe ``x_i < best_i`` (prefix fixed, later variables free): a probe
    that finds nothing proves no solution with this prefix has a smaller
    ``x_i``, and ``best`` shows ``x_i = best_i`` is possible, so
    ``L_i = best_i``; a probe that finds a solution gives a new ``best`` with
    a strictly smaller ``x_i``, so the loop at ``i`` ends after at most
    ``|domain|`` probes. Fixing ``x_i = best_i`` keeps the invariant; after the
    last variable ``best = L``. No probe is needed when ``best_i`` is already
    the least value left in the domain (givens, for one).
    """
    best = tuple(start)
    doms = [tuple(d) for d in domains]
    probes = 0
    for i in range(len(doms)):
        while True:
            lower = tuple(v for v in doms[i] if v < best[i])
            if not lower:
                break
            if timed_out(deadline):
                raise SearchTimeout
            probes += 1
            found = probe(doms[:i] + [lower] + doms[i + 1:])
            if found is None:
                break
            best = tuple(found)
        doms[i] = (best[i],)
    return best, probes
