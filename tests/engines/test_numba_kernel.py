"""The numba kernel against the Python backtracking engine and the checker.

Both kernels must give the Python engine's answers: the same ``lexfirst``
solution and the same counts in both variants, and for ``seed`` the same
node and backtrack counts (it is the reference search, move for move). Small
models are also enumerated by brute force, and every answer goes through the
independent checker. No test asserts a timing.
"""
from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.judge.checker import check, check_model
from engines import get_engine
from engines.backtracking.compiled import entry as nk
from engines.backtracking.compiled.kernel import common, lean
from engines.contract import KEEP_SOLUTIONS, Status
from puzzles.kinds.latin import generate as latin_square
from puzzles.kinds.sudoku import Sudoku
from puzzles.model import AllDifferent, Linear, Model, Structure
from tests.engines.test_backtracking import (
    BOJ_ANSWER,
    BOJ_INPUT,
    brute_force,
    dataset,
    digits,
    random_puzzle,
    small_models,
    two_solution_puzzle,
    unsat_puzzles,
)

pytestmark = pytest.mark.skipif(not nk.available(), reason=nk.unavailable_reason())
VARIANTS = nk.VARIANTS
MODES = tuple(nk.MODES)


def kernel(model: Model, variant: str, mode: str, limit: int = 1,
           keep: int = KEEP_SOLUTIONS, timeout: float | None = None) -> nk.KernelResult:
    deadline = None if timeout is None else time.perf_counter() + timeout
    return nk.solve(nk.compile_structure(model.structure), model.givens, variant, mode,
                    limit, keep, deadline)


def python(model: Model, variant: str, mode: str, limit: int = 1, timeout=None):
    return get_engine(f"backtracking:variant={variant}").solve(model, mode, limit, timeout)


def assert_same_as_python(model: Model, variant: str, mode: str, limit: int = 1) -> None:
    """Same status, first solution (lexfirst, seed), count and, for seed, effort."""
    ours, theirs = kernel(model, variant, mode, limit), python(model, variant, mode, limit)
    assert ours.status == theirs.status
    for solution in ours.solutions:
        assert check_model(model, solution) is None
    if mode == "count":
        assert ours.count == theirs.count
        assert len(set(ours.solutions)) == len(ours.solutions) == min(ours.count,
                                                                      KEEP_SOLUTIONS)
    if mode == "lexfirst" or variant == "seed":
        assert ours.solutions[:1] == theirs.solutions[:1]
    if variant == "seed":
        assert ours.solutions == theirs.solutions
        assert (ours.nodes, ours.backtracks) == (theirs.nodes, theirs.backtracks)


# ----- the judge sample and random puzzles ------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", MODES)
def test_boj2239_sample(variant, mode):
    puzzle = Sudoku(9, digits(BOJ_INPUT))
    result = kernel(puzzle.to_model(), variant, mode, limit=2)
    assert result.status == Status.SOLVED and result.count == 1
    assert check(puzzle, result.solutions[0]) is None
    if mode == "lexfirst" or variant == "seed":
        assert result.solutions[0] == digits(BOJ_ANSWER)
    assert_same_as_python(puzzle.to_model(), variant, mode, limit=2)


@pytest.mark.parametrize("n,keep", [(4, 0.3), (9, 0.45), (16, 0.6)])
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_sudoku_like_python(n, keep, variant):
    rng = random.Random(n * 31 + len(variant))
    for _ in range(3):
        model = random_puzzle(n, rng, keep).to_model()
        if variant == "seed" and python(model, "seed", "first", timeout=2).status != "solved":
            continue                     # seed may blow up; nothing to compare
        for mode in ("first", "lexfirst"):
            assert_same_as_python(model, variant, mode)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from([(4, 0.25), (9, 0.5), (16, 0.7)]))
def test_lexfirst_of_fast_equals_seed(seed, case):
    n, keep = case
    model = random_puzzle(n, random.Random(seed), keep).to_model()
    baseline = python(model, "seed", "lexfirst", timeout=2)
    if baseline.status == Status.TIMEOUT:
        return
    assert_same_as_python(model, "seed", "lexfirst")
    assert kernel(model, "fast", "lexfirst").solutions[0] == baseline.solution


