"""Answers judged in a batch get exactly the verdicts ``checker.verify`` gives one by one."""
from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.batch import Claim, verify_many
from compare.judge.checker import verify
from engines.contract import Result, Status
from puzzles.kinds.queens import Queens
from tests.judge.test_checker import BOJ, BOJ_SOLVED, ROOT, pattern_solution, solved


def result(solution, status=Status.SOLVED, mode="first", count=None, more=()) -> Result:
    sols = [tuple(solution), *map(tuple, more)] if solution is not None else []
    return Result("e", "", "", mode, status, solutions=sols, count=count)


def model_of(claim: Claim):
    return claim.puzzle.to_model(claim.formulation)


def one_by_one(claims):
    out = []
    for c in claims:
        try:
            out.append(verify(c.puzzle, model_of(c), c.result, c.formulation, c.limit))
        except Exception as exc:
            out.append((False, f"checker could not judge it: {type(exc).__name__}: {exc}"))
    return out


def changed(grid, cell, value):
    grid = list(grid)
    grid[cell] = value
    return grid


def swapped(grid, a, b):
    grid = list(grid)
    grid[a], grid[b] = grid[b], grid[a]
    return grid


def test_every_kind_of_answer_gets_the_verdict_verify_gives():
    blank = next(i for i, v in enumerate(BOJ.grid) if v == 0)
    given_cell = next(i for i, v in enumerate(BOJ.grid) if v)
    answers = [
        BOJ_SOLVED, swapped(BOJ_SOLVED, blank, blank + 1), changed(BOJ_SOLVED, blank, 0),
        changed(BOJ_SOLVED, blank, 10), changed(BOJ_SOLVED, given_cell, 0),
        changed(BOJ_SOLVED, blank, -1), changed(BOJ_SOLVED, blank, 300),   # past a byte
        [float(v) for v in BOJ_SOLVED], list(BOJ_SOLVED)[:-1], [True] * 81,
    ]
    claims = [Claim(BOJ, form, result(a)) for a in answers for form in ("alldiff", "pairwise")]
    claims += [
        Claim(BOJ, "alldiff", result(None, Status.TIMEOUT)),
        Claim(BOJ, "alldiff", result(None, Status.UNSAT)),
        Claim(BOJ, "alldiff", result(BOJ_SOLVED, mode="count", count=1), limit=2),
        Claim(BOJ, "alldiff", result(BOJ_SOLVED, more=[BOJ_SOLVED])),
        Claim(BOJ, "onehot", result([0] * 729)),
    ]
    queens = Queens(6)
    claims.append(Claim(queens, "alldiff", result([1, 3, 5, 0, 2, 4])))
    batch = verify_many(claims, model_of)
    assert batch == one_by_one(claims)
    assert batch[0] == (True, "1 solution(s) checked") and not batch[2][0]


@settings(max_examples=40, deadline=None)
@given(cases=st.lists(solved(), min_size=1, max_size=12), data=st.data())
def test_batches_of_mixed_sides_and_edits_agree_with_verify(cases, data):
    claims = []
    for puzzle, grid in cases:
        edit = data.draw(st.sampled_from(["none", "swap", "change"]))
        cells = len(grid)
        if edit == "swap":
            grid = swapped(grid, data.draw(st.integers(0, cells - 1)),
                           data.draw(st.integers(0, cells - 1)))
        elif edit == "change":
            grid = changed(grid, data.draw(st.integers(0, cells - 1)),
                           data.draw(st.integers(-1, puzzle.n + 1)))
        form = data.draw(st.sampled_from(["alldiff", "pairwise"]))
        claims.append(Claim(puzzle, form, result(grid)))
    assert verify_many(claims, model_of) == one_by_one(claims)


def test_a_large_batch_of_good_answers_is_accepted_with_one_model_build():
    built = []

    def counting(claim):
        built.append(claim)
        return model_of(claim)

    grid = pattern_solution(9)
    claims = [Claim(type(BOJ)(9, tuple(v if (i + k) % 3 else 0 for i, v in enumerate(grid))),
                    "alldiff", result(grid)) for k in range(500)]
    assert verify_many(claims, counting) == [(True, "1 solution(s) checked")] * 500
    assert len(built) == 1


def test_a_structure_is_prepared_once_and_small_batches_judge_as_one_large_one():
    from compare.judge import batch
    blank = next(i for i, v in enumerate(BOJ.grid) if v == 0)
    answers = [BOJ_SOLVED, swapped(BOJ_SOLVED, blank, blank + 1), changed(BOJ_SOLVED, blank, 0)]
    for form in ("alldiff", "pairwise"):
        claims = [Claim(BOJ, form, result(a)) for a in answers * 3]
        structure = model_of(claims[0]).structure
        whole = verify_many(claims, model_of)
        prepared = batch._prepared(structure)
        assert batch._prepared(structure) is prepared     # kept, not made again
        pieces = [v for i in range(0, len(claims), 2) for v in verify_many(claims[i:i + 2],
                                                                          model_of)]
        assert pieces == whole == one_by_one(claims)
        assert batch._prepared(model_of(claims[0]).structure) is prepared


def test_the_batch_checker_shares_nothing_with_engines_or_the_sudoku_model():
    tree = ast.parse((ROOT / "compare" / "judge" / "batch.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(m.split(".")[0] == "engines" for m in imported)
    assert "puzzles.kinds.sudoku" not in imported


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-5, 70), min_size=4, max_size=4), min_size=1, max_size=6),
       st.sampled_from([(-3, 8), (0, 62), (0, 70)]))
def test_distinct_values_are_told_by_bits_or_by_sorting_alike(rows, bounds):
    """The bit count (values 0..62) and the sort (any values) agree on every group."""
    import numpy as np

    from compare.judge.batch import _all_different
    low, high = bounds
    groups = np.clip(np.array([rows, rows[::-1]], dtype=np.int64), low, high)
    expected = np.array([all(len(set(g)) == len(g) for g in answer) for answer in groups])
    assert (_all_different(groups) == expected).all()
