"""Stored data checked at the door: meta rows and result rows of another shape than the run
writes are refused in one line naming the file, the key or column and what was expected
(exit 2), by report, --compare and --history alike, before a table or a plot meets them."""
from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from compare.cli import main as cli_main
from compare.errors import StoreError
from compare.store import shapes
from compare.store.files import RunFile
from compare.store.folder import RunFolder

REPO = Path(__file__).resolve().parents[2]
FOUR = REPO / "puzzles" / "data" / "gen-4x4.txt"


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    assert cli_main(["--puzzles", str(FOUR), "--engines", "backtracking", "--repeat", "1",
                     "--workers", "1", "--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture
def run(finished, tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    return folder


def _sql(folder: Path, statement: str, *values) -> list:
    with closing(sqlite3.connect(folder / RunFile.RESULTS)) as db, db:
        return db.execute(statement, values).fetchall()


def set_meta_text(folder: Path, key: str, text: str) -> None:
    _sql(folder, "INSERT OR REPLACE INTO meta VALUES (?, ?)", key, text)


def edit_config(folder: Path, edit) -> None:
    config = json.loads(_sql(folder, "SELECT value FROM meta WHERE key = 'config'")[0][0])
    edit(config)
    set_meta_text(folder, "config", json.dumps(config))


def settings(**values):
    return lambda config: config["settings"].update(values)


# key -> (the stored JSON text, or an edit of the config), words the refusal says
META = {
    "config nested 100000 deep": ("config", "[" * 100_000 + "]" * 100_000, "nested deeper"),
    "config nested 40 deep": ("config", "[" * 40 + "]" * 40, "levels of nesting"),
    "config a list": ("config", "[1, 2]", "config: [1, 2], expected an object"),
    "config a number": ("config", "7", "config: 7, expected an object"),
    "runs a text": ("runs", '"str"', "expected a list of objects"),
    "runs of numbers": ("runs", "[1]", "runs[0]: 1, expected an object"),
    "environment a text": ("environment", '"x"', "environment"),
    "calibration a list": ("calibration", "[1]", "calibration"),
    "skipped a number": ("skipped", "5", "skipped"),
    "planned huge": ("planned", '{"zz": 1e308}', "planned.zz"),
    "planned fractional": ("planned", '{"zz": 1.5}', "planned.zz"),
    "planned negative": ("planned", '{"zz": -1}', "planned.zz"),
    "planned a list": ("planned", "[1]", "planned"),
    "a NaN anywhere": ("runs", '[{"wall_s": NaN}]', "NaN where a finite number is expected"),
    "an infinity": ("environment", '[{"cores": Infinity}]', "Infinity where a finite number is expected"),
    "a 400-digit number": ("runs", '[{"wall_s": 1' + "0" * 400 + '}]', "runs[0].wall_s"),
    "timeout a text": ("config", settings(timeout="abc"), "config.settings.timeout"),
    "repeat 10**30": ("config", settings(repeat=10 ** 30), "config.settings.repeat"),
    "limit negative": ("config", settings(limit=-3), "config.settings.limit"),
    "seed fractional": ("config", settings(seed=0.5), "config.settings.seed"),
    "engines a number": ("config", settings(engines=5), "config.settings.engines"),
    "puzzles of numbers": ("config", settings(puzzles=[1]), "config.settings.puzzles[0]"),
    "settings a list": ("config", lambda c: c.update(settings=[1]), "config.settings"),
    "workers zero": ("config", lambda c: c.update(workers=0), "config.workers"),
    "engines_run a text list": ("config", lambda c: c.update(engines_run=[None]),
                                "config.engines_run[0]"),
}


def spoil_meta(folder: Path, case: str) -> str:
    key, value, said = META[case]
    if callable(value):
        edit_config(folder, value)
    else:
        set_meta_text(folder, key, value)
    return said


# column assignments -> words the refusal says
ROWS = {
    "status bogus, total_s text": ({"status": "bogus", "total_s": "abc"}, "'status'"),
    "total_s text": ({"total_s": "abc"}, "'total_s'"),
    "total_s 1e308, solve_s -1": ({"total_s": 1e308, "solve_s": -1}, "_s'"),
    "total_s 1e308": ({"total_s": 1e308}, "'total_s'"),
    "build_s negative": ({"build_s": -0.5}, "'build_s'"),
    "cpu_s infinite": ({"cpu_s": float("inf")}, "'cpu_s'"),
    "nodes negative": ({"nodes": -5}, "'nodes'"),
    "nodes fractional": ({"nodes": 2.5}, "'nodes'"),
    "count a text": ({"count": "many"}, "'count'"),
    "failures negative": ({"failures": -1}, "'failures'"),
    "propagations fractional": ({"propagations": 0.5}, "'propagations'"),
    "verified 7": ({"verified": 7}, "'verified'"),
    "peak_rss_mb huge": ({"peak_rss_mb": 1e300}, "'peak_rss_mb'"),
    "repeat negative": ({"repeat": -1}, "'repeat'"),
    "timeout a blob": ({"timeout": b"\x00"}, "'timeout'"),
    "status NULL": ({"status": None}, "'status'"),
    "engine a number": ({"engine": 12}, "'engine'"),
}


def spoil_row(folder: Path, case: str) -> str:
    values, said = ROWS[case]
    sets = ", ".join(f'"{column}" = ?' for column in values)
    if "engine" in values:     # TEXT affinity turns a number into text: store a blob
        sets = sets.replace('"engine" = ?', '"engine" = CAST(? AS BLOB)')
    _sql(folder, f"UPDATE results SET {sets} WHERE rowid = 2", *values.values())
    return said


def argv(command: str, folder: Path, other: Path, tmp_path: Path) -> list[str]:
    return {"report": ["report", "--out", str(folder), "--quiet"],
            "compare": ["report", "--compare", str(other), str(folder)],
            "history": ["report", "--history", str(other), str(folder), "--out",
                        str(tmp_path / "hist"), "--quiet"]}[command]


def refused(capsys, args, folder: Path, *said) -> str:
    capsys.readouterr()
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {folder / RunFile.RESULTS}: "), err
    assert "expected" in err or "nested deeper" in err, err
    for text in said:
        assert text in err, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("case", sorted(META))
def test_a_meta_row_of_another_shape_is_refused_by_report(run, finished, tmp_path, capsys,
                                                          case):
    said = spoil_meta(run, case)
    refused(capsys, argv("report", run, finished, tmp_path), run, said)


@pytest.mark.parametrize("case", sorted(ROWS))
def test_a_result_row_of_another_shape_is_refused_by_report(run, finished, tmp_path, capsys,
                                                            case):
    said = spoil_row(run, case)
    err = refused(capsys, argv("report", run, finished, tmp_path), run, said)
    assert "row 2" in err


@pytest.mark.parametrize("command", ["compare", "history"])
@pytest.mark.parametrize("case", ["config a list", "runs a text", "planned huge",
                                  "config nested 100000 deep", "repeat 10**30"])
def test_compare_and_history_refuse_meta_of_another_shape(run, finished, tmp_path, capsys,
                                                          command, case):
    said = spoil_meta(run, case)
    refused(capsys, argv(command, run, finished, tmp_path), run, said)


@pytest.mark.parametrize("command", ["compare", "history"])
@pytest.mark.parametrize("case", ["status bogus, total_s text", "total_s 1e308, solve_s -1"])
def test_compare_and_history_refuse_rows_of_another_shape(run, finished, tmp_path, capsys,
                                                          command, case):
    said = spoil_row(run, case)
    refused(capsys, argv(command, run, finished, tmp_path), run, said)


def test_a_refusal_changes_nothing_in_the_folder(run, finished, tmp_path, capsys):
    spoil_meta(run, "planned huge")
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    refused(capsys, argv("report", run, finished, tmp_path), run)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_a_run_as_written_passes_the_checks(finished):
    with RunFolder(finished) as folder:
        assert folder.config["settings"]["repeat"] == 1
        assert len(folder.results) > 0 and folder.planned
        assert folder.runs and folder.sessions


def test_a_backtracking_run_stores_its_failures_and_neither_restarts_nor_nogoods(finished):
    with RunFolder(finished) as folder:
        results = folder.results
    assert results["failures"].notna().all()
    assert (results["failures"] == results["backtracks"]).all()   # its dead ends
    assert (results["restarts"] == 0).all() and (results["nogoods"] == 0).all()
    assert results["propagations"].isna().all()                   # not counted


def test_the_api_reads_through_the_same_door(run):
    spoil_meta(run, "runs a text")
    with RunFolder(run) as folder, pytest.raises(StoreError, match="expected a list"):
        _ = folder.runs


def test_the_checks_take_values_of_every_shape_the_run_writes():
    stored = {"settings": {"puzzles": None, "engines": "a,b", "formulations": None,
                           "timeout": 10.0, "repeat": 3, "sample": None,
                           "memory_limit": None, "repeat_timeouts": False},
              "workers": 2, "engines_run": ["a"], "baseline": None}
    assert shapes.check_meta("config", stored, "f") == stored
    assert shapes.check_meta("calibration", None, "f") is None
    assert shapes.check_meta("inputs", [{"any": "thing"}], "f")
