"""The compiled general search (``backtracking:kernel=numba`` on every model that
is not AllDifferent-only) against the brute force, in every mode and setting.

Ground truth is ``random_models``' brute force (no code shared with the
engine), every ``first`` answer is judged by the independent checker, and
``lexfirst`` and ``count`` must equal the brute force's least solution and
count exactly, whatever the variable order and restart policy. Models hard
enough to restart check that nogoods keep the search exact.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from compare.judge.checker import check_model
from engines import get_engine
from engines.backtracking import shape as shapes
from engines.backtracking.compiled import entry as numba_kernel
from engines.backtracking.compiled.kernel.general import fixpoint, pack
from engines.backtracking.compiled.kernel.general.run import solve
from engines.backtracking.compiled.searches import NumbaGeneralSearch
from engines.contract import Status
from puzzles.model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table
from tests.kinds.engine_checks import assert_matches_brute_force
from tests.kinds.random_models import KINDS, corpus, solutions

pytestmark = pytest.mark.skipif(not numba_kernel.available(),
                                reason=numba_kernel.unavailable_reason() or "numba")
SETTINGS = ("", ":order=cacd", ":restarts=luby", ":restarts=none")


@pytest.fixture
def fresh_cache():
    """Packing depends on module settings some tests change; start and end clean."""
    shapes._SHAPES.clear()
    yield
    shapes._SHAPES.clear()


@pytest.fixture(params=["matching", "intervals"])
def alldiff_rule(request, monkeypatch, fresh_cache):
    """AllDifferent by matching (small unions, the default) or, with matching turned
    off, by Hall intervals and hidden singles (what larger unions get)."""
    if request.param == "intervals":
        monkeypatch.setattr(pack, "GAC_VALUES_MOST", -1)
    return request.param


def engine(setting: str = ""):
    return get_engine(f"backtracking:kernel=numba{setting}")


def test_general_models_go_to_the_compiled_search():
    model = corpus(1)[0][2]
    translated = engine().translate(model)
    assert isinstance(translated.search, NumbaGeneralSearch)
    result = engine().solve(model, "count", limit=10 ** 6)
    assert result.propagations and result.propagations > 0


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_mode_matches_the_brute_force_on_random_models(kind, setting):
    for k, seed, model in corpus():
        if k == kind:
            assert_matches_brute_force(engine(setting), model, (kind, seed, setting))


def test_givens_narrow_the_random_models_exactly():
    for kind, seed, model in corpus(12):
        truth = solutions(model)
        if truth:
            narrowed = Model(model.structure, tuple(enumerate(truth[-1][:2])))
            assert_matches_brute_force(engine(), narrowed, (kind, seed))


def test_arith_past_the_row_limit_matches_the_brute_force_by_forward_checks(
        monkeypatch, fresh_cache):
    monkeypatch.setattr(pack, "ARITH_ROWS_MOST", 0)
    for kind, seed, model in corpus():
        if kind == "Arith":
            packed = pack.Packed(model.structure)
            assert packed.unsat or any(p[0] == pack.L.P_ARITH for p in packed.props)
            assert_matches_brute_force(engine(), model, (seed,))


def _grid_kinds_model(seed: int) -> Model:
    """Linear, NotEqualOffset, Table and AllDifferent over domains of up to 70 values,
    so that a domain spans two words."""
    rng = random.Random(seed)
    n = rng.randint(2, 3)
    domains = []
    for _ in range(n):
        low = rng.randint(-40, 0)
        domains.append(tuple(x for x in range(low, low + rng.randint(3, 70))
                             if rng.random() < 0.8) or (low,))
    cons = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(4)
        xs = tuple(rng.sample(range(n), 2))
        if kind == 0:
            cons.append(Linear((rng.choice((-2, 1, 3)), rng.choice((-1, 1, 2))), xs,
                               rng.choice(("==", "!=", "<=", ">=")), rng.randint(-20, 20)))
        elif kind == 1:
            cons.append(NotEqualOffset(xs[0], xs[1], rng.randint(-3, 3)))
        elif kind == 2:
            rows = {tuple(rng.choice(domains[v]) for v in xs) for _ in range(rng.randint(1, 40))}
            cons.append(Table(xs, tuple(sorted(rows))))
        else:
            cons.append(AllDifferent(tuple(range(n))))
    names = tuple(f"x{i}" for i in range(n))
    return Model(Structure(f"grid-kinds-{seed}", names, tuple(domains), tuple(cons)))


@pytest.mark.parametrize("setting", ("", ":order=cacd"))
def test_the_grid_kinds_over_two_word_domains_match_the_brute_force(setting):
    for seed in range(40):
        model = _grid_kinds_model(seed)
        assert_matches_brute_force(engine(setting), model, (seed, setting))


def _permutation_model(seed: int) -> Model:
    """An AllDifferent whose members have as many values as members between them
    (hidden singles apply), with a Linear or a Table on top."""
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    values = rng.sample(range(-5, 10), n)
    domains = [tuple(sorted(rng.sample(values, rng.randint(1, n)))) for _ in range(n)]
    missing = set(values) - {x for d in domains for x in d}
    if missing:                          # every value in some member: a permutation
        domains[0] = tuple(sorted(set(domains[0]) | missing))
    xs = tuple(rng.sample(range(n), 2))
    extra = Linear((1, -1), xs, rng.choice(("<=", "!=", ">=")), rng.randint(-3, 3)) \
        if seed % 2 else Table(xs, tuple((a, b) for a in values for b in values
                                         if rng.random() < 0.5))
    names = tuple(f"x{i}" for i in range(n))
    return Model(Structure(f"permutation-{seed}", names, tuple(domains),
                           (AllDifferent(tuple(range(n))), extra)))


def test_permutations_take_every_value_exactly_as_the_brute_force_says():
    flag, flagged = pack.PERMUTATION, 0       # hidden singles, not matching
    for seed in range(60):
        model = _permutation_model(seed)
        packed = pack.Packed(model.structure)
        flagged += not packed.unsat and any(k == pack.L.P_ALLDIFF and packed.K[pack.L.PDATA][
            packed.K[pack.L.PPTR][c] + 5] == flag for c, (k, _d, _s) in enumerate(packed.props))
        assert_matches_brute_force(engine(), model, (seed,))
    assert flagged > 40


def _pigeons(pigeons: int, holes: int) -> Model:
    """Pairwise disequalities only (no AllDifferent, whose pigeonhole check would
    answer at once): proving it takes thousands of failures."""
    cons = tuple(NotEqualOffset(i, j) for i in range(pigeons) for j in range(i + 1, pigeons))
    names = tuple(f"p{i}" for i in range(pigeons))
    return Model(Structure(f"pigeons-{pigeons}-{holes}", names,
                           (tuple(range(holes)),) * pigeons, cons))


def _queens(n: int) -> Model:
    cons = []
    for i in range(n):
        for j in range(i + 1, n):
            cons += [NotEqualOffset(i, j), NotEqualOffset(i, j, j - i),
                     NotEqualOffset(i, j, i - j)]
    names = tuple(f"q{i}" for i in range(n))
    return Model(Structure(f"queens-{n}", names, (tuple(range(n)),) * n, tuple(cons)))


@pytest.mark.parametrize("restarts", ("geometric", "luby"))
def test_restarts_and_their_nogoods_keep_an_unsatisfiable_model_unsatisfiable(restarts):
    packed = pack.Packed(_pigeons(8, 7).structure)
    answer = solve(packed, (), "first", restarts=restarts)
    assert answer.status == pack.L.UNSAT and answer.count == 0
    assert answer.stats["restarts"] > 0 and answer.stats["nogoods"] > 0
    assert answer.stats["failures"] > 100


def test_a_restarting_search_finds_a_solution_the_checker_accepts():
    model = _queens(28)
    for order in ("domwdeg", "cacd"):
        answer = solve(pack.Packed(model.structure), (), "first", heuristic=order)
        assert answer.status == pack.L.SOLVED
        assert check_model(model, answer.solutions[0]) is None


def test_count_is_exact_on_a_model_with_many_solutions():
    # 8 queens: 92 solutions, found by an exhaustive search under dom/wdeg
    result = engine().solve(_queens(8), "count", limit=1000)
    assert result.status is Status.SOLVED and result.count == 92
    lex = engine().solve(_queens(8), "lexfirst")
    assert lex.solution == (0, 4, 7, 5, 2, 6, 1, 3)


def test_the_deadline_stops_a_long_search():
    result = engine().solve(_pigeons(13, 12), "first", timeout=0.5)
    assert result.status is Status.TIMEOUT
    assert result.solve_s < 5


def test_a_model_past_the_core_s_value_range_keeps_the_python_search(fresh_cache):
    big = 1 << 62
    model = Model(Structure("too-big", ("a", "b"), ((0, big), (0, 1)),
                            (Linear((1, 1), (0, 1), "<=", big),)))
    translated = engine().translate(model)
    assert not isinstance(translated.search, NumbaGeneralSearch)
    assert engine().solve(model, "count", limit=10).count == 3     # all but (2^62, 1)


def test_ctrl_c_reaches_inside_the_compiled_loop(tmp_path):
    """A search with no deadline stops on SIGINT with KeyboardInterrupt (the kernel
    reads the clock in object mode, where Python raises the pending signal). The
    kernel is loaded first, by a small solve: a signal that arrives while numba loads
    compiled code from its cache is lost inside llvmlite's callback."""
    script = tmp_path / "long.py"
    script.write_text(
        "from tests.kinds.test_compiled_general_search import _pigeons\n"
        "from engines.backtracking.compiled.kernel.general import pack\n"
        "from engines.backtracking.compiled.kernel.general.run import solve\n"
        "solve(pack.Packed(_pigeons(3, 3).structure), (), 'first')\n"
        "p = pack.Packed(_pigeons(15, 14).structure)\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    solve(p, (), 'first')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        assert out.strip() == "interrupted" and proc.returncode == 0
    finally:
        proc.kill()
        proc.wait()


def test_tables_with_the_same_rows_over_the_same_domains_share_their_supports():
    rows = tuple((a, b) for a in range(100) for b in range(4) if (a + b) % 3 == 0)
    wide, narrow = tuple(range(100)), (0, 1, 2, 3)
    domains = (wide, narrow, wide, narrow)
    one = Structure("one-table", ("a", "b"), domains[:2], (Table((0, 1), rows),))
    two = Structure("two-tables", ("a", "b", "c", "d"), domains,
                    (Table((0, 1), rows), Table((2, 3), rows), Linear((1, 1), (1, 3), "==", 3)))
    assert pack.Packed(two).K[pack.L.CTS].size == pack.Packed(one).K[pack.L.CTS].size
    assert_matches_brute_force(engine(), Model(two), ("shared",))


def _key_column_model(seed: int) -> Model:
    """A table of 300 rows whose first position takes each of 300 values once (a key,
    as a word variable over a dictionary), two letters beside it, and a second table
    or a Linear on the letters: the key position is packed as row lists."""
    rng = random.Random(seed)
    keys = list(range(300))
    rng.shuffle(keys)
    rows = tuple(sorted((k, rng.randrange(5), rng.randrange(5)) for k in keys))
    key_domain = tuple(sorted(rng.sample(range(300), 300 if seed % 3 == 0 else rng.randint(1, 300))))
    letters = tuple(range(5))
    extra = Linear((1, 1), (1, 2), rng.choice(("==", "<=", "!=")), rng.randint(0, 8)) \
        if seed % 2 else Table((1, 2), tuple((a, b) for a in letters for b in letters
                                            if rng.random() < 0.4))
    return Model(Structure(f"key-column-{seed}", ("word", "first", "second"),
                           (key_domain, letters, letters), (Table((0, 1, 2), rows), extra)))


@pytest.mark.parametrize("setting", ("", ":order=cacd"))
def test_key_column_tables_listed_by_rows_match_the_brute_force(setting):
    model = _key_column_model(0)
    packed = pack.Packed(model.structure)
    table = next(c for c, (k, _d, _s) in enumerate(packed.props) if k == pack.L.P_TABLE)
    start = packed.K[pack.L.PPTR][table] + 6
    assert packed.K[pack.L.PDATA][start + 1] < 0          # the key position: row lists
    assert packed.K[pack.L.PDATA][start + 4] >= 0         # a letter: bitsets
    for seed in range(20):
        assert_matches_brute_force(engine(setting), _key_column_model(seed), (seed, setting))


def test_lexfirst_and_count_equal_the_python_reference_and_cp_sat():
    """One corpus, three engines: the least solution and the count agree."""
    others = (get_engine("backtracking"), get_engine("cpsat"))
    for kind, seed, model in corpus(6):
        want = [(e.solve(model, "lexfirst").solution, e.solve(model, "count", limit=500).count)
                for e in others]
        got = (engine().solve(model, "lexfirst").solution,
               engine().solve(model, "count", limit=500).count)
        assert want == [got, got], (kind, seed)


def _root_sizes(model: Model) -> list[int]:
    """Domain sizes after propagation at the root."""
    packed = pack.Packed(model.structure)
    work = packed.workspace()
    fixpoint.schedule_all(packed.K, work)
    nogoods = np.zeros(1, np.int64)
    assert fixpoint.propagate(packed.K, work, np.inf, nogoods, nogoods, nogoods, 0)
    return work[pack.L.S][packed.K[pack.L.INFO][pack.L.I_SZ]:][:model.structure.size].tolist()


def test_matching_removes_the_values_inside_intervals_that_bounds_keep(alldiff_rule):
    # x0, x1 in {1, 3} take 1 and 3 between them: x2 in {1, 2, 3} must be 2, and x3
    # in {2, 3, 4, 5} keeps 4 and 5 (five values: no permutation, no hidden single);
    # bounds see x0..x2 in [1, 3] and narrow x3 alone
    model = Model(Structure("holes", ("x0", "x1", "x2", "x3"),
                            ((1, 3), (1, 3), (1, 2, 3), (2, 3, 4, 5)),
                            (AllDifferent((0, 1, 2, 3)), Linear((1,), (0,), ">=", 0))))
    expected = [2, 2, 1, 2] if alldiff_rule == "matching" else [2, 2, 3, 2]
    assert _root_sizes(model) == expected
    assert_matches_brute_force(engine(), model, (alldiff_rule,))


def test_hall_intervals_narrow_bounds_without_branching(alldiff_rule):
    # x0, x1 in {1, 2} hold the interval [1, 2] (no permutation: five values, four
    # members): x2 in 1..3 must be 3 at the root, and x3 loses 2 and 3
    model = Model(Structure("hall", ("x0", "x1", "x2", "x3"),
                            ((1, 2), (1, 2), (1, 2, 3), (2, 3, 4, 5)),
                            (AllDifferent((0, 1, 2, 3)),)))
    assert _root_sizes(model) == [2, 2, 1, 2]
    crowded = Model(Structure("hall-crowded", ("x0", "x1", "x2"),
                              ((1, 2), (1, 2), (1, 2, 5)), (AllDifferent((0, 1, 2)),
                                                            Linear((1,), (2,), "<=", 4))))
    assert engine().solve(crowded, "first").status is Status.UNSAT


@pytest.mark.parametrize("seed", range(40))
def test_alldifferent_over_interval_domains_matches_the_brute_force(seed, alldiff_rule):
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    domains = []
    for _ in range(n):
        low = rng.randint(0, 4)
        domains.append(tuple(range(low, low + rng.randint(1, 4))))
    # a Linear that always holds keeps the model off the AllDifferent-only kernels
    cons = [AllDifferent(tuple(range(n))), Linear((1,), (0,), ">=", -1)]
    if seed % 2:
        cons.append(Linear((1, 1), (0, n - 1), rng.choice(("<=", ">=", "!=")), rng.randint(2, 8)))
    names = tuple(f"x{i}" for i in range(n))
    model = Model(Structure(f"interval-alldiff-{seed}", names, tuple(domains), tuple(cons)))
    assert_matches_brute_force(engine(), model, (seed,))
