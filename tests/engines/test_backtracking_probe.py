"""Failed-literal probing and look-ahead branching in the ``fast`` search.

The engine probes only on big shapes (16+ values), where brute force is out
of reach; here probing is forced on small models, whose every solution brute
force lists, so counts and ``lexfirst`` answers are compared with ground
truth that shares nothing with the engine. Big puzzles are judged by the
independent checker.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check, check_model
from engines.backtracking.python import fast
from engines.backtracking.python.probing import prober, resumer, settler
from engines.backtracking.shape import Shape
from engines.contract import Status
from puzzles.kinds.sudoku import Sudoku
from puzzles.model import Model
from tests.engines.test_backtracking import (
    DATASETS,
    brute_force,
    dataset,
    engine,
    random_puzzle,
    small_models,
    two_solution_puzzle,
)


def probing_search(model: Model, width: int | None, mode: str, limit: int = 10_000):
    """The fast search on a fresh shape with probing forced on (any size), or
    off with ``width=None``; every solution is kept."""
    shape = Shape(model.structure)
    if shape.unsat_reason:
        return None
    searcher = fast.FastSearch(shape)
    layout = searcher.layout
    layout.probe = prober(layout, width) if width else None
    state = searcher.start(model.givens)
    if isinstance(state, str):
        return None
    report = fast.search(layout, *state, mode == "lexfirst", limit, limit, None)
    return [layout.decode(p) for p in report.solutions], report


@settings(max_examples=150, deadline=None)
@given(small_models(), st.sampled_from([2, 3, 5]))
def test_probing_keeps_counts_and_lexfirst_exact(model, width):
    truth = brute_force(model.structure, model.givens)
    counted = probing_search(model, width, "count")
    if counted is None:
        assert truth == []
        return
    solutions, report = counted
    assert report.count == len(truth) and sorted(solutions) == truth
    lex, _ = probing_search(model, width, "lexfirst", limit=1)
    assert lex == truth[:1]
    first, _ = probing_search(model, width, "first", limit=1)
    assert len(first) == min(1, len(truth))
    for solution in first:
        assert check_model(model, solution) is None


def compare_resumed_probes(model: Model, rng: random.Random, steps: int = 4) -> int:
    """Probe every candidate at a settled state, step one placement down, and
    check that each probe resumed from those results equals a fresh probe.
    Returns how many probes were compared."""
    shape = Shape(model.structure)
    searcher = fast.FastSearch(shape)
    state = None if shape.unsat_reason else searcher.start(model.givens)
    if state is None or isinstance(state, str):
        return 0
    layout = searcher.layout
    NK, B0 = layout.NK, layout.B0
    settle = settler(layout)
    outcome = resumer(layout, settle)
    top = settle(*state)
    if top is None:
        return 0
    alive = [cd for cd in range(layout.nvars * layout.nvalues) if top[0] & B0[cd]]
    earlier = {}
    for cd in alive:
        got = settle(top[0] & NK[cd], top[1] | B0[cd])
        if got is not None:
            earlier[cd] = got
    compared = 0
    for step in rng.sample(alive, min(steps, len(alive))):
        below = earlier.get(step)
        if below is None:
            continue
        for cd in alive:
            if below[0] & B0[cd]:
                fresh = settle(below[0] & NK[cd], below[1] | B0[cd])
                assert outcome(cd, below[0], below[1], earlier) == fresh
                compared += 1
    return compared


@settings(max_examples=150, deadline=None)
@given(small_models(), st.randoms(use_true_random=False))
def test_probes_resumed_from_a_state_above_equal_fresh_probes(model, rng):
    """A child's probe starts from its ancestor's result; it must reach the
    very fixpoint (or conflict) a probe from scratch reaches."""
    compare_resumed_probes(model, rng)


def test_resumed_probes_on_9x9_and_16x16_puzzles():
    rng = random.Random(5)
    for n, fill in ((9, 0.3), (16, 0.5)):
        model = random_puzzle(n, rng, fill).to_model()
        assert compare_resumed_probes(model, rng, steps=40) > 50


@pytest.mark.parametrize("width", [2, 3])
def test_probing_counts_sudoku(width):
    solutions, report = probing_search(Sudoku(4, (0,) * 16).to_model(), width, "count")
    assert report.count == len(set(solutions)) == 288
    puzzle, expected = two_solution_puzzle()
    solutions, report = probing_search(puzzle.to_model(), width, "count")
    assert report.count == 2 and set(solutions) == expected
    lex, _ = probing_search(puzzle.to_model(), width, "lexfirst", limit=1)
    assert lex == [min(expected)]


@pytest.mark.parametrize("width", [2, 3])
def test_probing_counts_match_plain_search(width):
    """9x9 puzzles with up to a few hundred solutions, where probes do fail:
    the same solution set with and without probing."""
    rng = random.Random(3)
    compared = 0
    for _ in range(20):
        model = random_puzzle(9, rng, 0.38).to_model()
        plain, report = probing_search(model, None, "count", limit=500)
        if report.count >= 500:
            continue
        probed, probed_report = probing_search(model, width, "count", limit=500)
        assert probed_report.count == report.count
        assert sorted(probed) == sorted(plain)
        compared += 1
    assert compared >= 10


def test_16x16_puzzles_probe_and_solve():
    rng = random.Random(16)
    for _ in range(3):
        puzzle = random_puzzle(16, rng, 0.45)
        for mode in ("first", "lexfirst"):
            result = engine("fast").solve(puzzle.to_model(), mode, timeout=60)
            assert result.status == Status.SOLVED
            assert check(puzzle, result.solution) is None
            assert all(g in (0, v) for g, v in zip(puzzle.grid, result.solution))


@pytest.mark.datasets
def test_vu_kr_hard_16x16():
    """vu_kr_16x16 line 85 took singles-only search 80,000 nodes; CP-SAT
    needs no branch. Failed-literal probing settles it at the root."""
    if not (DATASETS / "vu_kr_16x16.txt").exists():
        pytest.skip("vu_kr_16x16 is absent")
    puzzle = dataset("vu_kr_16x16", 85)[84]
    for mode in ("first", "lexfirst"):
        result = engine("fast").solve(puzzle.to_model(), mode, timeout=120)
        assert result.status == Status.SOLVED and result.nodes == 0
        assert check(puzzle, result.solution) is None
        assert all(g in (0, v) for g, v in zip(puzzle.grid, result.solution))
