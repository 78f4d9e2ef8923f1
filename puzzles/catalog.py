"""The puzzle kinds this installation knows: the built-in ones, then plugins.

The built-in kinds are imported here by name, so the list is explicit and a
kind cannot silently go missing; each one registers itself with
``puzzles.specs.register_kind``. A plugin module (see
``compare.plugins``) registers more the same way. Sudoku is the kind
of grid files rather than of specs, so it is listed apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from puzzles.formats.xcsp3 import kind as xcsp3
from puzzles.kinds import coloring, cryptarithm, killer, latin, queens
from puzzles.kinds.sudoku import Sudoku
from puzzles.specs import Kind, load_registered, looks_like_spec, registered

BUILTIN = tuple(m.__name__ for m in (queens, latin, killer, coloring, cryptarithm, xcsp3))


@dataclass(frozen=True)
class KindInfo:
    """What ``run_compare.py kinds`` shows of a kind."""
    name: str
    syntax: str
    formulations: tuple[str, ...]
    origin: str          # "built-in" or the plugin module that registered it


def kinds() -> dict[str, Kind]:
    """Every spec kind registered (built-in and plugins), by name."""
    return registered()


def catalog() -> list[KindInfo]:
    """Sudoku files first, then every spec kind."""
    rows = [KindInfo("sudoku", "FILE  grids in boj2239, boj2580 or line format "
                     "(4x4 to 25x25)", Sudoku.formulations, "built-in")]
    for kind in kinds().values():
        module = kind.loader.__module__
        origin = "built-in" if module in BUILTIN else module
        rows.append(KindInfo(kind.name, kind.syntax, kind.formulations, origin))
    return rows


# Callers reach specs through this module, so the built-in kinds are registered.
is_spec = looks_like_spec
load_spec = load_registered
