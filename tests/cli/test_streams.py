"""Closed standard streams: a closed stderr loses messages, never the run; a closed stdout
is a reader that has gone (exit 141); a closed stdin is refused input (exit 2)."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PIPE_CLOSED = 141
RUN = ["--puzzles", "queens:5", "--engines", "backtracking", "--repeat", "1", "--workers", "1"]


def closed(redirect: str, *args, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    """``run_compare.py ARGS`` started by a shell with ``redirect`` (``2>&-``, ...)."""
    script = f'exec "$0" "$@" {redirect}'
    return subprocess.run(["sh", "-c", script, sys.executable, "run_compare.py",
                           *map(str, args)], cwd=REPO, stdin=stdin, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(REPO)))


def stored(folder: Path) -> int:
    with sqlite3.connect(folder / "results.sqlite") as con:
        return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]


def test_a_run_with_stderr_closed_keeps_its_result(tmp_path):
    done = closed("2>&-", *RUN, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stdout
    assert stored(tmp_path / "run") == 1
    assert (tmp_path / "run" / "summary.md").exists()


def test_solve_with_stderr_closed_still_refuses_bad_input_by_its_code(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("not a puzzle\n")
    done = closed("2>&-", "solve", bad)
    assert done.returncode == 2 and done.stdout == ""


def test_a_run_with_stdout_closed_keeps_its_result_and_exits_as_a_closed_pipe(tmp_path):
    done = closed(">&-", *RUN, "--out", tmp_path / "run")
    assert done.returncode == PIPE_CLOSED, done.stderr
    assert "Traceback" not in done.stderr and "AttributeError" not in done.stderr
    assert stored(tmp_path / "run") == 1


def test_report_compare_json_with_stdout_closed(tmp_path):
    run = tmp_path / "run"
    assert closed("", *RUN, "--out", run, "--quiet").returncode == 0
    for args in (["report", "--compare", run, run, "--json"], ["engines"]):
        done = closed(">&-", *args)
        assert done.returncode == PIPE_CLOSED, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_stdout_closed_keeps_a_fault_of_its_own():
    done = closed(">&-", "--puzzles", "queens:5", "--timeout", "nan")
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_solve_with_stdin_closed_is_bad_input():
    done = closed("<&-", "solve", "--engine", "backtracking", stdin=None)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "error: <stdin>: cannot read: stdin is closed\n"


def test_a_run_reading_a_closed_stdin_is_bad_input(tmp_path):
    done = closed("<&-", "--puzzles", "-", "--engines", "backtracking",
                  "--out", tmp_path / "run", stdin=None)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith("cannot read: stdin is closed")
    assert done.stderr.count("\n") == 1
