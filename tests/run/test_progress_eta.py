"""Progress for a log: the time left follows the work, on a fake clock; and the run's
header counts tasks as its verdict does."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from compare.run.progress import EtaLines, counted

REPO = Path(__file__).resolve().parents[2]


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lines_of(capsys) -> list[str]:
    return capsys.readouterr().err.splitlines()


def left_in(line: str) -> int:
    """The seconds a progress line says are left."""
    m, s = re.search(r"about (?:(\d+)m)?(\d+)s left", line).groups()
    return int(m or 0) * 60 + int(s)


def test_a_steady_run_is_estimated_at_its_rate():
    clock = Clock()
    eta = EtaLines(100, every_s=10.0, clock=clock)
    for _ in range(30):
        clock.now += 1.0
        eta.update(1)
    assert eta.left(30.0) == pytest.approx(70.0)
    assert eta.line(30.0) == "progress: 30/100 tasks (30%), 30s elapsed, about 1m10s left"


def test_while_long_tasks_run_and_none_finishes_the_time_left_grows(capsys):
    """The stall a log showed: 45 s, then minutes, with the same "about 24s left"."""
    clock = Clock()
    eta = EtaLines(100, every_s=10.0, clock=clock)
    for _ in range(90):                   # 90 quick tasks in 45 s
        clock.now += 0.5
        eta.update(1)
    lines_of(capsys)
    for _ in range(21):                   # 3.5 minutes more: nothing finishes
        clock.now += 10.0
        eta.tick()
    said = [left_in(line) for line in lines_of(capsys)]
    assert len(said) == 21                # a line every 10 s though no result came
    assert all(b > a for a, b in zip(said, said[1:])), said
    assert said[-1] > 210                 # the 10 tasks left take at least what one has


def test_when_tasks_get_longer_the_estimate_follows_the_recent_ones():
    """Puzzles come in order, the big ones last: after 60 s of 6 s tasks the estimate
    is the recent rate, not the mean over the quick ones at the start."""
    clock = Clock()
    eta = EtaLines(200, clock=clock)
    for _ in range(180):
        clock.now += 0.1                  # 18 s of quick tasks
        eta.update(1)
    for _ in range(10):
        clock.now += 6.0                  # then 60 s of long ones
        eta.update(1)
    elapsed = clock.now - eta.start
    whole_run_rate = elapsed / 190 * 10
    assert whole_run_rate < 5
    assert eta.left(elapsed) == pytest.approx(60.0, rel=0.25)
    for _ in range(5):                    # and quicker ones again: it comes down
        clock.now += 1.0
        eta.update(1)
    assert eta.left(clock.now - eta.start) < 60.0


def test_lines_count_task_runs_when_tasks_repeat(capsys):
    clock = Clock()
    eta = EtaLines(12, every_s=0.0, unit="task runs", clock=clock)
    clock.now += 2
    eta.update(3)
    assert lines_of(capsys) == ["progress: 3/12 task runs (25%), 2s elapsed, about 6s left"]


def test_a_long_run_keeps_a_bounded_record():
    clock = Clock()
    eta = EtaLines(1_000_000, every_s=1e9, clock=clock)
    for _ in range(20_000):
        clock.now += 0.01
        eta.update(1)
    assert len(eta.points) <= 257 and eta.points[0] == (0.0, 0)
    assert eta.left(clock.now - eta.start) == pytest.approx(0.01 * 980_000, rel=0.05)


def test_tasks_are_counted_with_their_repeats_said_apart():
    assert counted(280, 3) == "280 tasks x 3 repeats"
    assert counted(280) == "280 tasks" and counted(1) == "1 task"


@pytest.mark.slow
def test_the_header_and_the_verdict_count_the_same_tasks(tmp_path):
    proc = subprocess.run(
        [sys.executable, "run_compare.py", "--puzzles", "queens:5", "queens:6", "--engines",
         "backtracking,cpsat", "--repeat", "2", "--workers", "1", "--out", str(tmp_path / "r")],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
        timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "2 puzzles x 2 engines (backtracking, cpsat): 4 tasks x 2 repeats; " in proc.stderr
    assert "\nOK: 4 tasks x 2 repeats: 4 solved; " in proc.stderr
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "OK: 4 tasks x 2 repeats: 4 solved; " in summary
    assert "8 task runs in " in summary                # the harness line counts the runs
