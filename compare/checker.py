"""The independent checker: judges every answer against the rules, not the engines.

It shares no code with any engine, and for Sudoku it re-derives rows, columns
and boxes here instead of trusting ``puzzles.sudoku`` or the model, so a bug
in the model or in an engine's translation shows up as a rejected answer.

Two judges agree on a good answer:

* ``check(puzzle, answer)``: the puzzle's own rules (``RULES`` by kind),
  applied to the decoded answer (the grid, for Sudoku);
* ``check_model(model, values)``: every constraint of the CSP model, the
  domains and the givens, evaluated directly.

``verify`` applies both to an engine's ``Result``. A result without an answer
(timeout, error, unsupported, crashed) is *unverified* but not *wrong*: the
harness counts it apart and never calls it a disagreement.
"""
from __future__ import annotations

import operator
from math import isqrt
from typing import Callable, Sequence

from puzzles.model import AllDifferent, Linear, NotEqualOffset, Table

Rule = Callable[[object, Sequence[int]], "str | None"]
RULES: dict[str, Rule] = {}
NO_ANSWER = ("timeout", "error", "unsupported", "crashed")


def register_rules(kind: str, fn: Rule) -> None:
    """Judge answers of puzzles whose ``kind`` is ``kind`` with ``fn``."""
    RULES[kind] = fn


def check(puzzle, answer: Sequence) -> str | None:
    """None when ``answer`` (decoded) solves ``puzzle``, else a short reason.

    Kinds without rules of their own are judged on their default model.
    """
    rule = RULES.get(puzzle.kind)
    if rule is None:
        return check_model(puzzle.to_model(), answer)
    return rule(puzzle, answer)


def whole_numbers(values: Sequence, name: Callable[[int], str]) -> list[int] | str:
    """Values as ints, or the reason one is not a whole number."""
    out = []
    for i, value in enumerate(values):
        try:
            out.append(operator.index(value))
        except TypeError:
            return f"{name(i)} holds {value!r} (not a whole number)"
    return out


# ----- Sudoku, from first principles ---------------------------------------
def check_sudoku(puzzle, answer: Sequence) -> str | None:
    n, given = puzzle.n, puzzle.grid
    if len(answer) != n * n:
        return f"wrong length: {len(answer)} values for {n * n} cells"
    box = isqrt(n)
    if box * box != n:
        return f"side {n} is not a square"

    def name(i: int) -> str:
        return f"r{i // n + 1}c{i % n + 1}"

    grid = whole_numbers(answer, name)
    if isinstance(grid, str):
        return grid
    for i, value in enumerate(grid):
        if value == 0:
            return f"{name(i)} holds 0 (blank)"
        if not 1 <= value <= n:
            return f"{name(i)} holds {value} (outside 1..{n})"
        if given[i] and given[i] != value:
            return f"{name(i)} changes given {given[i]} to {value}"
    return repeat_in_groups(_sudoku_groups(grid, n, box))


def _sudoku_groups(grid: list[int], n: int, box: int):
    for r in range(n):
        yield f"row {r + 1}", grid[r * n:(r + 1) * n]
    for c in range(n):
        yield f"column {c + 1}", grid[c::n]
    for b in range(n):
        top, left = (b // box) * box, (b % box) * box
        yield f"box {b + 1}", [grid[(top + i) * n + left + j]
                               for i in range(box) for j in range(box)]


def repeat_in_groups(groups) -> str | None:
    for label, values in groups:
        seen = set()
        for value in values:
            if value in seen:
                return f"{label} repeats {value}"
            seen.add(value)
    return None


register_rules("sudoku", check_sudoku)


# ----- any model -------------------------------------------------------------
def check_model(model, values: Sequence) -> str | None:
    """None when ``values`` (one per model variable) satisfy the whole model."""
    structure = model.structure
    names = structure.variables
    if len(values) != len(names):
        return f"wrong length: {len(values)} values for {len(names)} variables"
    values = whole_numbers(values, lambda i: names[i])
    if isinstance(values, str):
        return values
    for var, (value, domain) in enumerate(zip(values, structure.domains)):
        if value not in domain:
            return f"{names[var]} = {value} is outside its domain"
    for var, value in model.givens:
        if values[var] != value:
            return f"{names[var]} changes given {value} to {values[var]}"
    for con in structure.constraints:
        judge = _JUDGES.get(type(con))
        if judge is None:
            return f"cannot check constraint kind {type(con).__name__}"
        reason = judge(con, values, names)
        if reason:
            return reason
    return None


def _all_different(con: AllDifferent, values, names) -> str | None:
    seen: dict[int, int] = {}
    for var in con.vars:
        value = values[var]
        if value in seen:
            return f"{names[seen[value]]} and {names[var]} both take {value} (AllDifferent)"
        seen[value] = var
    return None


_OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge}


