"""The run folder's one door: a schema version in every results file, older files
migrated, unknown ones refused in one line; one module of errors with their exit codes;
only compare/store names the folder's files; facts kept as data, not message text."""
from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from compare.cli.report import main as report_main
from compare.errors import (
    FAULTS,
    CompareError,
    Exit,
    FolderBusy,
    PluginError,
    SchemaError,
    SettingsError,
    StorageError,
    StoreError,
    exit_code,
)
from compare.facts import Fact
from compare.store import schema
from compare.store.files import RunFile
from compare.store.folder import RunFolder
from compare.store.store import Store
from puzzles.errors import PuzzleInputError

ROOT = Path(__file__).resolve().parents[2]
# A run folder written by the code before schema versions (queens:5, backtracking, one
# repeat): its results file and meta.json, as that code left them.
UNSTAMPED = ROOT / "tests" / "data" / "run_unstamped"


def _sql(folder: Path, *statements: str) -> list:
    """Each statement's rows, on a connection closed after (so nothing waits in a WAL)."""
    with closing(sqlite3.connect(folder / RunFile.RESULTS)) as db, db:
        return [db.execute(s).fetchall() for s in statements]


def _version(folder: Path) -> int:
    return _sql(folder, "PRAGMA user_version")[0][0][0]


def _columns(folder: Path) -> set[str]:
    return {row[1] for row in _sql(folder, "PRAGMA table_info(results)")[0]}


def _stamp(folder: Path, version: int) -> None:
    _sql(folder, f"PRAGMA user_version = {version}")


@pytest.fixture
def unstamped(tmp_path) -> Path:
    folder = tmp_path / "old"
    shutil.copytree(UNSTAMPED, folder)
    return folder


# ----- the schema version -------------------------------------------------------------
def test_a_new_results_file_carries_the_schema_version(tmp_path):
    with Store(tmp_path):
        pass
    assert _version(tmp_path) == schema.VERSION
    assert set(schema.COLUMNS) <= _columns(tmp_path)


def test_the_fixture_is_a_file_of_the_code_before_versions():
    assert _version(UNSTAMPED) == 0 and "fact" not in _columns(UNSTAMPED)


def test_a_folder_made_before_versions_is_migrated_and_its_report_rebuilt(unstamped, capsys):
    assert report_main(["--out", str(unstamped), "--quiet"]) == Exit.OK
    assert _version(unstamped) == schema.VERSION
    assert "fact" in _columns(unstamped)
    for name in (RunFile.SUMMARY, RunFile.CSV, RunFile.PAGE, RunFile.SUMMARY_JSON):
        assert (unstamped / name).stat().st_size > 0
    meta = json.loads((unstamped / RunFile.META).read_text(encoding="utf-8"))
    assert meta["schema_version"] == schema.VERSION
    assert meta["config"]["settings"]["engines"] == "backtracking"
    with RunFolder(unstamped) as run:
        assert len(run.results) == 1 and run.results["status"].tolist() == ["solved"]
        assert run.results["verified"].tolist() == [True]
    assert capsys.readouterr().err.startswith("OK: 1 task")


def test_the_migration_stores_the_facts_that_version_1_had_only_in_messages(unstamped):
    with sqlite3.connect(unstamped / RunFile.RESULTS) as db:
        row = db.execute("SELECT * FROM results").fetchone()
        names = [d[0] for d in db.execute("SELECT * FROM results").description]
        base = dict(zip(names, row))
        for repeat, message in ((1, "not run again: timed out on repeat 1 (--repeat-timeouts "
                                    "runs it)"),
                                (2, "killed after 12.0 s (time limit 10 s) while its shape "
                                    "was warming up (model build, first use)"),
                                (3, "an engine's own words")):
            values = {**base, "repeat": repeat, "status": "timeout", "message": message}
            marks = ", ".join("?" * len(values))
            db.execute(f"INSERT INTO results ({', '.join(map(repr, values))}) "
                       f"VALUES ({marks})", list(values.values()))
    with Store(unstamped) as store:
        facts = dict(zip(store.frame()["repeat"], store.frame()["fact"]))
    assert facts[1] == Fact.NOT_REPEATED and facts[2] == Fact.WARMUP_KILLED
    assert pd.isna(facts[0]) and pd.isna(facts[3])


STATS = {"nodes": 9, "failures": 7, "propagations": 2 ** 40, "restarts": 0, "nogoods": None}


def _result_row(**values) -> dict:
    return {"puzzle_id": "q:1", "source": "q", "engine": "e", "formulation": "alldiff",
            "mode": "first", "repeat": 0, "status": "solved", **values}


def test_the_search_statistics_are_stored_and_read_back_as_given(tmp_path):
    with Store(tmp_path) as store:
        store.add(_result_row(backtracks=3, **STATS))
        store.add(_result_row(repeat=1, nodes=0, backtracks=0))     # reports none of them
    with RunFolder(tmp_path) as run:
        first, second = run.results.sort_values("repeat").to_dict("records")
    assert {name: first[name] for name in STATS if name != "nogoods"} == \
        {name: value for name, value in STATS.items() if value is not None}
    assert pd.isna(first["nogoods"]) and first["backtracks"] == 3
    assert all(pd.isna(second[name]) for name in STATS if name != "nodes")


