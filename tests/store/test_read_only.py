"""report, --compare and --history only read the folders they are given: the results file
opens read-only, a file that is not a run's is refused in one line (exit 2) with its bytes
unchanged, and outputs are renamed into place, never written through a link."""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from compare.cli import main as cli_main
from compare.store import schema
from compare.store.files import RunFile, atomic_write
from compare.store.folder import RunFolder

REPO = Path(__file__).resolve().parents[2]
FOUR = REPO / "puzzles" / "data" / "gen-4x4.txt"
UNSTAMPED = REPO / "tests" / "data" / "run_unstamped"
OUTPUTS = (RunFile.CACTUS, RunFile.PROFILE, RunFile.SCATTER, RunFile.SUMMARY, RunFile.CSV,
           RunFile.PAGE, RunFile.META, RunFile.SUMMARY_JSON, RunFile.PARQUET)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    assert cli_main(["--puzzles", str(FOUR), "--engines", "backtracking,backtracking:variant=seed",
                     "--repeat", "1", "--workers", "1", "--out", str(out), "--quiet"]) == 0
    return out


@pytest.fixture
def run(finished, tmp_path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    return folder


def snapshot(folder: Path) -> dict:
    """Every file's bytes and mtime, links as links (not followed)."""
    return {p.name: (os.readlink(p),) if p.is_symlink() else
            (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_exit_2(capsys, argv, *said) -> str:
    capsys.readouterr()
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    for text in said:
        assert text in err, err
    return err


def foreign(path: Path, meta_columns: str = "") -> None:
    """Another program's database in the place of the results file."""
    path.unlink(missing_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE users (name TEXT, email TEXT)")
        db.execute("INSERT INTO users VALUES ('ada', 'ada@example.org')")
        if meta_columns:
            db.execute(f"CREATE TABLE meta ({meta_columns})")


def argvs(folder: Path, other: Path, tmp_path: Path) -> dict[str, list[str]]:
    return {"report": ["report", "--out", str(folder), "--quiet"],
            "compare": ["report", "--compare", str(other), str(folder)],
            "compare-a": ["report", "--compare", str(folder), str(other)],
            "history": ["report", "--history", str(other), str(folder), "--out",
                        str(tmp_path / "hist"), "--quiet"]}


# ----- outputs never written through a link -----------------------------------------------
def test_report_on_a_folder_with_linked_outputs_changes_no_file_outside_it(run, tmp_path,
                                                                           capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in OUTPUTS:
        target = outside / f"precious-{name}"
        target.write_bytes(b"the user's own file " + name.encode())
        (run / name).unlink(missing_ok=True)
        (run / name).symlink_to(target)
    before = snapshot(outside)
    assert cli_main(["report", "--out", str(run), "--quiet"]) == 0
    assert snapshot(outside) == before           # targets' bytes and mtimes as they were
    for name in OUTPUTS:
        if (run / name).exists() or (run / name).is_symlink():
            assert not (run / name).is_symlink() and (run / name).stat().st_size > 0, name
    assert (run / RunFile.CACTUS).read_bytes().startswith(b"\x89PNG")


def test_compare_and_history_outputs_replace_links_not_their_targets(run, finished, tmp_path,
                                                                     capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    cmp = tmp_path / "cmp"
    cmp.mkdir()
    for name in (RunFile.COMPARE, RunFile.COMPARE_JSON):
        (outside / name).write_text("mine")
        (cmp / name).symlink_to(outside / name)
    hist = tmp_path / "hist"
    hist.mkdir()
    for name in ("history.csv", "history.html"):
        (outside / name).write_text("mine")
        (hist / name).symlink_to(outside / name)
    before = snapshot(outside)
    assert cli_main(["report", "--compare", str(finished), str(run), "--out", str(cmp)]) == 0
    assert cli_main(["report", "--history", str(finished), str(run), "--out", str(hist),
                     "--quiet"]) == 0
    assert snapshot(outside) == before
    assert not any(p.is_symlink() for p in [*cmp.iterdir(), *hist.iterdir()])
    assert (cmp / RunFile.COMPARE).read_text() != "mine"


def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path, monkeypatch):
    target = tmp_path / "victim"
    target.write_text("mine")
    monkeypatch.setattr("secrets.token_hex", lambda n: "fixed")
    out = tmp_path / "summary.md"
    (tmp_path / f".summary.md.{os.getpid()}.fixed.tmp").symlink_to(target)
    with pytest.raises(Exception, match="cannot write"):
        atomic_write(out, lambda tmp: tmp.write_text("report"))
    assert target.read_text() == "mine" and not out.exists()


# ----- the results file only read ---------------------------------------------------------
@pytest.mark.parametrize("command", ["compare", "compare-a", "history"])
def test_compare_and_history_change_nothing_in_the_folders_they_read(run, finished, tmp_path,
                                                                     capsys, command):
    before, other = snapshot(run), snapshot(finished)
    assert cli_main(argvs(run, finished, tmp_path)[command]) == 0
    assert snapshot(run) == before and snapshot(finished) == other


def test_report_leaves_the_results_file_and_its_folder_without_journals(run, capsys):
    before = digest(run / RunFile.RESULTS)
    assert cli_main(["report", "--out", str(run), "--quiet"]) == 0
    assert digest(run / RunFile.RESULTS) == before
    assert not [p.name for p in run.iterdir() if p.name.startswith(f"{RunFile.RESULTS}-")]


def test_a_folder_on_a_read_only_disk_is_compared(run, finished, tmp_path, capsys):
    os.chmod(run, 0o555)
    try:
        assert cli_main(["report", "--compare", str(run), str(finished)]) == 0
    finally:
        os.chmod(run, 0o755)


def test_an_older_schema_is_read_in_memory_by_compare_and_left_as_it_was(tmp_path, capsys):
    old = tmp_path / "old"
    shutil.copytree(UNSTAMPED, old)
    before = snapshot(old)
    assert cli_main(["report", "--compare", str(old), str(old)]) == 0
    with RunFolder(old) as folder:
        assert "fact" in folder.results and len(folder.results) == 1
    assert snapshot(old) == before
    with closing(sqlite3.connect(old / RunFile.RESULTS)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    assert schema.VERSION > 1


# ----- files that are not a run's ---------------------------------------------------------
@pytest.mark.parametrize("command", ["report", "compare", "compare-a", "history"])
def test_a_foreign_sqlite_file_is_refused_and_its_bytes_are_unchanged(run, finished, tmp_path,
                                                                      capsys, command):
    db = run / RunFile.RESULTS
    foreign(db)
    before, listing = digest(db), snapshot(run)
    one_line_exit_2(capsys, argvs(run, finished, tmp_path)[command], str(db),
                    "not a run's results database", "users")
    assert digest(db) == before and snapshot(run) == listing
    with closing(sqlite3.connect(db)) as check:
        tables = [r[0] for r in check.execute("SELECT name FROM sqlite_master")]
    assert tables == ["users"]


@pytest.mark.parametrize("columns", ["name TEXT", "key TEXT, data BLOB"])
def test_history_of_a_foreign_file_with_a_meta_table_is_one_line(run, finished, tmp_path,
                                                                  capsys, columns):
    db = run / RunFile.RESULTS
    foreign(db, columns)
    before = digest(db)
    one_line_exit_2(capsys, argvs(run, finished, tmp_path)["history"], str(db),
                    "not a run's results database")
    assert digest(db) == before


def test_a_run_resumed_into_a_foreign_file_is_refused(run, capsys):
    db = run / RunFile.RESULTS
    foreign(db)
    before = digest(db)
    one_line_exit_2(capsys, ["--out", str(run), "--resume", "--quiet"], str(db))
    assert digest(db) == before


@pytest.mark.parametrize("command", ["report", "compare", "history"])
def test_an_empty_results_file_is_refused_in_one_line(run, finished, tmp_path, capsys,
                                                      command):
    db = run / RunFile.RESULTS
    db.write_bytes(b"")
    one_line_exit_2(capsys, argvs(run, finished, tmp_path)[command], str(db), "0 bytes")
    assert db.read_bytes() == b"" and not (run / f"{RunFile.RESULTS}-wal").exists()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
@pytest.mark.parametrize("command", ["report", "compare", "history"])
def test_a_device_as_results_file_is_refused_in_one_line(run, finished, tmp_path, capsys,
                                                         device, command):
    db = run / RunFile.RESULTS
    db.unlink()
    db.symlink_to(device)
    one_line_exit_2(capsys, argvs(run, finished, tmp_path)[command], str(db), "device")


def test_a_folder_as_results_file_is_refused_in_one_line(run, capsys):
    db = run / RunFile.RESULTS
    db.unlink()
    db.mkdir()
    one_line_exit_2(capsys, ["report", "--out", str(run), "--quiet"], str(db), "folder")


def test_a_linked_journal_beside_the_results_file_is_refused(run, tmp_path, capsys):
    target = tmp_path / "mine"
    target.write_bytes(b"x" * 100)
    (run / f"{RunFile.RESULTS}-wal").symlink_to(target)
    one_line_exit_2(capsys, ["report", "--out", str(run), "--quiet"], "journal")
    assert target.read_bytes() == b"x" * 100


def test_the_results_of_a_killed_run_left_in_its_journal_are_read(run, capsys):
    """A run killed before its last checkpoint leaves rows in the -wal file only."""
    db = run / RunFile.RESULTS
    keep = sqlite3.connect(db)                   # held open: the journal stays
    keep.execute("PRAGMA wal_autocheckpoint=0")
    keep.execute("UPDATE results SET message = 'from the journal' WHERE rowid = 1")
    keep.commit()
    try:
        assert (run / f"{RunFile.RESULTS}-wal").stat().st_size > 0
        with RunFolder(run) as folder:
            assert "from the journal" in set(folder.results["message"])
    finally:
        keep.close()


# ----- outputs that are files -------------------------------------------------------------
def test_history_out_that_is_a_file_is_refused_in_one_line(run, finished, tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    one_line_exit_2(capsys, ["report", "--history", str(finished), str(run), "--out",
                             str(taken)], str(taken), "not a folder")
    assert taken.read_text() == "mine"


def test_report_out_that_is_a_file_is_refused_in_one_line(tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    one_line_exit_2(capsys, ["report", "--out", str(taken)], str(taken))
    assert taken.read_text() == "mine"
