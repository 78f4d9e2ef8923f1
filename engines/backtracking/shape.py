"""What the backtracking engine derives from a model's structure, once per shape.

Every puzzle of one shape (all 9x9 Sudoku, say) shares one ``Structure``, so
everything here is computed once per ``structure.key`` and cached: a translate
per puzzle then only applies the givens. Both paths of the engine (the
AllDifferent one and the general one) read values, bit indexes and groups
from here, so each has one definition. The derivation knows constraints, not
puzzles:

* values: the sorted union of the base domains; value ``v`` is bit ``vidx[v]``,
  so any integers work (0, negatives, gaps) and the lowest bit is the least
  value;
* per-variable domain bitmasks;
* groups: the AllDifferent constraints (as tuples of variables), and for each
  variable its *peers*, the variables sharing a group with it;
* *permutation units*: groups whose size equals the size of the union of their
  members' domains. In such a unit every value must appear exactly once
  (k variables, k values, all different), so "value v has one place left in
  the unit" forces that place (a hidden single) and "no place left" is a
  conflict. In any other group a value may be absent from every member, and
  the same deduction would throw solutions away; there we only eliminate a
  placed value from the peers.

Linear, NotEqualOffset and Table constraints are the general path's to read
(``general.compile``); what it builds from them, like the bit layout of the
AllDifferent ``fast`` search and each variant's search object, hangs off the
shape through ``derived`` so it is built once and shares the shape's cache.
"""
from __future__ import annotations

from functools import cached_property
from typing import Callable, TypeVar

from engines.support.structure_cache import StructureCache
from puzzles.model import AllDifferent, Structure

CACHE_SIZE = 16          # shapes kept; a run rarely mixes more than a few
T = TypeVar("T")


def union_of(group, domain_bits) -> int:
    """Every value some member of ``group`` may take, as bits."""
    union = 0
    for var in group:
        union |= domain_bits[var]
    return union


def is_permutation(group, domain_bits) -> bool:
    """As many values as members: each value must then appear exactly once."""
    return union_of(group, domain_bits).bit_count() == len(group)


class Shape:
    """The engine's view of one structure."""

    def __init__(self, structure: Structure):
        self.structure = structure
        self.nvars = structure.size
        self.values = tuple(sorted({v for dom in structure.domains for v in dom}))
        self.vidx = {v: k for k, v in enumerate(self.values)}
        self.domain_bits = tuple(sum(1 << self.vidx[v] for v in set(dom))
                                 for dom in structure.domains)
        self.alldifferent_only = structure.kinds() <= {AllDifferent}
        self.groups, self.unsat_reason = self._groups(structure)
        self.groups_of = self._groups_of()
        self.units = tuple(g for g in self.groups if is_permutation(g, self.domain_bits))
        self._derived: dict = {}

    def _groups(self, structure: Structure) -> tuple[tuple[tuple[int, ...], ...], str]:
        """AllDifferent groups worth keeping, and why the shape is hopeless if it is."""
        groups, seen = [], set()
        for con in structure.constraints:
            if not isinstance(con, AllDifferent):
                continue
            group = tuple(con.vars)
            if len(set(group)) < len(group):
                return (), f"AllDifferent{group} names a variable twice"
            if len(group) < 2 or frozenset(group) in seen:
                continue
            seen.add(frozenset(group))
            union = union_of(group, self.domain_bits)
            if union.bit_count() < len(group):
                return (), f"AllDifferent over {len(group)} variables has only " \
                           f"{union.bit_count()} values (pigeonhole)"
            groups.append(group)
        empty = [i for i, d in enumerate(self.domain_bits) if not d]
        if empty:
            return (), f"variable {structure.variables[empty[0]]} has an empty domain"
        return tuple(groups), ""

    def _groups_of(self) -> tuple[tuple[int, ...], ...]:
        of = [[] for _ in range(self.nvars)]
        for g, group in enumerate(self.groups):
            for var in group:
                of[var].append(g)
        return tuple(tuple(gs) for gs in of)

    def value_index(self, var: int, value) -> int | None:
        """The bit of ``value`` if it is in ``var``'s base domain, else None."""
        vi = self.vidx.get(value)
        return vi if vi is not None and self.domain_bits[var] >> vi & 1 else None

    def bits_where(self, var: int, allowed: Callable[[int], bool]) -> int:
        """The bits of ``var``'s base domain whose values pass ``allowed``."""
        d, m = self.domain_bits[var], 0
        while d:
            b = d & -d
            d ^= b
            if allowed(self.values[b.bit_length() - 1]):
                m |= b
        return m

    @cached_property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        peers = [set() for _ in range(self.nvars)]
        for group in self.groups:
            for var in group:
                peers[var].update(group)
        return tuple(tuple(sorted(p - {var})) for var, p in enumerate(peers))

    def derived(self, build: Callable[["Shape"], T]) -> T:
        """``build(self)``, made on first use and kept with the shape: a variant
        builds only what it searches with (``seed`` never needs the layout)."""
        got = self._derived.get(build)
        if got is None:
            got = self._derived[build] = build(self)
        return got


_SHAPES: StructureCache[Shape] = StructureCache(Shape, CACHE_SIZE)


def shape_for(structure: Structure) -> Shape:
    """The cached shape for ``structure``: built once per shape, not per puzzle."""
    return _SHAPES.get(structure)