def test_25x25():
    empty = Sudoku(25, (0,) * 625)
    result = kernel(empty.to_model(), "fast", "first")
    assert result.status == Status.SOLVED and check(empty, result.solutions[0]) is None
    sparse = random_puzzle(25, random.Random(1), 0.65)
    for variant in VARIANTS:
        assert_same_as_python(sparse.to_model(), variant, "lexfirst")


@pytest.mark.parametrize("n,holes,seed", [(5, 12, 1), (6, 20, 2), (7, 30, 3), (8, 40, 4)])
@pytest.mark.parametrize("variant", VARIANTS)
def test_latin_squares_like_python(n, holes, seed, variant):
    model = latin_square(n, holes, seed).to_model()
    for mode in MODES:
        assert_same_as_python(model, variant, mode, limit=50)


# ----- counts -------------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_count_empty_4x4(variant):
    result = kernel(Sudoku(4, (0,) * 16).to_model(), variant, "count", limit=1000)
    assert result.status == Status.SOLVED and result.count == 288
    assert len(set(result.solutions)) == len(result.solutions) == KEEP_SOLUTIONS
    assert_same_as_python(Sudoku(4, (0,) * 16).to_model(), variant, "count", limit=1000)


@pytest.mark.parametrize("variant", VARIANTS)
def test_count_stops_at_limit_and_keeps(variant):
    model = Sudoku(9, (0,) * 81).to_model()
    result = kernel(model, variant, "count", limit=5, keep=3)
    assert result.status == Status.SOLVED and result.count == 5
    assert len(set(result.solutions)) == 3
    assert_same_as_python(model, variant, "count", limit=5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_two_solutions(variant):
    puzzle, solutions = two_solution_puzzle()
    result = kernel(puzzle.to_model(), variant, "count", limit=10)
    assert result.count == 2 and set(result.solutions) == solutions
    assert kernel(puzzle.to_model(), variant, "lexfirst").solutions == [min(solutions)]
    for mode in MODES:
        assert_same_as_python(puzzle.to_model(), variant, mode, limit=10)


# ----- unsatisfiable and bad input -------------------------------------------------

@pytest.mark.parametrize("name", sorted(unsat_puzzles()))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", MODES)
def test_unsatisfiable(name, variant, mode):
    model = unsat_puzzles()[name]
    result = kernel(model, variant, mode)
    assert result.status == Status.UNSAT and not result.solutions and result.count == 0
    assert_same_as_python(model, variant, mode)


def test_unsat_messages_and_unknown_variable():
    model = unsat_puzzles()["given outside domain"]
    assert kernel(model, "seed", "first").message == "given 10 is outside the domain of variable 2"
    twice = unsat_puzzles()["two values for one cell"]
    assert kernel(twice, "seed", "first").message == "variable 2 is given two values"
    assert "repeats in AllDifferent" in kernel(unsat_puzzles()["twin givens"], "seed",
                                               "first").message
    assert kernel(twice, "fast", "first").message.endswith("conflicts with another given")
    huge = Model(model.structure, ((2, 2 ** 70),))
    assert kernel(huge, "fast", "first").status == Status.UNSAT
    for variant in VARIANTS:
        with pytest.raises(ValueError, match="unknown variable 81"):
            kernel(Model(model.structure, ((81, 1),)), variant, "first")


def test_shape_level_unsat_and_unsupported():
    pigeon = Structure("test-pigeon", ("a", "b", "c"), ((1, 2),) * 3, (AllDifferent((0, 1, 2)),))
    assert "pigeonhole" in nk.compile_structure(pigeon).unsat_reason
    twice = Structure("test-twice", ("a", "b"), ((1, 2),) * 2, (AllDifferent((0, 0)),))
    assert "twice" in nk.compile_structure(twice).unsat_reason
    for variant in VARIANTS:
        assert kernel(Model(pigeon), variant, "count").status == Status.UNSAT
    linear = Structure("test-linear", ("a", "b"), ((1, 2),) * 2,
                       (Linear((1, 1), (0, 1), "==", 3),))
    assert "AllDifferent-only" in nk.unsupported_reason(linear)
    wide = Structure("test-wide", ("a",), (tuple(range(100)),), ())
    assert nk.unsupported_reason(wide) and nk.unsupported_reason(pigeon) is None
    with pytest.raises(ValueError):
        nk.compile_structure(linear)


def test_repeated_given_and_loose_group():
    model = Sudoku(4, (0,) * 16).to_model()
    repeated = Model(model.structure, ((0, 1), (0, 1)))
    loose = Structure("test-loose", ("a", "b", "c"), ((1, 2, 3, 4),) * 3,
                      (AllDifferent((0, 1, 2)),))
    for variant in VARIANTS:
        assert kernel(repeated, variant, "count", limit=100).count == 72
        assert kernel(Model(loose), variant, "count", limit=100).count == 24


# ----- small models: brute force is the ground truth --------------------------------

@settings(max_examples=150, deadline=None)
@given(small_models(), st.booleans())
def test_small_models_match_brute_force(model, probe):
    truth = brute_force(model.structure, model.givens)
    kshape = nk.compile_structure(model.structure)
    kshape.probe = probe                 # probing forced on or off, any size
    for variant in VARIANTS:
        count = nk.solve(kshape, model.givens, variant, "count", 10_000, 10_000)
        assert count.count == len(truth) and sorted(count.solutions) == truth
        lex = nk.solve(kshape, model.givens, variant, "lexfirst")
        first = nk.solve(kshape, model.givens, variant, "first")
        assert lex.solutions == truth[:1]
        assert len(first.solutions) == min(1, len(truth))
        for solution in first.solutions:
            assert check_model(model, solution) is None
    for mode in MODES:
        assert_same_as_python(model, "seed", mode, limit=10_000)


def test_16x16_without_probing_like_python():
    """The lean search (no probing) on a shape that would probe: same answers."""
    for puzzle in dataset("gecode_16x16_janko", 3):
        model = puzzle.to_model()
        kshape = nk.compile_structure(model.structure)
        kshape.probe = False
        lex = nk.solve(kshape, model.givens, "fast", "lexfirst")
        assert lex.solutions[:1] == python(model, "fast", "lexfirst").solutions[:1]
        count = nk.solve(kshape, model.givens, "fast", "count", 2, 2)
        assert count.count == 1 and check_model(model, count.solutions[0]) is None


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from([0.25, 0.35, 0.5]))
def test_the_lean_search_answers_as_the_fast_search_it_copies(seed, keep):
    """``lean`` is a deliberate copy of ``fast`` (root, locked candidates, choice,
    search loop) on a smaller row: on the same 9x9 puzzles, with or without
    probing, the two give the same counts, the same lexicographically first
    solution and the same refusals of hopeless givens."""
    model = random_puzzle(9, random.Random(seed), keep).to_model()
    kshape = nk.compile_structure(model.structure)
    clash = model.givens + ((model.givens[0][0], model.givens[0][1] % 9 + 1),)
    outside = model.givens + ((80, 10),)
    answers = {}
    for probe in (False, True):
        kshape.probe = probe
        answers[probe] = [nk.solve(kshape, givens, "fast", mode, 3, 3)
                          for givens in (model.givens, clash, outside)
                          for mode in ("lexfirst", "count")]
    for plain, probed in zip(answers[False], answers[True]):
        assert (plain.status, plain.count, plain.message) == \
            (probed.status, probed.count, probed.message)
    for plain, probed in zip(answers[False][::2], answers[True][::2]):      # lexfirst
        assert plain.solutions == probed.solutions


