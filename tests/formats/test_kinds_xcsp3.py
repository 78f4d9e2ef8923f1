"""XCSP3 input: every mapped form against brute force, the judge, n/a forms, bad files.

Each case is a small hand-made instance over ``x[0..3]`` (values 0..3, or as
declared) with its meaning restated here as a plain Python predicate. Brute
force over all assignments with that predicate is the reference: the judge
must accept exactly those assignments, and every engine must agree on
satisfiability, the solution count and the lexicographically first solution.
"""
from __future__ import annotations

import importlib.util
import itertools
import lzma

import pytest

if importlib.util.find_spec("pycsp3") is None:   # not imported here: pycsp3 as a script
    pytest.skip("pycsp3 is not installed (pip install -e '.[xcsp3]')",   # would compile
                allow_module_level=True)                                  # at exit

from compare.judge.checker import check, verify  # noqa: E402
from puzzles.errors import PuzzleInputError  # noqa: E402
from puzzles.formats.xcsp3 import limits as xcsp3_limits
from puzzles.formats.xcsp3 import model as xcsp3_model
from puzzles.formats.xcsp3.kind import load_file  # noqa: E402
from puzzles.loader import load_puzzles, puzzle_paths  # noqa: E402
from puzzles.model import AllDifferentList, Element  # noqa: E402
from tests.puzzles.test_kinds_support import engine_or_skip  # noqa: E402

X4 = '<array id="x" size="[4]"> 0..3 </array>'


def xml(constraints: str, variables: str = X4) -> str:
    return (f'<instance format="XCSP3" type="CSP"><variables>{variables}</variables>'
            f"<constraints>{constraints}</constraints></instance>")


def distinct(*xs):
    return len(set(xs)) == len(xs)


def lex_less(a, b):
    return list(a) < list(b)


