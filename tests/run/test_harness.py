"""End to end: ``python run_compare.py`` on small sets, through its fault paths."""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from compare.cli.report import main as report_main
from compare.cli.run import main as run_main
from engines import solution_counter as counter
from puzzles.kinds.generator import generate

pytestmark = pytest.mark.slow     # end-to-end runs; deselect with -m "not slow"

REPO = Path(__file__).resolve().parents[2]
# A reproduce command says ``python``: the one of the environment the tool runs in.
VENV_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
SAMPLE = REPO / "puzzles" / "samples" / "boj2239.txt"
# Built to defeat row-major brute force: the seed variant needs minutes on it.
ANTI_BRUTE_FORCE = ("..............3.85..1.2.......5.7.....4...1...9.......5......73"
                    "..2.1........4...9")
REQUIRED = ["puzzle_id", "source", "size", "clues", "engine", "formulation", "mode",
            "repeat", "status", "verified", "build_s", "solve_s", "total_s", "nodes",
            "backtracks", "library", "version", "count", "answer", "reason"]

@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """Six unique 4x4 puzzles and, on line 3, a bad one."""
    lines = ["".join(str(v) if v else "." for v in p.grid)
             for p in generate(4, 6, 6, seed=11, count_solutions=counter("backtracking"))]
    path = tmp_path_factory.mktemp("puzzles") / "small.txt"
    path.write_text("# six 4x4 puzzles\n" + lines[0] + "\n12x4\n" + "\n".join(lines[1:]) + "\n")
    return path


def run(*args, timeout=120, **popen) -> subprocess.CompletedProcess:
    """``run_compare.py`` with one repeat unless the test says otherwise: these tests are
    about what a run does with each task, and the default of three repeats only
    triples their rows."""
    env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines",
               PYTHONPATH=str(REPO))
    if args and str(args[0]) == "--puzzles" and "--repeat" not in args:
        args = (*args, "--repeat", 1)
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout, **popen)


def results(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv")


def test_clean_run_reports_bad_line_and_writes_every_output(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, SAMPLE, "--engines", "fake,backtracking",
               "--workers", 2, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert f"{small}, line 3" in proc.stderr
    frame = results(out)
    assert set(REQUIRED) <= set(frame.columns)
    assert len(frame) == 7 * 2
    assert set(frame["status"]) == {"solved"} and frame["verified"].all()
    assert set(frame["source"]) == {"small", "boj2239"}
    assert set(frame["engine"]) == {"fake", "backtracking"}
    summary = (out / "summary.md").read_text()
    assert "## Per engine" in summary and "![cactus](cactus.png)" in summary
    assert "line 3" in summary
    for name in ("cactus.png", "scatter.png", "results.parquet", "results.sqlite"):
        assert (out / name).stat().st_size > 0
    assert "Per engine" in proc.stdout

    # the report step rebuilds everything from the SQLite file alone
    (out / "summary.md").unlink()
    (out / "results.csv").unlink()
    assert report_main(["--out", str(out), "--baseline", "fake", "--quiet"]) == 0
    assert "baseline: fake" in (out / "summary.md").read_text()
    assert len(results(out)) == 14

    # resuming a finished run runs nothing and adds no row
    resumed = run("--out", out, "--resume", "--workers", 2)
    assert resumed.returncode == 0, resumed.stderr
    assert len(results(out)) == 14


def test_wrong_answer_exits_1_with_a_working_reproduce_command(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--engines", "fake,fake-wrong", "--workers", 2,
               "--out", out, "--quiet")
    assert proc.returncode == 1
    assert "WRONG ANSWER" in proc.stderr
    frame = results(out)
    wrong = frame[frame["engine"] == "fake-wrong"]
    assert len(wrong) == 6 and not wrong["verified"].any()
    summary = (out / "summary.md").read_text()
    lines = [ln for ln in summary.splitlines() if "reproduce:" in ln]
    assert len(lines) == 6 and "**wrong answer**" in summary
    command = lines[0].split("`")[1]
    check = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO), PATH=VENV_PATH))
    assert check.returncode == 3, check.stderr      # solve refuses the wrong answer too
    assert "wrong answer" in check.stderr


