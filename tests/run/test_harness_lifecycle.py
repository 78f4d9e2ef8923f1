"""A run's processes end with it, however it ends, and say at most one line.

Each run here carries a marker in its environment; every process it starts
(forkserver, resource tracker, workers) inherits it, so what is left behind
is found in ``/proc`` whatever its parent has become.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                 reason="finds processes through /proc")]

REPO = Path(__file__).resolve().parents[2]
HARD = REPO / "puzzles" / "data" / "gen-9x9-hard.txt"
# Minutes of work for the seed variant: a long-running, CPU-bound task.
ANTI_BRUTE_FORCE = ("..............3.85..1.2.......5.7.....4...1...9.......5......73"
                    "..2.1........4...9")
MARK = "CSP_COMPARE_TEST_RUN"


def marked(marker: str) -> list[int]:
    """Processes whose environment holds ``MARK=marker``."""
    needle = f"{MARK}={marker}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def gone_within(marker: str, seconds: float) -> list[int]:
    """What is still alive after waiting up to ``seconds`` for everything to end."""
    deadline = time.monotonic() + seconds
    while (left := marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


class Run:
    """``run_compare.py`` in a session of its own, output to files (never pipes:
    a process left behind would hold a pipe open and hang the test)."""

    def __init__(self, tmp_path: Path, *args):
        self.marker = uuid.uuid4().hex
        self.err_path = tmp_path / "stderr.txt"
        env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines",
                   PYTHONPATH=str(REPO), **{MARK: self.marker})
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "run_compare.py", *map(str, args), "--workers", "2",
                 "--quiet", "--out", str(tmp_path / "run")],
                cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=err,
                start_new_session=True)

    def wait_until_busy(self) -> None:
        """Both workers started (parent, forkserver, tracker, 2 workers) and warmed up."""
        deadline = time.monotonic() + 60
        while len(marked(self.marker)) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    def cleanup(self) -> None:
        for pid in marked(self.marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def runs():
    started: list[Run] = []
    yield started
    for run in started:
        run.cleanup()


def long_run_args(tmp_path: Path, kind: str) -> list:
    if kind == "hanging":
        return ["--puzzles", HARD, "--engines", "fake-sleep", "--timeout", 60]
    if kind == "cpsat":      # CP-SAT would catch SIGINT itself, were workers not ignoring it
        return ["--puzzles", "queens:40", "queens:41", "--engines", "cpsat", "--mode", "count",
                "--limit", 1_000_000, "--timeout", 600]
    puzzle = tmp_path / "hard.txt"
    puzzle.write_text(ANTI_BRUTE_FORCE + "\n" + ANTI_BRUTE_FORCE.replace(".", "0", 1) + "\n")
    return ["--puzzles", puzzle, "--engines", "backtracking:variant=seed", "--timeout", 600]


@pytest.mark.parametrize("how, kind", [
    ("SIGKILL", "hanging"), ("SIGKILL", "long-running"),
    ("SIGTERM", "hanging"), ("SIGTERM", "long-running"),
    ("Ctrl-C", "hanging"), ("Ctrl-C", "cpsat"),
])
def test_a_stopped_run_leaves_nothing_behind_and_says_at_most_one_line(how, kind, tmp_path,
                                                                       runs):
    """kill -9 of the parent: its workers follow, silently (no BrokenPipeError).
    SIGTERM to the parent, or Ctrl-C (SIGINT to the whole group, which workers
    ignore): the parent stops them, says one line and exits 130."""
    run = Run(tmp_path, *long_run_args(tmp_path, kind))
    runs.append(run)
    run.wait_until_busy()
    if how == "Ctrl-C":
        os.killpg(run.proc.pid, signal.SIGINT)
    else:
        os.kill(run.proc.pid, getattr(signal, how))
    code = run.proc.wait(30)
    assert gone_within(run.marker, 5) == []
    lines = run.stderr.splitlines()
    if how == "SIGKILL":
        assert (code, lines) == (-signal.SIGKILL, [])
    else:
        assert code == 130 and len(lines) == 1, run.stderr
        assert lines[0].startswith("interrupted: finished results are kept") and \
            "--resume" in lines[0]


def test_an_interrupted_report_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys):
    from compare.cli import run as run_cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_cli, "build_report", interrupted)
    code = run_cli.main(["--puzzles", "queens:4", "--engines", "backtracking",
                         "--workers", "1", "--quiet", "--out", str(tmp_path / "run")])
    assert code == 130
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "report --out" in err[0]
