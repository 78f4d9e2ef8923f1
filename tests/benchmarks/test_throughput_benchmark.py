"""The throughput benchmark file: each engine alone, its own clocks and the wall side by side."""
from __future__ import annotations

from pathlib import Path

import pytest

from compare import benchmark
from compare.cli import bench as bench_cli

REPO = Path(__file__).resolve().parents[2]
EASY = REPO / "puzzles" / "data" / "gen-9x9-easy.txt"
PART = """
[[parts]]
name = "{name}"
engines = ["{engine}"]
labels = {{"{engine}" = "{label}"}}
puzzles = ["{easy}"]
sample = 6
timeout = 5.0
settings = {{workers = 1}}
target = {{kind = "throughput"}}
"""

pytestmark = pytest.mark.slow


def file_of(tmp_path: Path, *engines: tuple[str, str]) -> Path:
    path = tmp_path / "throughput.toml"
    path.write_text('title = "Throughput"\n' + "".join(
        PART.format(name=f"p{i}", engine=spec, label=label, easy=EASY)
        for i, (spec, label) in enumerate(engines)))
    return path


def test_each_engine_gets_its_own_clock_and_wall_rates(tmp_path, capsys):
    path = file_of(tmp_path, ("backtracking", "fast"), ("backtracking:variant=seed", "seed"))
    code = bench_cli.main([str(path), "--quiet", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    text = (tmp_path / "out" / "bench.md").read_text()
    table = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
             if line.startswith("|") and not line.startswith("|-")]
    header = next(r for r in table if r[0] == "engine")
    assert header[1:4] == ["source", "puzzles", "solved"]
    rows = [r for r in table if r[0] in ("fast", "seed")]
    assert [r[0] for r in rows] == ["fast", "seed"]
    for cells in rows:
        assert cells[2:4] == ["6", "6"]
        assert all(c.endswith("/s") for c in cells[4:8]), cells


def test_an_unknown_engine_is_one_line_and_exit_2(tmp_path, capsys):
    path = file_of(tmp_path, ("nosuch", "x"))
    assert bench_cli.main([str(path), "--quiet", "--out", str(tmp_path / "out")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "nosuch" in lines[0], lines


def test_the_shipped_file_runs_each_engine_alone_on_one_worker():
    spec = benchmark.load(REPO / "benchmarks" / "throughput.toml")
    assert all(len(p.engines) == 1 and p.settings == {"workers": 1} for p in spec.parts)
    assert {p.target["kind"] for p in spec.parts} == {"throughput"}
