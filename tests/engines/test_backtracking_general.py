"""The backtracker on models with Linear, NotEqualOffset and Table constraints.

Ground truth is brute force: every assignment of the domains, judged by the
independent checker (``compare.judge.checker.check_model``), which shares nothing
with the engine. Both variants run in every mode; the propagation of each
kind is pinned down by models it must solve with no branching at all, and
``seed`` by the reference algorithm's node counts.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compare.judge.checker import check_model
from engines import get_engine
from engines.backtracking import shape as shapes
from engines.backtracking.python import fast, general, seed
from engines.backtracking.python.general import linear
from engines.contract import KEEP_SOLUTIONS, Status
from puzzles.kinds.coloring import Coloring, read_col
from puzzles.kinds.cryptarithm import from_text
from puzzles.kinds.queens import Queens
from puzzles.kinds.sudoku import Sudoku
from puzzles.model import LINEAR_OPS, AllDifferent, Linear, Model, NotEqualOffset, Structure, Table

VARIANTS = ("seed", "fast")
EXAMPLES = Path(__file__).resolve().parents[2] / "puzzles" / "examples"
SAMPLES = Path(__file__).resolve().parents[2] / "puzzles" / "samples"
TIMEOUT = 60.0     # per solve; far above what any case needs, so only a stuck search hits it


def engine(variant: str):
    return get_engine(f"backtracking:variant={variant}")


def model_of(domains, constraints, givens=(), key="general-test") -> Model:
    names = tuple(f"x{i}" for i in range(len(domains)))
    return Model(Structure(key, names, tuple(map(tuple, domains)), tuple(constraints)),
                 tuple(givens))


def every_solution(model: Model) -> list[tuple[int, ...]]:
    """Every assignment the checker accepts, smallest first."""
    return [v for v in itertools.product(*map(sorted, model.structure.domains))
            if check_model(model, v) is None]


def assert_matches_brute_force(model: Model, variants=VARIANTS) -> None:
    truth = every_solution(model)
    expected = Status.SOLVED if truth else Status.UNSAT
    for variant in variants:
        eng = engine(variant)
        first = eng.solve(model, "first", timeout=TIMEOUT)
        lex = eng.solve(model, "lexfirst", timeout=TIMEOUT)
        count = eng.solve(model, "count", limit=10 ** 6, timeout=TIMEOUT)
        assert (first.status, lex.status, count.status) == (expected,) * 3, \
            (variant, first.message, lex.message, count.message)
        if truth:
            assert check_model(model, first.solution) is None, variant
        assert lex.solution == (truth[0] if truth else None), variant
        assert count.count == len(truth), variant
        assert len(set(count.solutions)) == len(count.solutions) == min(len(truth), KEEP_SOLUTIONS)
        assert set(count.solutions) <= set(truth), variant


def solve(variant: str, model: Model, mode: str = "first", limit: int = 2, timeout=TIMEOUT):
    return engine(variant).solve(model, mode, limit, timeout)


@pytest.fixture
def fresh_cache():
    """Compilations depend on module settings some tests change; start and end clean."""
    shapes._SHAPES.clear()
    yield
    shapes._SHAPES.clear()


# ----- random small models of every kind, against brute force -----------------------
@st.composite
def mixed_models(draw, kinds=("alldiff", "linear", "neq", "table", "count", "shift")):
    n = draw(st.integers(1, 5))
    values = st.integers(-3, 3)
    style = draw(st.sampled_from(["sets", "ranges", "bool", "same"]))
    if style == "sets":
        domains = [draw(st.sets(values, min_size=1, max_size=4)) for _ in range(n)]
    elif style == "ranges":
        domains = [range(lo, lo + draw(st.integers(1, 4)))
                   for lo in draw(st.lists(st.integers(-3, 2), min_size=n, max_size=n))]
    elif style == "bool":
        domains = [draw(st.sampled_from([{0, 1}, {0, 1}, {0}, {1}])) for _ in range(n)]
    else:
        domains = [draw(st.sets(values, min_size=1, max_size=4))] * n
    domains = [tuple(sorted(d)) for d in domains]
    var = st.integers(0, n - 1)
    made = {
        "alldiff": st.lists(var, max_size=n).map(lambda vs: AllDifferent(tuple(vs))),
        "linear": st.lists(st.tuples(st.integers(-3, 3), var), max_size=4).flatmap(
            lambda terms: st.builds(
                Linear, st.just(tuple(k for k, _ in terms)), st.just(tuple(v for _, v in terms)),
                st.sampled_from(LINEAR_OPS), st.integers(-6, 6))),
        "neq": st.builds(NotEqualOffset, var, var, st.integers(-2, 2)),
        "table": st.lists(var, max_size=3).flatmap(lambda vs: st.builds(
            Table, st.just(tuple(vs)),
            st.lists(st.tuples(*[values] * len(vs)), max_size=12).map(tuple))),
        "count": st.tuples(st.lists(var, min_size=1, max_size=n, unique=True),
                           st.sampled_from([1, -1]), st.sampled_from(LINEAR_OPS),
                           st.integers(-3, 3)).map(
            lambda t: Linear((t[1],) * len(t[0]), tuple(t[0]), t[2], t[3])),
        "shift": st.tuples(var, var, st.integers(-3, 3), st.booleans()).map(
            lambda t: Linear((1, -1) if t[3] else (-1, 1), t[:2], "==", t[2])),
    }
    constraints = draw(st.lists(st.one_of([made[k] for k in kinds]), max_size=5))
    given_vars = draw(st.lists(var, max_size=2, unique=True))
    givens = tuple((v, draw(st.sampled_from(domains[v]))) for v in given_vars)
    return model_of(domains, constraints, givens, key="mixed")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=mixed_models())
def test_random_models_match_brute_force(model):
    assert_matches_brute_force(model)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(model=mixed_models(kinds=("linear", "shift", "alldiff")))
def test_binary_linears_by_bounds_alone_match_brute_force(model, monkeypatch, fresh_cache):
    """Two-variable Linear constraints normally become pair tables; here they keep bounds."""
    monkeypatch.setattr(linear, "PAIR_TABLE_MAX", 0)
    monkeypatch.setattr(linear, "_shift", lambda con, values: None)
    shapes._SHAPES.clear()
    assert_matches_brute_force(model, ("fast",))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=mixed_models(kinds=("alldiff", "neq", "linear")),
       extra=st.lists(st.tuples(st.integers(0, 4), st.integers(-3, 3)), max_size=2))
def test_givens_outside_their_domains_or_clashing_are_unsat(model, extra):
    givens = model.givens + tuple((v % model.structure.size, x) for v, x in extra)
    assert_matches_brute_force(Model(model.structure, givens))


# ----- corner cases of each kind -------------------------------------------------------
@pytest.mark.parametrize("domains, constraints", [
    # negative and zero coefficients, negative values
    ([range(-3, 4)] * 3, [Linear((3, -2, 1), (0, 1, 2), "==", 4)]),
    ([range(-2, 3)] * 2, [Linear((0, 1), (0, 1), "==", 2)]),
    ([range(-3, 4)] * 3, [Linear((-1, -1, 2), (0, 1, 2), "<=", -5)]),
    ([range(-3, 4)] * 3, [Linear((-2, 3, -1), (0, 1, 2), ">=", 8)]),
    # a variable repeated inside one Linear: its coefficients add up
    ([range(-3, 4)] * 2, [Linear((1, 1, -1), (0, 0, 1), "==", 5)]),
    ([range(0, 3)] * 2, [Linear((1, -1), (0, 0), "==", 0)]),
    ([range(0, 3)] * 2, [Linear((1, -1), (0, 0), "==", 1)]),
    # != with all but one variable fixed, by coefficients that do and do not divide
    ([range(0, 3)] * 3, [Linear((1, 2, 3), (0, 1, 2), "!=", 6), Linear((1, 1), (1, 2), "==", 2)]),
    ([range(-1, 2)] * 2, [Linear((2, 1), (0, 1), "!=", 1)]),
    ([range(0, 4)], [Linear((), (), "!=", 0)]),
    ([range(0, 4)], [Linear((), (), "==", 0)]),
    # Table: unary, ternary, with a repeated variable, over no variable at all
    ([range(-2, 3)] * 2, [Table((1,), ((-2,), (2,), (7,)))]),
    ([range(0, 3)] * 3, [Table((0, 1, 2), ((0, 1, 2), (2, 1, 0), (1, 1, 1), (2, 2, 5)))]),
    ([range(0, 3)] * 2, [Table((0, 1, 0), ((1, 2, 1), (1, 0, 2), (2, 2, 2)))]),
    ([range(0, 3)], [Table((), ((),))]),
    ([range(0, 3)], [Table((), ())]),
    ([range(0, 3)] * 2, [Table((0, 1), ())]),
    # x != y + c, including a variable against itself
    ([range(-2, 2)] * 2, [NotEqualOffset(0, 1, -1), NotEqualOffset(1, 0, 2)]),
    ([range(0, 2)], [NotEqualOffset(0, 0, 1)]),
    ([range(0, 2)], [NotEqualOffset(0, 0, 0)]),
    # AllDifferent naming a variable twice, and a pigeonhole behind a Linear
    ([range(0, 3)] * 2, [AllDifferent((0, 1, 0)), Linear((1,), (0,), ">=", 0)]),
    ([range(1, 3)] * 3, [AllDifferent((0, 1, 2)), Linear((1,), (0,), ">=", 0)]),
    # an empty base domain
    ([range(0, 2), ()], [Linear((1,), (0,), "==", 1)]),
])
def test_corner_cases_match_brute_force(domains, constraints):
    assert_matches_brute_force(model_of(domains, constraints))


@pytest.mark.parametrize("op", LINEAR_OPS)
@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("ones", [0, 1, 2, 3])
def test_sums_of_booleans_under_every_operator(op, sign, ones):
    # x3 = 1 is fixed so that the count starts above zero
    model = model_of([(0, 1)] * 4, [Linear((sign,) * 4, (0, 1, 2, 3), op, sign * ones),
                                    Table((3,), ((1,),))])
    assert_matches_brute_force(model)


@pytest.mark.parametrize("domains", [[(1, 2), (1, 2), (1, 2, 3)], [(1, 2)] * 2 + [(1, 2, 3)] * 2,
                                     [(1, 2, 3)] * 3, [(1, 3), (1, 3), (2, 3)]])
def test_permutation_groups_beside_other_kinds(domains):
    n = len(domains)
    model = model_of(domains, [AllDifferent(tuple(range(n))), Linear((1,), (0,), ">=", 1)])
    assert_matches_brute_force(model)


def test_unknown_linear_operator_is_an_error_not_an_answer():
    model = model_of([range(3)] * 2, [Linear((1, 1), (0, 1), "<", 2)])
    for variant in VARIANTS:
        result = solve(variant, model)
        assert result.status == Status.ERROR and "'<'" in result.message


def test_given_for_an_unknown_variable_is_an_error():
    model = model_of([range(3)] * 2, [Linear((1, 1), (0, 1), "==", 2)], givens=((5, 1),))
    for variant in VARIANTS:
        assert solve(variant, model).status == Status.ERROR


# ----- propagation: what ``fast`` settles without branching --------------------------------
@pytest.mark.parametrize("domains, constraints, answer", [
    # Linear bounds, to a fixpoint inside one constraint, negative coefficients too
    ([range(1, 4)] * 3, [Linear((1, 1, 1), (0, 1, 2), "==", 9)], (3, 3, 3)),
    ([range(-3, 4)] * 2, [Linear((-1, 2), (0, 1), ">=", 9)], (-3, 3)),
    ([range(0, 10)] * 3, [Linear((5, 1, -1), (0, 1, 2), "<=", -9)], (0, 0, 9)),
    # != removes the one value left to avoid
    ([range(0, 2)] * 2, [Linear((1, 1), (0, 1), "!=", 1), Table((0,), ((1,),))], (1, 1)),
    # a ternary Table: arc consistency by supports
    ([range(0, 3)] * 3, [Table((0, 1, 2), ((0, 1, 2), (2, 1, 0))), Table((0,), ((2,),))], (2, 1, 0)),
    # x != y + c: forward checking along a chain
    ([(0, 1)] * 4, [NotEqualOffset(i, i + 1) for i in range(3)] + [Table((0,), ((1,),))],
     (1, 0, 1, 0)),
    ([(5, 6, 7), (1, 2)], [NotEqualOffset(0, 1, 5), NotEqualOffset(0, 1, 4),
                           NotEqualOffset(1, 0, -6), Table((1,), ((2,),))], (5, 2)),
    # hidden single in a permutation group: value 3 has one place left
    ([(1, 2), (1, 2), (1, 2, 3)], [AllDifferent((0, 1, 2)), Linear((1,), (0,), ">=", 1)],
     None),
    # one-hot rows: one 1 fixes the rest to 0, all-but-one 0 forces the last to 1
    ([(0, 1)] * 4, [Linear((1, 1, 1, 1), (0, 1, 2, 3), "==", 1), Table((1,), ((1,),))],
     (0, 1, 0, 0)),
    ([(0, 1)] * 3, [Linear((-1, -1, -1), (0, 1, 2), "==", -1),
                    Table((0,), ((0,),)), Table((2,), ((0,),))], (0, 1, 0)),
    # x - y == c on consecutive values: a hole in one domain reaches the other
    ([(1, 3), range(1, 6)], [Linear((1, -1), (1, 0), "==", 2)], None),
])
def test_fast_settles_by_propagation_alone(domains, constraints, answer):
    model = model_of(domains, constraints)
    truth = every_solution(model)
    result = solve("fast", model, "count", limit=100)
    assert result.count == len(truth) and sorted(result.solutions) == truth
    if answer is not None:
        assert truth == [answer]
        assert result.nodes == 0 and result.backtracks == 0
    else:        # several solutions: propagation leaves only branches that succeed
        assert result.backtracks == 0


def test_hidden_single_in_a_permutation_group_alone():
    # x2 is the only place for 3: fixed at the root, so the two solutions need one branch
    model = model_of([(1, 2), (1, 2), (1, 2, 3)],
                     [AllDifferent((0, 1, 2)), Linear((1,), (0,), ">=", 1)])
    result = solve("fast", model, "count", limit=10)
    assert result.count == 2 and result.nodes == 2 and result.backtracks == 0


PAIRS_123 = tuple((a, b) for a in (1, 2, 3) for b in (1, 2, 3) if a != b)


@pytest.mark.parametrize("constraints", [
    [Table((0, 1), PAIRS_123), Table((2, 3), PAIRS_123)],          # 4 loses every place
    [Table((1, 2), ((1, 2), (2, 1))), Table((2, 3), ((1, 2), (2, 1)))],   # x0 is 3 and 4's only place
])
def test_permutation_group_refutes_at_the_root(constraints):
    model = model_of([range(1, 5)] * 4, [AllDifferent((0, 1, 2, 3))] + constraints)
    assert every_solution(model) == []
    result = solve("fast", model)
    assert result.status == Status.UNSAT and result.nodes == 0


def test_looser_groups_get_no_hidden_singles():
    # 4 values for 3 variables: value 4 may go unused, so nothing is forced
    model = model_of([(1, 2), (1, 2), (1, 2, 3, 4)],
                     [AllDifferent((0, 1, 2)), Linear((1,), (0,), ">=", 1)])
    assert solve("fast", model, "count", limit=10).count == len(every_solution(model)) == 4


def test_seed_does_not_propagate():
    """The baseline only checks assigned variables: it places every variable itself."""
    model = model_of([range(1, 4)] * 3, [Linear((1, 1, 1), (0, 1, 2), "==", 9)])
    fast, seed = solve("fast", model), solve("seed", model)
    assert fast.solution == seed.solution == (3, 3, 3)
    assert fast.nodes == 0 and seed.nodes == 3


# ----- the puzzle kinds, in both variants --------------------------------------------------
def sudoku_sample() -> Sudoku:
    rows = (SAMPLES / "boj2239.txt").read_text().split()
    return Sudoku(9, tuple(int(ch) for row in rows for ch in row))


def test_seed_on_pairwise_sudoku_is_the_reference_algorithm():
    """Same variable order, same values, same checks: the alldiff seed's very nodes."""
    puzzle = sudoku_sample()
    answer = tuple(int(ch) for ch in (SAMPLES / "boj2239.out").read_text() if ch.isdigit())
    reference = solve("seed", puzzle.to_model("alldiff"), "lexfirst")
    pairwise = solve("seed", puzzle.to_model("pairwise"), "lexfirst")
    assert isinstance(engine("seed").translate(puzzle.to_model("pairwise")).search,
                      general.SeedSearch)
    assert pairwise.solution == reference.solution == answer
    assert pairwise.nodes == reference.nodes > 0


