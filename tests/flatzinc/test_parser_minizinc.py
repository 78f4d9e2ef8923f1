"""FlatZinc made by the real ``minizinc -c``: a small model written here, and pairs
from the MiniZinc satisfaction set in ``../shared/datasets/minizinc_sat``, all
parsed without error."""
from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest

from puzzles.formats.flatzinc import parse, read
from puzzles.formats.flatzinc.ast import IntRange, Ref

ROOT = Path(__file__).resolve().parents[2]
MINIZINC_SAT = ROOT.parent / "shared" / "datasets" / "minizinc_sat"
# One small pair from each of these families (the first listed in instances.csv).
FAMILIES = ("queens", "latin-squares", "golfers", "bibd", "knights", "schur_numbers", "areas",
            "market_split", "QCP", "tents")

needs_minizinc = pytest.mark.skipif(shutil.which("minizinc") is None,
                                    reason="the minizinc executable is not installed")

MODEL = """\
include "alldifferent.mzn";
int: n = 4;
array [1..n] of var 1..n: q;
constraint alldifferent(q);
constraint alldifferent(i in 1..n)(q[i] + i);
constraint alldifferent(i in 1..n)(q[i] - i);
var bool: corner;
constraint corner -> q[2] > 2;
var set of 1..n: used;
constraint card(used) = 2 /\\ 1 in used;
var 0..100: cost = sum(i in 1..n)(i * q[i]);
solve :: int_search(q, first_fail, indomain_min) minimize cost;
"""


def flatten(model: Path, data: Path | None, out: Path) -> None:
    """``model`` (with ``data``) compiled to FlatZinc at ``out`` by MiniZinc 2.6's
    standard library, as the data set's README says its pairs were."""
    command = ["minizinc", "--solver", "gecode", "-G", "std", "-c", "--no-output-ozn",
               "--fzn", str(out), str(model)] + ([str(data)] if data else [])
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and out.is_file(), proc.stderr[-2000:]


@needs_minizinc
def test_flatzinc_compiled_by_minizinc_is_read_in_full(tmp_path):
    model = tmp_path / "queens.mzn"
    model.write_text(MODEL)
    flatten(model, None, tmp_path / "queens.fzn")
    flat = read(tmp_path / "queens.fzn")
    text = (tmp_path / "queens.fzn").read_text()
    assert len(flat.constraints) == text.count("constraint ") > 0
    assert flat.solve.kind == "minimize" and isinstance(flat.solve.objective, Ref)
    assert flat.solve.annotations[0].name == "int_search"
    arrays = {a.name: a for a in flat.arrays}
    assert arrays["q"].is_var and arrays["q"].output_dims == (IntRange(1, 4),)
    assert len(arrays["q"].items) == 4
    variables = {v.name: v for v in flat.variables}
    assert variables["used"].type == "set" and variables["used"].domain == IntRange(1, 4)
    assert variables["corner"].type == "bool" and variables["corner"].output
    assert variables["cost"].defined and flat.solve.objective == Ref("cost")
    assert any(v.introduced for v in flat.variables)
    assert variables["used"].output and variables["used"].value is None
    declared = {v.name for v in flat.variables} | set(arrays) | {p.name for p in flat.parameters}
    for constraint in flat.constraints:
        for arg in constraint.args:
            for item in arg if isinstance(arg, tuple) else (arg,):
                assert not isinstance(item, Ref) or item.name in declared
    assert flat == parse(text, "queens.fzn")


def dataset_pairs() -> list[tuple[str, str]]:
    if not (MINIZINC_SAT / "instances.csv").is_file():
        return []
    with open(MINIZINC_SAT / "instances.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    first = {}
    for row in rows:
        first.setdefault(row["problem"], (row["model"], row["data_file"]))
    return [first[family] for family in FAMILIES if family in first]


@needs_minizinc
@pytest.mark.skipif(not MINIZINC_SAT.is_dir(), reason="../shared/datasets/minizinc_sat is absent")
@pytest.mark.parametrize("model, data", dataset_pairs() or [pytest.param(
    "", "", marks=pytest.mark.skip(reason="no instances.csv in minizinc_sat"))])
def test_flatzinc_of_the_minizinc_satisfaction_set_is_read(tmp_path, model, data):
    out = tmp_path / "pair.fzn"
    flatten(MINIZINC_SAT / model, MINIZINC_SAT / data if data else None, out)
    flat = read(out)
    assert flat.solve.kind == "satisfy"
    assert flat.constraints and (flat.variables or flat.arrays)
    assert len(flat.constraints) == out.read_text().count("\nconstraint ") + \
        out.read_text().startswith("constraint ")
