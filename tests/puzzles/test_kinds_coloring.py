"""Graph colouring: DIMACS .col reading and errors, both formulations, the rules."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check_model
from compare.judge.rules.coloring import check_coloring
from puzzles.catalog import load_spec
from puzzles.kinds.coloring import Coloring, Graph, read_col, structure
from puzzles.model import NotEqualOffset, Table
from tests.puzzles.test_kinds_support import (
    assert_engine_solves,
    assert_located_error,
    brute_solutions,
    engine_names,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "puzzles" / "examples"

# proper colourings, from each graph's chromatic polynomial
COUNTS = [("cycle5", 2, 0), ("cycle5", 3, 30), ("k4", 3, 0), ("k4", 4, 24),
          ("petersen", 2, 0), ("petersen", 3, 120), ("myciel3", 3, 0)]


def example(name: str, colors: int) -> Coloring:
    return load_spec(f"coloring:{EXAMPLES / name}.col:colors={colors}")


@pytest.mark.parametrize("formulation", Coloring.formulations)
@pytest.mark.parametrize("name, colors, count", COUNTS)
def test_counts_on_the_examples(name, colors, count, formulation):
    puzzle = example(name, colors)
    solutions = brute_solutions(puzzle.to_model(formulation))
    assert len(solutions) == count
    assert all(check_coloring(puzzle, puzzle.decode(s, formulation)) is None for s in solutions)


def test_the_examples_read_as_published():
    petersen = example("petersen", 3)
    assert (petersen.size, len(petersen.graph.edges)) == (10, 15)
    assert (petersen.name, petersen.source, petersen.clues) == ("petersen:colors=3", "petersen", 0)
    assert (example("myciel3", 4).size, len(example("myciel3", 4).graph.edges)) == (11, 20)


def test_structures():
    graph = read_col("p edge 3 2\ne 1 2\ne 3 2\n", "g.col")
    pairwise, table = structure(graph, 3, "pairwise"), structure(graph, 3, "table")
    assert pairwise.constraints == (NotEqualOffset(0, 1, 0), NotEqualOffset(1, 2, 0))
    assert table.constraints[0] == Table((0, 1), ((1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)))
    assert pairwise.domains == ((1, 2, 3),) * 3 and pairwise.variables == ("v1", "v2", "v3")
    keys = {structure(graph, k, f).key for k in (2, 3) for f in Coloring.formulations}
    keys.add(structure(read_col("p edge 3 1\ne 1 2\n", "g.col"), 3, "pairwise").key)
    assert len(keys) == 5


def test_duplicates_and_reversed_edges_merge_and_the_edge_count_is_not_enforced():
    graph = read_col("c hi\n\np col 4 9\ne 1 2\ne 2 1\ne 1 2\ne 4 3\n", "g.col")
    assert graph == Graph(4, ((1, 2), (3, 4)))


@pytest.mark.parametrize("text, line, message", [
    ("", None, "no 'p edge VERTICES EDGES' line"),
    ("c only comments\n", None, "no 'p edge VERTICES EDGES' line"),
    ("e 1 2\np edge 2 1\n", 1, "edge before the 'p edge VERTICES EDGES' line"),
    ("p edge 2\n", 1, "bad problem line; expected 'p edge VERTICES EDGES'"),
    ("p cnf 2 1\n", 1, "bad problem line"),
    ("p edge two 1\n", 1, "bad problem line"),
    ("p edge 0 0\n", 1, "0 vertices; a graph here has 1 to 100,000"),
    ("p edge 99999999999 0\n", 1, "99999999999 vertices; a graph here has 1 to 100,000"),
    ("p edge 2 1\np edge 2 1\n", 2, "second 'p' line"),
    ("p edge 2 1\ne 1\n", 2, "bad edge line; expected 'e U V'"),
    ("p edge 2 1\ne 1 x\n", 2, "bad edge line"),
    ("p edge 2 1\ne 1 -2\n", 2, "bad edge line"),
    ("p edge 2 1\ne 1 3\n", 2, "edge vertex 3 out of range 1..2"),
    ("p edge 2 1\ne 0 1\n", 2, "edge vertex 0 out of range 1..2"),
    ("p edge 2 1\ne 2 2\n", 2, "self-loop on vertex 2 can never be coloured"),
    ("p edge 2 1\nx 1 2\n", 2, "unknown line type 'x'; expected c, p or e"),
    ("p edge 2 1\n\x00\x01\xfe\n", 2, "unknown line type"),
])
def test_bad_col_files_get_located_one_line_errors(text, line, message):
    assert_located_error(read_col, text, "g.col", line, message)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=10, max_size=10))
def test_rules_agree_with_the_model(colours):
    puzzle = example("petersen", 3)
    assert (check_coloring(puzzle, colours) is None) == (check_model(puzzle.to_model(), colours) is None)


@pytest.mark.parametrize("answer, reason", [
    ((1, 2, 1, 2, 3), None),
    ((1, 2, 1, 2, 1), "edge 1-5 joins two vertices of colour 1"),
    ((1, 2, 1, 2, 4), "vertex 5 = 4 is outside 1..3"),
    ((1, 2, 1, 2, 0), "vertex 5 = 0 is outside 1..3"),
    ((1, 2, 1, 2), "wrong length: 4 values for 5 vertices"),
])
def test_rules(answer, reason):
    got = check_coloring(example("cycle5", 3), answer)
    assert got == reason if reason is None else reason in got


def test_format_answer_lists_vertex_and_colour():
    assert example("k4", 4).format_answer((1, 2, 3, 4)) == "1 1\n2 2\n3 3\n4 4"


# ----- engines, as they gain the constraint kinds --------------------------------
@pytest.mark.parametrize("formulation", Coloring.formulations)
@pytest.mark.parametrize("name, colors, count", COUNTS + [("myciel3", 4, 12480)])
@pytest.mark.parametrize("engine", engine_names())
def test_engines_colour_the_examples(engine, name, colors, count, formulation):
    puzzle = example(name, colors)
    result = assert_engine_solves(engine, puzzle, formulation, "count", limit=200)
    assert result.count == min(count, 200)
    assert str(result.status) == ("solved" if count else "unsatisfiable")


def test_the_edge_count_is_capped_while_reading(monkeypatch):
    from puzzles.errors import PuzzleInputError
    from puzzles.kinds import coloring
    monkeypatch.setattr(coloring, "MAX_EDGES", 2)
    text = "p edge 4 3\ne 1 2\ne 2 1\ne 2 3\ne 3 4\n"
    with pytest.raises(PuzzleInputError, match="line 5: more than 2 edges"):
        read_col(text, "g.col")
