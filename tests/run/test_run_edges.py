"""Limits and refusals that hold on every path: plugins, the API, resume, Dask, compare.

Each case once let a run report success it did not have, store rows that
were not results, or mix data from two inputs.
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import tests.fake_engines  # noqa: F401  (registers the fake engines)
from compare import SettingsError, compare_runs, run_comparison
from compare.store.store import Store

REPO = Path(__file__).resolve().parents[2]
EASY = REPO / "puzzles" / "data" / "gen-9x9-easy.txt"
FAKES = "tests.fake_engines"


def cli(*args, env=None, timeout=300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COMPARE_PLUGINS": FAKES, **(env or {})}
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout)


def lines_of(path: Path, count: int, start: int = 0) -> list[str]:
    return [line for line in EASY.read_text().splitlines()
            if line and not line.startswith("#")][start:start + count]


def stored(folder: Path) -> list[tuple]:
    with sqlite3.connect(folder / "results.sqlite") as db:
        return db.execute("SELECT puzzle_id, status FROM results ORDER BY puzzle_id").fetchall()


def small_run(puzzles, out: Path, **settings):
    return run_comparison(puzzles, ["fake"], repeat=1, workers=1, out=out, plugins=FAKES,
                          **settings)


# ----- plugins ---------------------------------------------------------------------------
@pytest.mark.parametrize("code", [0, 3])
def test_a_plugin_that_exits_at_import_is_a_plugin_error_not_an_exit_code(code, tmp_path):
    plugin = tmp_path / "quitter.py"
    plugin.write_text(f"import sys\nsys.exit({code})\n")
    for args in (["solve", "--puzzle", "queens:4"], ["--puzzles", "queens:4"],
                 ["report", "--out", tmp_path]):
        done = cli(*args, env={"COMPARE_PLUGINS": str(plugin)})
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and f"called sys.exit({code})" in done.stderr


# ----- the API and engine options ---------------------------------------------------------
def test_the_api_refuses_what_the_command_line_refuses(tmp_path):
    with pytest.raises(SettingsError, match="mode 'bogus'"):
        small_run(["queens:4"], tmp_path / "a", mode="bogus")
    with pytest.raises(SettingsError, match="format 'csv'"):
        small_run(["queens:4"], tmp_path / "b", format="csv")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("spec", ["cpmpy:solver=exact:seed=-1", "cpmpy:seed=4294967296",
                                  "cpmpy:solver=ortools:workers=0"])
def test_engine_options_out_of_range_are_refused_when_parsed(spec):
    pytest.importorskip("cpmpy")
    import engines
    with pytest.raises(engines.EngineOptionError, match="out of range"):
        engines.get_engine(spec)


# ----- resume -------------------------------------------------------------------------------
def test_resume_refuses_a_line_that_became_invalid(tmp_path):
    puzzles = tmp_path / "p.txt"
    good = lines_of(EASY, 4)
    puzzles.write_text("\n".join(good) + "\n")
    small_run([puzzles], tmp_path / "run")
    puzzles.write_text("\n".join([good[0], "x" + good[1], *good[2:]]) + "\n")
    before = stored(tmp_path / "run")
    done = cli("--out", tmp_path / "run", "--resume", "--quiet")
    assert done.returncode == 2 and "line 2" in done.stderr and "no longer valid" in done.stderr
    assert stored(tmp_path / "run") == before


def test_a_sampled_run_pins_its_draw_and_refuses_a_changed_file(tmp_path):
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(lines_of(EASY, 6)) + "\n")
    small_run([puzzles], tmp_path / "run", sample=3, seed=3)
    before = stored(tmp_path / "run")
    again = cli("--out", tmp_path / "run", "--resume", "--quiet")     # unchanged: fine
    assert again.returncode == 0, again.stderr
    with open(puzzles, "a") as handle:
        handle.write("\n".join(lines_of(EASY, 4, start=6)) + "\n")
    done = cli("--out", tmp_path / "run", "--resume", "--quiet")
    assert done.returncode == 2 and "--sample 3 would now draw other puzzles" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert stored(tmp_path / "run") == before


def test_meta_json_lists_the_lines_skipped_now(tmp_path):
    puzzles = tmp_path / "p.txt"
    good = lines_of(EASY, 2)
    puzzles.write_text("\n".join(good) + "\n")
    small_run([puzzles], tmp_path / "run")
    with open(puzzles, "a") as handle:
        handle.write("not a puzzle\n")
    done = cli("--out", tmp_path / "run", "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    with Store(tmp_path / "run") as store:
        assert [line for line in store.meta("skipped") if "line 3" in line]


# ----- a run that cannot start, and comparing what little was stored -------------------------
def test_a_memory_limit_no_worker_fits_stores_nothing_and_says_so(tmp_path):
    done = cli("--puzzles", EASY, "--engines", "cpsat", "--repeat", 1, "--memory-limit", 64,
               "--quiet", "--out", tmp_path / "run")
    assert done.returncode == 3 and "nothing was run" in done.stderr, done.stderr
    assert stored(tmp_path / "run") == []


def test_compare_accepts_a_run_that_stored_nothing(tmp_path):
    small_run(["queens:5"], tmp_path / "full")
    (tmp_path / "empty").mkdir()
    with Store(tmp_path / "empty") as store:       # what a run interrupted early leaves
        store.set_meta("config", {"settings": {}})
    assert "stored no result" in compare_runs(tmp_path / "full", tmp_path / "empty").text()
    done = cli("report", "--compare", tmp_path / "empty", tmp_path / "full")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert done.stdout.strip().count("\n") == 0 and "A (" in done.stdout


def test_compare_accepts_a_partial_run(tmp_path):
    small_run(["queens:5", "queens:6"], tmp_path / "a")
    small_run(["queens:5"], tmp_path / "b")
    done = cli("report", "--compare", tmp_path / "a", tmp_path / "b")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


# ----- Dask holds the local limits ----------------------------------------------------------
@pytest.mark.slow
def test_a_local_dask_cluster_holds_the_memory_limit_as_the_local_executor(tmp_path):
    pytest.importorskip("distributed")
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(lines_of(EASY, 3)) + "\n")
    statuses = {}
    for name, extra in (("local", []), ("dask", ["--cluster", "local:2"])):
        done = cli("--puzzles", puzzles, "--engines", "fake-hog:mb=1024", "--memory-limit", 300,
                   "--repeat", 1, "--quiet", "--out", tmp_path / name, *extra)
        assert done.returncode == 4, done.stderr
        statuses[name] = {status for _, status in stored(tmp_path / name)}
    assert statuses == {"local": {"memout"}, "dask": {"memout"}}


def test_a_local_dask_cluster_is_capped_like_workers(tmp_path):
    pytest.importorskip("distributed")
    done = cli("--puzzles", "queens:4", "--engines", "fake", "--cluster",
               "local:99999999999999999999", "--out", tmp_path / "a")
    assert done.returncode == 2 and "1..1_024" in done.stderr and not (tmp_path / "a").exists()
    done = cli("--puzzles", "queens:4", "queens:5", "--engines", "fake", "--repeat", 1,
               "--cluster", "local:1000", "--quiet", "--out", tmp_path / "b")
    assert done.returncode == 0, done.stderr
    assert "note: --cluster local:1000 capped to 2 (2 tasks)" in done.stderr


# ----- the API in threads -----------------------------------------------------------------
THREADS = """
import sys, threading
from compare import run_comparison
errors = []
def one(name):
    try:
        c = run_comparison(["queens:5", "queens:6"], ["fake"], repeat=1, workers=1,
                           out=f"{sys.argv[1]}/{name}", plugins="tests.fake_engines")
        assert len(c.results) == 2, c.results
    except BaseException as exc:
        errors.append(f"{name}: {type(exc).__name__}: {exc}")
