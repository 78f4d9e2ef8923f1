"""The ``ace`` engine and its XCSP3 writer: written models read back with the same
solutions, ACE's answers against the brute force in every mode, unsat, the n/a line
without Java, a 9x9 Sudoku through the CLI, and a time limit that ends the JVM."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compare.judge.checker import check_model
from engines import Status, get_engine
from engines.ace import writer as ace_writer
from engines.ace.engine import AceEngine
from engines.ace.writer import write
from engines.contract import KEEP_SOLUTIONS
from puzzles.formats.xcsp3.kind import load_file
from puzzles.model import (
    AllDifferent,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Structure,
    Table,
)
from tests.external.support import grid_kind_model, solutions
from tests.kinds.random_models import corpus

ROOT = Path(__file__).resolve().parents[2]
DATASET = Path("/work/shared/datasets/xcsp3_2024_csp")
needs_ace = pytest.mark.skipif(not AceEngine.available(),
                               reason=AceEngine.unavailable_reason() or "ACE is not available")


def ace_corpus(per_kind: int):
    """The random corpus's models of the kinds the engine declares."""
    return [(kind, seed, model) for kind, seed, model in corpus(per_kind)
            if model.kinds() <= AceEngine.constraint_kinds]


def edge_model() -> Model:
    """The writer's corner cases in one model: a repeated variable in a sum and in a
    table, a zero divisor in a domain, an Element over a list naming its value, a Clause with one variable on both sides, a
    literal whose domain goes beyond 0/1, min of one argument."""
    domains = ((-2, 0, 1, 3), (-1, 0, 2), (0, 1, 2), (0, 1), (-1, 0, 1, 2))
    cons = (Linear((1, 2, -1), (0, 1, 0), "<=", 3),
            Table((1, 1, 2), ((2, 2, 0), (0, 1, 1), (-1, -1, 1), (0, 0, 0), (0, 0, 1))),
            Arith("div", (0, 2), 3), Arith("mod", (0, 4), 3), Arith("pow", (0, 2), 3),
            Element(3, (4, 2, 1), 0, base=0), Clause((3,), (3, 2)),
            ReifiedLinear((1, 1), (0, 4), ">=", 1, 2, implied=True),
            Arith("min", (4,), 4), NotEqualOffset(0, 1, -1), NotEqualOffset(4, 4, 1))
    return Model(Structure("ace-edges", tuple(f"e{i}" for i in range(5)), domains, cons))


def read_back(model: Model, folder: Path) -> Model:
    path = folder / f"model{len(list(folder.iterdir()))}.xml"
    path.write_text(write(model))
    return load_file(str(path)).model


def projected(model: Model, size: int) -> list[tuple[int, ...]]:
    """The solutions of a model read back, on the source's ``size`` variables."""
    return sorted({s[:size] for s in solutions(model)})


@pytest.mark.parametrize("seed", range(3))
def test_written_instance_read_back_has_the_same_solutions_per_kind(seed, tmp_path):
    models = [m for _, s, m in ace_corpus(seed + 1) if s == seed] + [grid_kind_model(seed)]
    for model in models:
        back = read_back(model, tmp_path)
        assert back.structure.variables[:model.structure.size] == tuple(
            f"x{i}" for i in range(model.structure.size))
        assert projected(back, model.structure.size) == solutions(model), model.structure.key


def test_corner_cases_read_back_with_the_same_solutions(tmp_path):
    model = edge_model()
    assert solutions(model)
    assert projected(read_back(model, tmp_path), 5) == solutions(model)


def test_arith_past_the_table_cap_reads_back_as_guarded_intensions(tmp_path, monkeypatch):
    monkeypatch.setattr(ace_writer, "TABLE_CAP", 0)
    models = [m for kind, _, m in corpus(12) if kind == "Arith"] + [edge_model()]
    for model in models:
        text = write(model)
        assert all(f"{c.op}(" in text for c in model.structure.constraints
                   if isinstance(c, Arith) and c.op in ("div", "mod", "pow"))
        back = read_back(model, tmp_path)
        assert projected(back, model.structure.size) == solutions(model), model.structure.key


