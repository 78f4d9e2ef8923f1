"""FlatZinc items and expressions parsed into plain data: each item kind, each kind
of value, annotations and the output markers."""
from __future__ import annotations

import dataclasses

import pytest

from puzzles.formats.flatzinc import FlatZinc, parse
from puzzles.formats.flatzinc.ast import Annotation, FloatRange, Index, IntRange, IntSet, Ref, Type

MODEL = """\
% a comment line
predicate my_alldiff(array [int] of var int: xs, var 1..3: y);
int: n = 3;
bool: flag = true;
float: ratio = 0.25;
set of int: s = 1..5;
set of int: odd = {5,1,3};
set of int: none = {};
array [1..3] of int: a = [1,-2,3];
array [1..2] of set of int: sets = [1..2, {4}];
var 1..9: x :: output_var;
var bool: b;
var {5,1,3}: y;
var int: z = 3;
var -2..2: w = x;   /* an alias */
var 0.0..1.5: f;
var set of 1..3: st;
array [1..2] of var int: xs :: output_array([1..2]) = [x, y];
array [1..4] of var int: grid :: output_array([1..2,1..2]) = [x, y, z, a[2]];
constraint int_lin_eq([1,-1],[x,y],0) :: domain;
constraint my_alldiff(xs, 2);
constraint set_in(x, {1,3});
solve :: int_search(xs, input_order, indomain_min, complete) minimize x;
"""


@pytest.fixture(scope="module")
def flat() -> FlatZinc:
    return parse(MODEL, "model.fzn")


def by_name(items) -> dict:
    return {item.name: item for item in items}


def test_a_predicate_declaration_keeps_its_parameter_types(flat):
    (pred,) = flat.predicates
    assert pred.name == "my_alldiff" and pred.line == 2
    assert pred.params == (("xs", Type("int", True, None, True, None)),
                           ("y", Type("int", True, IntRange(1, 3))))


def test_parameters_keep_their_type_and_value(flat):
    pars = by_name(flat.parameters)
    assert (pars["n"].type, pars["n"].value, pars["n"].line) == ("int", 3, 3)
    assert (pars["flag"].type, pars["flag"].value) == ("bool", True)
    assert (pars["ratio"].type, pars["ratio"].value) == ("float", 0.25)
    assert (pars["s"].type, pars["s"].value) == ("set", IntRange(1, 5))
    assert pars["odd"].value == IntSet((1, 3, 5))
    assert pars["none"].value == IntSet(())


def test_arrays_of_parameters_hold_their_elements(flat):
    arrays = by_name(flat.arrays)
    assert (arrays["a"].is_var, arrays["a"].type, arrays["a"].items) == (False, "int", (1, -2, 3))
    assert arrays["sets"].items == (IntRange(1, 2), IntSet((4,)))
    assert arrays["a"].output_dims is None


def test_variables_keep_type_domain_and_value(flat):
    vars_ = by_name(flat.variables)
    assert (vars_["x"].type, vars_["x"].domain, vars_["x"].value) == ("int", IntRange(1, 9), None)
    assert (vars_["b"].type, vars_["b"].domain) == ("bool", None)
    assert vars_["y"].domain == (1, 3, 5)
    assert (vars_["z"].domain, vars_["z"].value) == (None, 3)
    assert vars_["w"].value == Ref("x")
    assert (vars_["f"].type, vars_["f"].domain) == ("float", FloatRange(0.0, 1.5))
    assert (vars_["st"].type, vars_["st"].domain) == ("set", IntRange(1, 3))
    assert [v.line for v in flat.variables] == list(range(11, 18))


def test_output_var_and_output_array_mark_the_answer(flat):
    vars_, arrays = by_name(flat.variables), by_name(flat.arrays)
    assert vars_["x"].output and not vars_["y"].output
    assert vars_["x"].annotations == (Annotation("output_var"),)
    assert arrays["xs"].is_var and arrays["xs"].items == (Ref("x"), Ref("y"))
    assert arrays["xs"].output_dims == (IntRange(1, 2),)
    assert arrays["grid"].output_dims == (IntRange(1, 2), IntRange(1, 2))
    assert arrays["grid"].items[3] == Index("a", 2)


