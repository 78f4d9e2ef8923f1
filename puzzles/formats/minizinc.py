"""MiniZinc files (``.mzn`` models, ``.dzn`` and ``.json`` data, ``.fzn`` FlatZinc):
named, not read yet.

Registered as a refusal, so such a file gets one line saying its format is
not supported instead of being read as a Sudoku grid; a MiniZinc reader
registered for these endings replaces it.
"""
from __future__ import annotations

from puzzles.formats.registry import register_refusal

ENDINGS = (".mzn", ".dzn", ".fzn", ".json")

register_refusal("minizinc", ENDINGS, "MiniZinc (.mzn model, .dzn or .json data, .fzn)")
