"""Gecode from the command line: one Sudoku solved, and a small comparison whose
answers are all verified."""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from tests.external.support import needs_gecode

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "puzzles" / "samples" / "boj2239.txt"


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


@needs_gecode
def test_solve_prints_the_sudokus_answer_with_gecode():
    done = subprocess.run([sys.executable, "run_compare.py", "solve", "--puzzle", str(SAMPLE),
                           "--engine", "gecode"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert _digits(done.stdout) == _digits((REPO / "puzzles/samples/boj2239.out").read_text())


@needs_gecode
def test_comparison_with_gecode_verifies_every_answer(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "run_compare.py", "--puzzles", str(SAMPLE),
                           "queens:6", "--engines", "backtracking,gecode", "--repeat", "1",
                           "--workers", "1", "--out", str(out), "--quiet"],
                          cwd=REPO, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out / "results.csv", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["engine"] == "gecode"]
    assert len(rows) == 2
    for row in rows:
        assert (row["status"], row["verified"]) == ("solved", "True"), row
        assert float(row["build_s"]) > 0 and float(row["solve_s"]) > 0
        assert row["version"].startswith("Gecode ")
