"""Inputs by any name: file names that are not UTF-8 or hold control characters, FIFOs and
devices, and ``--out`` paths with ``..`` steps or in places that cannot hold a folder."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from compare.cli import run as run_cli
from compare.cli import solve as solve_cli
from compare.cli.common import shell_word

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "puzzles" / "samples" / "boj2239.txt"
RUN = ["--engines", "backtracking", "--repeat", "1", "--workers", "1", "--quiet"]


def named(folder: Path, raw: bytes) -> str:
    """A copy of the sample under a name given as bytes (the str Python makes of them)."""
    path = os.path.join(os.fsencode(folder), raw)
    shutil.copyfile(SAMPLE, path)
    return os.fsdecode(path)


@pytest.mark.parametrize("raw, shown", [(b"x\xff\xfey.txt", "x\\xff\\xfey"),
                                        (b"\xe9t\xe9.txt", "\\xe9t\\xe9")])
def test_a_file_name_that_is_not_utf8_runs_and_is_stored_escaped(tmp_path, raw, shown,
                                                                 capsys):
    path = named(tmp_path, raw)
    assert solve_cli.main([path]) == 0
    assert capsys.readouterr().out == (REPO / "puzzles/samples/boj2239.out").read_text()
    out = tmp_path / "run"
    assert run_cli.main(["--puzzles", path, *RUN, "--out", str(out)]) == 0
    with sqlite3.connect(out / "results.sqlite") as con:
        ids = [r[0] for r in con.execute("SELECT puzzle_id FROM results")]
    assert ids == [f"{shown}:1"]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert f"--puzzles $'{tmp_path}/{shown}.txt'" in summary


@pytest.mark.parametrize("raw, word", [(b"a\nb.txt", "$'a\\nb.txt'"),
                                       ("r\u202eev.txt".encode(), "$'r\\u202eev.txt'")])
def test_control_characters_in_a_path_are_escaped_in_the_recorded_command(tmp_path, raw,
                                                                           word):
    path = named(tmp_path, raw)
    out = tmp_path / "run"
    assert run_cli.main(["--puzzles", path, *RUN, "--out", str(out)]) == 0
    command = [line for line in (out / "summary.md").read_text().splitlines()
               if line.startswith("- command:")]
    assert len(command) == 1 and f"{tmp_path}/{word[2:]}" in command[0]
    assert "\u202e" not in command[0]


def test_shell_words_paste_back_as_the_same_bytes():
    for text in ["plain", "it's", "a\nb", "tab\there", "r\u202eev", "x\udcff\udcfey", "back\\"]:
        word = shell_word(text)
        echoed = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True,
                                check=True).stdout
        assert echoed == os.fsencode(text), (text, word)


@pytest.mark.parametrize("command", [["solve"], ["--puzzles"]])
def test_a_fifo_is_refused_in_one_line(tmp_path, command):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    args = [*command, str(fifo)] + ([] if command == ["solve"] else
                                    [*RUN, "--out", str(tmp_path / "run")])
    done = subprocess.run([sys.executable, "run_compare.py", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: {fifo}: a FIFO, not a puzzle file (give a file, a " \
                          "folder, or - for stdin)\n"
    assert not (tmp_path / "run").exists()


def test_a_device_is_refused_by_solve_and_run(capsys):
    assert solve_cli.main(["/dev/null"]) == 2
    assert run_cli.main(["--puzzles", "/dev/urandom", *RUN]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: /dev/null: a device, not a puzzle file (give a file, a folder, "
                   "or - for stdin)",
                   "error: /dev/urandom: a device, not a puzzle file (give a file, a "
                   "folder, or - for stdin)"]


def test_out_is_normalised_before_it_is_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli.main(["--puzzles", "queens:4", *RUN, "--out", "a/../r5/../r5b"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r5b"]
    assert (tmp_path / "r5b" / "results.sqlite").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir() or not Path("/sys").is_dir(),
                    reason="needs Linux's /proc and /sys")
@pytest.mark.parametrize("out", ["/sys/csp-compare-run", "/proc/self/csp-compare-run",
                                 "/sys/kernel/csp/compare"])
def test_a_place_that_cannot_hold_a_folder_is_usage(out, capsys):
    assert run_cli.main(["--puzzles", "queens:4", *RUN, "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {out}: cannot create folder (") and \
        err.count("\n") == 1


def test_bad_input_under_a_name_that_is_not_utf8_is_named_escaped(tmp_path, capsys):
    path = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"bad\xff.txt"))
    Path(path).write_text("garbage\n")
    assert solve_cli.main([path]) == 2
    assert run_cli.main(["--puzzles", path, *RUN, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}/bad\\xff.txt, line 1:" in err and "\udcff" not in err
