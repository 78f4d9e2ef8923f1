"""The general-search benchmark's tables: a row per engine, each instance's time and
node rate, its page, and a subset whose dataset is absent skipped in one line."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from engines import engine_class

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "general_search.py"
ACE = engine_class("ace")


def script():
    spec = importlib.util.spec_from_file_location("general_search", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(text: str, heading: str) -> dict[str, list[str]]:
    """The first Markdown table after ``heading``, by its first cell."""
    table = []
    for line in text.split(heading, 1)[1].splitlines():
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip("|").split("|")])
        elif table:
            break
    return {row[0]: row[1:] for row in table[2:]}


@pytest.mark.parametrize("with_ace", [
    pytest.param(True, marks=pytest.mark.skipif(
        not ACE.available(), reason=ACE.unavailable_reason() or "ACE is not available")),
    False])
def test_each_engine_gets_a_row_with_its_answers_time_and_node_rate(tmp_path, capsys,
                                                                     with_ace):
    engines = ["backtracking:kernel=numba", "backtracking"] + (["ace"] if with_ace else [])
    code = script().main(["queens:6", "--engines", ",".join(engines), "--timeout", "5",
                          "--repeat", "1", "--workers", "1", "--out", str(tmp_path / "run"),
                          "--publish", str(tmp_path / "page")])
    assert code == 0
    out = capsys.readouterr().out
    per_engine = rows(out, "## Per engine")
    assert set(per_engine) == {"numba", "python"} | ({"ACE"} if with_ace else set())
    for label in ("numba", "python"):
        answered, median, nodes_s, _ = per_engine[label]
        assert answered == "1/1" and re.fullmatch(r"[\d.]+ (µs|ms|s)", median)
        assert float(nodes_s.replace(",", "")) > 0
    assert per_engine["python"][3] == "reference"
    assert re.fullmatch(r"[\d.]+x \(1\)", per_engine["numba"][3])
    if with_ace:
        assert per_engine["ACE"][0] == "1/1" and per_engine["ACE"][2] == "n/a"
    times = rows(out, "Time to answer")
    assert list(times) == ["queens:6"] and all(" " in cell for cell in times["queens:6"])
    page = (tmp_path / "page" / "general_search.md").read_text()
    assert "## Per engine" in page and str(tmp_path) not in page


def test_an_absent_dataset_is_one_line_and_the_project_puzzles_still_run(tmp_path, capsys):
    bench = script()
    code = bench.main(["--datasets", str(tmp_path), "--engines", "backtracking",
                       "--timeout", "5", "--repeat", "1", "--workers", "1"])
    assert code == 0
    captured = capsys.readouterr()
    skipped = [line for line in captured.err.splitlines() if line.startswith("skipped")]
    assert len(skipped) == 1 and all(name in skipped[0] for name in bench.XCSP3)
    answered = rows(captured.out, "## Per engine")["python"][0]
    assert answered == f"{len(bench.PROJECT)}/{len(bench.PROJECT)}"