def _linear(con: Linear, values, names) -> str | None:
    test = _OPS.get(con.op)
    if test is None:
        return f"linear constraint with unknown operator {con.op!r}"
    total = sum(k * values[v] for k, v in zip(con.coeffs, con.vars))
    if test(total, con.rhs):
        return None
    return f"sum over {_few(con.vars, names)} is {total}, needs {con.op} {con.rhs}"


def _not_equal_offset(con: NotEqualOffset, values, names) -> str | None:
    x, y = values[con.x], values[con.y]
    if x != y + con.c:
        return None
    offset = f" + {con.c}" if con.c else ""
    return f"{names[con.x]} = {x} equals {names[con.y]}{offset} = {y + con.c}"


def _table(con: Table, values, names) -> str | None:
    row = tuple(values[v] for v in con.vars)
    if row in con.tuples:
        return None
    return f"{_few(con.vars, names)} = {row} is not an allowed tuple"


def _few(variables, names, most: int = 4) -> str:
    shown = ", ".join(names[v] for v in variables[:most])
    return shown + (", ..." if len(variables) > most else "")


_JUDGES = {AllDifferent: _all_different, Linear: _linear,
           NotEqualOffset: _not_equal_offset, Table: _table}


# ----- engine results ------------------------------------------------------------
def verify(puzzle, model, result, formulation: str | None = None,
           limit: int | None = None) -> tuple[bool, str]:
    """Whether an engine's ``Result`` holds up; the reason either way.

    ``limit`` is the count mode's limit: a count above it breaks the contract
    ``count = min(#solutions, limit)``, which no later step could notice.

    Unsatisfiable claims cannot be disproved here (the harness compares them
    across engines); they pass when they list no solution.
    """
    status = str(getattr(result.status, "value", result.status))
    if status in NO_ANSWER:
        return False, f"no answer: {status}"
    solutions = [tuple(s) for s in result.solutions]
    if status == "unsatisfiable":
        if solutions or result.count:
            return False, "claims unsatisfiable but reports solutions"
        return True, "no solution claimed"
    if status != "solved":
        return False, f"unknown status {status!r}"
    if not solutions:
        return False, "claims solved but lists no solution"
    if len(set(solutions)) != len(solutions):
        return False, "lists one solution twice"
    if result.mode == "count" and limit is not None and (result.count or 0) > max(limit, 1):
        return False, f"count {result.count} is above the limit {limit}"
    if result.mode == "count" and (result.count or 0) < len(solutions):
        return False, f"count {result.count} is below the {len(solutions)} solutions listed"
    for number, solution in enumerate(solutions, start=1):
        reason = (check_model(model, solution)
                  or check(puzzle, puzzle.decode(solution, formulation)))
        if reason:
            prefix = f"solution {number}: " if len(solutions) > 1 else ""
            return False, prefix + reason
    return True, f"{len(solutions)} solution(s) checked"


try:   # rules for the other puzzle kinds (issue 6), when present
    import compare.rules  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name != "compare.rules":
        raise
