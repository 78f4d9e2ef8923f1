"""One writer per run folder, and comparisons only between runs that measure the same thing."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compare import plugins
from compare.cli.report import main as report_main
from compare.reporting.runs import compare_runs
from compare.run import provenance as environment
from compare.store.folder import RunFolder
from compare.store.lock import LOCK_NAME, FolderBusy, FolderLock
from compare.store.store import Store
from tests.reporting.test_stats import store, times_frame

REPO = Path(__file__).resolve().parents[2]
MS = 0.001


# ----- the lock --------------------------------------------------------------------------
def test_a_second_writer_is_refused_and_a_released_lock_is_taken_over(tmp_path):
    with FolderLock(tmp_path):
        with pytest.raises(FolderBusy, match=f"another run is writing this folder "
                                             f"\\(process {os.getpid()}\\)"):
            FolderLock(tmp_path).acquire()
    with FolderLock(tmp_path):          # released: the next one takes it
        pass


def test_the_lock_of_a_killed_process_is_taken_over(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from compare.store.lock import "
         "FolderLock; FolderLock(sys.argv[1]).acquire(); print('held', flush=True); "
         "time.sleep(60)", str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(FolderBusy):
        FolderLock(tmp_path).acquire()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (tmp_path / LOCK_NAME).exists()          # the stale file is left behind...
    with FolderLock(tmp_path) as lock:               # ...and taken over
        assert (tmp_path / LOCK_NAME).read_text() == f"{os.getpid()}\n"
        assert lock.fd is not None


def _rows(db: Path) -> list:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT puzzle_id, engine, repeat, total_s FROM results").fetchall()
    except sqlite3.Error:
        return []


@pytest.mark.slow
def test_a_resume_of_a_running_folder_exits_2_in_one_line_and_changes_nothing(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_PLUGINS="tests.fake_engines", PYTHONPATH=str(REPO))
    first = subprocess.Popen([sys.executable, "run_compare.py", "--puzzles", "latin:4:seed=1",
                              "latin:4:seed=2", "--engines", "fake-nap:nap=1", "--repeat", "15",
                              "--workers", "1", "--out", str(out), "--quiet"],
                             cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        deadline = time.monotonic() + 60
        while len(_rows(out / "results.sqlite")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "run_compare.py", "--out", str(out),
                                 "--resume", "--quiet"], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1
        assert "another run is writing this folder" in second.stderr
    finally:
        stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    rows = _rows(out / "results.sqlite")
    assert len(rows) == 30 and len({r[:3] for r in rows}) == 30


# ----- comparing runs ---------------------------------------------------------------------
def runs_with(tmp_path, config_a: dict, config_b: dict, plugins_a=None, plugins_b=None):
    frame = times_frame([MS] * 6, [2 * MS] * 6)
    folders = []
    for name, config, code in (("a", config_a, plugins_a), ("b", config_b, plugins_b)):
        folders.append(store(tmp_path / name, frame, config=config,
                             environment=[{"plugins": code or {}}]))
    return folders


SETTINGS = {"mode": "first", "limit": 2, "timeout": 2.0, "repeat": 3, "sample": None,
            "seed": 0, "formulations": None, "memory_limit": None, "format": "auto"}


def test_compare_of_runs_with_different_time_limits_says_so_first(tmp_path, capsys):
    a, b = runs_with(tmp_path, {"settings": SETTINGS, "engines_run": ["a", "b"]},
                     {"settings": {**SETTINGS, "timeout": 10.0, "sample": 20},
                      "engines_run": ["a", "b"]})
    assert report_main(["--compare", str(a), str(b), "--out", str(tmp_path / "cmp")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == ("INCOMPATIBLE: the runs differ in time limit 2 vs 10; sample none vs 20: "
                     "the ratios below compare unlike runs")
    saved = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert saved["compatible"] is False and saved["line"] == first
    assert (tmp_path / "cmp" / "compare.md").read_text().splitlines()[2] == first
    assert not (b / "compare.md").exists()           # the runs are only read
    assert report_main(["--compare", str(a), str(b), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == ["time limit 2 vs 10",
                                                                  "sample none vs 20"]


def test_compare_names_engine_options_and_plugin_code_that_differ(tmp_path):
    a, b = runs_with(tmp_path, {"settings": SETTINGS, "engines_run": ["a", "cpsat"]},
                     {"settings": SETTINGS, "engines_run": ["a", "cpsat:workers=8"]},
                     {"/x/mine.py": "1" * 64}, {"/x/mine.py": "2" * 64})
    diff = compare_runs(RunFolder(a), RunFolder(b))
    assert diff.differences == ["engines or engine options (A only: cpsat; B only: "
                                "cpsat:workers=8)", "plugin code (mine.py)"]


def test_compare_of_like_runs_says_they_are_comparable(tmp_path):
    config = {"settings": SETTINGS, "engines_run": ["a", "b"]}
    a, b = runs_with(tmp_path, config, config, {"/x/mine.py": "1" * 64}, {"/x/mine.py": "1" * 64})
    assert compare_runs(RunFolder(a), RunFolder(b)).first_line().startswith(
        "COMPATIBLE: same settings and plugin code")


def test_a_changed_plugin_file_changes_its_hash_in_the_record(tmp_path, monkeypatch):
    plugin = tmp_path / "mine.py"
    plugin.write_text("X = 1\n")
    monkeypatch.setattr(plugins, "_loaded", {})
    plugins.load_plugins([str(plugin)])
    before = environment.at_start()["plugins"]
    plugin.write_text("X = 2\n")
    after = environment.at_start()["plugins"]
    assert set(before) == set(after) == {str(plugin.resolve())}
    assert before != after


@pytest.mark.slow
def test_meta_json_holds_the_hash_of_every_plugin_file(tmp_path):
    plugin = tmp_path / "mine.py"
    plugin.write_text((REPO / "tests" / "fake_engines.py").read_text())
    out = tmp_path / "run"
    env = dict(os.environ, COMPARE_PLUGINS=str(plugin), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "run_compare.py", "--puzzles", "latin:4",
                           "--engines", "fake", "--repeat", "1", "--workers", "1",
                           "--out", str(out), "--quiet"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "meta.json").read_text())
    assert list(meta["plugins"]) == [str(plugin.resolve())]
    assert len(meta["plugins"][str(plugin.resolve())]) == 64
    with Store(out) as s:
        assert s.meta("environment")[-1]["plugins"] == meta["plugins"]
