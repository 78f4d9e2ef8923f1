"""MiniZinc input (docs/minizinc.md): models with their data, flattened by MiniZinc.

``inputs`` names the files an argument stands for, ``flatten`` runs MiniZinc
with the library in ``mznlib/``, ``translate`` turns the FlatZinc into a
model, and ``kind`` is the puzzle (a reference loaded where it is solved) and
the formats it registers with the loader.
"""
