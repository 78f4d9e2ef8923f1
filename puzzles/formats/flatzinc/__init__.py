"""FlatZinc, the flat constraint language MiniZinc compiles models into (``.fzn``).

``read(path)`` and ``parse(text)`` turn a file into ``ast.FlatZinc``: its
predicates, parameters, variables, arrays, constraints and solve item as plain
frozen data. Nothing here builds a model or registers a format; a fault in the
file raises ``FlatZincError``, one line ``FILE:LINE:COL: what``.
"""
from __future__ import annotations

from puzzles.formats.flatzinc.ast import FlatZinc
from puzzles.formats.flatzinc.parser import FlatZincError, parse, read

__all__ = ["FlatZinc", "FlatZincError", "parse", "read"]