def in_threads(*names):
    threads = [threading.Thread(target=one, args=(n,)) for n in names]
    [t.start() for t in threads]
    [t.join() for t in threads]
in_threads("solo")
in_threads("pair-1", "pair-2")
in_threads("after")
one("main")
print(errors)
"""


@pytest.mark.slow
def test_the_api_runs_from_threads_one_after_another_and_two_at_once(tmp_path):
    """The forkserver once died with the thread that started it, and the next run met a
    raw EOFError or ConnectionRefusedError; it runs in a fresh process here, so that
    the first run of all starts it from a thread."""
    done = subprocess.run([sys.executable, "-c", THREADS, str(tmp_path)], cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    assert all(len(stored(tmp_path / name)) == 2
               for name in ("solo", "pair-1", "pair-2", "after", "main"))


@pytest.mark.slow
def test_ctrl_c_stops_a_dask_run_at_once_not_when_its_tasks_end(tmp_path):
    """Closing the cluster waited for the solver processes' running tasks (up to their
    time limit); now they are killed, and nothing is stored for them."""
    pytest.importorskip("distributed")
    import signal
    import time
    out = tmp_path / "run"
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(lines_of(EASY, 6)) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "run_compare.py", "--puzzles", str(puzzles), "--engines", "fake-sleep",
         "--timeout", "120", "--repeat", "1", "--cluster", "local:2", "--quiet", "--out",
         str(out)],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), "COMPARE_PLUGINS": FAKES},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (out / "results.sqlite").exists():
                with Store(out) as store:
                    if store.meta("environment"):
                        break
            time.sleep(0.2)
        time.sleep(3)                         # both solver processes busy sleeping
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and "--resume" in err, err
    assert took < 30, f"took {took:.1f} s"
    assert stored(out) == []
