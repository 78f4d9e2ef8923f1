"""What the backtracking engine derives from a model's structure, once per shape.

Every puzzle of one shape (all 9x9 Sudoku, say) shares one ``Structure``, so
everything here is computed once per ``structure.key`` and cached: a translate
per puzzle then only applies the givens. The derivation knows constraints, not
puzzles:

* values: the sorted union of the base domains; value ``v`` is bit ``vidx[v]``;
* per-variable domain bitmasks;
* groups: the AllDifferent constraints (as tuples of variables), and for each
  variable its *peers*, the variables sharing a group with it;
* *permutation units*: groups whose size equals the size of the union of their
  members' base domains. In such a unit every value must appear exactly once
  (k variables, k values, all different), so "value v has one place left in
  the unit" forces that place (a hidden single) and "no place left" is a
  conflict. In any other group a value may be absent from every member, and
  the same deduction would throw solutions away; there we only eliminate a
  placed value from the peers.

Other constraint kinds (Linear, NotEqualOffset, Table) are not translated yet;
the engine declares them unsupported. When they come, each kind adds its own
derived tables here (a ``_derive_<kind>`` step) and its propagator to the
search, without touching the AllDifferent path.
"""
from __future__ import annotations

from functools import cached_property

from puzzles.model import AllDifferent, Structure

from ._backtracking_layout import Layout
from ._structure_cache import StructureCache

CACHE_SIZE = 16          # shapes kept; a run rarely mixes more than a few


class Shape:
    """The engine's view of one structure; the bit layout is built lazily."""

    def __init__(self, structure: Structure):
        self.structure = structure
        self.nvars = structure.size
        self.values = tuple(sorted({v for dom in structure.domains for v in dom}))
        self.vidx = {v: k for k, v in enumerate(self.values)}
        self.domain_bits = tuple(sum(1 << self.vidx[v] for v in set(dom))
                                 for dom in structure.domains)
        self.groups, self.unsat_reason = self._groups(structure)
        self.groups_of = self._groups_of()
        self.units = tuple(g for g in self.groups if self._is_permutation(g))

    def _groups(self, structure: Structure) -> tuple[tuple[tuple[int, ...], ...], str]:
        """AllDifferent groups worth keeping, and why the shape is hopeless if it is."""
        groups, seen = [], set()
        for con in structure.constraints:
            if not isinstance(con, AllDifferent):
                continue   # the engine refuses other kinds before translating
            group = tuple(con.vars)
            if len(set(group)) < len(group):
                return (), f"AllDifferent{group} names a variable twice"
            if len(group) < 2 or frozenset(group) in seen:
                continue
            seen.add(frozenset(group))
            union = 0
            for var in group:
                union |= self.domain_bits[var]
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

    def _is_permutation(self, group: tuple[int, ...]) -> bool:
        union = 0
        for var in group:
            union |= self.domain_bits[var]
        return union.bit_count() == len(group)

    def value_index(self, var: int, value) -> int | None:
        """The bit of ``value`` if it is in ``var``'s base domain, else None."""
        vi = self.vidx.get(value)
        return vi if vi is not None and self.domain_bits[var] >> vi & 1 else None

    @cached_property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        peers = [set() for _ in range(self.nvars)]
        for group in self.groups:
            for var in group:
                peers[var].update(group)
        return tuple(tuple(sorted(p - {var})) for var, p in enumerate(peers))

    @cached_property
    def layout(self) -> Layout:
        """Built on first use: the ``seed`` variant never needs it."""
        return Layout(self)


_SHAPES: StructureCache[Shape] = StructureCache(Shape, CACHE_SIZE)


def shape_for(structure: Structure) -> Shape:
    """The cached shape for ``structure``: built once per shape, not per puzzle."""
    return _SHAPES.get(structure)