def test_givens_and_a_failing_constraint_are_written(tmp_path):
    base = Structure("ace-givens", ("a", "b"), ((1, 2, 3), (1, 2, 3)), (AllDifferent((0, 1)),))
    given = Model(base, ((0, 2),))
    assert projected(read_back(given, tmp_path), 2) == [(2, 1), (2, 3)]
    outside = Model(base, ((0, 7),))
    assert projected(read_back(outside, tmp_path), 2) == []
    never = Model(Structure("ace-never", ("a",), ((1, 2),), (Clause((), ()),)))
    assert projected(read_back(never, tmp_path), 1) == []


def smallest_instances(count: int) -> list[Path]:
    files = sorted(DATASET.glob("*.xml.lzma"), key=lambda p: p.stat().st_size)
    return files[:count]


@pytest.mark.skipif(not DATASET.is_dir(), reason="the shared XCSP3 2024 dataset is absent")
def test_shared_instances_read_write_read_keep_cpsat_solution(tmp_path):
    for path in smallest_instances(3):
        model = load_file(str(path)).model
        cpsat = get_engine("cpsat")
        first = cpsat.solve(model, "first", timeout=20)
        assert first.status is Status.SOLVED, (path.name, first.message)
        back = read_back(model, tmp_path)
        fixed = Model(back.structure, tuple(enumerate(first.solution)))
        again = cpsat.solve(fixed, "first", timeout=20)
        assert again.status is Status.SOLVED, (path.name, again.status, again.message)
        assert again.solution[:model.structure.size] == first.solution


@needs_ace
@pytest.mark.skipif(not DATASET.is_dir(), reason="the shared XCSP3 2024 dataset is absent")
def test_ace_answer_to_a_shared_instance_satisfies_its_model():
    model = load_file(str(smallest_instances(1)[0])).model
    result = get_engine("ace").solve(model, "first", timeout=30)
    assert result.status is Status.SOLVED, result.message
    assert check_model(model, result.solution) is None


def mismatches(engine, where: str, model: Model, modes=("first", "lexfirst", "count")):
    """How the engine's answers differ from the brute force's (empty: they agree):
    ``first`` a solution the checker accepts or UNSAT exactly when there is none,
    ``lexfirst`` the least solution, ``count`` every solution and no other."""
    every = solutions(model)
    wrong = []
    for mode in modes:
        result = engine.solve(model, mode, limit=len(every) + 1, timeout=30)
        want = Status.SOLVED if every else Status.UNSAT
        if result.status is not want:
            wrong.append(f"{where} {mode}: {result.status} {result.message}, want {want}")
        elif mode == "first" and every and check_model(model, result.solution) is not None:
            wrong.append(f"{where} first: {result.solution} breaks the model")
        elif mode == "lexfirst" and result.solutions[:1] != every[:1]:
            wrong.append(f"{where} lexfirst: {result.solutions[:1]}, want {every[:1]}")
        elif mode == "count" and (result.count != len(every)
                                  or sorted(result.solutions) != every[:KEEP_SOLUTIONS]
                                  and not set(result.solutions) <= set(every)):
            wrong.append(f"{where} count: {result.count}, want {len(every)}")
    return wrong


@needs_ace
def test_ace_matches_brute_force_per_kind():
    engine = get_engine("ace")
    wrong = []
    for kind, seed, model in ace_corpus(2):
        if seed == 1:
            wrong += mismatches(engine, f"{kind} {seed}", model, ("lexfirst", "count"))
    wrong += mismatches(engine, "grid 0", grid_kind_model(0))
    wrong += mismatches(engine, "edges", edge_model())
    assert wrong == []


@needs_ace
def test_ace_count_stops_at_the_limit_and_reports_unsat():
    engine = get_engine("ace")
    counted = engine.solve(queens(5), "count", limit=7, timeout=30)
    assert counted.status is Status.SOLVED and counted.count == 7
    assert len(set(counted.solutions)) == 7
    assert set(counted.solutions) <= set(solutions(queens(5)))
    pigeons = Structure("ace-pigeons", ("a", "b", "c"), ((1, 2),) * 3, (AllDifferent((0, 1, 2)),))
    for mode in ("lexfirst", "count"):
        result = engine.solve(Model(pigeons), mode, timeout=30)
        assert result.status is Status.UNSAT, (mode, result.message)
        assert result.count == (0 if mode == "count" else None)
    outside = Structure("ace-outside", ("a", "b"), ((1, 2), (1, 2)), (Table((0, 1), ((3, 1),)),))
    assert engine.solve(Model(outside), "first", timeout=30).status is Status.UNSAT