def test_a_file_of_version_3_gains_the_search_statistics_as_null(tmp_path):
    added = ("failures", "propagations", "restarts", "nogoods")
    with Store(tmp_path) as store:
        store.add(_result_row(nodes=5, backtracks=2))
    _sql(tmp_path, *(f'ALTER TABLE results DROP COLUMN "{c}"' for c in added))
    _stamp(tmp_path, 3)
    with RunFolder(tmp_path) as run:           # a reader migrates a copy in memory
        row = run.results.iloc[0]
    assert row["nodes"] == 5 and all(pd.isna(row[c]) for c in added)
    assert _version(tmp_path) == 3 and not set(added) & _columns(tmp_path)
    with Store(tmp_path):                      # a writer migrates the file in place
        pass
    assert _version(tmp_path) == schema.VERSION and set(added) <= _columns(tmp_path)


def test_an_unknown_schema_version_is_refused_in_one_line_exit_2(tmp_path):
    with Store(tmp_path):
        pass
    _stamp(tmp_path, schema.VERSION + 97)
    before = (tmp_path / RunFile.RESULTS).read_bytes()
    proc = subprocess.run([sys.executable, str(ROOT / "run_compare.py"), "report", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"schema version {schema.VERSION + 97}" in lines[0]
    assert f"reads version {schema.VERSION}" in lines[0]
    assert (tmp_path / RunFile.RESULTS).read_bytes() == before     # nothing written to it
    assert not list(tmp_path.glob("summary.*"))


def test_a_run_cannot_resume_into_a_folder_of_an_unknown_version(tmp_path):
    with Store(tmp_path) as store:
        store.set_meta("config", {"settings": {"timeout": 1.0}})
    _stamp(tmp_path, schema.VERSION + 1)
    with pytest.raises(SchemaError) as refused:
        RunFolder.resumed(tmp_path)
    assert isinstance(refused.value, StoreError) and refused.value.exit_code == Exit.USAGE


# ----- one door ---------------------------------------------------------------------
def test_a_run_folder_names_its_files(tmp_path):
    run = RunFolder(tmp_path)
    assert run.results_file == tmp_path / "results.sqlite"
    assert run.file(RunFile.SUMMARY) == tmp_path / "summary.md"


def test_reporting_takes_a_run_folder_not_a_path():
    """Paths become ``RunFolder``s at the edge (the command line, the API), once."""
    import inspect

    from compare.reporting import history, report, runs
    for function in (report.build_report, history.read_run, history.history,
                     runs.compare_runs):
        for parameter in list(inspect.signature(function).parameters.values())[:2]:
            assert "Path" not in str(parameter.annotation), (function.__name__, parameter)


def _code_files():
    for folder in ("compare", "engines", "puzzles", "benchmarks"):
        yield from (ROOT / folder).rglob("*.py")
    yield ROOT / "run_compare.py"


def test_one_place_names_the_results_file():
    naming = [p.relative_to(ROOT).as_posix() for p in _code_files()
              if "results.sqlite" in p.read_text(encoding="utf-8")]
    assert naming == ["compare/store/files.py"]


def test_no_code_outside_the_store_builds_a_path_to_a_run_folders_file():
    names = "|".join(re.escape(f.value) for f in RunFile)
    path = re.compile(rf"""/\s*["'](?:{names})["']""")
    found = [p.relative_to(ROOT).as_posix() for p in _code_files()
             if path.search(p.read_text(encoding="utf-8"))
             and "compare/store" not in p.as_posix()]
    assert found == []


def test_benchmarks_open_no_store_of_their_own():
    for script in (ROOT / "benchmarks").glob("*.py"):
        assert "compare.store.store" not in script.read_text(encoding="utf-8"), script.name


# ----- the errors --------------------------------------------------------------------
def test_each_error_carries_its_exit_code():
    from compare.benchmark.spec import BenchmarkError
    from compare.executors.dask.executor import ClusterError
    from compare.reporting.history import HistoryError
    from compare.run.plan import WorkersFailed
    usage = (SettingsError, FolderBusy, StoreError, SchemaError, PluginError, ClusterError,
             HistoryError, BenchmarkError)
    for kind in usage:
        assert issubclass(kind, CompareError) and kind("x").exit_code == Exit.USAGE, kind
    assert StorageError("x").exit_code == Exit.STORAGE == 6
    assert WorkersFailed("x").exit_code == Exit.FAILED == 3
    assert issubclass(PuzzleInputError, FAULTS[1]) and not issubclass(PuzzleInputError,
                                                                       CompareError)
    assert exit_code(PuzzleInputError("f", 1, "bad")) == Exit.USAGE


def test_the_exit_codes_are_the_readmes():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", readme, re.MULTILINE)}
    assert listed == {int(code) for code in Exit}


def test_the_commands_catch_the_base_not_each_modules_errors():
    for name in ("run", "report", "__init__"):
        text = (ROOT / "compare" / "cli" / f"{name}.py").read_text(encoding="utf-8")
        caught = re.findall(r"except \(?([^:]*)\)? as", text)
        named = {n.strip() for group in caught for n in group.split(",")}
        assert not named & {"SettingsError", "StoreError", "PluginError", "ClusterError",
                            "PuzzleInputError", "HistoryError"}, (name, named)


# ----- facts as data -----------------------------------------------------------------
def test_no_message_text_is_searched_for_a_fact():
    pattern = re.compile(r"""in (?:msg|message|str\((?:err|exc|e|died)\))(?![\w\[.])|"""
                         r"""(?:message|msg|str\(\w+\))\s*\.startswith\(|"""
                         r"""\["message"\][^\n]*\.str\.(?:contains|startswith)""")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in (ROOT / "compare").rglob("*.py")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert found == []
