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
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    NotEqualOffset,
    ReifiedLinear,
    Table,
)

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


def _reified_linear(con: ReifiedLinear, values, names) -> str | None:
    test = _OPS.get(con.op)
    if test is None:
        return f"reified linear constraint with unknown operator {con.op!r}"
    literal = values[con.literal]
    if literal not in (0, 1):
        return f"{names[con.literal]} = {literal} is not 0 or 1 (a reification literal)"
    total = sum(k * values[v] for k, v in zip(con.coeffs, con.vars))
    holds = test(total, con.rhs)
    if holds == bool(literal) or (con.implied and not literal):
        return None
    what = "implies" if con.implied else "is equivalent to"
    return (f"{names[con.literal]} = {literal} {what} sum over {_few(con.vars, names)} "
            f"{con.op} {con.rhs}, but the sum is {total}")


def _clause(con: Clause, values, names) -> str | None:
    every = (*con.positive, *con.negative)
    odd = [v for v in every if values[v] not in (0, 1)]
    if odd:
        return f"{names[odd[0]]} = {values[odd[0]]} is not 0 or 1 (in a clause)"
    if any(values[v] == 1 for v in con.positive) or any(values[v] == 0 for v in con.negative):
        return None
    return f"clause over {_few(every, names)} has no true literal"


def _element(con: Element, values, names) -> str | None:
    position = values[con.index] - con.base
    if not 0 <= position < len(con.vars):
        return f"{names[con.index]} = {values[con.index]} indexes past the element's array"
    picked = values[con.vars[position]]
    if picked == values[con.value]:
        return None
    return (f"{names[con.value]} = {values[con.value]}, but the element at "
            f"{names[con.index]} = {values[con.index]} is {picked}")


def _toward_zero(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


_ARITH = {
    "times": lambda a: a[0] * a[1],
    "div": lambda a: _toward_zero(a[0], a[1]) if a[1] else None,
    "mod": lambda a: a[0] - a[1] * _toward_zero(a[0], a[1]) if a[1] else None,
    "pow": lambda a: a[0] ** a[1] if a[1] >= 0 else None,
    "abs": lambda a: abs(a[0]) if len(a) == 1 else None,
    "min": lambda a: min(a) if a else None,
    "max": lambda a: max(a) if a else None,
}


def _arith(con: Arith, values, names) -> str | None:
    compute = _ARITH.get(con.op)
    if compute is None:
        return f"arithmetic constraint with unknown operation {con.op!r}"
    args = [values[v] for v in con.args]
    if con.op == "pow" and len(args) == 2 and args[1] > 64 and abs(args[0]) > 1:
        expected = None                      # beyond any domain: never computed
    else:
        expected = compute(args) if len(args) == 2 or con.op in ("abs", "min", "max") else None
    if expected is not None and expected == values[con.result]:
        return None
    shown = "no value" if expected is None else str(expected)
    return (f"{names[con.result]} = {values[con.result]}, but {con.op} of "
            f"{_few(con.args, names)} = {tuple(args)} is {shown}")


def _all_different_list(con: AllDifferentList, values, names) -> str | None:
    seen: dict[tuple, int] = {}
    for k, row in enumerate(con.lists):
        taken = tuple(values[v] for v in row)
        if taken in seen:
            first = con.lists[seen[taken]]
            return (f"lists {_few(first, names, 2)} and {_few(row, names, 2)} both take "
                    f"{taken} (AllDifferentList)")
        seen[taken] = k
    return None


def _few(variables, names, most: int = 4) -> str:
    shown = ", ".join(names[v] for v in variables[:most])
    return shown + (", ..." if len(variables) > most else "")


_JUDGES = {AllDifferent: _all_different, Linear: _linear,
           NotEqualOffset: _not_equal_offset, Table: _table,
           ReifiedLinear: _reified_linear, Clause: _clause, Element: _element, Arith: _arith,
           AllDifferentList: _all_different_list}


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
