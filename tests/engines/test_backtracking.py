"""The backtracking engine: both variants, every mode, on Sudoku and on bare models.

Answers are judged by the independent checker (``compare.judge.checker``); small
models are also enumerated by brute force here, so counts and ``lexfirst``
answers are compared with ground truth that shares nothing with the engine.
"""
from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.cli.bench import DATASETS  # noqa: E402  (one definition of where the sets live)
from compare.judge.checker import check, check_model
from engines import get_engine
from engines.backtracking import BacktrackingEngine
from engines.base import EngineOptionError
from engines.contract import Status
from puzzles.kinds.sudoku import Sudoku
from puzzles.model import AllDifferent, Linear, Model, Structure

VARIANTS = ("seed", "fast")

BOJ_INPUT = ("103000509 002109400 000704000 300502006 060000050 "
             "700803004 000401000 009205800 804000107")
BOJ_ANSWER = ("143628579 572139468 986754231 391542786 468917352 "
              "725863914 237481695 619275843 854396127")


def digits(text: str) -> tuple[int, ...]:
    return tuple(int(ch) for ch in text if ch.isdigit())


def engine(variant: str) -> BacktrackingEngine:
    return get_engine(f"backtracking:variant={variant}")


def full_grid(n: int, rng: random.Random) -> list[int]:
    """A random solved grid: a pattern solution with bands, stacks, rows,
    columns and digits shuffled (each shuffle keeps a Sudoku valid)."""
    box = int(round(n ** 0.5))

    def lines():
        bands = rng.sample(range(box), box)
        return [b * box + r for b in bands for r in rng.sample(range(box), box)]

    rows, cols = lines(), lines()
    digit = rng.sample(range(1, n + 1), n)
    return [digit[(box * (r % box) + r // box + c) % n] for r in rows for c in cols]


def random_puzzle(n: int, rng: random.Random, keep: float) -> Sudoku:
    grid = [v if rng.random() < keep else 0 for v in full_grid(n, rng)]
    return Sudoku(n, tuple(grid))


def assert_solves(puzzle: Sudoku, result) -> None:
    assert result.status == Status.SOLVED, result.message
    assert check(puzzle, result.solution) is None
    assert all(g in (0, v) for g, v in zip(puzzle.grid, result.solution))


# ----- the judge sample ---------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ["lexfirst", "first"])
def test_boj2239_sample(variant, mode):
    result = engine(variant).solve(Sudoku(9, digits(BOJ_INPUT)).to_model(), mode)
    if mode == "lexfirst" or variant == "seed":
        assert result.solution == digits(BOJ_ANSWER)
    assert_solves(Sudoku(9, digits(BOJ_INPUT)), result)


def test_search_effort_is_reported():
    result = engine("seed").solve(Sudoku(9, digits(BOJ_INPUT)).to_model(), "first")
    assert result.nodes > 81 - 36 and result.backtracks > 0
    assert result.engine == "backtracking:variant=seed" and result.version == "builtin"


# ----- random puzzles of every size ---------------------------------------

@pytest.mark.parametrize("n,keep", [(4, 0.3), (9, 0.45), (16, 0.6), (25, 0.75)])
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_puzzles_every_size(n, keep, variant):
    rng = random.Random(n * 1000 + len(variant))
    for _ in range(3):
        puzzle = random_puzzle(n, rng, keep)
        for mode in ("first", "lexfirst"):
            result = engine(variant).solve(puzzle.to_model(), mode, timeout=20)
            if result.status == Status.TIMEOUT and variant == "seed":
                continue   # seed may blow up; the fast variant may not
            assert_solves(puzzle, result)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2 ** 32), st.sampled_from([(4, 0.25), (9, 0.5), (16, 0.7)]))
def test_lexfirst_of_fast_equals_seed(seed, case):
    n, keep = case
    puzzle = random_puzzle(n, random.Random(seed), keep)
    baseline = engine("seed").solve(puzzle.to_model(), "lexfirst", timeout=2)
    if baseline.status == Status.TIMEOUT:
        return   # nothing to compare against
    result = engine("fast").solve(puzzle.to_model(), "lexfirst")
    assert result.status == baseline.status == Status.SOLVED
    assert result.solution == baseline.solution


def test_25x25_does_not_recurse():
    empty = Sudoku(25, (0,) * 625)
    assert_solves(empty, engine("fast").solve(empty.to_model(), "first"))
    sparse = random_puzzle(25, random.Random(1), 0.65)   # 214 blanks, quick for seed
    result = engine("seed").solve(sparse.to_model(), "first", timeout=30)
    assert_solves(sparse, result)
    assert result.nodes >= 625 - sparse.clues


# ----- counts ---------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_count_empty_4x4(variant):
    result = engine(variant).solve(Sudoku(4, (0,) * 16).to_model(), "count", limit=1000)
    assert result.status == Status.SOLVED and result.count == 288
    assert len(set(result.solutions)) == len(result.solutions) == 16
    for solution in result.solutions:
        assert check(Sudoku(4, (0,) * 16), solution) is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_count_stops_at_limit(variant):
    result = engine(variant).solve(Sudoku(9, (0,) * 81).to_model(), "count", limit=5)
    assert result.status == Status.SOLVED and result.count == 5
    assert len(set(result.solutions)) == 5


@pytest.mark.parametrize("variant", VARIANTS)
def test_count_unique_puzzle(variant):
    result = engine(variant).solve(Sudoku(9, digits(BOJ_INPUT)).to_model(), "count", limit=2)
    assert result.count == 1 and result.solution == digits(BOJ_ANSWER)


def random_fill(rng: random.Random) -> list[int]:
    """A random solved 9x9 grid by plain randomized backtracking (test-only,
    independent of the engine); pattern grids have no deadly rectangles."""
    grid = [0] * 81

    def fits(cell, v):
        r, c = divmod(cell, 9)
        box = (r // 3 * 3, c // 3 * 3)
        return all(grid[r * 9 + k] != v and grid[k * 9 + c] != v and
                   grid[(box[0] + k // 3) * 9 + box[1] + k % 3] != v for k in range(9))

    def fill(cell):
        if cell == 81:
            return True
        for v in rng.sample(range(1, 10), 9):
            if fits(cell, v):
                grid[cell] = v
                if fill(cell + 1):
                    return True
                grid[cell] = 0
        return False

    assert fill(0)
    return grid


def two_solution_puzzle() -> tuple[Sudoku, set[tuple[int, ...]]]:
    """A solved grid with one 'deadly rectangle' blanked (a b / b a over two
    rows of one band and two columns of different stacks): exactly the grid
    and its swap solve it, since every other cell is given."""
    rng = random.Random(7)
    while True:
        grid = random_fill(rng)
        for r1, r2 in [(r, r + k) for r in range(9) for k in (1, 2) if r // 3 == (r + k) // 3]:
            for c1, c2 in itertools.combinations(range(9), 2):
                a, b = grid[r1 * 9 + c1], grid[r1 * 9 + c2]
                if c1 // 3 != c2 // 3 and grid[r2 * 9 + c1] == b and grid[r2 * 9 + c2] == a:
                    cells = (r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2)
                    puzzle = [0 if i in cells else v for i, v in enumerate(grid)]
                    other = list(grid)
                    for cell in cells:
                        other[cell] = a + b - grid[cell]
                    return Sudoku(9, tuple(puzzle)), {tuple(grid), tuple(other)}


@pytest.mark.parametrize("variant", VARIANTS)
def test_count_two_solutions(variant):
    puzzle, solutions = two_solution_puzzle()
    result = engine(variant).solve(puzzle.to_model(), "count", limit=10)
    assert result.count == 2 and set(result.solutions) == solutions
    lexfirst = engine(variant).solve(puzzle.to_model(), "lexfirst")
    assert lexfirst.solution == min(solutions)


# ----- unsatisfiable ------------------------------------------------------

def unsat_puzzles() -> dict[str, Model]:
    """Conflicting givens (caught at translate) and a conflict only search finds."""
    grid = list(digits(BOJ_INPUT))
    twin = list(grid)
    twin[1] = 1                                   # a second 1 in row 0
    no_value = [0] * 81
    no_value[1:9] = range(1, 9)                   # row 0 holds 1..8
    no_value[4 * 9] = 9                           # column 0 holds 9
    structure = Sudoku(9, tuple(grid)).to_model().structure
    return {
        "twin givens": Sudoku(9, tuple(twin)).to_model(),
        "blank with no value": Sudoku(9, tuple(no_value)).to_model(),
        "given outside domain": Model(structure, ((2, 10),)),
        "two values for one cell": Model(structure, ((2, 4), (2, 5))),
    }


@pytest.mark.parametrize("name", sorted(unsat_puzzles()))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
def test_unsatisfiable(name, variant, mode):
    result = engine(variant).solve(unsat_puzzles()[name], mode)
    assert result.status == Status.UNSAT and not result.solutions
    assert result.count == (0 if mode == "count" else None)


def test_repeated_given_is_not_a_conflict():
    model = Sudoku(4, (0,) * 16).to_model()
    model = Model(model.structure, ((0, 1), (0, 1)))
    for variant in VARIANTS:
        assert engine(variant).solve(model, "count", limit=100).count == 288 // 4


# ----- bare models: brute force is the ground truth -----------------------

def brute_force(structure: Structure, givens=()) -> list[tuple[int, ...]]:
    doms = list(structure.domains)
    for var, value in givens:
        doms[var] = tuple(v for v in doms[var] if v == value)
    return sorted(vals for vals in itertools.product(*doms)
                  if all(len({vals[v] for v in c.vars}) == len(c.vars)
                         for c in structure.constraints))


@st.composite
def small_models(draw):
    """Up to 6 variables, domains within 1..4, random groups and givens: mixes
    permutation units (hidden singles allowed) with looser groups (not)."""
    n = draw(st.integers(1, 6))
    domains = tuple(tuple(sorted(draw(st.sets(st.integers(1, 4), min_size=1))))
                    for _ in range(n))
    groups = draw(st.lists(st.sets(st.integers(0, n - 1), min_size=2, max_size=4),
                           max_size=4)) if n > 1 else []
    key = f"test-small-{draw(st.integers(0, 3))}"   # shared keys: cache must cope
    structure = Structure(key, tuple(f"x{i}" for i in range(n)), domains,
                          tuple(AllDifferent(tuple(sorted(g))) for g in groups))
    givens = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 4)),
                           max_size=2))
    return Model(structure, tuple(givens))


@settings(max_examples=150, deadline=None)
@given(small_models())
def test_small_models_match_brute_force(model):
    truth = brute_force(model.structure, model.givens)
    for variant in VARIANTS:
        count = engine(variant).solve(model, "count", limit=10_000)
        assert count.count == len(truth)
        lex = engine(variant).solve(model, "lexfirst")
        first = engine(variant).solve(model, "first")
        if truth:
            assert lex.solution == truth[0]
            assert check_model(model, first.solution) is None
        else:
            assert lex.status == first.status == Status.UNSAT


def test_loose_group_gets_no_hidden_singles():
    """3 variables over 1..4 all different: value 4 may be missing, so no
    'value must appear' deduction may cut solutions (4 * 3 * 2 = 24)."""
    structure = Structure("test-loose", ("a", "b", "c"), ((1, 2, 3, 4),) * 3,
                          (AllDifferent((0, 1, 2)),))
    for variant in VARIANTS:
        assert engine(variant).solve(Model(structure), "count", limit=100).count == 24


def test_pigeonhole_is_unsat():
    structure = Structure("test-pigeon", ("a", "b", "c"), ((1, 2),) * 3,
                          (AllDifferent((0, 1, 2)),))
    for variant in VARIANTS:
        assert engine(variant).solve(Model(structure), "first").status == Status.UNSAT


def test_other_kinds_go_to_the_general_search_and_bad_variant():
    structure = Structure("test-linear", ("a", "b"), ((1, 2),) * 2,
                          (Linear((1, 1), (0, 1), "==", 3),))
    result = engine("fast").solve(Model(structure), "count", limit=10)
    assert result.status == Status.SOLVED and sorted(result.solutions) == [(1, 2), (2, 1)]
    with pytest.raises(EngineOptionError):
        get_engine("backtracking:variant=slow")
    assert get_engine("backtracking").label == "backtracking"


# ----- deadlines ------------------------------------------------------------

def test_seed_honours_the_deadline():
    # 17 clues, built to defeat row-major backtracking (Wikipedia's example)
    puzzle = Sudoku(9, tuple(0 if ch == "." else int(ch) for ch in
                             "..............3.85..1.2.......5.7.....4...1...9......."
                             "5......73..2.1........4...9"))
    result = engine("seed").solve(puzzle.to_model(), "first", timeout=0.2)
    assert result.status == Status.TIMEOUT and not result.solutions


def test_fast_honours_the_deadline():
    result = engine("fast").solve(Sudoku(9, (0,) * 81).to_model(), "count",
                                  limit=10 ** 9, timeout=0.2)
    assert result.status == Status.TIMEOUT and 0 < result.count < 10 ** 9


# ----- public datasets (skipped when absent) -------------------------------

def dataset(name: str, count: int) -> list[Sudoku]:
    path = DATASETS / f"{name}.txt"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    alphabet = "123456789ABCDEFGHIJKLMNOP"
    lines = path.read_text().split()[:count]
    side = {81: 9, 256: 16, 625: 25}
    return [Sudoku(side[len(line)], tuple(0 if ch == "." else alphabet.index(ch) + 1
                                          for ch in line)) for line in lines]


@pytest.mark.datasets
@pytest.mark.parametrize("name,count", [("norvig_top95", 5), ("royle_17clue_49158", 3),
                                        ("forum_hardest_1905_11plus", 3),
                                        ("gecode_16x16_janko", 2)])
def test_dataset_sample(name, count):
    for puzzle in dataset(name, count):
        for mode in ("first", "lexfirst"):
            assert_solves(puzzle, engine("fast").solve(puzzle.to_model(), mode, timeout=60))
