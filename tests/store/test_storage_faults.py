"""A full or read-only disk: one line naming the path and the cause, exit 5, nothing lost.

The disks are tiny tmpfs mounts, so these tests need root; elsewhere they skip.
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from compare.store.store import StorageError, atomic_write

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="mounting a tmpfs needs root")


@contextmanager
def tmpfs(folder: Path, size: str):
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def run(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, COMPARE_ENGINE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)


def many_puzzles(path: Path, count: int) -> Path:
    line = (REPO / "puzzles" / "data" / "gen-9x9-easy.txt").read_text().splitlines()[1]
    path.write_text((line + "\n") * count)
    return path


def fill(path: Path) -> None:
    """Write until the disk is full."""
    with open(path, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError:
            pass


def test_an_empty_folder_on_a_read_only_disk(tmp_path):
    with tmpfs(tmp_path / "disk", "1m") as disk:
        (disk / "out").mkdir()
        read_only(disk)
        proc = run("--puzzles", "queens:4", "--engines", "fake", "--workers", 1,
                   "--out", disk / "out", "--quiet")
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert str(disk / "out") in proc.stderr and "Read-only file system" in proc.stderr


def test_a_disk_that_fills_up_during_the_run(tmp_path):
    puzzles = many_puzzles(tmp_path / "twenty.txt", 20)
    with tmpfs(tmp_path / "disk", "256k") as disk:
        proc = run("--puzzles", puzzles, "--engines", "fake", "--repeat", 300, "--workers", 2,
                   "--out", disk / "out", "--quiet")
        assert proc.returncode == 6, proc.stderr[-2000:]
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
        assert "results.sqlite" in proc.stderr and "cannot write" in proc.stderr
        with sqlite3.connect(disk / "out" / "results.sqlite") as con:    # still readable
            stored = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        assert 0 < stored < 6000
        assert not (disk / "out" / "results.csv").exists()


def test_a_report_that_does_not_fit_keeps_the_previous_file(tmp_path):
    with tmpfs(tmp_path / "disk", "64k") as disk:
        target = disk / "results.csv"
        target.write_text("the previous report\n")
        with pytest.raises(StorageError, match="No space left on device"):
            atomic_write(target, lambda tmp: tmp.write_bytes(b"x" * 200_000))
        assert target.read_text() == "the previous report\n"
        assert [p.name for p in disk.iterdir()] == ["results.csv"]


def test_report_command_on_a_full_disk_is_one_line(tmp_path):
    """The report step writes results.csv and summary.md; on a full disk it says so."""
    out = tmp_path / "run"
    assert run("--puzzles", many_puzzles(tmp_path / "p.txt", 50), "--engines", "fake",
               "--workers", 1, "--out", out, "--quiet").returncode == 0
    with tmpfs(tmp_path / "disk", "256k") as disk:
        copy = disk / "run"
        copy.mkdir()
        (copy / "results.sqlite").write_bytes((out / "results.sqlite").read_bytes())
        fill(disk / "filler")
        proc = run("report", "--out", copy, "--quiet")
    assert proc.returncode == 6, proc.stderr[-2000:]
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr


def test_generate_on_a_full_disk_keeps_the_old_file_and_exits_6(tmp_path):
    with tmpfs(tmp_path / "disk", "64k") as disk:
        out = disk / "puzzles.txt"
        assert run("generate", "--size", "4", "--count", "2", "--out", out).returncode == 0
        before = out.read_text()
        fill(disk / "filler")
        done = run("generate", "--size", "9", "--count", "300", "--clues", "40", "--force",
                   "--out", out)
        assert done.returncode == 6, done.stderr
        assert len(done.stderr.splitlines()) == 1 and str(out) in done.stderr
        assert out.read_text() == before
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "puzzles.txt"]