@pytest.mark.parametrize("formulation", ["pairwise", "onehot"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_sudoku_formulations_lexfirst_is_the_judge_answer(variant, formulation):
    puzzle = sudoku_sample()
    answer = tuple(int(ch) for ch in (SAMPLES / "boj2239.out").read_text() if ch.isdigit())
    result = solve(variant, puzzle.to_model(formulation), "lexfirst")
    assert puzzle.decode(result.solution, formulation) == answer


@pytest.mark.parametrize("formulation", ["alldiff", "pairwise"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_queens_counts_and_lexfirst(variant, formulation):
    puzzle = Queens(6)
    model = puzzle.to_model(formulation)
    count = solve(variant, model, "count", limit=100)
    assert count.count == 4 and all(check_model(model, s) is None for s in count.solutions)
    lex = solve(variant, Queens(8).to_model(formulation), "lexfirst")
    assert lex.solution[:8] == (1, 5, 8, 6, 3, 7, 2, 4)


@pytest.mark.parametrize("formulation", ["sum", "columns"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_send_more_money(variant, formulation):
    puzzle = from_text("SEND+MORE=MONEY")
    result = solve(variant, puzzle.to_model(formulation), "count", limit=5)
    assert result.count == 1
    digits = dict(zip(puzzle.letters, puzzle.decode(result.solution, formulation)))
    assert [digits[ch] for ch in "SENDMORY"] == [9, 5, 6, 7, 1, 0, 8, 2]


@pytest.mark.parametrize("formulation", ["pairwise", "table"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_petersen_colourings(variant, formulation):
    graph = read_col((EXAMPLES / "petersen.col").read_text(), "petersen.col")
    three = solve(variant, Coloring(graph, 3).to_model(formulation), "count", limit=1000)
    two = solve(variant, Coloring(graph, 2).to_model(formulation), "count", limit=1000)
    assert three.count == 120 and (two.status, two.count) == (Status.UNSAT, 0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_onehot_4x4_counts_every_grid(variant):
    model = Sudoku(4, (1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0, 0)).to_model("onehot")
    alldiff = Sudoku(4, (1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4, 0, 0)).to_model("alldiff")
    expected = solve(variant, alldiff, "count", limit=1000).count
    assert expected > 1
    assert solve(variant, model, "count", limit=1000).count == expected


# ----- dispatch, caching, limits, deadlines, depth -------------------------------------------
def test_alldifferent_only_models_keep_the_sudoku_paths():
    puzzle = sudoku_sample()
    for variant in VARIANTS:
        assert isinstance(engine(variant).translate(puzzle.to_model("alldiff")).search,
                          (seed.SeedSearch, fast.FastSearch))
        assert isinstance(engine(variant).translate(puzzle.to_model("onehot")).search,
                          (general.SeedSearch, general.FastSearch))


def test_compilation_is_cached_per_key_and_rebuilt_when_the_key_lies():
    a = model_of([range(3)] * 2, [Linear((1, 1), (0, 1), "==", 2)], key="cache-test")
    b = model_of([range(3)] * 2, [Linear((1, 1), (0, 1), "==", 3)], key="cache-test")
    first = general.compiled_for(a.structure)
    assert general.compiled_for(a.structure) is first
    assert general.compiled_for(b.structure) is not first
    assert solve("fast", b, "count", limit=10).count == 2
    assert solve("fast", a, "count", limit=10).count == 3


@pytest.mark.parametrize("variant", VARIANTS)
def test_count_stops_at_the_limit_and_keeps_a_few_solutions(variant):
    model = model_of([range(4)] * 3, [Linear((1, 1, 1), (0, 1, 2), ">=", 0)])
    result = solve(variant, model, "count", limit=20)
    assert result.status == Status.SOLVED and result.count == 20
    assert len(result.solutions) == KEEP_SOLUTIONS
    assert all(check_model(model, s) is None for s in result.solutions)


@pytest.mark.parametrize("formulation", ["alldiff", "pairwise"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_deadline_stops_the_search(variant, formulation):
    result = solve(variant, Queens(12).to_model(formulation), "count", limit=10 ** 6, timeout=0.0)
    assert result.status == Status.TIMEOUT
    assert result.nodes > 0 and (result.count or 0) < 14200


@pytest.mark.parametrize("variant", VARIANTS)
def test_thousands_of_variables_deep_do_not_recurse(variant):
    n = 5000
    chain = [NotEqualOffset(i, i + 1) for i in range(n - 1)]
    model = model_of([(0, 1)] * n, chain + [Linear((1,) * n, tuple(range(n)), "<=", n)])
    result = solve(variant, model, "lexfirst")
    assert result.solution == tuple(i % 2 for i in range(n))
    count = solve(variant, model, "count", limit=10)
    assert count.count == 2


# ----- formulations agree with the AllDifferent path ----------------------------------------
@settings(max_examples=25, deadline=None)
@given(n=st.sampled_from([3, 4, 5]), holes=st.integers(6, 14), seed=st.integers(0, 10 ** 6),
       extra=st.integers(0, 24), value=st.integers(1, 5))
def test_latin_formulations_count_like_the_alldiff_path(n, holes, seed, extra, value):
    """A wrong extra given sometimes, so unsatisfiable grids are compared too."""
    from puzzles.kinds.latin import LatinSquare, generate
    grid = list(generate(n, min(holes, n * n), seed).grid)
    if grid[extra % (n * n)] == 0:
        grid[extra % (n * n)] = min(value, n)
    puzzle = LatinSquare(n, tuple(grid))
    alldiff = solve("fast", puzzle.to_model("alldiff"), "count", limit=10 ** 4)
    assert str(alldiff.status) in ("solved", "unsatisfiable")
    for variant in VARIANTS:
        for formulation in ("pairwise", "onehot"):
            model = puzzle.to_model(formulation)
            count = solve(variant, model, "count", limit=10 ** 4)
            lex = solve(variant, model, "lexfirst")
            assert (count.status, count.count) == (alldiff.status, alldiff.count)
            assert all(check_model(model, s) is None for s in count.solutions)
            if alldiff.count:
                first = solve(variant, puzzle.to_model("alldiff"), "lexfirst").solution
                assert puzzle.decode(lex.solution, formulation) == first


def test_a_shape_too_big_for_the_fast_layout_is_searched_by_the_general_search(monkeypatch,
                                                                                 fresh_cache):
    """The fast layout's masks grow with the square of the model (a 6,561-cell Sudoku
    of side 81 would need about 5 GB): over the budget the engine searches with the
    general search instead, to the same answers."""
    from engines.backtracking.python.layout import layout_bytes
    from puzzles.loader import load_puzzles
    puzzle = load_puzzles(str(Path(__file__).resolve().parents[2] / "puzzles/data/gen-9x9-easy.txt"))[0].puzzle
    model = puzzle.to_model("alldiff")
    engine = get_engine("backtracking")
    usual = engine.solve(model, "all", 2, 10.0)
    assert isinstance(engine.translate(model).search, fast.FastSearch)
    needed = layout_bytes(shapes.shape_for(model.structure))
    monkeypatch.setattr(fast, "LAYOUT_MAX_BYTES", needed - 1)
    shapes._SHAPES.clear()
    translated = engine.translate(model)
    assert isinstance(translated.search, general.FastSearch)
    assert engine.solve(model, "all", 2, 10.0).solutions == usual.solutions


def test_dom_wdeg_turns_to_the_variables_in_conflict():
    """Six pigeons in five holes behind ten free Booleans: smallest domain first would
    try the Booleans' 1,024 combinations each with the pigeons' refutation under it
    (about 212,000 nodes); the conflict weights send the search to the pigeons."""
    pigeons, free = 6, 10
    n = pigeons + free
    cons = tuple(NotEqualOffset(a, b, 0) for a, b in itertools.combinations(range(pigeons), 2))
    cons += (Linear((1,) * free, tuple(range(pigeons, n)), ">=", 0),)
    structure = Structure("pigeons-behind-free", tuple(f"x{i}" for i in range(n)),
                          tuple([tuple(range(pigeons - 1))] * pigeons + [(0, 1)] * free),
                          cons)
    for mode in ("first", "count"):
        result = get_engine("backtracking").solve(Model(structure), mode, timeout=60)
        assert result.status == Status.UNSAT and result.count in (None, 0)
        assert result.nodes < 20_000, (mode, result.nodes)
