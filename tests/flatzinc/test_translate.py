"""Every FlatZinc builtin the translation takes, held against its meaning.

Each case is a tiny FlatZinc file over x, y, z in -2..2 and Booleans a, b, r,
with the builtin's meaning written out in Python: the translated model's
solutions, brute-forced and projected onto the file's variables, must be
exactly the assignments the meaning allows.
"""
from __future__ import annotations

import itertools

import pytest

from puzzles.formats.flatzinc import parse
from puzzles.formats.minizinc.translate import translate
from tests.kinds.random_models import solutions

HEAD = """var -2..2: x :: output_var;
var -2..2: y :: output_var;
var -2..2: z :: output_var;
var bool: a :: output_var;
var bool: b :: output_var;
var bool: r :: output_var;
"""
NAMES = ("x", "y", "z", "a", "b", "r")


def trunc(p: int, q: int) -> int:
    return abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)


CASES = {
    "int_eq(x, y)": lambda x, y, z, a, b, r: x == y,
    "int_ne(x, 1)": lambda x, y, z, a, b, r: x != 1,
    "int_lt(x, y)": lambda x, y, z, a, b, r: x < y,
    "int_le(x, y)": lambda x, y, z, a, b, r: x <= y,
    "int_lt_reif(x, y, r)": lambda x, y, z, a, b, r: r == (x < y),
    "int_eq_reif(x, y, r)": lambda x, y, z, a, b, r: r == (x == y),
    "int_ne_reif(x, y, r)": lambda x, y, z, a, b, r: r == (x != y),
    "int_le_imp(x, y, r)": lambda x, y, z, a, b, r: not r or x <= y,
    "int_lin_eq([2, -1], [x, y], 1)": lambda x, y, z, a, b, r: 2 * x - y == 1,
    "int_lin_ne([1, 1], [x, y], 0)": lambda x, y, z, a, b, r: x + y != 0,
    "int_lin_le([1, 2, -1], [x, y, z], -1)": lambda x, y, z, a, b, r: x + 2 * y - z <= -1,
    "int_lin_le_reif([1, 1], [x, y], 1, r)": lambda x, y, z, a, b, r: r == (x + y <= 1),
    "int_lin_eq_imp([1, 1], [x, y], 1, r)": lambda x, y, z, a, b, r: not r or x + y == 1,
    "int_lin_ne_reif([1, -1], [x, y], 0, r)": lambda x, y, z, a, b, r: r == (x != y),
    "bool2int(a, x)": lambda x, y, z, a, b, r: x == a,
    "bool_eq(a, b)": lambda x, y, z, a, b, r: a == b,
    "bool_le(a, b)": lambda x, y, z, a, b, r: a <= b,
    "bool_lt(a, b)": lambda x, y, z, a, b, r: a < b,
    "bool_not(a, b)": lambda x, y, z, a, b, r: a != b,
    "bool_eq_reif(a, b, r)": lambda x, y, z, a, b, r: r == (a == b),
    "bool_lt_reif(a, b, r)": lambda x, y, z, a, b, r: r == (a < b),
    "bool_and(a, b, r)": lambda x, y, z, a, b, r: r == (a and b),
    "bool_or(a, b, r)": lambda x, y, z, a, b, r: r == (a or b),
    "bool_xor(a, b, r)": lambda x, y, z, a, b, r: r == (a != b),
    "bool_and_imp(a, b, r)": lambda x, y, z, a, b, r: not r or (a and b),
    "bool_or_imp(a, b, r)": lambda x, y, z, a, b, r: not r or a or b,
    "bool_xor_imp(a, b, r)": lambda x, y, z, a, b, r: not r or a != b,
    "bool_clause([a], [b, r])": lambda x, y, z, a, b, r: a or not b or not r,
    "bool_clause([a, true], [])": lambda x, y, z, a, b, r: True,
    "bool_clause([false], [])": lambda x, y, z, a, b, r: False,
    "bool_clause_reif([a], [b], r)": lambda x, y, z, a, b, r: r == (a or not b),
    "bool_clause_imp([a], [b], r)": lambda x, y, z, a, b, r: not r or a or not b,
    "array_bool_and([a, b], r)": lambda x, y, z, a, b, r: r == (a and b),
    "array_bool_or([a, b], r)": lambda x, y, z, a, b, r: r == (a or b),
    "array_bool_and_imp([a, b], r)": lambda x, y, z, a, b, r: not r or (a and b),
    "array_bool_xor([a, b, r])": lambda x, y, z, a, b, r: (a + b + r) % 2 == 1,
    "int_times(x, y, z)": lambda x, y, z, a, b, r: x * y == z,
    "int_div(x, y, z)": lambda x, y, z, a, b, r: y != 0 and trunc(x, y) == z,
    "int_mod(x, y, z)": lambda x, y, z, a, b, r: y != 0 and x - y * trunc(x, y) == z,
    "int_pow(x, y, z)": lambda x, y, z, a, b, r: y >= 0 and x ** y == z,
    "int_abs(x, y)": lambda x, y, z, a, b, r: abs(x) == y,
    "int_min(x, y, z)": lambda x, y, z, a, b, r: min(x, y) == z,
    "int_max(x, y, z)": lambda x, y, z, a, b, r: max(x, y) == z,
    "array_int_minimum(z, [x, y])": lambda x, y, z, a, b, r: min(x, y) == z,
    "array_int_maximum(z, [x, y, 0])": lambda x, y, z, a, b, r: max(x, y, 0) == z,
    "array_int_element(x, [2, -1, 0], y)":
        lambda x, y, z, a, b, r: 1 <= x <= 3 and (2, -1, 0)[x - 1] == y,
    "array_var_int_element(x, [y, z], 1)":
        lambda x, y, z, a, b, r: 1 <= x <= 2 and (y, z)[x - 1] == 1,
    "array_var_bool_element(x, [a, b], r)":
        lambda x, y, z, a, b, r: 1 <= x <= 2 and (a, b)[x - 1] == r,
    "set_in(x, {-2, 0, 2})": lambda x, y, z, a, b, r: x in (-2, 0, 2),
    "set_in_reif(x, 0..1, r)": lambda x, y, z, a, b, r: r == (x in (0, 1)),
    "fzn_all_different_int([x, y, z])": lambda x, y, z, a, b, r: len({x, y, z}) == 3,
    "fzn_table_int([x, y], [0, 1, 1, 2, -2, -2])":
        lambda x, y, z, a, b, r: (x, y) in ((0, 1), (1, 2), (-2, -2)),
}


