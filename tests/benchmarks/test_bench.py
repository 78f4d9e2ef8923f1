"""``run_compare.py bench``: its figures, its benchmark file, its bad-usage paths, and runs.

The smoke run needs no public data: it points ``--datasets`` at a folder of
small generated puzzles under the public sets' file names.
"""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from compare import benchmark
from compare.benchmark.page import page_text
from compare.cli import bench as bench_cli
from compare.executors.tasks import sample_per_origin
from compare.reporting import bench
from puzzles.kinds.default_set import DATA
from puzzles.kinds.generator import full_grid

REPO = Path(__file__).resolve().parents[2]
ALPHABET = ".123456789ABCDEFGHIJKLMNOP"


# ----- the figures ---------------------------------------------------------------------
def tasks(rows) -> pd.DataFrame:
    """Per-task rows as summary.per_task gives them: (source, puzzle, engine, seconds|None)."""
    frame = pd.DataFrame(rows, columns=["source", "puzzle_id", "engine", "total_s"])
    solved = frame["total_s"].notna()
    return frame.assign(solved=solved, timeout=10.0, size=9,
                        status=solved.map({True: "solved", False: "timeout"}))


def test_ratio_table_passes_and_fails_each_target_on_its_own():
    table = bench.ratio_table(tasks([
        ("a", "a:1", "fast", 0.1), ("a", "a:1", "cp", 1.0),
        ("a", "a:2", "fast", 0.2), ("a", "a:2", "cp", 0.3),      # a: mean 0.15/0.65, max 0.2/1.0
        ("b", "b:1", "fast", 0.5), ("b", "b:1", "cp", 1.0),      # b: mean 0.5 > 0.33x
        ("b", "b:2", "fast", 0.01), ("b", "b:2", "cp", 2.0),
    ]), "fast", "cp", 0.33, 1.0).set_index("dataset")
    assert table.loc["a", "mean_ratio"] == pytest.approx(0.15 / 0.65)
    assert table.loc["a", ["mean_pass", "max_pass"]].tolist() == [True, True]
    assert table.loc["b", "mean_ratio"] == pytest.approx(0.255 / 1.5)
    assert table.loc["b", ["mean_pass", "max_pass"]].tolist() == [True, True]
    slow = bench.ratio_table(tasks([("c", "c:1", "fast", 0.5), ("c", "c:1", "cp", 1.0),
                                    ("c", "c:2", "fast", 0.5), ("c", "c:2", "cp", 0.1)]),
                             "fast", "cp", 0.33, 1.0).iloc[0]
    assert (slow["mean_pass"], slow["max_pass"]) == (False, True)     # 0.5/0.55; 0.5 <= 1.0


def test_an_unsolved_task_fails_the_targets_and_counts_at_the_limit():
    row = bench.ratio_table(tasks([("a", "a:1", "fast", None), ("a", "a:1", "cp", 12.0),
                                   ("a", "a:2", "fast", 0.1), ("a", "a:2", "cp", 40.0)]),
                            "fast", "cp", 0.33, 1.0).iloc[0]
    assert row["max"] == 10.0 and row["unsolved"] == "1/0"
    assert row["mean_ratio"] < 0.33 and row["max_ratio"] < 1       # the ratios alone would pass
    assert (row["mean_pass"], row["max_pass"]) == (False, False)


def test_lexfirst_ratio_against_first_mode_and_na_without_it():
    lex = tasks([("a", "a:1", "fast", 0.3), ("b", "b:1", "fast", 0.3)])
    first = tasks([("a", "a:1", "fast", 0.1), ("b", "b:1", "fast", 0.2)])
    table = bench.lexfirst_table(lex, first, "fast", 3.0)
    assert table["ratio"].tolist() == pytest.approx([3.0, 1.5])
    assert table["pass"].tolist() == [True, True]
    slower = bench.lexfirst_table(tasks([("a", "a:1", "fast", 0.31)]), first, "fast", 3.0)
    assert slower["pass"].tolist() == [False]
    # medians: two tasks of five slowed by a neighbour do not fail it, three do
    five = [("a", f"a:{i}", "fast", 0.1) for i in range(5)]
    firsts = tasks(five)
    noisy = tasks([(s, p, e, 5.0 if i < 2 else t) for i, (s, p, e, t) in enumerate(five)])
    assert bench.lexfirst_table(noisy, firsts, "fast", 3.0)["pass"].tolist() == [True]
    slow = tasks([(s, p, e, 5.0 if i < 3 else t) for i, (s, p, e, t) in enumerate(five)])
    assert bench.lexfirst_table(slow, firsts, "fast", 3.0)["pass"].tolist() == [False]
    alone = bench.lexfirst_table(lex, None, "fast", 3.0)
    assert [bench.verdict(v) for v in alone["pass"]] == ["n/a", "n/a"]


