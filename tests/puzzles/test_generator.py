"""The seeded generator: valid full grids, unique puzzles, the CLI and the default set."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.cli.generate import main as generate_main
from compare.judge.checker import check
from engines import solution_counter as counter
from puzzles.kinds.default_set import GENERATED, default_puzzle_files
from puzzles.kinds.generator import carve, full_grid, generate, warmup_puzzles
from puzzles.kinds.sudoku import Sudoku
from puzzles.loader import load_puzzles

REPO = Path(__file__).resolve().parents[2]
count_solutions = counter("backtracking")


def blank(n: int) -> Sudoku:
    return Sudoku(n, (0,) * (n * n))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([4, 9, 16, 25]), st.integers(0, 10 ** 6))
def test_full_grid_is_a_solved_sudoku(n, seed):
    grid = full_grid(n, random.Random(seed))
    assert check(blank(n), grid) is None


def test_full_grids_differ_between_seeds():
    grids = {full_grid(9, random.Random(seed)) for seed in range(20)}
    assert len(grids) == 20


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([4, 9]), st.integers(0, 10 ** 6))
def test_carved_puzzle_is_unique_and_keeps_the_solution(n, seed):
    rng = random.Random(seed)
    solution = full_grid(n, rng)
    target = 4 if n == 4 else 26
    puzzle = carve(solution, n, target, rng, count_solutions)
    assert puzzle.clues >= target
    assert all(v in (0, s) for v, s in zip(puzzle.grid, solution))
    assert count_solutions(puzzle.to_model(), 2) == 1


def test_generate_is_reproducible_and_reaches_easy_targets():
    first = generate(9, 3, 34, seed=7, count_solutions=count_solutions)
    again = generate(9, 3, 34, seed=7, count_solutions=count_solutions)
    other = generate(9, 3, 34, seed=8, count_solutions=count_solutions)
    assert [p.grid for p in first] == [p.grid for p in again]
    assert [p.grid for p in first] != [p.grid for p in other]
    assert [p.clues for p in first] == [34, 34, 34]


def test_generate_16x16_is_unique():
    (puzzle,) = generate(16, 1, 170, seed=3, count_solutions=count_solutions)
    assert puzzle.clues == 170
    assert count_solutions(puzzle.to_model(), 2) == 1


def test_generate_rejects_impossible_clue_target():
    with pytest.raises(ValueError):
        generate(4, 1, 17, seed=1, count_solutions=count_solutions)


def test_warmup_puzzles_are_nearly_full_and_solvable():
    for puzzle in warmup_puzzles():
        assert puzzle.clues > puzzle.n * puzzle.n // 2
        assert count_solutions(puzzle.to_model(), 1) == 1


def test_cli_writes_loadable_puzzles(tmp_path):
    out = tmp_path / "gen.txt"
    assert generate_main(["--size", "4", "--count", "5", "--clues", "6",
                          "--seed", "2", "--out", str(out)]) == 0
    entries = load_puzzles(str(out))
    assert len(entries) == 5
    assert all(e.error is None and e.puzzle.clues == 6 for e in entries)
    assert out.read_text().splitlines()[1].startswith(
        "# generated: python run_compare.py generate")


def test_cli_refuses_to_overwrite_and_bad_targets(tmp_path, capsys):
    out = tmp_path / "gen.txt"
    out.write_text("keep me\n")
    assert generate_main(["--size", "4", "--count", "1", "--out", str(out)]) == 2
    assert out.read_text() == "keep me\n"
    assert generate_main(["--size", "4", "--count", "1", "--clues", "99"]) == 2
    assert generate_main(["--size", "4", "--engine", "nosuch"]) == 2
    assert "error" in capsys.readouterr().err


def test_default_set_loads_and_every_generated_puzzle_is_unique():
    files = default_puzzle_files()
    assert len(files) == 2 + len(GENERATED)
    total = 0
    for path in files:
        entries = load_puzzles(path)
        assert all(e.error is None for e in entries), path
        if Path(path).name in GENERATED:
            side, count, *_ = GENERATED[Path(path).name]
            assert len(entries) == count
            for e in entries:
                assert e.puzzle.n == side
                assert count_solutions(e.puzzle.to_model(), 2) == 1
        total += len(entries)
    assert total >= 40


def test_puzzles_package_does_not_import_engines():
    code = ("import sys, puzzles.kinds.generator, puzzles.kinds.default_set; "
            "print(any(m == 'engines' or m.startswith('engines.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("size, counts, clues", [
    (4, (1, 4, 9, 15, 16, 17), None), (9, (1, 9, 16), None), (16, (1, 16), None),
    (25, (1, 2), 560),
])
def test_generated_files_read_back_as_written(size, counts, clues, tmp_path):
    """Sixteen 4x4 puzzles are sixteen lines of 16 cells: without the format comment,
    detection would read them as one 16x16 grid."""
    for count in counts:
        out = tmp_path / f"gen-{size}-{count}.txt"
        args = ["--size", str(size), "--count", str(count), "--seed", "3", "--out", str(out)]
        assert generate_main(args + (["--clues", str(clues)] if clues else [])) == 0
        written = [line for line in out.read_text().splitlines() if not line.startswith("#")]
        entries = load_puzzles(str(out))
        assert [e.error for e in entries] == [None] * count
        assert [e.puzzle.one_line() for e in entries] == written
        assert {e.puzzle.n for e in entries} == {size}