def _lean_row(kshape, cand):
    """A lean search row holding ``cand``, every unit without a placed value."""
    rows, work = kshape.workspace(1)
    row = rows[0]
    row[:] = 0
    row[3:3 + len(cand)] = cand
    return row, work


def test_locked_candidates_pointing_and_claiming():
    """Box 0 keeps value 1 in row 0 only: row 0 loses it outside the box
    (pointing). Row 8 keeps value 2 in box 6 only: box 6 loses it off row 8
    (claiming). Nothing else changes, and the open count stays."""
    kshape = nk.compile_structure(Sudoku(9, (0,) * 81).to_model().structure)
    cand = [511] * 81
    for i in (9, 10, 11, 18, 19, 20):          # box 0, rows 1 and 2: no 1
        cand[i] &= ~1
    for i in range(75, 81):                    # row 8 outside box 6: no 2
        cand[i] &= ~2
    row, work = _lean_row(kshape, cand)
    tabs = lean.tables.py_func(kshape.blob)
    blob = kshape.blob
    got = lean.locked(row, 81, work, common.table(blob, common.CROSS_PTR),
                      common.table(blob, common.CROSS_IDX), tabs)
    assert got == 81
    want = list(cand)
    for i in range(3, 9):                      # row 0 outside box 0
        want[i] &= ~1
    for i in (54, 55, 56, 63, 64, 65):          # box 6, rows 6 and 7
        want[i] &= ~2
    assert list(row[3:84]) == want