def test_not_covered_lists_what_cpsat_solved_and_the_backtracker_did_not():
    frame = tasks([("g", "g:1", "fast", None), ("g", "g:1", "cp", 3.0),
                   ("g", "g:2", "fast", None), ("g", "g:2", "cp", None),
                   ("g", "g:3", "fast", 1.0), ("g", "g:3", "cp", None)])
    assert bench.not_covered(frame, "fast", "cp") == ["g:1"]
    assert bench.not_covered(frame, "fast", "cp", margin=0.5) == ["g:1"]    # 3 s of 10
    assert bench.not_covered(frame, "fast", "cp", margin=0.25) == []        # near the limit
    scaling = bench.scaling_table(frame, ["size"]).set_index("engine")
    assert scaling.loc["fast", ["puzzles", "solved", "timeouts"]].tolist() == [3, 1, 2]


def test_overhead_limit_is_a_quarter_over_the_ideal_plus_five_seconds():
    ok = bench.overhead({"tasks": 5000, "workers": 2, "wall_s": 9.9, "task_s": 8.0}, 1.25, 5.0)
    assert ok["limit_s"] == pytest.approx(1.25 * 4.0 + 5) and ok["pass"]
    late = {"tasks": 5000, "workers": 2, "wall_s": 10.1, "task_s": 8.0}
    assert not bench.overhead(late, 1.25, 5.0)["pass"]


def test_the_columns_are_named_from_the_file_and_only_set_targets_get_a_verdict():
    table = bench.ratio_table(tasks([("a", "a:1", "mine", 0.1), ("a", "a:1", "ref", 1.0)]),
                              "mine", "ref", 0.01, None)
    columns = bench.ratio_columns("numba", "CP-SAT", 0.01, None)
    shown = bench.shown(table, columns)
    assert list(shown.columns) == ["dataset", "puzzles", "numba mean", "CP-SAT mean",
                                   "mean ratio", "mean <= 0.01x", "numba max", "CP-SAT max",
                                   "max ratio", "unsolved (numba/CP-SAT)"]
    assert shown.iloc[0]["mean <= 0.01x"] == "FAIL" and table["max_pass"].isna().all()
    said = bench.definitions([{"kind": "ratio", "name": "nine", "engine": "numba",
                               "baseline": "CP-SAT", "max": 0.1}])
    assert "* nine: numba's maximum <= 0.1 x CP-SAT's maximum, per dataset." in said
    assert "mean <=" not in said


def test_every_target_says_what_it_claims_and_names_its_engine():
    terms = {"name": "p", "engine": "numba", "baseline": "CP-SAT"}
    for target in ({"kind": "ratio", "mean": 0.5}, {"kind": "lexfirst", "within": 3.0,
                                                    "against": "nine"},
                   {"kind": "overhead", "factor": 1.25, "slack": 5.0},
                   {"kind": "coverage"}, {"kind": "wall", "against": "local"}):
        said = bench.claim({**terms, **target})
        assert said and said.startswith(("numba", "the harness, running numba")), said
    assert bench.claim({**terms, "kind": "coverage", "margin": 0.5}) == (
        "numba solves every puzzle CP-SAT solves in under 0.5 x the time limit")
    assert bench.claim({**terms, "kind": "throughput"}) is None


