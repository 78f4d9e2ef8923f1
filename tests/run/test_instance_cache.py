"""File-per-instance inputs: references in the parent, loaded by the workers, cached on disk.

The cache (``puzzles.formats.instance_cache``) on its own: hit, miss, a
damaged entry, a folder that cannot be written, two processes writing one
entry at once, the size cap. Then XCSP3 references: the parent reads the
file's bytes but never parses it, the workers load it (from the file, then
from the cache), answers are verified, and the loading is stored per task.
"""
from __future__ import annotations

import importlib.util
import json
import multiprocessing as mp
import os
import sqlite3

import pytest

from puzzles.formats import instance_cache
from puzzles.formats.instance_cache import InstanceCache

X4 = '<array id="x" size="[4]"> 0..3 </array>'


def xml(constraints: str, variables: str = X4) -> str:
    return (f'<instance format="XCSP3" type="CSP"><variables>{variables}</variables>'
            f"<constraints>{constraints}</constraints></instance>")


needs_pycsp3 = pytest.mark.skipif(importlib.util.find_spec("pycsp3") is None,
                                  reason="pycsp3 is not installed")


# ----- the cache ------------------------------------------------------------------------
def test_a_miss_then_a_hit(tmp_path):
    cache = InstanceCache(tmp_path)
    assert cache.get("k") is None
    assert cache.put("k", {"rows": list(range(10))})
    assert cache.get("k") == {"rows": list(range(10))}
    assert InstanceCache(tmp_path).get("k") == {"rows": list(range(10))}   # another process
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".part-")]


@pytest.mark.parametrize("damage", ["truncated", "garbled", "empty"])
def test_a_damaged_entry_is_dropped_with_one_warning(tmp_path, capsys, damage):
    cache = InstanceCache(tmp_path)
    cache.put("k", list(range(1000)))
    [entry] = tmp_path.iterdir()
    data = entry.read_bytes()
    if damage == "truncated":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "garbled":
        entry.write_bytes(data[:-10] + bytes(10))
    else:
        entry.write_bytes(b"")
    assert cache.get("k") is None
    assert cache.get("k") is None                  # dropped: now a plain miss
    assert not entry.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged" in err and "Traceback" not in err
    assert cache.put("k", [1]) and cache.get("k") == [1]       # rebuilt


def test_a_folder_that_cannot_be_written_is_no_cache_with_one_warning(tmp_path, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    cache = InstanceCache(blocked / "instances")
    assert not cache.put("a", 1) and not cache.put("b", 2)
    assert cache.get("a") is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err


def _writer(folder: str, rounds: int) -> None:
    cache = InstanceCache(folder)
    for _ in range(rounds):
        cache.put("same", bytes(range(256)) * 2000)


def test_two_processes_writing_one_entry_leave_it_whole(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), 40)) for _ in range(2)]
    for proc in procs:
        proc.start()
    reader = InstanceCache(tmp_path)
    seen = 0
    while any(p.is_alive() for p in procs):
        value = reader.get("same")
        if value is not None:
            assert value == bytes(range(256)) * 2000
            seen += 1
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    assert reader.get("same") == bytes(range(256)) * 2000
    assert not reader.warned                       # never a damaged entry read
    assert [p.name.endswith(".entry") for p in tmp_path.iterdir()] == [True]


def test_past_the_cap_the_least_recently_used_entries_go(tmp_path):
    cache = InstanceCache(tmp_path, size_mb=2.5)       # room for two entries of 1 MiB
    for n, key in enumerate(("old", "used", "new")):
        cache.put(key, bytes(1 << 20))
        entry = cache._path(key)
        os.utime(entry, (1000 + n, 1000 + n))
        if key == "used":
            cache.get("old")                  # read: the most recently used now
    assert cache.get("old") is not None and cache.get("new") is not None
    assert cache.get("used") is None


