"""A small cache of what an engine derives from a model's structure.

All puzzles of one shape share a ``Structure``, so engines build their indexes
once per ``structure.key`` rather than once per puzzle. The key alone is not
proof of sameness (tests and plugins may reuse one), so an entry built from a
different structure is rebuilt rather than trusted.

``forget_structures`` empties every cache of the process: a worker moving to
another file-per-instance input (an XCSP3 file holds one large structure)
lets the last one go, so that the next task's memory is its own.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Callable, Generic, TypeVar

from puzzles.model import Structure

T = TypeVar("T")
_CACHES: "weakref.WeakSet[StructureCache]" = weakref.WeakSet()


def same_structure(a: Structure, b: Structure) -> bool:
    return a is b or (a.variables == b.variables and a.domains == b.domains
                      and a.constraints == b.constraints)


class StructureCache(Generic[T]):
    """Least-recently-used entries by structure key; a run rarely mixes many shapes."""

    def __init__(self, build: Callable[[Structure], T], size: int = 16):
        self.build, self.size = build, size
        self.entries: "OrderedDict[str, tuple[Structure, T]]" = OrderedDict()
        _CACHES.add(self)

    def get(self, structure: Structure) -> T:
        hit = self.entries.get(structure.key)
        if hit is not None and same_structure(hit[0], structure):
            self.entries.move_to_end(structure.key)
            return hit[1]
        value = self.build(structure)
        self.entries[structure.key] = (structure, value)
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self.entries.clear()


def forget_structures() -> None:
    """Empty every structure cache of this process."""
    for cache in list(_CACHES):
        cache.clear()