@pytest.mark.parametrize("constraint", list(CASES))
def test_a_builtin_keeps_exactly_its_solutions(constraint):
    text = HEAD + f"constraint {constraint};\nsolve satisfy;\n"
    made = translate(parse(text), "case")
    model = made.model
    assert not model.structure.unsupported, model.structure.unsupported
    assert made.variables[:made.own] == NAMES
    found = {s[:made.own] for s in solutions(model)}
    meaning = CASES[constraint]
    wanted = {v for v in itertools.product(range(-2, 3), range(-2, 3), range(-2, 3),
                                            range(2), range(2), range(2)) if meaning(*v)}
    assert found == wanted
    # auxiliary variables are functions of the file's: no solution counted twice
    assert len(solutions(model)) == len(found)


def test_aliases_constants_and_unbounded_variables():
    text = """var 0..5: x :: output_var;
var int: y :: output_var = x;
var int: w;
var bool: t :: output_var = true;
array [1..2] of var int: xs :: output_array([1..2]) = [x, w];
constraint int_lin_eq([1, -1], [w, x], 2);
solve satisfy;
"""
    made = translate(parse(text), "alias")
    s = made.model.structure
    assert not s.unsupported
    assert s.domains[made.variables.index("w")] == tuple(range(2, 8))
    answers = solutions(made.model)
    assert len(answers) == 6
    first = answers[0]
    assert made.format_answer(first) == ("x = 0;\ny = 0;\nt = true;\n"
                                         "xs = array1d(1..2, [0, 2]);")


@pytest.mark.parametrize("text, reason", [
    ("var 0..3: x;\nsolve minimize x;\n", "optimisation is not supported"),
    ("var 0.0..1.0: f;\nsolve satisfy;\n", "float variable f"),
    ("var int: x;\nsolve satisfy;\n", "x has no finite domain"),
    ("var 0..3: x;\nconstraint int_lin_abracadabra([1], [x], 1);\nsolve satisfy;\n",
     "int_lin_abracadabra (line 2) is outside the model's vocabulary"),
    ("var 0..3000000: x;\nsolve satisfy;\n", "3,000,001 values"),
])
def test_what_has_no_exact_form_is_one_reason(text, reason):
    made = translate(parse(text), "refused")
    assert reason in made.model.structure.unsupported
