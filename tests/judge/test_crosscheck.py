"""Every engine against every other, so that ``pytest`` alone proves they agree.

The set: the two judge samples; seeded random 4x4 and 9x9 puzzles, some
unique, some with several solutions, some unsatisfiable (both a cell left
without candidates and a wrong extra given that only search refutes); a few
puzzles from ``../shared/datasets`` when it is there. On it, in every mode:

* every engine gives the same status, and none times out or fails;
* every solution passes the independent checker (``compare.judge.checker.verify``);
* counts agree, and where all solutions were listed, the lists agree;
* ``lexfirst`` answers are identical.

Small random CSPs that are not Sudoku are checked against brute force too.
The backtracker's ``seed`` variant and python-constraint are heavy-tailed, so
cases marked ``heavy`` (hard dataset puzzles, 16x16) run only ``fast`` and
CP-SAT; every solve has a generous timeout so a stuck engine fails, not hangs.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compare.judge.checker import check_model, verify
from engines import engine_class, get_engine
from engines.contract import KEEP_SOLUTIONS, Status
from puzzles.formats.grids import repeated_given
from puzzles.kinds.generator import carve, full_grid
from puzzles.kinds.queens import Queens
from puzzles.kinds.sudoku import Sudoku, units
from puzzles.loader import parse_text
from puzzles.model import LINEAR_OPS, AllDifferent, Linear, Model, NotEqualOffset, Structure, Table

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "puzzles" / "samples"
from compare.cli.bench import DATASETS  # noqa: E402  (one definition of where the sets live)

ALL_ENGINES = ("backtracking:variant=seed", "backtracking:variant=fast",
               "python-constraint", "cpsat")
LIGHT_ENGINES = ("backtracking:variant=fast", "cpsat")
# From the optional ``solvers`` extra, checked where installed: Choco through CPMpy,
# fast enough for the heavy cases too (tests/engines/test_cpmpy.py covers every backend).
OPTIONAL_ENGINES = ("cpmpy:solver=choco",)
OPTIONAL_LIGHT = ("cpmpy:solver=choco",)
TIMEOUT = 60.0   # per solve; far above what any case needs, so only a stuck engine hits it
EMPTY4_COUNT = 288


def usable(spec: str) -> bool:
    """Importable, and answering a one-variable model (a wrapper's backend may be missing)."""
    try:
        if not engine_class(spec.split(":")[0]).available():
            return False
        tiny = Model(Structure("tiny", ("x",), ((1,),), ()))
        return get_engine(spec).solve(tiny).status is Status.SOLVED
    except Exception:
        return False


ENGINES = {spec: get_engine(spec) for spec in ALL_ENGINES + OPTIONAL_ENGINES if usable(spec)}


@dataclass(frozen=True)
class Case:
    id: str
    puzzle: Sudoku
    heavy: bool = False           # only the engines that do not blow up
    expect: Status | None = None  # where the construction guarantees the answer

    def engines(self) -> list[str]:
        wanted = (LIGHT_ENGINES + OPTIONAL_LIGHT if self.heavy
                  else ALL_ENGINES + OPTIONAL_ENGINES)
        return [spec for spec in wanted if spec in ENGINES]


# ----- the case set ----------------------------------------------------------
def judge_samples() -> list[Case]:
    return [Case(f"judge-{name}", parse_text((SAMPLES / f"{name}.txt").read_text(),
                                             name)[0].puzzle, expect=Status.SOLVED)
            for name in ("boj2239", "boj2580")]


def blanked(n: int, rng: random.Random, blanks: int) -> tuple[list[int], list[int]]:
    """A random full grid and a copy with ``blanks`` random cells emptied."""
    solution = list(full_grid(n, rng))
    grid = list(solution)
    for cell in rng.sample(range(n * n), blanks):
        grid[cell] = 0
    return solution, grid


def peers(n: int, cell: int) -> set[int]:
    return {p for unit in units(n) if cell in unit for p in unit} - {cell}


def without_candidates(n: int, rng: random.Random, extra: int) -> Sudoku:
    """Unsatisfiable, with no repeated given: cell ``c`` sees every value.

    ``c``'s row holds the solution's other values; its missing value goes in
    ``c``'s column at a cell ``d`` outside ``c``'s box (a wrong value there, but
    no unit of ``d`` holds it); ``extra`` more givens come from the solution,
    never with that value, so nothing repeats.
    """
    solution = full_grid(n, rng)
    box = int(n ** 0.5)
    c = rng.randrange(n * n)
    row, col = divmod(c, n)
    missing = solution[c]
    grid = [0] * (n * n)
    for k in range(n):
        grid[row * n + k] = solution[row * n + k]
    grid[c] = 0
    d_row = rng.choice([r for r in range(n) if r // box != row // box])
    grid[d_row * n + col] = missing
    spare = [e for e in range(n * n) if not grid[e] and e != c and solution[e] != missing]
    for e in rng.sample(spare, min(extra, len(spare))):
        grid[e] = solution[e]
    assert repeated_given(n, grid) is None
    return Sudoku(n, tuple(grid))


def wrong_given(n: int, rng: random.Random, blanks: int) -> Sudoku:
    """A value that repeats no given but differs from the (nearly surely unique)
    solution: unsatisfiable, yet only search shows it."""
    solution, grid = blanked(n, rng, blanks)
    for c in rng.sample(range(n * n), n * n):
        if grid[c]:
            continue
        seen = {grid[p] for p in peers(n, c)}
        choices = [v for v in range(1, n + 1) if v != solution[c] and v not in seen]
        if choices:
            grid[c] = rng.choice(choices)
            return Sudoku(n, tuple(grid))
    raise AssertionError("no room for a wrong given")


def cpsat_count(model: Model, limit: int) -> int:
    return get_engine("cpsat").solve(model, "count", limit=limit).count


def random_cases() -> list[Case]:
    rng = random.Random(20240611)
    cases = [Case("4x4-empty", Sudoku(4, (0,) * 16), expect=Status.SOLVED)]
    for i, blanks in enumerate((5, 8, 10, 11, 12, 13)):
        cases.append(Case(f"4x4-blank{blanks}-{i}", Sudoku(4, tuple(blanked(4, rng, blanks)[1])),
                          expect=Status.SOLVED))
    for i in range(2):
        cases.append(Case(f"4x4-nocandidates-{i}", without_candidates(4, rng, 2),
                          expect=Status.UNSAT))
        cases.append(Case(f"4x4-wronggiven-{i}", wrong_given(4, rng, 9)))
    for i, blanks in enumerate((25, 45, 52, 56, 60)):
        cases.append(Case(f"9x9-blank{blanks}-{i}", Sudoku(9, tuple(blanked(9, rng, blanks)[1])),
                          expect=Status.SOLVED))
    if "cpsat" in ENGINES:   # one puzzle known unique by construction
        unique = carve(full_grid(9, rng), 9, 32, rng, cpsat_count)
        cases.append(Case("9x9-carved-unique", unique, expect=Status.SOLVED))
    for i in range(2):
        cases.append(Case(f"9x9-nocandidates-{i}", without_candidates(9, rng, 25),
                          expect=Status.UNSAT))
        cases.append(Case(f"9x9-wronggiven-{i}", wrong_given(9, rng, 30)))
    return cases


# (file, how many from the top, heavy)
DATASET_SAMPLE = (("norvig_easy50", 3, False), ("kaggle_1m_first9999", 3, False),
                  ("norvig_top95", 3, True), ("royle_17clue_49158", 2, True),
                  ("forum_hardest_1905_11plus", 2, True), ("vu_kr_16x16", 1, True))


def dataset_cases() -> list[Case]:
    cases = []
    for stem, k, heavy in DATASET_SAMPLE:
        path = DATASETS / f"{stem}.txt"
        if not path.is_file():
            continue
        with path.open() as fh:
            head = "".join(fh.readline() for _ in range(k))
        for entry in parse_text(head, str(path), "line"):
            cases.append(Case(entry.id, entry.puzzle, heavy, Status.SOLVED))
    return cases


CASES = judge_samples() + random_cases()
DATA_CASES = dataset_cases()


# ----- running and comparing -------------------------------------------------
_results: dict[tuple, dict] = {}


def results(case: Case, mode: str, limit: int) -> dict:
    """Each engine's result on ``case`` (cached: several tests read one run)."""
    key = (case.id, mode, limit)
    if key not in _results:
        model = case.puzzle.to_model()
        _results[key] = {spec: ENGINES[spec].solve(model, mode, limit=limit, timeout=TIMEOUT)
                         for spec in case.engines()}
    return _results[key]


def assert_agree(case: Case, mode: str, limit: int = 2) -> dict:
    found = results(case, mode, limit)
    assert len(found) >= 2, f"{case.id}: fewer than two engines to compare"
    model = case.puzzle.to_model()
    for spec, result in found.items():
        assert result.status in (Status.SOLVED, Status.UNSAT), \
            f"{case.id} {mode}: {spec} gave {result.status}: {result.message}"
        ok, why = verify(case.puzzle, model, result)
        assert ok, f"{case.id} {mode}: {spec} fails the checker: {why}"
    statuses = {spec: r.status for spec, r in found.items()}
    assert len(set(statuses.values())) == 1, f"{case.id} {mode}: statuses differ {statuses}"
    if case.expect is not None:
        assert set(statuses.values()) == {case.expect}, f"{case.id}: expected {case.expect}"
    if mode == "count":
        counts = {spec: r.count for spec, r in found.items()}
        assert len(set(counts.values())) == 1, f"{case.id}: counts differ {counts}"
        if next(iter(counts.values())) < min(limit, KEEP_SOLUTIONS + 1):
            listed = {spec: sorted(r.solutions) for spec, r in found.items()}
            assert len({tuple(s) for s in listed.values()}) == 1, \
                f"{case.id}: engines list different solutions"
    if mode == "lexfirst":
        answers = {spec: r.solution for spec, r in found.items()}
        assert len(set(answers.values())) == 1, f"{case.id}: lexfirst differs {answers}"
    return found


def ids(cases):
    return [c.id for c in cases]


@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_engines_agree(case, mode):
    assert_agree(case, mode)


@pytest.mark.datasets
@pytest.mark.skipif(not DATA_CASES, reason=f"no datasets at {DATASETS}")
@pytest.mark.parametrize("mode", ["first", "lexfirst", "count"])
@pytest.mark.parametrize("case", DATA_CASES or [None], ids=ids(DATA_CASES) or ["none"])
def test_engines_agree_on_datasets(case, mode):
    found = assert_agree(case, mode)
    if mode == "count":
        assert {r.count for r in found.values()} == {1}   # the sets are all unique


FOUR_BY_FOUR = [c for c in CASES if c.puzzle.n == 4]


@pytest.mark.parametrize("case", FOUR_BY_FOUR, ids=ids(FOUR_BY_FOUR))
def test_counts_agree_at_limit_50(case):
    assert_agree(case, "count", limit=50)


def test_empty_4x4_has_288_solutions_everywhere():
    empty = next(c for c in CASES if c.id == "4x4-empty")
    found = assert_agree(empty, "count", limit=1000)
    assert {r.count for r in found.values()} == {EMPTY4_COUNT}


def test_the_case_set_has_every_kind():
    """A cross-check only proves something if the set mixes unique, several and none."""
    for n in (4, 9):
        counts = [next(iter(results(c, "count", 2).values())).count
                  for c in CASES if c.puzzle.n == n]
        assert {0, 1, 2} <= set(counts), f"{n}x{n} cases give counts {counts}"


def test_a_count_is_a_number_even_when_the_deadline_is_spent():
    """A timeout before enumeration starts still reports a partial count, 0."""
    six = Queens(6).to_model()   # 4 solutions
    for spec in ENGINES:
        result = get_engine(spec).solve(six, "count", limit=10, timeout=0)
        assert isinstance(result.count, int), spec
        if result.status is Status.TIMEOUT:
            assert 0 <= result.count <= 4, spec
        else:   # an engine may finish a tiny search before it looks at the clock
            assert (result.status, result.count) == (Status.SOLVED, 4), spec


def test_every_engine_is_in_the_crosscheck():
    assert set(ALL_ENGINES) <= set(ENGINES), "an engine is missing from this machine"


# ----- small CSPs that are not Sudoku, against brute force -------------------
@st.composite
def small_models(draw):
    n = draw(st.integers(1, 6))
    domains = tuple(tuple(sorted(draw(st.sets(st.integers(1, 5), min_size=1, max_size=4))))
                    for _ in range(n))
    group = st.lists(st.integers(0, n - 1), min_size=2, max_size=n, unique=True)
    groups = draw(st.lists(group, max_size=4)) if n >= 2 else []
    structure = Structure("random", tuple(f"x{i}" for i in range(n)), domains,
                          tuple(AllDifferent(tuple(g)) for g in groups))
    return Model(structure)


def brute_force(model: Model) -> list[tuple[int, ...]]:
    return [v for v in itertools.product(*model.domains())
            if all(len({v[i] for i in c.vars}) == len(c.vars) for c in model.structure.constraints)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=small_models())
def test_small_models_match_brute_force(model):
    truth = brute_force(model)
    for spec, engine in ENGINES.items():
        lex = engine.solve(model, "lexfirst", timeout=TIMEOUT)
        count = engine.solve(model, "count", limit=10 ** 6, timeout=TIMEOUT)
        if Status.UNSUPPORTED in (lex.status, count.status):
            continue
        assert count.count == len(truth), spec
        assert lex.solution == (min(truth) if truth else None), spec
        assert set(count.solutions) <= set(truth), spec


# ----- small CSPs of every constraint kind, against brute force ----------------
# Values include 0 and negatives, coefficients may be 0 or negative, variables
# may repeat inside a constraint, and constraints may be over one variable or
# none: the corners where a library's own constraints go wrong.
SOLVER_VARIANTS = ("python-constraint:solver=optimized", "python-constraint:solver=recursive")


@st.composite
def mixed_models(draw):
    n = draw(st.integers(1, 5))
    values = st.integers(-3, 3)
    domains = tuple(tuple(sorted(draw(st.sets(values, min_size=1, max_size=4))))
                    for _ in range(n))
    var = st.integers(0, n - 1)
    kinds = [
        st.lists(var, max_size=n).map(lambda vs: AllDifferent(tuple(vs))),
        st.lists(st.tuples(st.integers(-3, 3), var), max_size=4).flatmap(
            lambda terms: st.builds(
                Linear, st.just(tuple(k for k, _ in terms)), st.just(tuple(v for _, v in terms)),
                st.sampled_from(LINEAR_OPS), st.integers(-6, 6))),
        st.builds(NotEqualOffset, var, var, st.integers(-2, 2)),
        st.lists(var, max_size=3).flatmap(lambda vs: st.builds(
            Table, st.just(tuple(vs)),
            st.lists(st.tuples(*[values] * len(vs)), max_size=12).map(tuple))),
    ]
    constraints = draw(st.lists(st.one_of(kinds), max_size=5))
    given_vars = draw(st.lists(var, max_size=2, unique=True))
    givens = tuple((v, draw(st.sampled_from(domains[v]))) for v in given_vars)
    return Model(Structure("mixed", tuple(f"x{i}" for i in range(n)), domains,
                           tuple(constraints)), givens)


def every_solution(model: Model) -> list[tuple[int, ...]]:
    """Every assignment the independent checker accepts, smallest first."""
    return [v for v in itertools.product(*model.domains()) if check_model(model, v) is None]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=mixed_models())
def test_every_kind_matches_brute_force(model):
    truth = every_solution(model)
    answered = 0
    for spec in [*ENGINES, *SOLVER_VARIANTS]:
        engine = ENGINES.get(spec) or get_engine(spec)
        first = engine.solve(model, "first", timeout=TIMEOUT)
        if first.status is Status.UNSUPPORTED:
            continue
        answered += 1
        lex = engine.solve(model, "lexfirst", timeout=TIMEOUT)
        count = engine.solve(model, "count", limit=10 ** 6, timeout=TIMEOUT)
        expected = Status.SOLVED if truth else Status.UNSAT
        assert (first.status, lex.status, count.status) == (expected,) * 3, (spec, first.message)
        assert first.solution is None or first.solution in truth, spec
        assert count.count == len(truth), spec
        assert lex.solution == (truth[0] if truth else None), spec
        assert set(count.solutions) <= set(truth), spec
    assert answered >= 2 + len(SOLVER_VARIANTS)    # python-constraint and CP-SAT always