def test_the_wall_table_sets_each_run_against_the_last():
    runs = {"dask": [{"tasks": 10, "wall_s": 3.0, "first_s": 1.0, "parent_cpu_s": 0.1}],
            "local": [{"tasks": 10, "wall_s": 6.0, "first_s": 2.0, "parent_cpu_s": 0.2}]}
    table = bench.wall_table([("dask", {"executor": "dask"}, runs["dask"]),
                              ("local", {}, runs["local"])], 0.9)
    assert table["wall_ratio"].tolist() == [0.5, 1.0]
    assert table["after_first_ratio"].tolist() == [0.5, 1.0]
    assert table["pass"].tolist() == [True, False]
    assert table["settings"].tolist() == ["executor=dask", "local"]


def test_the_benchmark_code_names_no_engine_and_no_puzzle_set():
    """Engines, labels, sets and limits are the files' to name."""
    paths = [*sorted((REPO / "compare" / "benchmark").glob("*.py")),
             REPO / "compare" / "reporting" / "bench.py"]
    assert len(paths) >= 4
    for path in paths:
        code = path.read_text()
        for word in ("cpsat", "CP-SAT", "backtrack", "fast", "BOJ", "ortools", "9x9",
                     "--big-timeout"):
            assert word not in code, f"{path.name}: {word}"


def test_every_benchmark_file_loads():
    files = sorted((REPO / "benchmarks").glob("*.toml"))
    assert len(files) >= 3
    for path in files:
        assert benchmark.load(path).parts


def test_a_sample_depends_on_the_file_name_not_its_folder():
    items = [(f"{folder}/set.txt", i) for folder in ("x", "y/z") for i in range(50)]
    picked = sample_per_origin(items, 5, seed=3)
    x = [i for origin, i in picked if origin == "x/set.txt"]
    assert x == [i for origin, i in picked if origin == "y/z/set.txt"] and len(x) == 5
    assert x != [i for o, i in sample_per_origin(items, 5, seed=4) if o == "x/set.txt"]


# ----- the benchmark file -------------------------------------------------------------
NINE = ("norvig_easy50", "norvig_top95", "norvig_hardest", "royle_17clue_49158",
        "forum_hardest_1905_11plus")
BIG = ("gecode_16x16_janko", "vu_kr_16x16", "gecode_25x25")
EASY = "kaggle_1m_first9999"


def test_the_default_file_describes_the_benchmark():
    spec = benchmark.load(benchmark.DEFAULT_FILE)
    assert [p.name for p in spec.parts] == ["9x9", "lexfirst", "overhead", "big", "25x25"]
    assert spec.datasets == {"nine": tuple(f"{s}.txt" for s in NINE), "easy": (f"{EASY}.txt",),
                             "sixteen": tuple(f"{s}.txt" for s in BIG[:2]),
                             "twentyfive": (f"{BIG[2]}.txt",)}
    nine, lex, over, big, twentyfive = spec.parts
    both, fast = ("backtracking", "cpsat"), ("backtracking",)
    numba = ("backtracking:kernel=numba", "cpsat")
    got = [(p.engines, p.mode, p.puzzles, p.sample, p.timeout, p.baseline, p.timeout_group,
            p.repeatable) for p in spec.parts]
    assert got == [(both, "first", ("nine",), 1000, 10.0, "cpsat", "default", True),
                   (fast, "lexfirst", ("nine",), 1000, 10.0, None, "default", True),
                   (fast, "first", ("easy",), 5000, 10.0, None, "default", False),
                   (both, "first", ("sixteen",), None, 20.0, "cpsat", "big", False),
                   (numba, "first", ("twentyfive",), None, 20.0, "cpsat", "big", False)]
    assert nine.target == {"kind": "ratio", "mean": 0.33, "max": 1.0}
    assert lex.target == {"kind": "lexfirst", "within": 3.0, "against": "9x9"}
    assert over.target == {"kind": "overhead", "factor": 1.25, "slack": 5.0}
    # fast is held to what it reaches; the public 25x25 set is the numba kernel's
    assert big.target == {"kind": "coverage", "engine": "backtracking", "scaling_with": "9x9"}
    assert twentyfive.target == {"kind": "coverage", "engine": "backtracking:kernel=numba",
                                 "margin": 0.5}
    assert big.embedded == ("gen-16x16-easy.txt", "gen-16x16-hard.txt")
    assert big.generated == benchmark.Generated(25, 4, 340, "backtracking")
    assert [p.quick.get("sample") for p in spec.parts] == [8, 8, 200, 2, 2]
    assert [p.quick.get("repeat") for p in spec.parts] == [3, 3, None, None, None]
    assert {p.quick["timeout"] for p in spec.parts} == {5.0}
    assert big.quick["generated"] == benchmark.Generated(25, 1, 420)


