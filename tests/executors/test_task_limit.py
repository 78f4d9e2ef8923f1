"""A task's limit holds for every engine, warm-up included: an engine that spins and
ignores SIGTERM in any hook, run with ``--timeout 1`` on one puzzle, ends the run within
30 s with its task a ``timeout`` (or, when only a one-off step hung, with that step
killed and the task run), and leaves no process behind, on either executor."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from compare.executors.base import compiles_on_first_use, warmup_note

REPO = Path(__file__).resolve().parents[2]
PLUGINS = "tests.fake_engines"
WITHIN_S = 30.0


def marked(mark: str) -> list[psutil.Process]:
    """Processes alive now whose environment carries ``mark`` (every descendant of the
    run inherits it, whatever group or session it moved to)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("SPIN_TEST_MARK") == mark and proc.status() != "zombie":
                found.append(proc)
        except (psutil.Error, OSError):
            pass
    return found


def run_spinning(tmp_path: Path, hook: str, *extra: str) -> tuple[dict, float, Path]:
    """The CLI on queens:4 with ``fake-spin:hook=HOOK``; the stored task, the run's wall
    time, the run folder. Fails when a process of the run outlives it."""
    return run_one(tmp_path, "queens:4", f"fake-spin:hook={hook}", *extra)


def run_one(tmp_path: Path, puzzles: str, engine: str, *extra: str,
            **env: str) -> tuple[dict, float, Path]:
    """The CLI on one task with ``--timeout 1 --repeat 1``: its stored row, the wall
    time and the run folder; fails when a process of the run outlives it."""
    mark = uuid.uuid4().hex
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_PLUGINS=PLUGINS, PYTHONPATH=str(REPO),
               SPIN_TEST_MARK=mark, **env)
    before = set(psutil.Process().children(recursive=True))   # earlier tests' forkserver
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "run_compare.py", "--puzzles", puzzles, "--engines", engine,
         "--timeout", "1", "--repeat", "1", "--out", str(out), "--quiet", *extra],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        _, err = proc.communicate(timeout=WITHIN_S + 60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
    took = time.monotonic() - start
    left = marked(mark)
    deadline = time.monotonic() + 5         # a dying process may take a moment to go
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = marked(mark)
    for stray in left:                      # never leave one for the next test
        stray.kill()
    assert not left, f"processes left: {[p.cmdline() for p in left]}"    # any group
    assert set(psutil.Process().children(recursive=True)) <= before
    with sqlite3.connect(out / "results.sqlite") as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute("SELECT * FROM results")]
    assert len(rows) == 1, (rows, err)
    return rows[0], took, out


@pytest.mark.parametrize("hook", ["import", "translate", "search"])
def test_a_task_that_spins_deaf_to_sigterm_is_a_timeout_within_its_limit(tmp_path, hook):
    row, took, _ = run_spinning(tmp_path, hook)
    assert took < WITHIN_S
    assert row["status"] == "timeout", row
    assert row["engine"].startswith("fake-spin")
    if hook == "search":       # killed while solving: its peak read from the worker first
        assert row["peak_rss_mb"] > 10, row


def test_a_start_up_warm_up_that_spins_costs_the_task_limit_only(tmp_path):
    """The grids every worker warms up on hang: that worker is killed at the task's
    limit plus grace (no compile is declared), its successor skips the warm-up, and the
    task itself, which does not hang, is solved."""
    row, took, _ = run_spinning(tmp_path, "warmup")
    assert took < WITHIN_S
    assert row["status"] == "solved", row


def test_a_preparation_that_spins_is_killed_at_the_task_limit(tmp_path):
    """A one-off ``prepare`` of an engine that declares no compile has the task's limit
    plus grace, not the ten minutes a declared compile may take."""
    row, took, out = run_spinning(tmp_path, "prepare")
    assert took < WITHIN_S
    assert row["status"] == "solved", row
    with sqlite3.connect(out / "results.sqlite") as db:
        (text,), = db.execute("SELECT value FROM meta WHERE key = 'runs'")
    (prepared,) = [p for run in json.loads(text) for p in run["warmup"]["prepared"]]
    assert prepared["outcome"].startswith("killed at the limit of 2.1 s")


@pytest.mark.slow
def test_a_task_that_spins_on_a_dask_worker_is_a_timeout_within_its_limit(tmp_path):
    """A local Dask cluster of one worker: its solver process is killed, the task is a
    timeout, and the cluster goes with the run."""
    row, took, _ = run_spinning(tmp_path, "search", "--cluster", "local:1")
    assert took < WITHIN_S
    assert row["status"] == "timeout", row


def test_only_a_declared_compile_gets_the_long_warm_up():
    assert compiles_on_first_use("backtracking:kernel=numba")
    assert not compiles_on_first_use("backtracking")
    assert not compiles_on_first_use("fake-spin")
    assert not compiles_on_first_use("no-such-engine")


@pytest.mark.slow
def test_the_numba_kernel_on_a_cold_cache_compiles_untimed(tmp_path):
    """An empty numba cache and a one-second limit: the compile (many seconds) is the
    declared compile's, untimed, and the task is solved."""
    pytest.importorskip("numba")
    puzzles = tmp_path / "one.txt"
    puzzles.write_text((REPO / "puzzles" / "data" / "gen-9x9-easy.txt")
                       .read_text().splitlines()[1] + "\n")
    row, _, out = run_one(tmp_path, str(puzzles), "backtracking:kernel=numba",
                          NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    assert row["status"] == "solved", row
    with sqlite3.connect(out / "results.sqlite") as db:
        (text,), = db.execute("SELECT value FROM meta WHERE key = 'runs'")
    (prepared,) = [p for run in json.loads(text) for p in run["warmup"]["prepared"]]
    assert prepared["outcome"] == "done" and prepared["seconds"] > 2.1


def test_the_header_names_the_long_warm_up_and_its_bounds():
    assert warmup_note(["backtracking", "fake-spin"]) == ""
    note = warmup_note(["backtracking:kernel=numba", "backtracking"])
    assert "up to 60 s a shape" in note and "at most 240 s" in note
    assert note.endswith("for backtracking:kernel=numba")
