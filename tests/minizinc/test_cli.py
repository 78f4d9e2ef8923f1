"""MiniZinc input from the command line: solve prints the answer MiniZinc's way, a bad
model is MiniZinc's error with exit 2, and a run judges the answers on the FlatZinc."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

from puzzles.formats.minizinc.flatten import NO_MINIZINC
from tests.minizinc.support import needs_minizinc, write_pair

REPO = Path(__file__).resolve().parents[2]


def compare(*args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COMPARE_INSTANCE_CACHE": str(cwd / "cache")}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, str(REPO / "run_compare.py"), *args], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=300)


@needs_minizinc
def test_solve_says_a_compile_error_as_minizinc_printed_it_with_exit_2(tmp_path):
    (tmp_path / "bad.mzn").write_text("int: n = 3;\nvar 1..n: x;\nconstraint x = y;\n"
                                      "solve satisfy;\n")
    proc = compare("solve", "--puzzle", "bad.mzn", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "Traceback" not in proc.stderr
    assert proc.stderr == (f"error: bad.mzn: Error: type error: undefined identifier `y', "
                           f"did you mean `n'?\n{tmp_path / 'bad.mzn'}:3.16\n")   # its block


@needs_minizinc
def test_solve_prints_a_pairs_answer_as_minizinc_does(tmp_path):
    write_pair(tmp_path)
    proc = compare("solve", "--puzzle", "tiny.mzn:three.dzn", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] in ("b = true;", "b = false;") and lines[1].startswith("x = array1d(1..3, [")


def test_solve_without_minizinc_says_to_install_it_with_exit_2(tmp_path):
    write_pair(tmp_path)
    (tmp_path / "bin").mkdir()
    proc = compare("solve", "--puzzle", "tiny.mzn:three.dzn", cwd=tmp_path,
                   path=str(tmp_path / "bin"))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"error: tiny.mzn:three.dzn: {NO_MINIZINC}\n"


@needs_minizinc
def test_a_run_solves_pairs_in_its_workers_and_verifies_them(tmp_path):
    write_pair(tmp_path)
    (tmp_path / "four.json").write_text('{"n": 4}\n')
    proc = compare("--puzzles", str(tmp_path), "--engines", "backtracking", "--repeat", "1",
                   "--workers", "1", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "out" / "results.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["puzzle_id"] for r in rows) == ["tiny:four", "tiny:three"]
    assert all(r["verified"] in ("True", "true", "1") for r in rows), rows
    assert "every answer was verified" in proc.stderr
