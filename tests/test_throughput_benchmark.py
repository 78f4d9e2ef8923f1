"""The throughput benchmark runs each engine alone and puts the rates side by side."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "throughput.py"
EASY = REPO / "puzzles" / "data" / "gen-9x9-easy.txt"

pytestmark = pytest.mark.slow


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def test_each_engine_gets_its_own_clock_and_wall_rates():
    done = run(EASY, "--engines", "backtracking,backtracking:variant=seed", "--sample", 6)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines()
            if line.startswith("| backtracking")]
    assert [r[0] for r in rows] == ["| backtracking", "| backtracking:variant=seed"]
    for cells in rows:
        puzzles, solved, wrong = cells[2:5]
        assert (puzzles, solved, wrong) == ("6", "6", "0")
        assert all(c.endswith("/s") for c in cells[5:8]), cells   # solve_s, total_s, wall


def test_a_missing_file_is_one_line_and_exit_2(tmp_path):
    done = run(tmp_path / "nothing.txt")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"throughput: no such puzzle file: {tmp_path / 'nothing.txt'}"]


def test_an_unknown_engine_is_one_line_and_exit_2():
    done = run(EASY, "--engines", "nosuch")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "throughput: unknown engine 'nosuch'"), done.stderr


def test_engines_are_all_checked_before_any_runs_and_options_stay_with_their_engine():
    done = run(EASY, "--engines", "backtracking,nosuch", "--sample", 2)
    assert (done.returncode, done.stdout) == (2, "")     # backtracking did not run first
    done = run(EASY, "--engines", "backtracking:variant=fast,kernel=python", "--sample", 2)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| backtracking")]
    assert len(rows) == 1 and " | 2 | 2 | 0 | " in rows[0]
