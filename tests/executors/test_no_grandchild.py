"""No process an engine starts outlives its task: not on an answer, a timeout or the run's end."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")

REPO = Path(__file__).resolve().parents[2]
FOUR = REPO / "puzzles" / "data" / "gen-4x4.txt"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")]


def spawned(mark: str) -> list:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if mark in (proc.info["cmdline"] or ()):
            found.append(proc)
    return found


@pytest.mark.parametrize("options, status", [
    ("", "solved"),                          # the task answers, its child still running
    (":session=1", "solved"),                # ... in a process group of its own
    (":orphan=1", "solved"),                 # ... orphaned by a shell that exited
    (":hang=1", "timeout"),                  # the task overruns: its worker is killed
])
def test_no_process_an_engine_started_survives(tmp_path, options, status):
    mark = f"fake-spawn-{uuid.uuid4().hex}"
    env = dict(os.environ, COMPARE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO),
               FAKE_SPAWN_MARK=mark)
    out = tmp_path / "run"
    try:
        proc = subprocess.run(
            [sys.executable, "run_compare.py", "--puzzles", str(FOUR), "--sample", "2",
             "--engines", f"fake-spawn{options}", "--repeat", "1", "--workers", "1",
             "--timeout", "1", "--out", str(out), "--quiet", "--allow-errors"],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
        assert "Traceback" not in proc.stderr, proc.stderr
        frame = __import__("pandas").read_csv(out / "results.csv")
        assert set(frame["status"]) == {status}
        deadline = time.monotonic() + 5
        while spawned(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert spawned(mark) == []
    finally:
        for left in spawned(mark):
            left.kill()


def test_the_kept_children_file_is_read_afresh_and_a_fork_reads_its_own():
    """``end_leftovers`` keeps ``/proc/.../children`` open and re-reads it from offset 0:
    each read sees the children of that moment, and a forked child opens its own file
    rather than reading its parent's list."""
    from compare.executors.local.processes import _children
    before = set(_children().split())
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert str(child.pid).encode() in _children().split()
    finally:
        child.kill()
        child.wait()
    assert set(_children().split()) == before
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                 # the fork: its own (empty) list, not the parent's
        os.close(read)
        os.write(write, b"empty" if _children().split() == [] else b"parent's")
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 100) == b"empty"
    finally:
        os.waitpid(pid, 0)
        os.close(read)
