"""The independent checker: judges every answer against the rules, not the engines.

It shares no code with any engine, and for Sudoku it re-derives rows, columns
and boxes here instead of trusting ``puzzles.kinds.sudoku`` or the model, so a bug
in the model or in an engine's translation shows up as a rejected answer.

Two judges agree on a good answer:

* ``check(puzzle, answer)``: the puzzle's own rules (the rulebook's judge for its kind),
  applied to the decoded answer (the grid, for Sudoku);
* ``check_model(model, values)``: every constraint of the CSP model, the
  domains and the givens, evaluated directly.

``verify`` applies both to an engine's ``Result``. A result without an answer
(timeout, error, unsupported, crashed) is *unverified* but not *wrong*: the
harness counts it apart and never calls it a disagreement.
"""
from __future__ import annotations

import operator
from typing import Sequence

from compare.judge.rulebook import rules_for, whole_numbers
from compare.judge.rules import BUILTIN  # noqa: F401  (registers the built-in judges)
from compare.judge.verdict import UNANSWERED
from engines import ANSWERED, Status, status_word
from puzzles.model import AllDifferent, Linear, NotEqualOffset, Table

NO_ANSWER = tuple(str(s) for s in Status if s not in ANSWERED)
SOLVED, UNSAT = Status.SOLVED.value, Status.UNSAT.value    # the statuses judged here


def check(puzzle, answer: Sequence) -> str | None:
    """None when ``answer`` (decoded) solves ``puzzle``, else a short reason.

    Kinds without rules of their own are judged on their default model.
    """
    rule = rules_for(puzzle.kind)
    if rule is None:
        return check_model(puzzle.to_model(), answer)
    return rule(puzzle, answer)


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

    ``model`` None judges on the puzzle's rules alone (a kind whose rules check
    every constraint of its input, ``rules_judge_alone``).

    Unsatisfiable claims cannot be disproved here (the harness compares them
    across engines); they pass when they list no solution.
    """
    status = status_word(result.status)
    if status in NO_ANSWER:
        return False, f"{UNANSWERED}: {status}"
    solutions = [tuple(s) for s in result.solutions]
    if status == UNSAT:
        if solutions or result.count:
            return False, "claims unsatisfiable but reports solutions"
        return True, "no solution claimed"
    if status != SOLVED:
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
        reason = ((check_model(model, solution) if model is not None else None)
                  or check(puzzle, puzzle.decode(solution, formulation)))
        if reason:
            prefix = f"solution {number}: " if len(solutions) > 1 else ""
            return False, prefix + reason
    return True, f"{len(solutions)} solution(s) checked"