def test_configure_reaches_current(tmp_path, monkeypatch):
    monkeypatch.delenv(instance_cache.FOLDER_ENV, raising=False)
    monkeypatch.delenv(instance_cache.SIZE_ENV, raising=False)
    instance_cache.configure(tmp_path, size_mb=10)
    cache = instance_cache.current()
    assert cache.folder == tmp_path and cache.cap_bytes == 10 << 20
    instance_cache.configure(enabled=False)      # the run's own folder, gone at its end
    private = instance_cache.current()
    assert private.folder != tmp_path and "csp-compare-instances-" in private.folder.name
    assert private.folder.is_dir() and not any(private.folder.iterdir())
    monkeypatch.setenv(instance_cache.FOLDER_ENV, instance_cache.OFF)
    assert instance_cache.current() is None


# ----- XCSP3 references -------------------------------------------------------------------
@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(instance_cache.FOLDER_ENV, str(folder))
    return folder


@needs_pycsp3
def test_a_reference_loads_from_the_file_then_the_cache(tmp_path, cache_dir):
    from puzzles.formats.xcsp3.kind import load_file, reference
    path = tmp_path / "Fam-1.xml"
    path.write_text(xml("<extension><list> x[0] x[1] </list><supports> (0,1)(1,2) "
                        "</supports></extension><allDifferent> x[] </allDifferent>"))
    first = reference(str(path))
    assert not first.input_loaded and first.load_note() is None
    assert first.load_input()[2] == "file"
    assert first.load_input() == (0.0, 0.0, "memory")
    second = reference(str(path))
    assert second.load_input()[2] == "cache"
    eager = load_file(str(path))
    assert second.model.structure == eager.model.structure or (
        second.model.structure.constraints == eager.model.structure.constraints
        and second.model.structure.domains == eager.model.structure.domains)
    assert second.instance.constraints == eager.instance.constraints
    assert repr(first) == repr(eager)      # the resume check sees one file, however read


@needs_pycsp3
def test_a_worker_moving_to_another_instance_lets_the_last_one_go(tmp_path, cache_dir):
    """What a worker held for one instance (its input, the engines' structure caches)
    goes before the next one loads, so that a task's peak memory is its own."""
    from compare.executors.local.worker.session import Session, WorkerInit
    from compare.executors.tasks import Task
    from engines.support.structure_cache import StructureCache
    from puzzles.formats.xcsp3.kind import reference
    refs = []
    for name, scope in (("Fam-1", "x[]"), ("Fam-2", "x[0] x[1]")):
        path = tmp_path / f"{name}.xml"
        path.write_text(xml(f"<allDifferent> {scope} </allDifferent>"))
        refs.append(reference(str(path)))
    derived = StructureCache(lambda structure: structure.size)
    session = Session(WorkerInit((), ("backtracking",)))
    for i, ref in enumerate(refs):
        result = session.run(Task(i, ref.name, "default", "backtracking", "first", 2, 5.0, 0),
                             ref)
        assert str(result.status) == "solved", result.message
        assert derived.get(ref.model.structure) == 4
        assert derived.entries
    assert refs[1].input_loaded and not refs[0].input_loaded
    assert len(derived.entries) == 1                    # the first instance's entry went


@needs_pycsp3
def test_the_parent_checks_only_what_is_cheap(tmp_path):
    from puzzles.errors import PuzzleInputError
    from puzzles.formats.xcsp3.kind import reference
    empty = tmp_path / "e.xml"
    empty.write_text("")
    with pytest.raises(PuzzleInputError, match="empty file"):
        reference(str(empty))
    with pytest.raises(PuzzleInputError, match="cannot read"):
        reference(str(tmp_path / "missing.xml"))
    broken = tmp_path / "b.xml"
    broken.write_text("<html/>")
    assert reference(str(broken)).nbytes == 7      # its fault is found where it loads


