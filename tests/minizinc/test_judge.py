"""The judge of MiniZinc answers: each FlatZinc builtin evaluated on its own, on the FlatZinc.

Small FlatZinc texts are judged directly (no MiniZinc needed); a flattened
model is judged on every assignment of its variables and must accept exactly
the model's solutions.
"""
from __future__ import annotations

from itertools import product

import pytest

from compare.judge.rules.minizinc import answer_names, check_minizinc
from puzzles.formats.flatzinc import parse
from puzzles.formats.minizinc import kind
from tests.minizinc.support import needs_minizinc, solutions, write_pair


class Flat:
    """A stand-in puzzle: the judge reads only ``instance``."""

    def __init__(self, text: str):
        self.instance = parse(text)


def judged(text: str, answer) -> str | None:
    return check_minizinc(Flat(text), answer)


DIVISION = ("var -7..7: a;\nvar -3..3: b;\nvar -4..4: q;\nvar -4..4: r;\n"
            "constraint int_div(a, b, q);\nconstraint int_mod(a, b, r);\nsolve satisfy;\n")


@pytest.mark.parametrize("a, b, q, r, right", [
    (-7, 2, -3, -1, True), (-7, 2, -4, 1, False), (7, -2, -3, 1, True),
    (-7, -2, 3, -1, True), (7, 2, 3, 1, True), (3, 0, 0, 0, False)])
def test_division_truncates_toward_zero_and_the_remainder_takes_the_dividends_sign(
        a, b, q, r, right):
    assert (judged(DIVISION, [a, b, q, r]) is None) is right


def test_an_alias_takes_its_targets_value_and_is_not_in_the_answer():
    text = ("var 1..3: x;\nvar 1..3: y = x;\narray [1..2] of var int: v = [x, y];\n"
            "var bool: p;\nconstraint int_lin_eq([1, 1], v, 4);\n"
            "constraint int_le_reif(x, 1, p);\nsolve satisfy;\n")
    assert answer_names(Flat(text).instance) == ("x", "p")
    assert judged(text, [2, 0]) is None
    assert judged(text, [2, 1]) == "constraint 2 (int_le_reif, line 6) is violated"
    assert judged(text, [1, 1]) == "constraint 1 (int_lin_eq, line 5) is violated"


@pytest.mark.parametrize("constraint, answer, right", [
    ("fzn_table_int([x, y], [1, 2, 2, 3])", [2, 3, 0], True),
    ("fzn_table_int([x, y], [1, 2, 2, 3])", [2, 2, 0], False),
    ("fzn_all_different_int([x, y])", [1, 1, 0], False),
    ("array_int_element(x, [5, 2, 3], y)", [2, 2, 0], True),
    ("array_var_int_element(p, [x, y], 3)", [1, 3, 0], False),        # p = 0: no element
    ("set_in_reif(x, {1, 3}, p)", [3, 1, 1], True),
    ("set_in_reif(x, 2..3, p)", [1, 1, 1], False),
    ("bool_clause([p], [p])", [1, 1, 0], True),
    ("array_bool_xor([p, p])", [1, 1, 1], False),
    ("int_pow(x, y, 8)", [2, 3, 0], True),
    ("array_int_maximum(y, [x, 2])", [3, 3, 0], True),
    ("int_lin_ne_imp([1, -1], [x, y], 0, p)", [2, 2, 0], True),
    ("int_lin_ne_imp([1, -1], [x, y], 0, p)", [2, 2, 1], False),
])
def test_each_builtin_is_evaluated_as_minizinc_defines_it(constraint, answer, right):
    text = f"var 1..3: x;\nvar 1..3: y;\nvar bool: p;\nconstraint {constraint};\nsolve satisfy;\n"
    assert (judged(text, answer) is None) is right


def test_a_value_outside_its_domain_and_an_unknown_builtin_are_named():
    text = "var 1..3: x;\nvar bool: p;\nconstraint float_thing(x);\nsolve satisfy;\n"
    assert judged(text, [4, 0]) == "x = 4 is outside 1..3"
    assert judged(text, [1, 2]) == "p = 2 is not a Boolean (0 or 1)"
    assert judged(text, [1, 0]).startswith("cannot check constraint 1: builtin float_thing")
    assert judged(text, [1]) == "wrong length: 1 values for 2 variables"


@needs_minizinc
def test_on_a_flattened_model_the_judge_accepts_exactly_its_solutions(tmp_path):
    model, data = write_pair(tmp_path)
    puzzle = kind.load_file(str(model), str(data))
    flat = puzzle.instance
    names = answer_names(flat)
    assert names == kind.answer_names(flat) == puzzle.translation.variables[
        : puzzle.translation.own]
    declared = {v.name: v for v in flat.variables}
    domains = [(0, 1) if declared[n].type == "bool" else declared[n].domain.values()
               for n in names]
    x_items = [i.name for i in next(a for a in flat.arrays if a.name == "x").items]
    accepted = set()
    for values in product(*domains):
        if check_minizinc(puzzle, values) is None:
            got = dict(zip(names, values))
            accepted.add((*(got[x] for x in x_items), got["b"]))
    assert accepted == solutions(3)