def test_failed_targets_are_counted_from_bench_md():
    text = ("| a | PASS | FAIL |\n| b | FAIL | FAIL |\n**PASS**\n**FAIL**\n"
            "**FAIL: CP-SAT solved 2 puzzle(s) the backtracker did not: x, y.**")
    assert bench_cli.failed_targets(text) == 5
    assert bench_cli.failed_targets("| a | PASS | PASS |\n**PASS: all solved.**") == 0
    padded = "| a    | FAIL    | PASS |\n| bb   | PASS    | FAIL    |\n"   # tables as tabulate pads them
    assert bench_cli.failed_targets(padded) == 2


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    return path


TINY = """\
title = "Queens"
[[parts]]
name = "queens"
engines = ["backtracking"]
puzzles = ["queens:6", "two.txt"]
timeout = 5
"""


@pytest.mark.slow
def test_a_user_file_runs_end_to_end_and_writes_bench_md(tmp_path, capsys):
    (tmp_path / "two.txt").write_text("\n".join(lines_of("gen-9x9-easy.txt")[:2]) + "\n")
    out = tmp_path / "out"
    code = bench_cli.main([str(write(tmp_path, TINY)), "--quiet", "--workers", "1",
                           "--datasets", str(tmp_path / "nowhere"), "--out", str(out),
                           "--publish", str(tmp_path / "docs")])
    assert code == 0, capsys.readouterr().err
    text = (out / "bench.md").read_text()
    assert text.startswith("# Queens") and "## queens: backtracking" in text
    page = tmp_path / "docs" / "mine.md"           # named after the benchmark file
    links = re.findall(r"\]\(([^)]+\.png)\)", page.read_text())
    assert links and all((page.parent / link).is_file() for link in links), links
    results = pd.read_csv(out / "queens" / "results.csv")
    assert len(results) == 3 and results["verified"].all()


@pytest.mark.slow
def test_the_python_api_runs_a_file_and_says_what_became_of_each_part(tmp_path):
    (tmp_path / "two.txt").write_text("\n".join(lines_of("gen-9x9-easy.txt")[:2]) + "\n")
    run = benchmark.run_benchmark(write(tmp_path, TINY + "[[parts]]\nname = 'bad'\n"
                                        "engines = ['backtracking']\npuzzles = ['nope:3']\n"
                                        "timeout = 5\n"),
                                  out=tmp_path / "out", workers=1, parts=["queens"])
    assert [o.status for o in run.outcomes] == [benchmark.VERIFIED]
    assert run.text.startswith("# Queens") and (run.folder / "bench.md").read_text() == run.text
    failed = benchmark.run_benchmark(write(tmp_path, TINY.replace("queens:6", "nope:3")),
                                     out=tmp_path / "out2", workers=1)
    assert failed.text is None and failed.outcomes[0].status == benchmark.BAD_INPUT
    assert "nope" in failed.outcomes[0].error
    with pytest.raises(benchmark.BenchmarkError, match="choose from queens"):
        benchmark.run_benchmark(write(tmp_path, TINY), parts=["huge"], out=tmp_path / "out3")


@pytest.mark.parametrize("text, message", [
    ("[[parts]\nname = 1", "not valid TOML"),
    (TINY + "colour = 'red'\n", "parts[0].colour: unknown key"),
    (TINY.replace('timeout = 5\n', ''), "parts[0].timeout: missing"),
    (TINY.replace('timeout = 5', 'timeout = "5"'), "parts[0].timeout: must be a number"),
    (TINY.replace('engines = ["backtracking"]', 'engines = "backtracking"'),
     "parts[0].engines: must be a list"),
    (TINY + "target = {kind = 'lexfirst', within = 3.0}\n", "parts[0].target.against: missing"),
    (TINY + "target = {kind = 'ratio', mean = 0.5}\n", "needs two engines and a baseline"),
    (TINY + "labels = {cpsat = 'CP-SAT'}\n", "parts[0].labels.cpsat: unknown key"),
    (TINY + "timeout_group = 'huge'\n", "parts[0].timeout_group: choose from default, big"),
    (TINY + "settings = {memory = 3}\n", "parts[0].settings.memory: unknown key"),
    ("title = 'x'\n", "parts: missing"),
])
def test_a_malformed_file_is_one_line_naming_it_and_exit_2(tmp_path, capsys, text, message):
    path = write(tmp_path, text)
    assert bench_cli.main([str(path), "--out", str(tmp_path / "out")]) == 2
    line = one_error_line(capsys)
    assert str(path) in line and message in line
    assert not (tmp_path / "out").exists()