def test_a_refuted_unsatisfiable_claim_is_stored_as_a_wrong_answer(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--engines", "fake,fake-unsat", "--workers", 2,
               "--out", out, "--quiet", "--sample", 2)
    assert proc.returncode == 1
    assert "WRONG ANSWER: fake-unsat" in proc.stderr
    frame = results(out)
    claims = frame[frame["engine"] == "fake-unsat"]
    assert len(claims) == 2 and not claims["verified"].any()
    assert claims["reason"].eq("claims unsatisfiable, but fake found a verified solution").all()
    assert "claims unsatisfiable" in (out / "summary.md").read_text()


def test_timeouts_and_crashes_are_recorded_and_the_run_finishes(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--sample", 2, "--engines", "fake,fake-sleep,fake-crash",
               "--timeout", 0.2, "--workers", 2, "--out", out, "--quiet")
    assert proc.returncode == 4, proc.stderr       # crashes: no wrong answer, but not clean
    frame = results(out)
    status = frame.groupby("engine")["status"].agg(set).to_dict()
    assert status == {"fake": {"solved"}, "fake-sleep": {"timeout"}, "fake-crash": {"crashed"}}
    assert frame.loc[frame["engine"] == "fake-crash", "reason"].str.contains("crashed").all()
    assert "FAILED: fake-crash: crashed x2 (first: " in proc.stderr
    table = re.sub(" +", " ", (out / "summary.md").read_text())     # cells as tabulate pads them
    assert "| fake-sleep | 2 | 0 | 2 |" in table


def test_an_engine_that_always_raises_exits_4_and_says_so_first(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--engines", "fake,fake-error", "--workers", 2,
               "--out", out, "--quiet")
    assert proc.returncode == 4, proc.stderr
    assert "FAILED: fake-error: error x6 (first: RuntimeError: this engine always fails)" \
        in proc.stderr
    summary = (out / "summary.md").read_text()
    assert summary.splitlines()[2].startswith("FAILED: 12 tasks: 6 solved, 6 error; ")
    assert summary.splitlines()[4] == ("- **FAILED**: fake-error: error x6 (first: "
                                       "RuntimeError: this engine always fails)")
    assert "every answer passed" not in summary.lower()
    assert report_main(["--out", str(out), "--quiet"]) == 4
    assert report_main(["--out", str(out), "--quiet", "--allow-errors"]) == 0
    allowed = run("--puzzles", small, "--engines", "fake,fake-error", "--workers", 2,
                  "--out", tmp_path / "allowed", "--quiet", "--allow-errors")
    assert allowed.returncode == 0, allowed.stderr
    assert "FAILED: fake-error" in allowed.stderr      # allowed, still said


def test_a_run_records_its_environment_and_plan(small, tmp_path):
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--engines", "fake", "--workers", 1, "--repeat", 1,
               "--out", out)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["planned"] == {"fake": 6} and meta["stored"] == {"fake": 6} and meta["complete"]
    (session,) = meta["environment"]
    for key in ("cpu", "cores", "memory_gb", "os", "python", "libraries", "code", "started",
                "ended", "load_start", "load_end"):
        assert key in session, key
    assert {"pandas", "numpy", "scipy"} <= set(session["libraries"])
    assert session["command"].startswith("COMPARE_PLUGINS=tests.fake_engines PYTHONPATH=")
    assert session["command"].endswith("python run_compare.py --puzzles " + str(small)
                                       + f" --engines fake --workers 1 --repeat 1 --out {out}")
    summary = (out / "summary.md").read_text()
    top = summary[:summary.index("## Headline")]
    assert "## Environment" in top and "load average (1, 5, 15 min):" in top
    assert "libraries: " in top and "code: " in top
    warmup = re.sub(" +", " ", summary[summary.index("## Warm-up (untimed)"):])
    assert "| fake | start-up | 1 |" in warmup          # one worker paid it, untimed
    tables = [line for line in proc.stdout.splitlines() if not line.startswith("Report: ")]
    assert max(map(len, tables)) <= 100       # the terminal table is compact