def test_locked_candidates_find_a_conflict():
    """Box 0 keeps value 1 in row 0 only, so row 0 loses 1 outside the box;
    two cells there held only 1 and 2, are both left with 2: a conflict."""
    kshape = nk.compile_structure(Sudoku(9, (0,) * 81).to_model().structure)
    cand = [511] * 81
    for i in (9, 10, 11, 18, 19, 20):
        cand[i] &= ~1
    cand[3] = cand[4] = 1 | 2
    for i in range(5, 9):
        cand[i] &= ~1
    row, work = _lean_row(kshape, cand)
    blob = kshape.blob
    assert lean.locked(row, 81, work, common.table(blob, common.CROSS_PTR),
                       common.table(blob, common.CROSS_IDX), lean.tables.py_func(blob)) == -1


def test_singles_find_a_variable_that_alone_holds_two_values_of_a_unit():
    """Row 0 has values 1 and 2 only in its first cell, whose candidates are
    exactly those two: no placement fills the row, so the scan reports a
    conflict (the cell holds no single value to place)."""
    kshape = nk.compile_structure(Sudoku(9, (0,) * 81).to_model().structure)
    cand = [511] * 81
    cand[0] = 1 | 2
    for i in range(1, 9):
        cand[i] &= ~3
    row, work = _lean_row(kshape, cand)
    assert lean.singles(row, 81, work, 0, lean.tables.py_func(kshape.blob)) == -1
    cand[1] |= 2                               # the second value now has two places
    row, work = _lean_row(kshape, cand)
    assert lean.singles(row, 81, work, 0, lean.tables.py_func(kshape.blob)) >= 0


# ----- deadlines and warm-up -------------------------------------------------------

def test_seed_honours_the_deadline():
    puzzle = Sudoku(9, tuple(0 if ch == "." else int(ch) for ch in
                             "..............3.85..1.2.......5.7.....4...1...9......."
                             "5......73..2.1........4...9"))
    result = kernel(puzzle.to_model(), "seed", "first", timeout=0.2)
    assert result.status == Status.TIMEOUT and not result.solutions and result.nodes > 0


@pytest.mark.parametrize("probe", [False, True])
def test_fast_honours_the_deadline(probe):
    kshape = nk.compile_structure(Sudoku(9, (0,) * 81).to_model().structure)
    kshape.probe = probe
    result = nk.solve(kshape, (), "fast", "count", 10 ** 9, 4, time.perf_counter() + 0.2)
    assert result.status == Status.TIMEOUT and 0 < result.count < 10 ** 9
    assert len(result.solutions) == 4


def test_warm_up_and_availability():
    assert nk.available() and nk.unavailable_reason() == ""
    assert nk.warm_up() >= 0


# ----- public datasets (skipped when absent) --------------------------------------

@pytest.mark.datasets
@pytest.mark.parametrize("name,count", [("norvig_top95", 5), ("royle_17clue_49158", 3),
                                        ("forum_hardest_1905_11plus", 3),
                                        ("gecode_16x16_janko", 2), ("vu_kr_16x16", 2)])
def test_dataset_sample_like_python(name, count):
    for puzzle in dataset(name, count):
        model = puzzle.to_model()
        for mode in ("first", "lexfirst"):
            result = kernel(model, "fast", mode, timeout=60)
            assert result.status == Status.SOLVED
            assert check(puzzle, result.solutions[0]) is None
        assert_same_as_python(model, "fast", "lexfirst")
        assert_same_as_python(model, "fast", "count", limit=2)


