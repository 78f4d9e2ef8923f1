"""Ctrl-C and SIGTERM belong to the tool, whatever the solver libraries do with signals.

OR-Tools resets SIGINT to the default action, Exact installs handlers of its
own for SIGINT and SIGTERM, CP-SAT and Z3 stop their search on SIGINT and
answer "unknown", PySAT and Choco hold on in C. None of that may reach the
process the user talks to: the run and ``solve`` stop within seconds with
exit 130, and a task the user interrupted is never stored as a result.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tests.fake_engines  # noqa: F401  (registers the fake engines)
from compare.executors.local.executor import LocalExecutor
from compare.executors.local.processes import ProcessDied, call_apart

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO), COMPARE_PLUGINS="tests.fake_engines")


def cpmpy_backends() -> list:
    try:
        import engines.cpmpy.engine as ce
    except ImportError:
        return []
    if ce.cp is None:
        return []
    return [pytest.param(name, marks=pytest.mark.skipif(
        not ce.probe_backend(name)[0], reason=f"CPMpy backend {name} not working here"))
            for name in ("ortools", "exact", "choco", "pysat", "z3")]


BACKENDS = cpmpy_backends()


def test_backend_checks_leave_ctrl_c_and_sigterm_to_the_tool():
    """Every backend's check (a load and a tiny solve) runs in the caller's process;
    afterwards SIGINT and SIGTERM still do what the tool set, at the C level too."""
    script = """
import os, signal
import engines.cpmpy.engine as ce
from compare.cli import terminate_like_interrupt
terminate_like_interrupt()
for name in ce.BACKENDS:
    ce.probe_backend(name)
for sig in (signal.SIGINT, signal.SIGTERM):
    try:
        os.kill(os.getpid(), sig)
        __import__("time").sleep(2)
        print("ignored", sig.name)
    except KeyboardInterrupt:
        print("interrupted", sig.name)
"""
    pytest.importorskip("cpmpy")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.split("\n")[:2] == ["interrupted SIGINT", "interrupted SIGTERM"], \
        done.stdout + done.stderr


def test_workers_are_out_of_reach_of_the_terminals_ctrl_c():
    """The terminal signals its foreground group; a worker is in a group of its own."""
    executor = LocalExecutor(1, ["fake"], warmup=False, plugins="tests.fake_engines")
    try:
        executor.start()
        pid = executor.pool[0].proc.pid
        deadline = time.monotonic() + 60
        while os.getpgid(pid) != pid and time.monotonic() < deadline:
            time.sleep(0.02)
        assert os.getpgid(pid) == pid != os.getpgrp()
    finally:
        executor.close()


def _raise_usage():
    raise LookupError("no such thing")


def test_call_apart_returns_and_raises_what_the_child_did():
    assert call_apart(os.getpid) != os.getpid()
    with pytest.raises(LookupError, match="no such thing"):
        call_apart(_raise_usage)
    with pytest.raises(ProcessDied, match="exit code 3"):
        call_apart(os._exit, 3)
    with pytest.raises(ProcessDied, match="still running"):
        call_apart(time.sleep, 30, within=0.5)


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(c) for c in handle.read().split()]
    except OSError:
        pass
    return found


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``: workers fork from the forkserver, not the parent."""
    found, todo = [], [pid]
    while todo:
        below = _children(todo.pop())
        found += below
        todo += below
    return found


def _send(proc, how: str) -> None:
    if how == "Ctrl-C":
        os.killpg(proc.pid, signal.SIGINT)     # what a terminal does: the whole group
    else:
        os.kill(proc.pid, signal.SIGTERM)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="finds processes in /proc")
@pytest.mark.parametrize("engine", ["cpsat", "backtracking", "python-constraint"]
                         + [pytest.param(f"cpmpy:solver={p.values[0]}", marks=p.marks)
                            for p in BACKENDS])
def test_solve_stops_on_ctrl_c_with_exit_130_on_every_engine(engine):
    proc = subprocess.Popen(
        [sys.executable, "run_compare.py", "solve", "--engine", engine, "--puzzle",
         "queens:200", "--mode", "count", "--limit", "1000000"],
        cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not _children(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)                          # the search under way in the child
        assert proc.poll() is None, proc.stderr.read()
        sent = time.monotonic()
        _send(proc, "Ctrl-C")
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, err.strip(), out) == (130, "interrupted", "")
    assert took < 10, f"took {took:.1f} s to stop"


@pytest.mark.slow
@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM"])
@pytest.mark.parametrize("engine", [pytest.param(f"cpmpy:solver={p.values[0]}", marks=p.marks)
                                    for p in BACKENDS if p.values[0] in ("exact", "ortools")])
def test_an_interrupted_run_stores_no_result_for_the_tasks_it_stopped(engine, how, tmp_path):
    """Exact raised "Program interrupted by user" in the workers and the run stored those
    as errors; OR-Tools left the parent dying silently. Now: exit 130 with the resume
    line, nothing stored for the stopped tasks, and the resume runs them."""
    out = tmp_path / "run"
    args = ["--puzzles", "queens:40", "queens:41", "--engines", engine, "--mode", "count",
            "--limit", "1000000", "--timeout", "8", "--repeat", "1", "--workers", "2",
            "--quiet", "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "run_compare.py", *args], cwd=REPO, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if len(_descendants(proc.pid)) >= 3:    # forkserver and the two workers
                break
            time.sleep(0.05)
        time.sleep(1.5)
        assert proc.poll() is None
        _send(proc, how)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and err.startswith("interrupted:") and "--resume" in err, err
    with sqlite3.connect(out / "results.sqlite") as db:
        stored = db.execute("SELECT status, message FROM results").fetchall()
    assert [row for row in stored if row[0] != "timeout"] == []
    again = subprocess.run([sys.executable, "run_compare.py", "--out", str(out), "--resume",
                            "--quiet"], cwd=REPO, env=ENV, capture_output=True, text=True,
                           timeout=300)
    with sqlite3.connect(out / "results.sqlite") as db:
        statuses = [r[0] for r in db.execute("SELECT status FROM results")]
    assert again.returncode == 0 and statuses == ["timeout", "timeout"], again.stderr