def test_bad_toml_names_the_line(tmp_path, capsys):
    path = write(tmp_path, "title = 'x'\n[[parts]\n")
    assert bench_cli.main([str(path)]) == 2
    assert "line 2" in one_error_line(capsys)


def test_parts_choose_among_the_files_parts(tmp_path, capsys):
    path = write(tmp_path, TINY)
    assert bench_cli.main([str(path), "--parts", "9x9"]) == 2
    assert "--parts 9x9: choose from queens" in one_error_line(capsys)
    assert bench_cli.main([str(tmp_path / "absent.toml")]) == 2
    assert "absent.toml: cannot read" in one_error_line(capsys)


# ----- bad usage -----------------------------------------------------------------------
def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


def test_missing_datasets_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert bench_cli.main(["--datasets", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    line = one_error_line(capsys)
    assert str(tmp_path / "nowhere") in line and "README" in line and "--datasets" in line
    assert not out.exists()


def test_a_missing_file_is_named(tmp_path, capsys):
    datasets = synthetic_datasets(tmp_path / "sets")
    (datasets / "vu_kr_16x16.txt").unlink()
    spec = benchmark.load(benchmark.DEFAULT_FILE)
    files = benchmark.dataset_files(spec, datasets, benchmark.chosen_parts(spec, ["9x9", "overhead"]))
    assert set(files) == {f"{s}.txt" for s in (*NINE, EASY)}     # big not asked
    assert bench_cli.main(["--datasets", str(datasets), "--parts", "big",
                           "--out", str(tmp_path / "b")]) == 2
    assert "vu_kr_16x16.txt: dataset not found" in one_error_line(capsys)


@pytest.mark.parametrize("args, message", [
    (["--parts", "9x9,huge"], "--parts 9x9,huge: choose from 9x9,lexfirst,overhead,big"),
    (["--out", "FULL"], "folder is not empty"),
])
def test_bad_usage_is_exit_2(tmp_path, capsys, args, message):
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    args = [str(full) if a == "FULL" else a for a in args]
    assert bench_cli.main(["--datasets", str(tmp_path)] + args) == 2
    assert message in one_error_line(capsys)
    assert (full / "keep.txt").read_text() == "mine"


@pytest.mark.skipif(not benchmark.DATASETS.is_dir(), reason="../shared/datasets is absent")
@pytest.mark.datasets
def test_the_default_datasets_folder_has_every_set_the_benchmark_reads():
    spec = benchmark.load(benchmark.DEFAULT_FILE)
    files = benchmark.dataset_files(spec, benchmark.DATASETS, list(spec.parts))
    assert set(files) == {f"{s}.txt" for s in (*NINE, *BIG, EASY)}


# ----- the smoke run -------------------------------------------------------------------
def lines_of(name: str) -> list[str]:
    return [s for s in (DATA / name).read_text().splitlines() if s and not s.startswith("#")]


def synthetic_datasets(folder: Path) -> Path:
    """Small stand-ins under the public names: generated 9x9 and 16x16, a loose 25x25."""
    folder.mkdir(parents=True)
    nine = lines_of("gen-9x9-easy.txt") + lines_of("gen-9x9-hard.txt")
    for i, stem in enumerate(NINE):
        (folder / f"{stem}.txt").write_text("\n".join(nine[2 * i:2 * i + 2]) + "\n")
    (folder / f"{EASY}.txt").write_text("\n".join(lines_of("gen-9x9-easy.txt")) + "\n")
    sixteen = lines_of("gen-16x16-easy.txt")
    for stem in BIG[:2]:
        (folder / f"{stem}.txt").write_text("\n".join(sixteen[:2]) + "\n")
    grid = list(full_grid(25, random.Random(5)))
    for cell in random.Random(6).sample(range(625), 80):
        grid[cell] = 0
    (folder / "gecode_25x25.txt").write_text("".join(ALPHABET[v] for v in grid) + "\n")
    return folder


@pytest.mark.slow
def test_quick_benchmark_runs_every_part_verifies_and_publishes(tmp_path):
    datasets, out, docs = synthetic_datasets(tmp_path / "sets"), tmp_path / "out", tmp_path / "docs"
    proc = subprocess.run(
        [sys.executable, "run_compare.py", "bench", "--quick", "--quiet", "--datasets",
         str(datasets), "--out", str(out), "--publish", str(docs)],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
        text=True, timeout=240)
    text = (out / "bench.md").read_text()
    failed = bench_cli.failed_targets(text)
    assert proc.returncode == (5 if failed else 0), proc.stderr      # a missed target fails
    assert (f"FAIL: {failed} target(s) not met" in proc.stderr) == bool(failed)
    for heading in ("## 9x9", "## lexfirst", "## Harness overhead", "## Larger grids",
                    "## 25x25"):
        assert heading in text
    met = re.search(r"Targets met: (\d+) of 10\.", text)       # each target has a verdict
    assert met, text
    assert len(re.findall(r"\|\s*(?:PASS|FAIL)\s*\|", text)) >= 10
    assert len(re.findall(r"^Target: .+\.$", text, re.M)) == 5    # each says what it claims
    assert "with the rows of the 9x9 part" in text
    assert "Target: numba solves every puzzle CP-SAT solves in under 0.5 x" in text
    engines = {"9x9": {"backtracking", "cpsat"}, "lexfirst": {"backtracking"},
               "overhead": {"backtracking"}, "big": {"backtracking", "cpsat"},
               "25x25": {"backtracking:kernel=numba", "cpsat"}}
    for part, expected in engines.items():
        results = pd.read_csv(out / part / "results.csv")
        assert set(results["engine"]) == expected
        answered = results[results["status"] == "solved"]
        assert len(answered) and answered["verified"].all()
    assert set(pd.read_csv(out / "lexfirst" / "results.csv")["mode"]) == {"lexfirst"}
    assert len(pd.read_csv(out / "overhead" / "results.csv")) == 10
    big = pd.read_csv(out / "big" / "results.csv")
    assert {"gen-25x25", "gen-16x16-hard"} <= set(big["source"])
    assert set(pd.read_csv(out / "25x25" / "results.csv")["source"]) == {"gecode_25x25"}
    page = (docs / "sudoku.md").read_text()
    assert page == page_text(
        text.replace("](9x9/", "](sudoku/9x9/").replace("](big/", "](sudoku/big/")
        .replace("](25x25/", "](sudoku/25x25/"), out,
        "`run_compare.py bench --publish`")
    assert "the command below regenerates this page" in page.splitlines()[2]
    assert str(tmp_path) not in page and str(REPO) not in page and "load average" not in page
    assert "](sudoku/9x9/cactus.png)" in page
    assert (docs / "sudoku" / "9x9" / "cactus.png").stat().st_size > 0


PLANTED = """\
title = "A speed target"
[[parts]]
name = "nine"
engines = ["backtracking", "cpsat"]
baseline = "cpsat"
puzzles = ["nine.txt"]
timeout = 5
target = {kind = "ratio", mean = 0.33}
"""


@pytest.mark.slow
@pytest.mark.parametrize("planted", [False, True])
def test_a_planted_regression_fails_its_target_and_exit_5(tmp_path, planted):
    """The backtracker against CP-SAT on four easy 9x9 puzzles: well inside its
    target (a thirtieth of CP-SAT's mean) as it is; with the copy of it that waits
    200 ms per solve (tests/slowed_backtracking.py) registered in its place, several
    times CP-SAT's, and bench exits 5."""
    (tmp_path / "nine.txt").write_text("\n".join(lines_of("gen-9x9-easy.txt")[:4]) + "\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if planted:
        env.update(COMPARE_PLUGINS=str(REPO / "tests" / "slowed_backtracking.py"),
                   SLOWED_MS="200")
    proc = subprocess.run(
        [sys.executable, "run_compare.py", "bench", str(write(tmp_path, PLANTED)), "--quiet",
         "--workers", "1", "--datasets", str(tmp_path), "--out", str(tmp_path / "out")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    text = (tmp_path / "out" / "bench.md").read_text()
    assert proc.returncode == (5 if planted else 0), proc.stderr + text
    assert ("FAIL: 1 target(s) not met" in proc.stderr) == planted
    assert "Target: backtracking's mean <= 0.33 x cpsat's mean, per dataset." in text


def test_a_published_page_names_no_absolute_path(tmp_path):
    """A page is kept in the repository: its commands name the repository's files
    from its root, the run's folder as OUT, and no folder of the machine; its plot
    links are relative to the page. The run's own bench.md keeps the paths."""
    out, docs = tmp_path / "out", tmp_path / "docs"
    (out / "queens").mkdir(parents=True)
    (out / "queens" / "cactus.png").write_bytes(b"png")
    sets, own = REPO.parent / "shared" / "datasets", REPO / "puzzles" / "data" / "x.txt"
    bench_md = "\n".join([
        "# Queens", "",
        f"- command: `python run_compare.py bench {REPO / 'benchmarks' / 'mine.toml'} "
        f"--datasets {sets} --out {out} --publish {docs}`",
        *[f"- {line}" for line in bench.machine_lines()], "",
        "run phase 3.00 s wall; task times sum to 1.56 s, /2 = 0.78 s; 8,790/s", "",
        "![queens cactus](queens/cactus.png)", "",
        f"- `queens/`: 1 s; `python run_compare.py --puzzles {sets / 'a.txt'} {own} "
        f"--out {out / 'queens'}`", ""])
    (out / "bench.md").write_text(bench_md)
    outcome = benchmark.Outcome(SimpleNamespace(name="queens"), benchmark.VERIFIED, 1.0,
                                out / "queens")
    page = benchmark.publish(out, docs, [outcome], "mine").read_text()
    assert (out / "bench.md").read_text() == bench_md
    assert not re.search(r"(^|[\s`(=])/[A-Za-z]", page, re.M), page
    assert str(tmp_path) not in page and str(REPO.parent) not in page
    assert "bench benchmarks/mine.toml --datasets ../shared/datasets --out OUT " in page
    assert "--puzzles ../shared/datasets/a.txt puzzles/data/x.txt --out OUT/queens`" in page
    assert "/2 = 0.78 s; 8,790/s" in page and "](mine/queens/cactus.png)" in page
    assert (docs / "mine" / "queens" / "cactus.png").read_bytes() == b"png"
    assert "load average" not in page and re.search(r"^- date: \d{4}-\d{2}-\d{2}$", page, re.M)
    assert page.splitlines()[2] == ("Written by `run_compare.py bench --publish`: the command "
                                    "below regenerates this page.")


def test_a_puzzle_file_the_part_cannot_read_is_exit_2_not_a_traceback(tmp_path, capsys):
    path = write(tmp_path, TINY)                      # two.txt is not there
    assert bench_cli.main([str(path), "--quiet", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error: bench part queens: " in err and "two.txt" in err


def test_engines_given_with_default_options_find_their_rows(tmp_path):
    """A part may name ``cpsat:workers=1``; its results say ``cpsat``: the ratio
    table must still find the baseline's times, under the file's label."""
    part = benchmark.Part("p", ("backtracking:variant=fast", "cpsat:workers=1"), "first",
                          ("queens:6",), None, 5.0, baseline="cpsat:workers=1",
                          target={"kind": "ratio", "engine": "backtracking:variant=fast",
                                  "max": 1.0},
                          labels={"cpsat:workers=1": "CP-SAT"})
    spec = benchmark.Benchmark(tmp_path / "b.toml", "t", {}, (part,))
    named = benchmark.resolved(part, spec, {}, tmp_path)
    assert named.engines == ("backtracking", "cpsat") and named.baseline == "cpsat"
    assert named.subject == "backtracking" and named.label("cpsat") == "CP-SAT"
