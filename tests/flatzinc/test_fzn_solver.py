"""``fzn-backtracker``: the backtracker as a FlatZinc solver, alone and under MiniZinc."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT.parent / "shared" / "datasets" / "minizinc_sat"
SCRIPT = Path(sys.executable).parent / "fzn-backtracker"

QUEENS = """array [1..4] of var 1..4: q :: output_array([1..4]) = [q1, q2, q3, q4];
"""
FOUR = "".join(f"var 1..4: q{i};\n" for i in range(1, 5))
PAIRS = "".join(
    f"constraint int_ne(q{i}, q{j});\n"
    f"constraint int_lin_ne([1, -1], [q{i}, q{j}], {j - i});\n"
    f"constraint int_lin_ne([1, -1], [q{i}, q{j}], {i - j});\n"
    for i in range(1, 5) for j in range(i + 1, 5))


def fzn(tmp_path, text: str, name: str = "m.fzn") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def solver(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compare.cli.fzn", *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_one_solution_then_all_then_none(tmp_path):
    path = fzn(tmp_path, FOUR + QUEENS + PAIRS + "solve satisfy;\n")
    one = solver(path)
    assert one.returncode == 0, one.stderr
    lines = one.stdout.splitlines()
    assert lines[0].startswith("q = array1d(1..4, [") and lines[1] == "----------"
    every = solver("-a", "-s", path)
    assert every.stdout.count("----------") == 2 and every.stdout.rstrip().endswith("==========")
    assert "q = array1d(1..4, [2, 4, 1, 3]);" in every.stdout
    assert "%%%mzn-stat: nodes=" in every.stdout and "%%%mzn-stat: failures=" in every.stdout
    assert "%%%mzn-stat: restarts=0" in every.stdout and "propagations=" not in every.stdout
    none = solver(fzn(tmp_path, FOUR + QUEENS + PAIRS + "constraint int_eq(q1, 1);\n"
                      "constraint int_eq(q2, 3);\nsolve satisfy;\n", "u.fzn"))
    assert none.returncode == 0 and none.stdout.strip() == "=====UNSATISFIABLE====="


def test_faults_are_one_line_and_untranslatable_models_unknown(tmp_path):
    bad = solver(fzn(tmp_path, "var 1..3: x;\nconstraint int_eq(x 2);\nsolve satisfy;\n"))
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "m.fzn:2:" in bad.stderr
    opt = solver(fzn(tmp_path, "var 1..3: x;\nsolve minimize x;\n", "o.fzn"))
    assert opt.returncode == 0 and opt.stdout.strip() == "=====UNKNOWN====="
    assert "optimisation is not supported" in opt.stderr
    assert solver().returncode == 2 and solver(tmp_path / "gone.fzn").returncode == 2
    for flags in (["-t", "-5"], ["-t", "0"], ["-n", "0"], ["-n", str(10 ** 20)]):
        refused = solver(*flags, tmp_path / "o.fzn")
        assert refused.returncode == 2 and refused.stdout == "", flags
        assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: -"), flags


needs_minizinc = pytest.mark.skipif(shutil.which("minizinc") is None or not SCRIPT.exists(),
                                    reason="needs MiniZinc (Debian package minizinc) and the "
                                           "installed fzn-backtracker script")


@pytest.fixture
def installed(tmp_path):
    folder = tmp_path / "solvers"
    done = subprocess.run([str(SCRIPT), "--install", str(folder)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return {**os.environ, "MZN_SOLVER_PATH": str(folder)}


@needs_minizinc
def test_minizinc_runs_the_backtracker_on_its_own_library(tmp_path, installed):
    listed = subprocess.run(["minizinc", "--solvers"], capture_output=True, text=True,
                            env=installed, timeout=60)
    assert "org.cspcompare.backtracker" in listed.stdout
    model = tmp_path / "q.mzn"
    model.write_text("include \"alldifferent.mzn\";\nint: n;\narray [1..n] of var 1..n: q;\n"
                     "constraint alldifferent(q);\n"
                     "constraint alldifferent([q[i] + i | i in 1..n]);\n"
                     "constraint alldifferent([q[i] - i | i in 1..n]);\nsolve satisfy;\n")
    (tmp_path / "six.dzn").write_text("n = 6;\n")
    (tmp_path / "three.dzn").write_text("n = 3;\n")
    run = subprocess.run(["minizinc", "--solver", "backtracker", "-a", str(model),
                          str(tmp_path / "six.dzn")], capture_output=True, text=True,
                         env=installed, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("----------") == 4 and "==========" in run.stdout
    none = subprocess.run(["minizinc", "--solver", "backtracker", str(model),
                           str(tmp_path / "three.dzn")], capture_output=True, text=True,
                          env=installed, timeout=120)
    assert "=====UNSATISFIABLE=====" in none.stdout


@needs_minizinc
@pytest.mark.skipif(not DATASET.is_dir(), reason="the minizinc_sat dataset is absent")
def test_minizinc_answers_dataset_pairs_it_accepts(installed):
    for model, data, expected in [("areas/areas.mzn", "areas/2_2_1.dzn", "sat"),
                                  ("areas/areas.mzn", "areas/3_3_5.dzn", "unsat"),
                                  ("QCP/qcp-10-67-0_ext.mzn", None, "sat")]:
        argv = ["minizinc", "--solver", "backtracker", "-t", "60000", str(DATASET / model)]
        argv += [str(DATASET / data)] if data else []
        run = subprocess.run(argv, capture_output=True, text=True, env=installed, timeout=180)
        assert run.returncode == 0, run.stderr
        if expected == "sat":
            assert "----------" in run.stdout and "UNSATISFIABLE" not in run.stdout
        else:
            assert "=====UNSATISFIABLE=====" in run.stdout
