"""MiniZinc run by the loader: the library it flattens with, its errors, its absence."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from puzzles.errors import PuzzleInputError
from puzzles.formats.minizinc import flatten as mzn
from puzzles.formats.minizinc import kind
from tests.minizinc.support import needs_minizinc, write_pair

REPO = Path(__file__).resolve().parents[2]


def test_the_solver_configuration_names_the_shipped_library(tmp_path):
    import json
    config = json.loads(mzn.solver_config(tmp_path).read_text())
    assert Path(config["mznlib"]) == mzn.MZNLIB.resolve() and config["supportsFzn"] is True
    shipped = sorted(p.name for p in mzn.MZNLIB.iterdir())
    assert shipped == ["fzn_all_different_int.mzn", "fzn_table_int.mzn"]


@needs_minizinc
def test_all_different_and_table_stay_whole_and_other_globals_are_decomposed(tmp_path):
    model = tmp_path / "globals.mzn"
    model.write_text('include "globals.mzn";\narray[1..3] of var 1..3: x;\n'
                     'constraint alldifferent(x);\nconstraint table(x, [|1,2,3|3,2,1|]);\n'
                     'constraint increasing([x[1], x[3]]);\nsolve satisfy;\n')
    flat, seconds = mzn.flatten(str(model))
    names = {c.name for c in flat.constraints}
    assert {"fzn_all_different_int", "fzn_table_int"} <= names and seconds > 0
    assert not any("increasing" in n for n in names)          # the std decomposition


@needs_minizinc
def test_a_compile_error_is_minizincs_own_error_block(tmp_path):
    bad = tmp_path / "bad.mzn"
    bad.write_text("int: n = 3;\nvar 1..n: x;\nconstraint x = y;\nsolve satisfy;\n")
    with pytest.raises(PuzzleInputError) as caught:
        mzn.flatten(str(bad), source="bad.mzn")
    said = subprocess.run(["minizinc", "--solver", str(mzn.solver_config(tmp_path)), "-c",
                           str(bad), "--fzn", str(tmp_path / "o.fzn"), "--ozn",
                           str(tmp_path / "o.ozn")], capture_output=True, text=True)
    assert said.returncode != 0
    assert caught.value.message == said.stderr.strip()
    assert "undefined identifier `y'" in caught.value.message
    assert f"{bad}:3." in caught.value.message and "\n" in caught.value.message


@needs_minizinc
def test_an_optimisation_model_flattens_and_its_model_is_not_applicable(tmp_path):
    model = tmp_path / "opt.mzn"
    model.write_text("var 1..3: x;\nsolve maximize x;\n")
    puzzle = kind.load_file(str(model))
    assert puzzle.instance.solve.kind == "maximize"
    assert "optimisation" in puzzle.to_model().structure.unsupported


@needs_minizinc
def test_a_model_that_needs_data_given_alone_is_minizincs_error(tmp_path):
    model, _ = write_pair(tmp_path)
    with pytest.raises(PuzzleInputError, match="must be defined"):
        mzn.flatten(str(model))


@needs_minizinc
def test_past_its_time_bound_minizinc_is_stopped_and_the_fault_said(tmp_path):
    model, data = write_pair(tmp_path)
    with pytest.raises(PuzzleInputError, match="did not flatten it within 0.001 s"):
        mzn.flatten(str(model), str(data), timeout=0.001)


def test_without_minizinc_on_the_path_loading_says_to_install_it(tmp_path):
    model, data = write_pair(tmp_path)
    empty = tmp_path / "bin"
    empty.mkdir()
    code = ("import sys; from puzzles.loader import load_puzzles\n"
            "[e] = load_puzzles(sys.argv[1], refer=True)\n"
            "print(e.puzzle.name)\n"
            "e.puzzle.load_input()\n")
    proc = subprocess.run([sys.executable, "-c", code, f"{model}:{data}"], cwd=REPO,
                          capture_output=True, text=True,
                          env={**os.environ, "PATH": str(empty),
                               "COMPARE_INSTANCE_CACHE": "off"})
    assert proc.stdout == "tiny:three\n"           # the reference needs no MiniZinc
    assert proc.returncode != 0
    assert proc.stderr.strip().endswith(f"PuzzleInputError: {model}:{data}: {mzn.NO_MINIZINC}")


def test_the_library_is_package_data_so_an_installed_package_ships_it():
    import fnmatch
    import tomllib
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["puzzles"]
    for path in mzn.MZNLIB.iterdir():
        inside = path.relative_to(REPO / "puzzles").as_posix()
        assert any(fnmatch.fnmatch(inside, p) for p in patterns), inside
