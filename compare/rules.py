"""The rules of the issue-6 puzzle kinds, judged from first principles.

Each judge reads the puzzle's own data (board size, cages, edges, words) and
the decoded answer, and never the CSP model or the code that builds it: a
wrong model then shows up as a rejected answer instead of being trusted.
Each returns None for a valid answer, else a short reason.
"""
from __future__ import annotations

from types import SimpleNamespace

from compare.checker import repeat_in_groups, whole_numbers, check_sudoku, register_rules


def _values(answer, length: int, what: str, name) -> list[int] | str:
    if len(answer) != length:
        return f"wrong length: {len(answer)} values for {length} {what}"
    return whole_numbers(answer, name)


def _out_of_range(values, low: int, high: int, name) -> str | None:
    for i, value in enumerate(values):
        if not low <= value <= high:
            return f"{name(i)} = {value} is outside {low}..{high}"
    return None


def check_queens(puzzle, answer) -> str | None:
    n = puzzle.n
    cols = _values(answer, n, "rows", lambda i: f"row {i + 1}")
    if isinstance(cols, str):
        return cols
    reason = _out_of_range(cols, 1, n, lambda i: f"row {i + 1}")
    if reason:
        return reason
    for i in range(n):
        for j in range(i + 1, n):
            if cols[i] == cols[j] or abs(cols[i] - cols[j]) == j - i:
                return (f"queens in rows {i + 1} and {j + 1} (columns {cols[i]} and "
                        f"{cols[j]}) attack each other")
    return None


def check_killer(puzzle, answer) -> str | None:
    n = puzzle.n
    reason = check_sudoku(SimpleNamespace(n=n, grid=(0,) * (n * n)), answer)
    if reason:
        return reason
    for number, cage in enumerate(puzzle.cages, 1):
        values = [answer[c] for c in cage.cells]
        if len(set(values)) != len(values):
            return f"cage {number} repeats a value: {values}"
        if sum(values) != cage.total:
            return f"cage {number} adds up to {sum(values)}, not {cage.total}"
    return None


def check_latin(puzzle, answer) -> str | None:
    n = puzzle.n

    def name(i: int) -> str:
        return f"r{i // n + 1}c{i % n + 1}"

    grid = _values(answer, n * n, "cells", name)
    if isinstance(grid, str):
        return grid
    reason = _out_of_range(grid, 1, n, name)
    if reason:
        return reason
    for i, (given, value) in enumerate(zip(puzzle.grid, grid)):
        if given and given != value:
            return f"{name(i)} changes given {given} to {value}"
    rows = ((f"row {r + 1}", grid[r * n:(r + 1) * n]) for r in range(n))
    cols = ((f"column {c + 1}", grid[c::n]) for c in range(n))
    return repeat_in_groups(rows) or repeat_in_groups(cols)


def check_coloring(puzzle, answer) -> str | None:
    graph = puzzle.graph
    colours = _values(answer, graph.vertices, "vertices", lambda i: f"vertex {i + 1}")
    if isinstance(colours, str):
        return colours
    reason = _out_of_range(colours, 1, puzzle.colors, lambda i: f"vertex {i + 1}")
    if reason:
        return reason
    for u, v in graph.edges:
        if colours[u - 1] == colours[v - 1]:
            return f"edge {u}-{v} joins two vertices of colour {colours[u - 1]}"
    return None


def check_cryptarithm(puzzle, answer) -> str | None:
    letters = puzzle.letters
    digits = _values(answer, len(letters), "letters", lambda i: f"letter {letters[i]}")
    if isinstance(digits, str):
        return digits
    reason = _out_of_range(digits, 0, 9, lambda i: f"letter {letters[i]}")
    if reason:
        return reason
    if len(set(digits)) != len(digits):
        return f"two letters share a digit: {dict(zip(letters, digits))}"
    digit = dict(zip(letters, digits))
    total = 0
    for side, terms in ((1, puzzle.left), (-1, puzzle.right)):
        for term in terms:
            text = "".join(str(digit[ch]) for ch in term.word)
            if len(text) > 1 and text[0] == "0":
                return f"{term.word} = {text} starts with 0"
            total += side * term.sign * int(text)
    if total:
        return f"the sides differ by {total}"
    return None


for _kind, _rule in (("queens", check_queens), ("killer", check_killer),
                     ("latin", check_latin), ("coloring", check_coloring),
                     ("cryptarithm", check_cryptarithm)):
    register_rules(_kind, _rule)