@needs_pycsp3
def test_a_run_whose_parent_never_parses(tmp_path, cache_dir, monkeypatch):
    import pandas as pd

    from compare.api import run_comparison
    from compare.reporting.loading import loading_table
    from puzzles.formats.xcsp3 import kind

    def no_parsing(path):
        raise AssertionError(f"the parent parsed {path}")

    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "Alpha-1.xml").write_text(xml("<allDifferent> x[] </allDifferent>"))
    (folder / "Beta-1.xml").write_text(xml(
        "<extension><list> x[0] x[1] </list><supports> (0,1)(1,2) </supports></extension>"))
    (folder / "Bad-1.xml").write_text("<html><body/></html>")
    def no_model(self, formulation=None):
        raise AssertionError(f"the parent built the model of {self.name}")

    monkeypatch.setattr(kind, "_parsed", no_parsing)
    monkeypatch.setattr(kind.Xcsp3, "to_model", no_model)    # judged on the instance alone
    out = tmp_path / "run"
    run_comparison([str(folder)], "backtracking,cpsat", repeat=1, workers=1, out=out)
    with sqlite3.connect(out / "results.sqlite") as db:
        runs = json.loads(db.execute("SELECT value FROM meta WHERE key = 'runs'").fetchone()[0])
    assert 10 < runs[0]["parent_peak_rss_mb"] < 100_000     # the parent's own peak, in MB
    shapes = [w for w in runs[0]["warmup"]["shapes"] if not w["shape"].startswith("loading ")]
    # a file is a shape of its own: each engine warms the kind's first one only
    assert sorted(w["engine"] for w in shapes) == ["backtracking", "cpsat"], shapes
    rows = _rows(out)
    good = [r for r in rows if r["puzzle_id"] != "Bad-1"]
    assert {r["status"] for r in good} == {"solved"} and all(r["verified"] for r in good)
    assert all(r["loaded_from"] in ("file", "cache", "memory") for r in good)
    assert {r["loaded_from"] for r in good if r["engine"] == "backtracking"} == {"file"}
    assert all(r["parse_s"] is not None and r["translate_s"] is not None for r in good)
    bad = [r for r in rows if r["puzzle_id"] == "Bad-1"]
    assert {r["status"] for r in bad} == {"error"}
    assert all("not an XCSP3 instance: the root element is <html>" in r["message"]
               for r in bad)
    table = loading_table(pd.DataFrame(rows))
    assert set(table["instance"]) == {"Alpha-1", "Beta-1"}
    assert (table["tasks: file"] == 1).all()

    # Resumed: the tasks whose rows are gone run again, every instance from the cache.
    with sqlite3.connect(out / "results.sqlite") as db:
        db.execute("DELETE FROM results WHERE puzzle_id != 'Bad-1'")
    run_comparison([str(folder)], "backtracking,cpsat", repeat=1, workers=1, out=out,
                   resume=True)
    again = [r for r in _rows(out) if r["puzzle_id"] != "Bad-1"]
    assert len(again) == 4 and all(r["verified"] for r in again)
    assert {r["loaded_from"] for r in again} <= {"cache", "memory"}


def _rows(out) -> list[dict]:
    with sqlite3.connect(out / "results.sqlite") as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM results")]


# ----- the worker's side ---------------------------------------------------------------------
class _Reference:
    """A puzzle by reference whose loading fails as asked, for the worker's session."""
    kind, formulations, name = "xcsp3", ("default",), "Huge-1"

    def __init__(self, fault: BaseException):
        self.fault, self.input_loaded = fault, False

    def load_input(self):
        raise self.fault

    def to_model(self, formulation=None):
        raise AssertionError("the solve ran after a failed load")


@pytest.mark.parametrize("fault, status, words", [
    (MemoryError(), "memout", "out of memory (loading: MemoryError"),
    (ValueError("a.xml: not XML (it does not start with '<')"), "error",
     "model: ValueError: a.xml: not XML (it does not start with '<')"),
])
def test_a_load_that_fails_is_the_tasks_row_with_its_reason(fault, status, words):
    from compare.executors.local.worker.session import Session, WorkerInit
    from compare.executors.tasks import Task
    said = []
    session = Session(WorkerInit((), ("backtracking",)), said.append)
    task = Task(0, "Huge-1", "default", "backtracking", "first", 2, 5.0, 0)
    result = session.run(task, _Reference(fault))
    assert str(result.status) == status and result.message.startswith(words)
    assert result.loading is None
    assert [m[0] for m in said] == ["shaping", "warmed"]    # loading is given warm-up time