def test_constraints_keep_name_args_annotations_and_line(flat):
    lin, alldiff, set_in = flat.constraints
    assert (lin.name, lin.args, lin.line) == ("int_lin_eq", ((1, -1), (Ref("x"), Ref("y")), 0), 20)
    assert lin.annotations == (Annotation("domain"),)
    assert alldiff.args == (Ref("xs"), 2) and alldiff.annotations == ()
    assert set_in.args == (Ref("x"), IntSet((1, 3)))


def test_the_solve_item_keeps_kind_objective_and_search_annotation(flat):
    solve = flat.solve
    assert (solve.kind, solve.objective, solve.line) == ("minimize", Ref("x"), 23)
    assert solve.annotations == (Annotation("int_search", (
        Ref("xs"), Annotation("input_order"), Annotation("indomain_min"),
        Annotation("complete"))),)


@pytest.mark.parametrize("item, kind, objective", [
    ("solve satisfy;", "satisfy", None),
    ("solve maximize x;", "maximize", Ref("x")),
    ("solve minimize xs[2];", "minimize", Index("xs", 2)),
])
def test_each_solve_kind_is_read(item, kind, objective):
    flat = parse("var 1..3: x;\narray [1..2] of var int: xs = [x, 3];\n" + item)
    assert (flat.solve.kind, flat.solve.objective) == (kind, objective)


def test_nested_annotations_keep_strings_arrays_and_calls():
    flat = parse('var 1..3: x;\nvar 1..3: y;\n'
                 'solve :: seq_search([int_search([x], first_fail, indomain_split, complete), '
                 'bool_search([], input_order, indomain_max, complete)]) '
                 ':: note("say \\"hi\\"\\n", 1.5e-3, -7, true, {}) satisfy;')
    seq, note = flat.solve.annotations
    first, second = seq.args[0]
    assert first == Annotation("int_search", ((Ref("x"),), Annotation("first_fail"),
                                              Annotation("indomain_split"),
                                              Annotation("complete")))
    assert second.args[0] == ()
    assert note.args == ('say "hi"\n', 0.0015, -7, True, IntSet(()))


def test_defined_and_introduced_variables_are_told_by_their_annotations():
    flat = parse("var 0..9: t :: var_is_introduced :: is_defined_var;\nvar 0..9: u;\n"
                 "constraint int_plus(u, 1, t) :: defines_var(t);\nsolve satisfy;")
    t, u = flat.variables
    assert t.introduced and t.defined and not u.introduced and not u.defined
    assert flat.constraints[0].defines == "t"


def test_integer_literals_take_signs_hex_and_octal_up_to_two_to_the_62():
    flat = parse(f"array [1..5] of int: a = [-5, +6, 0x1F, 0o17, {2**62}];\n"
                 f"int: m = -{2**62};\nsolve satisfy;")
    assert flat.arrays[0].items == (-5, 6, 31, 15, 2**62)
    assert flat.parameters[0].value == -2**62


def test_the_result_is_frozen_plain_data(flat):
    with pytest.raises(dataclasses.FrozenInstanceError):
        flat.solve.kind = "satisfy"      # type: ignore[misc]
    assert isinstance(flat.constraints, tuple) and isinstance(flat.variables, tuple)


def test_declarations_may_come_in_any_order_before_constraints_use_them():
    flat = parse("var 1..2: x;\narray [1..2] of int: c = [1, 1];\nvar 1..2: y;\n"
                 "constraint int_lin_le(c, [x, y], 3);\nsolve satisfy;\n% trailing comment")
    assert [v.name for v in flat.variables] == ["x", "y"] and flat.arrays[0].name == "c"