CASES = {
    "allDifferent": ("<allDifferent> x[0] x[1] x[2] </allDifferent>",
                     lambda x: distinct(x[0], x[1], x[2])),
    "allDifferent-except": ("<allDifferent><list> x[] </list><except> 0 </except>"
                            "</allDifferent>",
                            lambda x: distinct(*[v for v in x if v != 0])),
    "allDifferent-expressions": ("<allDifferent> add(x[0],x[1]) x[2] x[3] </allDifferent>",
                                 lambda x: distinct(x[0] + x[1], x[2], x[3])),
    "allDifferent-matrix": ("<allDifferent><matrix> (x[0],x[1])(x[2],x[3]) </matrix>"
                            "</allDifferent>",
                            lambda x: distinct(x[0], x[1]) and distinct(x[2], x[3])
                            and distinct(x[0], x[2]) and distinct(x[1], x[3])),
    "allDifferent-lists": ("<allDifferent><list> x[0] x[1] </list><list> x[2] x[3] </list>"
                           "</allDifferent>",
                           lambda x: (x[0], x[1]) != (x[2], x[3])),
    "allEqual": ("<allEqual> x[0] x[1] x[2] </allEqual>", lambda x: x[0] == x[1] == x[2]),
    "intension-linear": ("<intension> eq(add(x[0],x[1]),x[2]) </intension>",
                         lambda x: x[0] + x[1] == x[2]),
    "intension-power": ("<intension> eq(x[0],pow(x[1],sub(x[2],1))) </intension>",
                        lambda x: x[2] >= 1 and x[0] == x[1] ** (x[2] - 1)),
    "intension-offset": ("<intension> ne(x[0],add(x[1],1)) </intension>",
                         lambda x: x[0] != x[1] + 1),
    "intension-nonlinear": ("<intension> eq(x[0],dist(x[1],x[2])) </intension>",
                            lambda x: x[0] == abs(x[1] - x[2])),
    "intension-logic": ("<intension> or(eq(x[0],1),and(lt(x[1],x[2]),ne(x[3],0))) "
                        "</intension>",
                        lambda x: x[0] == 1 or (x[1] < x[2] and x[3] != 0)),
    "intension-disjunction": ("<intension> or(ne(x[0],x[1]),lt(x[2],sub(x[3],1))) </intension>",
                              lambda x: x[0] != x[1] or x[2] < x[3] - 1),
    "intension-arith": ("<intension> eq(mod(mul(x[0],x[1]),3),if(gt(x[2],1),x[3],0)) "
                        "</intension>",
                        lambda x: (x[0] * x[1]) % 3 == (x[3] if x[2] > 1 else 0)),
    "intension-set": ("<intension> in(add(x[0],x[1]),set(1,4,6)) </intension>",
                      lambda x: x[0] + x[1] in (1, 4, 6)),
    "supports": ("<extension><list> x[0] x[1] </list><supports> (0,1)(1,2)(2,*) "
                 "</supports></extension>",
                 lambda x: (x[0], x[1]) in {(0, 1), (1, 2)} or x[0] == 2),
    "supports-unary": ("<extension><list> x[0] </list><supports> 1 3 </supports></extension>",
                       lambda x: x[0] in (1, 3)),
    "conflicts": ("<extension><list> x[0] x[1] x[2] </list><conflicts> (0,0,0)(1,*,2) "
                  "</conflicts></extension>",
                  lambda x: (x[0], x[1], x[2]) != (0, 0, 0) and not (x[0] == 1 and x[2] == 2)),
    "sum-coeffs": ("<sum><list> x[] </list><coeffs> 1 2 1 -1 </coeffs>"
                   "<condition> (eq,4) </condition></sum>",
                   lambda x: x[0] + 2 * x[1] + x[2] - x[3] == 4),
    "sum-range": ("<sum><list> x[0] x[1] </list><condition> (in,2..3) </condition></sum>",
                  lambda x: 2 <= x[0] + x[1] <= 3),
    "sum-variable": ("<sum><list> x[0] x[1] </list><condition> (lt,x[2]) </condition></sum>",
                     lambda x: x[0] + x[1] < x[2]),
    "sum-expressions": ("<sum><list> ge(x[0],x[1]) eq(x[2],x[3]) </list><coeffs> 2 1 "
                        "</coeffs><condition> (eq,2) </condition></sum>",
                        lambda x: 2 * (x[0] >= x[1]) + (x[2] == x[3]) == 2),
    "sum-notin": ("<sum><list> x[0] x[1] </list><condition> (notin,2..4) </condition></sum>",
                  lambda x: not 2 <= x[0] + x[1] <= 4),
    "count": ("<count><list> x[] </list><values> 1 2 </values><condition> (ge,3) "
              "</condition></count>",
              lambda x: sum(v in (1, 2) for v in x) >= 3),
    "cardinality": ("<cardinality><list> x[] </list><values> 0 1 </values>"
                    "<occurs> 1 1..2 </occurs></cardinality>",
                    lambda x: x.count(0) == 1 and 1 <= x.count(1) <= 2),
    "cardinality-closed": ("<cardinality><list> x[0] x[1] x[2] </list><values closed='true'>"
                           " 1 2 </values><occurs> x[3] 1 </occurs></cardinality>",
                           lambda x: all(v in (1, 2) for v in x[:3])
                           and x[:3].count(1) == x[3] and x[:3].count(2) == 1),
    "minimum": ("<minimum><list> x[0] x[1] x[2] </list><condition> (eq,x[3]) </condition>"
                "</minimum>", lambda x: min(x[:3]) == x[3]),
    "maximum": ("<maximum><list> x[0] x[1] x[2] </list><condition> (le,1) </condition>"
                "</maximum>", lambda x: max(x[:3]) <= 1),
    "element": ("<element><list> x[0] x[1] x[2] </list><index> x[3] </index><value> 2 "
                "</value></element>",
                lambda x: x[3] < 3 and x[x[3]] == 2),
    "element-constants": ("<element><list> 3 1 0 2 </list><index> x[0] </index>"
                          "<value> x[1] </value></element>",
                          lambda x: (3, 1, 0, 2)[x[0]] == x[1]),
    "element-constants-twice": ("<element><list> 3 1 0 2 </list><index> x[0] </index>"
                                "<value> x[1] </value></element><element><list> 3 1 0 2 "
                                "</list><index> x[2] </index><value> x[3] </value></element>",
                                lambda x: (3, 1, 0, 2)[x[0]] == x[1] and (3, 1, 0, 2)[x[2]] == x[3]),
    "channel": ("<channel> x[] </channel>",
                lambda x: all(x[x[i]] == i for i in range(4))),
    "channel-two": ("<channel><list> x[0] x[1] </list><list> y[0] y[1] </list></channel>",
                    lambda x: all(x[2 + x[i]] == i for i in range(2))
                    and all(x[x[2 + j]] == j for j in range(2)),
                    '<array id="x" size="[2]"> 0..1 </array><array id="y" size="[2]"> 0..1 '
                    "</array>"),
    "ordered": ("<ordered><list> x[] </list><operator> lt </operator></ordered>",
                lambda x: x[0] < x[1] < x[2] < x[3]),
    "ordered-lengths": ("<ordered><list> x[0] x[1] x[2] </list><lengths> 1 x[3] </lengths>"
                        "<operator> le </operator></ordered>",
                        lambda x: x[0] + 1 <= x[1] and x[1] + x[3] <= x[2]),
    "lex": ("<lex><list> x[0] x[1] </list><list> x[2] x[3] </list><operator> lt </operator>"
            "</lex>", lambda x: lex_less(x[:2], x[2:])),
    "lex-decreasing": ("<lex><list> x[0] x[1] </list><list> x[2] x[3] </list><operator> ge "
                       "</operator></lex>", lambda x: not lex_less(x[:2], x[2:])),
    "lex-matrix": ("<lex><matrix> (x[0],x[1])(x[2],x[3]) </matrix><operator> le </operator>"
                   "</lex>",
                   lambda x: not lex_less(x[2:], x[:2])
                   and not lex_less((x[1], x[3]), (x[0], x[2]))),
    "precedence": ("<precedence><list> x[] </list><values> 0 1 2 </values></precedence>",
                   lambda x: _precedes(x, (0, 1, 2))),
    "precedence-domain": ("<precedence> x[] </precedence>",
                          lambda x: _precedes(x, (0, 1, 2, 3))),
    "regular": ("<regular><list> x[] </list><transitions> (a,0,a)(a,1,b)(b,0,a)(b,2,b) "
                "</transitions><start> a </start><final> b </final></regular>",
                lambda x: _dfa(x)),
    "instantiation": ("<instantiation><list> x[0] x[1] </list><values> 2 3 </values>"
                      "</instantiation>", lambda x: x[0] == 2 and x[1] == 3),
    "group": ("<group><intension> ne(%0,%1) </intension><args> x[0] x[1] </args>"
              "<args> x[1] x[2] </args></group>",
              lambda x: x[0] != x[1] and x[1] != x[2]),
    "unsat": ("<allDifferent> x[] </allDifferent><sum><list> x[] </list>"
              "<condition> (ne,6) </condition></sum>", lambda x: False),
}