@pytest.mark.datasets
def test_dataset_seed_like_python():
    """Puzzles the reference search finishes quickly: same answer, same effort."""
    done = 0
    for puzzle in dataset("norvig_top95", 30):
        model = puzzle.to_model()
        if python(model, "seed", "first", timeout=1).status == Status.SOLVED:
            assert_same_as_python(model, "seed", "first")
            done += 1
    assert done


# ----- the engine option kernel=numba ---------------------------------------------------
@pytest.mark.parametrize("variant", ["fast", "seed"])
def test_the_engine_option_gives_the_python_kernels_answers(variant):
    from puzzles.catalog import load_spec
    python = get_engine(f"backtracking:variant={variant}")
    numba = get_engine(f"backtracking:variant={variant}:kernel=numba")
    assert numba.label == f"backtracking:variant={variant}:kernel=numba".replace(
        "variant=fast:", "")
    puzzles = [Sudoku(9, digits(BOJ_INPUT)), load_spec("latin:5:holes=12:seed=3"),
               Sudoku(4, (0,) * 16)]
    for puzzle in puzzles:
        model = puzzle.to_model()
        for mode, limit in (("lexfirst", 1), ("count", 50), ("first", 1)):
            ours, theirs = numba.solve(model, mode, limit), python.solve(model, mode, limit)
            assert str(ours.status) == str(theirs.status) == "solved"
            assert ours.count == theirs.count
            if mode == "lexfirst" or variant == "seed":     # the same order of search
                assert ours.solutions == theirs.solutions
            assert all(check_model(model, s) is None for s in ours.solutions)
            if variant == "seed":
                assert (ours.nodes, ours.backtracks) == (theirs.nodes, theirs.backtracks)


def test_models_the_kernel_does_not_take_keep_the_python_search():
    from puzzles.catalog import load_spec
    queens = load_spec("queens:8").to_model()          # Linear constraints: general path
    result = get_engine("backtracking:kernel=numba").solve(queens, "count", 100)
    assert str(result.status) == "solved" and result.count == 92


def test_without_numba_the_option_is_unsupported_in_one_line(monkeypatch):
    monkeypatch.setattr(nk, "available", lambda: False)
    monkeypatch.setattr(nk, "unavailable_reason", lambda: "numba is not installed (pip install numba)")
    result = get_engine("backtracking:kernel=numba").solve(Sudoku(4, (0,) * 16).to_model())
    assert str(result.status) == "unsupported"
    assert result.message == ("backtracking:kernel=numba: numba is not installed "
                              "(pip install numba)")


def test_the_benchmark_compile_probe_runs():
    """The benchmark's compile part runs this probe in a fresh process, last;
    a fault there would only show at the end of a full benchmark run."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "numba_kernel.py"
    done = subprocess.run([sys.executable, str(script), "--probe", BOJ_INPUT.replace(" ", "")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    imports, first, warm = (float(x) for x in done.stdout.split())
    assert imports > 0 and first > 0 and warm >= 0


# ----- the kernel's layout ----------------------------------------------------------------
def test_the_packer_reads_the_engines_shape():
    """One derivation of the groups: the kernel's are the Shape's, UNSAT reason included."""
    from engines.backtracking.shape import shape_for
    for structure in (Sudoku(9, (0,) * 81).to_model().structure,
                      Structure("test-pigeon-2", ("a", "b", "c"), ((1, 2),) * 3,
                                (AllDifferent((0, 1, 2)),))):
        shape, kshape = shape_for(structure), nk.compile_structure(structure)
        assert kshape.groups is shape.groups and kshape.unsat_reason == shape.unsat_reason
        assert [kshape.groups[u] for u in kshape.units] == list(shape.units)


def test_no_kernel_module_is_over_600_lines():
    folder = Path(nk.__file__).parent
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for p in [Path(nk.__file__), *(folder / "kernel").glob("*.py")]}
    assert len(sizes) > 5 and max(sizes.values()) <= 600, sizes
