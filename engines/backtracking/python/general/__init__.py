"""The general path: models with any constraint besides AllDifferent.

AllDifferent-only models (every Sudoku ``alldiff`` grid) keep the big-int
path of ``..fast`` and ``..seed``; this path trades that speed for any mix of
kinds. ``compile`` reads the constraints once per shape, one module per kind
holds its propagation rule, and ``search`` holds both variants.
"""
from engines.backtracking.python.general.compile import Compiled, compiled_for, normalise
from engines.backtracking.python.general.search import FastSearch, SeedSearch

__all__ = ["Compiled", "FastSearch", "SeedSearch", "compiled_for", "normalise"]