def _precedes(x, values) -> bool:
    first = {}
    for k, v in enumerate(x):
        first.setdefault(v, k)
    return all(t not in first or (s in first and first[s] < first[t])
               for s, t in zip(values, values[1:]))


def _dfa(x) -> bool:
    state = "a"
    moves = {("a", 0): "a", ("a", 1): "b", ("b", 0): "a", ("b", 2): "b"}
    for v in x:
        state = moves.get((state, v))
        if state is None:
            return False
    return state == "b"


def case_file(tmp_path, name: str):
    constraints, _, *variables = CASES[name]
    path = tmp_path / f"{name}.xml"
    path.write_text(xml(constraints, *variables))
    return load_file(str(path))


def reference(puzzle, meaning) -> list[tuple[int, ...]]:
    domains = puzzle.instance.domains
    return [values for values in itertools.product(*domains) if meaning(values)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_judge_accepts_exactly_the_solutions(tmp_path, name):
    puzzle = case_file(tmp_path, name)
    meaning = CASES[name][1]
    for values in itertools.product(*puzzle.instance.domains):
        assert (check(puzzle, values) is None) == meaning(values), values


ENGINES = ("backtracking", "backtracking:variant=seed", "python-constraint", "cpsat")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_engines_count_and_order_as_brute_force(tmp_path, name, engine):
    puzzle = case_file(tmp_path, name)
    model = puzzle.to_model()
    assert not model.structure.unsupported, model.structure.unsupported
    expected = reference(puzzle, CASES[name][1])
    solver = engine_or_skip(engine, model, "count")
    counted = solver.solve(model, "count", 10_000, 60)
    assert counted.count == len(expected), counted.message
    ok, why = verify(puzzle, model, counted, limit=10_000)
    assert ok or not expected, why
    first = solver.solve(model, "lexfirst", 1, 60)
    if expected:
        assert puzzle.decode(first.solutions[0]) == expected[0]
        assert verify(puzzle, model, first)[0]
    else:
        assert str(first.status) == "unsatisfiable"


def test_answers_are_written_on_the_instance_names(tmp_path):
    puzzle = case_file(tmp_path, "element")
    assert puzzle.format_answer((0, 2, 1, 1)).splitlines() == ["x[0] 0", "x[1] 2", "x[2] 1",
                                                               "x[3] 1"]
    assert len(puzzle.to_model().structure.variables) >= 4
    assert puzzle.decode((0, 2, 1, 1, 7, 7)) == (0, 2, 1, 1)


def test_a_planted_wrong_decomposition_is_rejected(tmp_path, monkeypatch):
    """Dropping the sum's constraint makes a model whose first answer the judge refuses."""
    monkeypatch.setattr(xcsp3_model._Builder, "form_sum", lambda self, *args: None)
    puzzle = case_file(tmp_path, "sum-coeffs")
    model = puzzle.to_model()
    result = engine_or_skip("backtracking", model, "lexfirst").solve(model, "lexfirst", 1, 60)
    ok, why = verify(puzzle, model, result)
    assert not ok and "constraint 1 (sum over x[0]" in why


def test_a_wrong_lex_decomposition_is_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(xcsp3_model._Builder, "_lex", lambda self, a, b, op: None)
    puzzle = case_file(tmp_path, "lex")
    model = puzzle.to_model()
    result = engine_or_skip("cpsat", model, "lexfirst").solve(model, "lexfirst", 1, 60)
    assert not verify(puzzle, model, result)[0]


def test_forms_without_translation_are_na_with_the_form_named(tmp_path):
    path = tmp_path / "n.xml"
    path.write_text(xml("<nValues><list> x[] </list><condition> (eq,2) </condition>"
                        "</nValues>"))
    puzzle = load_file(str(path))
    model = puzzle.to_model()
    assert "nvalues" in model.structure.unsupported.lower()
    engine = engine_or_skip("cpsat", puzzle.to_model(), "first") \
        if not model.structure.unsupported else None
    assert engine is None
    import engines
    result = engines.get_engine("backtracking").solve(model, "first", 1, 10)
    assert str(result.status) == "unsupported" and "nvalues" in result.message.lower()
    assert result.message.startswith("translation: XCSP3 form")    # its limit, not the engine's
    assert "n/a" in puzzle.load_note()


def test_nondeterministic_regular_is_na(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(xml("<regular><list> x[] </list><transitions> (a,0,a)(a,0,b) "
                        "</transitions><start> a </start><final> b </final></regular>"))
    assert "nondeterministic" in load_file(str(path)).to_model().structure.unsupported


def _error(path) -> PuzzleInputError:
    with pytest.raises(PuzzleInputError) as caught:
        load_file(str(path))
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    return caught.value


def test_bad_files_get_one_line_naming_the_file_and_the_fault(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text(xml("<allDifferent> x[] </allDifferent>")[:-20])
    assert "not well-formed XML" in _error(broken).message
    other = tmp_path / "other.xml"
    other.write_text("<html><body/></html>")
    assert "not an XCSP3 instance" in _error(other).message
    text = tmp_path / "text.xml"
    text.write_text("hello")
    assert "not XML" in _error(text).message
    packed = lzma.compress(xml("<allDifferent> x[] </allDifferent>").encode())
    truncated = tmp_path / "cut.xml.lzma"
    truncated.write_bytes(packed[: len(packed) // 2])
    assert "truncated" in _error(truncated).message
    garbage = tmp_path / "junk.xml.lzma"
    garbage.write_bytes(b"not lzma at all")
    assert "not an lzma file" in _error(garbage).message
    objective = tmp_path / "cop.xml"
    objective.write_text(xml("<allDifferent> x[] </allDifferent>").replace(
        "</constraints>", "</constraints><objectives><minimize> x[0] </minimize></objectives>"))
    assert "objective" in _error(objective).message


def test_instances_over_the_limits_are_refused(tmp_path, monkeypatch):
    from puzzles.formats.xcsp3 import reader as xcsp3_reader
    monkeypatch.setattr(xcsp3_reader, "MAX_VARIABLES", 3)
    path = tmp_path / "big.xml"
    path.write_text(xml("<allDifferent> x[] </allDifferent>"))
    assert "more than 3 variables" in _error(path).message


def test_compressed_files_and_folders_load_by_extension(tmp_path):
    (tmp_path / "Fam-1.xml.lzma").write_bytes(
        lzma.compress(xml("<allDifferent> x[] </allDifferent>").encode()))
    (tmp_path / "Fam-2.xml").write_text(xml("<allEqual> x[] </allEqual>"))
    (tmp_path / "README.md").write_text("not a puzzle")
    paths = puzzle_paths(str(tmp_path))
    assert [p.rsplit("/", 1)[1] for p in paths] == ["Fam-1.xml.lzma", "Fam-2.xml"]
    [entry] = load_puzzles(paths[0])
    assert (entry.id, entry.puzzle.family, entry.puzzle.kind) == ("Fam-1", "Fam", "xcsp3")
    [spec] = load_puzzles(f"xcsp3:{paths[1]}")
    assert spec.puzzle.instance.forms() == {"allEqual": 1}


@pytest.mark.slow
def test_a_folder_runs_end_to_end_grouped_by_family(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    import pandas as pd

    repo = Path(__file__).resolve().parents[2]
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "Alpha-1.xml").write_text(xml(CASES["channel"][0]))
    (folder / "Alpha-2.xml.lzma").write_bytes(lzma.compress(xml(CASES["lex"][0]).encode()))
    (folder / "Beta-1.xml").write_text(xml("<nValues><list> x[] </list><condition> (eq,2) "
                                           "</condition></nValues>"))
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "run_compare.py", "--puzzles", str(folder),
                           "--engines", "backtracking,cpsat", "--mode", "count", "--limit",
                           "1000", "--repeat", "1", "--workers", "1", "--out", str(out),
                           "--quiet", "--cache", str(tmp_path / "cache")], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    frame = pd.read_csv(out / "results.csv")
    beta = frame[frame["puzzle_id"] == "Beta-1"]
    assert beta["message"].str.contains("XCSP3 form nValues").all()
    assert set(frame["loaded_from"]) <= {"file", "cache", "memory"}     # by the worker
    assert set(frame["source"]) == {"Alpha", "Beta"}
    assert set(frame["puzzle_id"]) == {"Alpha-1", "Alpha-2", "Beta-1"}
    counts = frame[frame["puzzle_id"] != "Beta-1"].groupby("puzzle_id")["count"].agg(set)
    assert counts.to_dict() == {"Alpha-1": {10}, "Alpha-2": {120}}
    assert set(frame.loc[frame["puzzle_id"] == "Beta-1", "status"]) == {"unsupported"}
    assert frame.loc[frame["puzzle_id"] != "Beta-1", "verified"].all()
    summary = (out / "summary.md").read_text()
    assert "## Per source" in summary and "| Alpha" in summary


def test_a_solve_prints_the_answer_on_the_instance_names(tmp_path, capsys):
    from compare.cli.solve import main as solve_main
    path = tmp_path / "one.xml"
    path.write_text(xml(CASES["instantiation"][0] + CASES["ordered-lengths"][0]))
    assert solve_main(["--puzzle", str(path), "--engine", "cpsat", "--mode", "lexfirst"]) == 0
    printed = capsys.readouterr().out
    assert "x[0] 2\nx[1] 3\n" in printed


@pytest.mark.datasets
def test_competition_instances_are_solved_and_judged(tmp_path):
    from compare.benchmark import DATASETS
    folder = DATASETS / "xcsp3_2024_csp"
    if not folder.is_dir():
        pytest.skip("the XCSP3 competition set is not here")
    for name in ("HyperSudoku-03_c24", "Pentominoes-03-20_c24", "PoolBallTriangle-05_c24"):
        puzzle = load_file(str(folder / f"{name}.xml.lzma"))
        model = puzzle.to_model()
        result = engine_or_skip("cpsat", model, "first").solve(model, "first", 1, 60)
        assert verify(puzzle, model, result)[0], (name, result.status, result.message)


@pytest.mark.parametrize("name, setting, value", [
    ("supports", "MAX_EXPANDED", 0),             # starred rows read as an automaton
    ("sum-expressions", "SMALL_TABLE", 0),       # comparisons reified by inequalities
    ("intension-logic", "SMALL_TABLE", 0),
    ("intension-disjunction", "SPLIT_ROWS", 0),  # one shared flag per comparison
    ("lex", "SMALL_TABLE", 0),                   # lex steps by inequalities, no tables
    ("lex-decreasing", "SMALL_TABLE", 0),
    ("lex-matrix", "SMALL_TABLE", 0),
    ("intension-arith", "MAX_ROWS", 16),         # sub-expressions as auxiliary variables
    ("intension-nonlinear", "MAX_ROWS", 16),
    ("conflicts", "MAX_ROWS", 16),               # each row forbidden by a clause
])
def test_the_fallback_decompositions_are_exact(tmp_path, monkeypatch, name, setting, value):
    usual = case_file(tmp_path, name).to_model().structure.constraints
    monkeypatch.setattr(xcsp3_limits, setting, value)
    puzzle = case_file(tmp_path, name)
    model = puzzle.to_model()
    assert not model.structure.unsupported, model.structure.unsupported
    assert model.structure.constraints != usual      # the lowered limit took effect
    expected = reference(puzzle, CASES[name][1])
    for engine in ("backtracking", "cpsat"):
        solver = engine_or_skip(engine, model, "count")
        assert solver.solve(model, "count", 10_000, 60).count == len(expected)
        first = solver.solve(model, "lexfirst", 1, 60)
        assert puzzle.decode(first.solutions[0]) == expected[0]


def test_a_large_table_without_stars_stays_one_table(tmp_path, monkeypatch):
    monkeypatch.setattr(xcsp3_limits, "MAX_EXPANDED", 2)    # past it, starred rows go to an automaton
    path = tmp_path / "plain.xml"
    path.write_text(xml("<extension><list> x[0] x[1] x[2] </list><supports> "
                        "(0,1,2)(2,2,0)(1,0,3)(0,1,2)(1,9,1) </supports></extension>"))
    puzzle = load_file(str(path))
    model = puzzle.to_model()
    (table,) = model.structure.constraints
    assert table.tuples == ((0, 1, 2), (2, 2, 0), (1, 0, 3))  # the file's order, no repeat, in domain
    expected = reference(puzzle, lambda x: (x[0], x[1], x[2]) in table.tuples)
    solver = engine_or_skip("backtracking", model, "count")
    assert solver.solve(model, "count", 10_000, 60).count == len(expected) == 3 * 4


def test_element_tables_over_one_list_of_constants_share_their_rows(tmp_path):
    first, second = case_file(tmp_path, "element-constants-twice").to_model().structure.constraints
    assert first.vars != second.vars and first.tuples is second.tuples


def test_an_element_over_variables_is_one_element_constraint(tmp_path):
    structure = case_file(tmp_path, "element").to_model().structure
    assert structure.constraints == (Element(3, (0, 1, 2), 4, base=0),)
    assert structure.domains[4] == (2,)          # the value 2, as a variable of one value


def test_alldifferent_over_lists_is_one_constraint_without_auxiliary_variables(tmp_path):
    path = tmp_path / "lists.xml"
    path.write_text(xml("<allDifferent><list> x[0] x[1] </list><list> x[2] x[3] </list>"
                        "<list> x[1] x[0] </list></allDifferent>"))
    structure = load_file(str(path)).to_model().structure
    assert structure.constraints == (AllDifferentList(((0, 1), (2, 3), (1, 0))),)
    assert structure.size == 4


def test_starred_rows_past_the_automaton_limit_are_exact_as_literals(tmp_path, monkeypatch):
    monkeypatch.setattr(xcsp3_limits, "MAX_EXPANDED", 0)
    monkeypatch.setattr(xcsp3_limits, "MAX_STARRED_ROWS", 0)      # no automaton either
    path = tmp_path / "starred.xml"
    path.write_text(xml("<extension><list> x[0] x[1] x[2] </list><supports> (0,1,*)(0,2,*)"
                        "(1,*,3)(3,*,*)(2,2,9) </supports></extension>"))
    puzzle = load_file(str(path))
    model = puzzle.to_model()
    kinds = {type(c).__name__ for c in model.structure.constraints}
    assert kinds <= {"ReifiedLinear", "Clause", "Table"} and "Clause" in kinds, kinds
    expected = reference(puzzle, lambda x: x[0] == 3 or (x[0] == 0 and x[1] in (1, 2))
                         or (x[0] == 1 and x[2] == 3))
    for engine in ("backtracking", "cpsat", "python-constraint"):
        solver = engine_or_skip(engine, model, "count")
        assert solver.solve(model, "count", 10_000, 60).count == len(expected)
        first = solver.solve(model, "lexfirst", 1, 60)
        assert puzzle.decode(first.solutions[0]) == expected[0]


def test_a_channel_between_lists_of_different_lengths_is_one_way(tmp_path):
    path = tmp_path / "c.xml"
    path.write_text(xml("<channel><list> x[0] x[1] </list><list> y[0] y[1] y[2] </list>"
                        "</channel>",
                        '<array id="x" size="[2]"> 0..2 </array>'
                        '<array id="y" size="[3]"> 0..2 </array>'))
    puzzle = load_file(str(path))

    def meaning(v):
        xs, ys = v[:2], v[2:]
        return all(ys[x] == i for i, x in enumerate(xs))
    expected = reference(puzzle, meaning)
    assert all((check(puzzle, v) is None) == meaning(v)
               for v in itertools.product(*puzzle.instance.domains))
    model = puzzle.to_model()
    counted = engine_or_skip("cpsat", model, "count").solve(model, "count", 10_000, 60)
    assert counted.count == len(expected) > 0
