"""The loading benchmark's table: both loaders timed on the same file, rounds folded."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

# found, not imported: importing pycsp3 registers an exit hook that compiles a model
pytestmark = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("pycsp3", "cpmpy")),
                                reason="the loading benchmark needs pycsp3 and cpmpy")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "xcsp3_loading.py"
INSTANCE = ('<instance format="XCSP3" type="CSP"><variables><array id="x" size="[3]"> 0..2 '
            '</array></variables><constraints><allDifferent> x[] </allDifferent>'
            '</constraints></instance>')


def test_each_file_gets_one_row_with_medians_of_both_loaders(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("xcsp3_loading", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    path = tmp_path / "tiny.xml"
    path.write_text(INSTANCE)
    assert bench.main([str(path), "--rounds", "2"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| tiny")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    parse, translate, ours, theirs, ratio = map(float, cells[1:])
    assert all(math.isfinite(v) and v >= 0 for v in (parse, translate, ours, theirs))
    assert theirs > 0 and ratio > 0


def test_a_missing_file_is_one_line_and_exit_2(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("xcsp3_loading", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main([str(tmp_path / "none.xml")]) == 2
    assert capsys.readouterr().err.startswith("error: no such file")
