"""A damaged run folder: one line naming the file and the fault, exit 2, nothing rewritten."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from compare.cli import main as cli_main

REPO = Path(__file__).resolve().parents[2]
FOUR = REPO / "puzzles" / "data" / "gen-4x4.txt"


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    code = cli_main(["--puzzles", str(FOUR), "--engines", "backtracking", "--repeat", "1",
                     "--workers", "1", "--out", str(out), "--quiet"])
    assert code == 0
    return out


def truncated(db: Path) -> None:
    data = db.read_bytes()
    db.write_bytes(data[:len(data) // 2])


def garbled(db: Path) -> None:
    data = bytearray(db.read_bytes())
    data[4096 + 100:4096 + 3000] = b"\xff" * 2900       # inside the second page
    db.write_bytes(bytes(data))


def not_a_database(db: Path) -> None:
    db.write_bytes(b"these are not the results you are looking for\n" * 100)


def bad_settings(db: Path) -> None:
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE meta SET value = '{\"mode\": ' WHERE key = 'config'")
    con.close()


DAMAGE = {"truncated": (truncated, "results database"),
          "garbled": (garbled, "damaged results database"),
          "not a database": (not_a_database, "not a readable results database"),
          "settings edited": (bad_settings, "stored 'config' is not valid JSON")}


def snapshot(folder: Path) -> dict:
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}


@pytest.mark.parametrize("command", ["report", "resume", "compare"])
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_results_file_is_one_line_and_exit_2(finished, tmp_path, capsys, damage,
                                                       command):
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    hurt, said = DAMAGE[damage]
    hurt(folder / "results.sqlite")
    before = snapshot(folder)
    argv = {"report": ["report", "--out", str(folder), "--quiet"],
            "resume": ["--out", str(folder), "--resume", "--quiet"],
            "compare": ["report", "--compare", str(finished), str(folder)]}[command]
    capsys.readouterr()
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"error: {folder / 'results.sqlite'}: ") and said in err
    assert snapshot(folder) == before            # the failed attempt wrote nothing


def test_an_edited_meta_json_is_rebuilt_by_report(finished, tmp_path, capsys):
    """meta.json is an output, written from the store: a damaged one is rewritten."""
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    (folder / "meta.json").write_text('{"config": ')
    assert cli_main(["report", "--out", str(folder), "--quiet"]) == 0
    assert "config" in json.loads((folder / "meta.json").read_text())
