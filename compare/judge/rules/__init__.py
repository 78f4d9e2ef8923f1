"""The judges of the built-in puzzle kinds, one module per kind.

Importing this package registers them all in ``compare.judge.rulebook``; the
list is explicit so that a kind's judge can never go missing unnoticed.
"""
from compare.judge.rules import (
    coloring,
    cryptarithm,
    killer,
    latin,
    minizinc,
    queens,
    sudoku,
    xcsp3,
)

BUILTIN = {module.__name__.rsplit(".", 1)[1]: module
           for module in (sudoku, queens, killer, latin, coloring, cryptarithm, xcsp3,
                          minizinc)}