@needs_ace
def test_count_of_a_listing_too_long_to_keep_is_aces_own_total():
    free = Structure("ace-free", tuple(f"v{i}" for i in range(5)), (tuple(range(1, 11)),) * 5,
                     (Linear((1,), (0,), ">=", 1),))
    result = get_engine("ace").solve(Model(free), "count", limit=60_000, timeout=60)
    assert result.status is Status.SOLVED, result.message
    assert result.count == 60_000 and len(set(result.solutions)) == KEEP_SOLUTIONS


UNDER_CAP = """
import resource
_, hard = resource.getrlimit(resource.RLIMIT_AS)
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, hard))
from engines import get_engine
from engines.ace.engine import heap_flag
from puzzles.loader import load_puzzles
model = load_puzzles("puzzles/samples/boj2239.txt")[0].puzzle.to_model()
print(heap_flag(2048), get_engine("ace").solve(model, "first", timeout=60).status)
"""


@needs_ace
def test_jvm_starts_under_an_inherited_address_space_cap():
    done = subprocess.run([sys.executable, "-c", UNDER_CAP], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.stdout.split() == ["-Xmx1024m", "solved"], done.stdout + done.stderr


def queens(n: int) -> Model:
    return Model(Structure(f"ace-queens{n}", tuple(f"q{i}" for i in range(n)),
                           (tuple(range(1, n + 1)),) * n,
                           tuple(NotEqualOffset(i, j, c) for i in range(n)
                                 for j in range(i + 1, n) for c in (0, j - i, i - j))))


@needs_ace
def test_lexfirst_search_runs_past_ace_restart_cutoff():
    result = get_engine("ace").solve(queens(8), "lexfirst", timeout=60)
    assert result.status is Status.SOLVED, result.message
    assert result.solution == (1, 5, 8, 6, 3, 7, 2, 4)     # the least of the 92


def test_missing_java_is_one_line_naming_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    if AceEngine.unavailable_reason().startswith("the ACE jar"):
        pytest.skip("pycsp3's ACE jar is not installed")
    assert AceEngine.unavailable_reason() == \
        "java is not installed (Debian package default-jre-headless)"
    assert not AceEngine.available()
    result = get_engine("ace").solve(grid_kind_model(0), "first", timeout=5)
    assert result.status is Status.UNSUPPORTED
    assert result.message == "java is not installed (Debian package default-jre-headless)"


@needs_ace
def test_cli_solves_the_boj2239_sudoku_with_ace():
    done = subprocess.run([sys.executable, "run_compare.py", "solve", "puzzles/samples/boj2239.txt",
                           "--engine", "ace"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (ROOT / "puzzles/samples/boj2239.out").read_text()


def ace_children() -> set[int]:
    """Live children of this process running a model the engine wrote (its temporary
    folder); other runs of ACE on the machine are not this test's."""
    found = set()
    for pid in os.listdir("/proc"):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and any(b"/ace-" in part and part.endswith(b"model.xml")
                                         for part in cmdline):
            found.add(int(pid))
    return found


@needs_ace
def test_time_limit_holds_and_leaves_no_java_process():
    rng = random.Random(3)         # an even sum equal to an odd number: 2^40 leaves
    coeffs = tuple(2 * rng.randint(1000, 100_000) for _ in range(40))
    parity = Structure("ace-hard", tuple(f"b{i}" for i in range(40)), ((0, 1),) * 40,
                       (Linear(coeffs, tuple(range(40)), "==", sum(coeffs) // 2 | 1),))
    start = time.perf_counter()
    result = get_engine("ace").solve(Model(parity), "first", timeout=2)
    took = time.perf_counter() - start
    assert result.status is Status.TIMEOUT, result.message
    assert took < 2 + 1 + 1.0, took               # the limit, the SIGKILL grace, slack
    assert ace_children() == set()