def test_formulations_and_files_sharing_a_stem(small, tmp_path):
    other = tmp_path / "elsewhere" / "small.txt"
    other.parent.mkdir()
    other.write_text(small.read_text())
    out = tmp_path / "run"
    proc = run("--puzzles", small, other, "--engines", "fake",
               "--formulations", "alldiff,pairwise", "--workers", 2, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr       # n/a is not a disagreement
    frame = results(out)
    assert len(frame) == 12 * 2 and frame["puzzle_id"].nunique() == 12
    assert frame["puzzle_id"].str.endswith("#2").sum() == 6 * 2
    status = frame.groupby("formulation")["status"].agg(set).to_dict()
    assert status == {"alldiff": {"solved"}, "pairwise": {"unsupported"}}
    assert re.search(r"^\| formulation +\|", (out / "summary.md").read_text(), re.M)


def test_seed_variant_times_out_on_an_anti_brute_force_puzzle(tmp_path):
    puzzle = tmp_path / "hard.txt"
    puzzle.write_text(ANTI_BRUTE_FORCE + "\n")
    out = tmp_path / "run"
    proc = run("--puzzles", puzzle, "--engines", "backtracking:variant=seed,backtracking",
               "--timeout", 0.5, "--workers", 2, "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    status = results(out).set_index("engine")["status"].to_dict()
    assert status == {"backtracking:variant=seed": "timeout", "backtracking": "solved"}


def _rows(db: Path) -> list[tuple]:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT puzzle_id, engine, repeat, finished_at FROM results").fetchall()
    except sqlite3.OperationalError:
        return []


def test_killed_run_resumes_without_losing_or_duplicating(small, tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))
    args = [sys.executable, "run_compare.py", "--puzzles", str(small),
            "--engines", "fake-nap:nap=0.15", "--repeat", "4", "--workers", "2",
            "--out", str(out), "--quiet"]
    proc = subprocess.Popen(args, cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(_rows(out / "results.sqlite")) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = set(_rows(out / "results.sqlite"))
    assert 4 <= len(before) < 24
    resumed = run("--out", out, "--resume", "--workers", 2, "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    after = _rows(out / "results.sqlite")
    keys = [r[:3] for r in after]
    assert len(after) == 24 and len(set(keys)) == 24
    assert before <= set(after)                   # finished rows kept, not rerun


# ----- bad usage: in-process, nothing started ----------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["--engines", "nosuch"], "unknown engine"),
    (["--engines", "backtracking:nosuch=1"], "no option"),
    (["--engines", "backtracking:variant"], "not key=value"),
    (["--puzzles", "/no/such/file.txt"], "cannot read"),
    (["--baseline", "cpsat", "--engines", "backtracking"], "not among"),
    (["--resume"], "holds no run"),
    (["--puzzles", str(SAMPLE), "--formulations", "nosuch"], "no puzzle has any"),
])
def test_bad_usage_exits_2_and_creates_nothing(args, message, tmp_path, capsys):
    out = tmp_path / "never"
    assert run_main(args + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_bad_out_paths_exit_2_and_keep_what_is_there(tmp_path, capsys):
    afile = tmp_path / "file.txt"
    afile.write_text("precious\n")
    full = tmp_path / "full"
    full.mkdir()
    (full / "summary.md").write_text("old report\n")
    for out in (afile, full, afile / "sub"):
        assert run_main(["--puzzles", str(SAMPLE), "--engines", "backtracking",
                         "--out", str(out)]) == 2
    assert afile.read_text() == "precious\n"
    assert [p.name for p in full.iterdir()] == ["summary.md"]
    assert (full / "summary.md").read_text() == "old report\n"
    assert "--out" in capsys.readouterr().err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        run_main(["--timeout", "-1"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        run_main(["--mode", "fastest"])
    assert exc.value.code == 2


def test_memout_is_recorded_and_the_run_goes_on(small, tmp_path):
    """2 GB under a 500 MB limit: memout, the worker replaced, every other result there."""
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--sample", 3, "--engines", "fake,fake-hog,fake-raise",
               "--memory-limit", 500, "--workers", 2, "--out", out, "--quiet")
    assert proc.returncode == 4, proc.stderr          # tasks ran out of memory or errored
    assert "FAILED: fake-hog: memout" in proc.stderr
    frame = results(out)
    status = frame.groupby("engine")["status"].agg(set).to_dict()
    assert status == {"fake": {"solved"}, "fake-hog": {"memout"}, "fake-raise": {"error"}}
    hog = frame[frame["engine"] == "fake-hog"]
    assert hog["message"].str.contains("memory limit of 500 MB|memory limit 500 MB").all()
    raised = frame[frame["engine"] == "fake-raise"]
    assert raised["traceback"].str.contains("RuntimeError: fake-raise always fails").all()
    solved = frame[frame["engine"] == "fake"]
    assert solved["cpu_s"].notna().all() and solved["peak_rss_mb"].gt(0).all()
    assert solved["host"].notna().all()
    parquet = pd.read_parquet(out / "results.parquet")
    with sqlite3.connect(out / "results.sqlite") as con:
        stored = pd.read_sql_query("SELECT cpu_s, peak_rss_mb FROM results", con)
    for table in (parquet, stored):
        assert table["cpu_s"].notna().sum() >= 3 and table["peak_rss_mb"].notna().sum() >= 3


def test_the_parent_kills_a_worker_whose_memory_grows_past_the_limit():
    """Slow growth is caught from outside, by the resident size, before RLIMIT_AS."""
    from compare.executors.local.executor import LocalExecutor
    from compare.executors.tasks import Task
    from puzzles.loader import load_puzzles
    entry = load_puzzles(str(REPO / "puzzles" / "data" / "gen-9x9-easy.txt"))[0]
    tasks = [Task(0, entry.id, "alldiff", "fake-hog:mb=1024:pause=0.1", "first", 2, 30.0, 0),
             Task(1, entry.id, "alldiff", "fake", "first", 2, 30.0, 0)]
    with LocalExecutor(1, ["fake-hog:mb=1024:pause=0.1", "fake"], plugins="tests.fake_engines",
                       memory_limit=300) as ex:
        done = {t.tid: r for t, r in ex.run(tasks, {entry.id: entry.puzzle})}
    assert str(done[0].status) == "memout" and "resident" in done[0].message
    assert str(done[1].status) == "solved"


def test_resume_refuses_an_input_whose_puzzles_changed(small, tmp_path, capsys):
    copy = tmp_path / "small.txt"
    copy.write_text(small.read_text())
    out = tmp_path / "run"
    assert run_main(["--puzzles", str(copy), "--engines", "backtracking", "--workers", "1",
                     "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    lines = copy.read_text().splitlines()
    lines[1], lines[3] = lines[3], lines[1]          # the same puzzles, on other lines
    copy.write_text("\n".join(lines) + "\n")
    assert run_main(["--out", str(out), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("skipped:")            # the file's bad line 3, as before
    assert len(err) == 2 and "2 puzzle(s) changed" in err[1] and "line 2" in err[1]
    with sqlite3.connect(out / "results.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 6 * 3   # 3 repeats


def test_resume_on_a_results_file_without_a_run_says_so(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.sqlite").write_bytes(b"")
    assert run_main(["--out", str(out), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no run to continue" in err


def test_odd_engine_statistics_cost_nothing_but_a_note(small, tmp_path):
    """Statistics that cannot be pickled cross as text; 8 MB of them are cut."""
    out = tmp_path / "run"
    proc = run("--puzzles", small, "--sample", 2, "--engines",
               "fake-odd-stats,fake-odd-stats:big=1", "--workers", 2, "--out", out, "--quiet")
    lines = proc.stderr.splitlines()  # the bad line of the file, then the verdict line
    assert proc.returncode == 0 and len(lines) == 2 and lines[1].startswith("OK:"), proc.stderr
    frame = results(out)
    assert len(frame) == 4 and set(frame["status"]) == {"solved"} and frame["verified"].all()
    odd = frame.set_index("engine")["stats"]
    assert odd.str.len().max() <= 16_384
    assert odd.loc["fake-odd-stats"].str.contains("lambda").all()
    assert odd.loc["fake-odd-stats:big=1"].str.contains("cut to").all()
