"""The Dask executor end to end: ``local:N`` (in this process), a LocalCluster of two
worker processes passed as an object, and a scheduler with two worker processes.

Every test starts its own processes on 127.0.0.1 and stops them; each process
carries a marker in its environment (children inherit it), and at the end of
every test no process with that marker may be left.
"""
from __future__ import annotations

import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from compare import run_comparison  # noqa: E402
from compare.cli.run import main as run_main  # noqa: E402
from compare.executors.dask.executor import DaskExecutor, merged_facts  # noqa: E402
from compare.executors.dask.shipping import FOLDER  # noqa: E402
from compare.executors.local import supervision  # noqa: E402
from puzzles.formats import instance_cache  # noqa: E402
from tests.run.test_instance_cache import xml  # noqa: E402

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BOJ = REPO / "puzzles" / "samples" / "boj2239.txt"
MARK = "CSP_DASK_TEST_MARK"
PLUGINS = "tests.fake_engines,tests.cluster_engines"
UNIQUE_4X4 = ["4..1.2..3..2.4..", "...2..344.....41", "3.4......2.4.32.", "...42..1..4..31."]
UNSAT_4X4 = "12....3.......4."        # the top row's third cell has no value left
EMPTY_4X4 = "." * 16                  # many solutions
LOCAL_ONLY = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
# Timing columns and where a task ran may differ between executors; nothing else.
SAME = ["puzzle_id", "formulation", "engine", "mode", "repeat", "status", "verified",
        "answer", "count", "nodes", "backtracks", "reason", "library", "version"]


# ----- processes ------------------------------------------------------------------------------
@pytest.fixture
def mark(monkeypatch):
    """A marker for this test's processes; none may outlive the test."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK, value)     # in-process clusters' workers inherit it
    yield value
    deadline = time.monotonic() + 15
    while marked(value) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = marked(value)
    for proc in left:
        with_kill(proc)
    assert not left, f"processes left behind: {[p.info for p in left]}"


def marked(value: str) -> list:
    """This test's processes, but for multiprocessing's forkserver and resource tracker
    of the test process itself (they serve it until it exits)."""
    found = []
    for proc in psutil.process_iter(["pid", "ppid", "name", "cmdline"]):
        if proc.pid == os.getpid() or (proc.info["ppid"] == os.getpid() and any(
                "multiprocessing." in part for part in proc.info["cmdline"] or ())):
            continue
        try:
            if proc.environ().get(MARK) == value:
                found.append(proc)
        except (psutil.Error, OSError):
            pass
    return found


def listening(procs) -> set[str]:
    """The addresses these processes accept connections on."""
    found = set()
    for proc in procs:
        try:
            for conn in proc.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    found.add(conn.laddr.ip)
        except (psutil.Error, OSError):
            pass
    return found


def with_kill(proc) -> None:
    try:
        proc.kill()
    except psutil.Error:
        pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def env_for(mark: str, **extra) -> dict:
    return dict(os.environ, COMPARE_PLUGINS=PLUGINS, PYTHONPATH=str(REPO), **{MARK: mark},
                **extra)


def cli(*args, env, timeout=120, **popen) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout, **popen)


class Cluster:
    """``dask scheduler`` and two ``dask worker`` processes, as a user would start them."""

    def __init__(self, tmp: Path, env: dict, nanny: bool):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        common = dict(cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        bin_dir = Path(sys.executable).parent
        port = self.address.rsplit(":", 1)[1]
        self.procs = [subprocess.Popen([str(bin_dir / "dask"), "scheduler", "--port", port,
                                        *LOCAL_ONLY], **common)]
        for _ in range(2):
            self.procs.append(subprocess.Popen(
                [str(bin_dir / "dask"), "worker", self.address, "--nthreads", "1",
                 "--nanny" if nanny else "--no-nanny", "--local-directory", str(tmp),
                 *LOCAL_ONLY], **common))
        self.client = distributed.Client(self.address, timeout=30, set_as_default=False)
        self.client.wait_for_workers(2, timeout=60)

    def worker_pids(self) -> list[int]:
        return list(self.client.run(os.getpid).values())

    def stop(self) -> None:
        self.client.close()
        scheduler, *workers = self.procs
        for group in (workers, [scheduler]):    # workers first, while they can say goodbye
            for proc in group:
                proc.terminate()
            for proc in group:
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.fixture
def cluster(tmp_path, mark, request):
    """Workers that know no plugin of their own: the run brings its plugins to them.
    Without a nanny (fewer processes to start) unless the test kills workers."""
    env = env_for(mark, FAKE_REGICIDE_ARMED="1")
    env.pop("COMPARE_PLUGINS")
    started = Cluster(tmp_path, env, nanny=getattr(request, "param", False))
    yield started
    assert listening(marked(mark)) == {"127.0.0.1"}
    started.stop()


@pytest.fixture
def worker_processes(mark, request):
    """A LocalCluster of two single-threaded worker processes (with nannies) on 127.0.0.1,
    passed to the run as an object; its scheduler reruns nothing (the client resubmits).
    The parameter, if any: environment variables for the worker processes alone."""
    made = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=logging.ERROR, env=getattr(request, "param", {}),
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0", "allowed_failures": 0})
    yield made
    made.close()


# ----- puzzles and results ------------------------------------------------------------------
def started_and_storing(puzzles: Path, args: list, env: dict, **popen) -> subprocess.Popen:
    """A client running 60 tasks of 0.05 s, once 8 of them are in its store."""
    out = Path(args[args.index("--out") + 1])
    client = subprocess.Popen(
        [sys.executable, "run_compare.py", "--puzzles", str(puzzles), "--engines",
         "fake-nap:nap=0.05", "--repeat", "15", "--quiet", *map(str, args)],
        cwd=REPO, env=env, **popen)
    deadline = time.monotonic() + 60
    while len(rows(out / "results.sqlite")) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    return client


def rows(db: Path) -> list[tuple]:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT puzzle_id, engine, repeat, status FROM results").fetchall()
    except sqlite3.OperationalError:
        return []


# ----- tests --------------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["local:2", "worker processes"])
def test_a_local_cluster_gives_the_local_executors_answers(where, tmp_path, mark, monkeypatch,
                                                           request):
    """On 127.0.0.1 only; a 9x9 solved, a 4x4 unsatisfiable, another with many solutions,
    each also timed out and crashed. ``local:2`` runs its Dask workers in this process;
    the other cluster is a LocalCluster object of two worker processes."""
    monkeypatch.setenv("COMPARE_PLUGINS", PLUGINS)
    puzzles = tmp_path / "mixed.txt"
    puzzles.write_text("\n".join([BOJ.read_text().strip().replace("\n", ""), UNSAT_4X4,
                                  EMPTY_4X4]) + "\n")
    settings = dict(engines=["fake", "backtracking", "fake-sleep", "fake-crash"], mode="count",
                    timeout=0.1, repeat=1, workers=2, plugins=PLUGINS)
    local = run_comparison([puzzles], out=tmp_path / "local", **settings)
    cluster = where if where == "local:2" else request.getfixturevalue("worker_processes")
    executor = DaskExecutor(settings["engines"], "count", cluster=cluster, plugins=PLUGINS)
    executor.start()
    assert executor.workers == 2
    worker_pids = set(executor._client.run(os.getpid).values())
    if where == "local:2":
        assert worker_pids == {os.getpid()}
    else:
        assert len(worker_pids) == 2 and os.getpid() not in worker_pids
    assert listening([psutil.Process(), *marked(mark)]) <= {"127.0.0.1"}
    dask = run_comparison([puzzles], out=tmp_path / "dask", executor=executor, **settings)
    ours, theirs = [c.results.sort_values(["puzzle_id", "engine"]).reset_index(drop=True)
                    for c in (local, dask)]
    assert len(ours) == 3 * 4
    pd.testing.assert_frame_equal(ours[SAME], theirs[SAME])
    assert set(theirs["status"]) == {"solved", "unsatisfiable", "timeout", "crashed"}
    assert set(theirs.loc[theirs["puzzle_id"] == "mixed:3", "count"].dropna()) == {2}
    assert theirs["host"].eq(socket.gethostname()).all()
    assert (ours["host"].isna() | ours["host"].eq(socket.gethostname())).all()
    assert local.ok and dask.ok


@pytest.mark.parametrize("cluster", [True], indirect=True)     # a nanny restarts the worker
def test_a_worker_killed_mid_run_loses_and_doubles_nothing(tmp_path, cluster, mark):
    puzzles = tmp_path / "four.txt"
    puzzles.write_text("\n".join(UNIQUE_4X4) + "\n")
    out = tmp_path / "run"
    client = started_and_storing(puzzles, ["--scheduler", cluster.address, "--out", out],
                                 env_for(mark), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
    assert len(rows(out / "results.sqlite")) < 60, "the run ended before the kill"
    os.kill(cluster.worker_pids()[0], signal.SIGKILL)
    _, err = client.communicate(timeout=90)
    assert client.returncode == 0, err
    done = rows(out / "results.sqlite")
    assert len(done) == 60 and len({r[:3] for r in done}) == 60
    assert {r[3] for r in done} == {"solved"}


def test_a_killed_client_resumes_without_losing_or_doubling(tmp_path, cluster, mark):
    puzzles = tmp_path / "four.txt"
    puzzles.write_text("\n".join(UNIQUE_4X4) + "\n")
    out = tmp_path / "run"
    args = ["--scheduler", cluster.address, "--out", out]
    client = started_and_storing(puzzles, args, env_for(mark), start_new_session=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.killpg(client.pid, signal.SIGKILL)
    client.wait()
    before = set(rows(out / "results.sqlite"))
    assert 8 <= len(before) < 60
    assert plugins_on(cluster), "the killed client's solver processes are still there"
    resumed = cli(*args, "--resume", "--quiet", env=env_for(mark))
    assert resumed.returncode == 0, resumed.stderr
    after = rows(out / "results.sqlite")
    assert len(after) == 60 and len({r[:3] for r in after}) == 60
    assert before <= set(after)
    assert not plugins_on(cluster)       # the resumed run removed them, then its own


def plugins_on(cluster) -> list[str]:
    return [name for name in cluster.client.run_on_scheduler(
        lambda dask_scheduler: list(dask_scheduler.worker_plugins)) if "csp-compare" in name]


@pytest.mark.parametrize("cluster", [True], indirect=True)     # workers a nanny started
def test_workers_lacking_an_engine_are_named_in_one_line(tmp_path, cluster, mark):
    out = tmp_path / "never"
    proc = cli("--puzzles", BOJ, "--engines", "fake,fake-homebody", "--scheduler",
               cluster.address, "--out", out, env=env_for(mark))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "lacks engine fake-homebody" in proc.stderr
    assert not out.exists()


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path, mark):
    out = tmp_path / "never"
    env = env_for(mark, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    started = time.monotonic()
    proc = cli("--puzzles", BOJ, "--engines", "fake", "--scheduler",
               f"tcp://127.0.0.1:{free_port()}", "--out", out, env=env, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cannot reach the Dask scheduler" in proc.stderr
    assert time.monotonic() - started < 30
    assert not out.exists()


@pytest.mark.parametrize("worker_processes", [{"FAKE_REGICIDE_ARMED": "1"}], indirect=True)
def test_a_task_that_kills_two_workers_is_crashed_on_a_local_cluster(tmp_path,
                                                                      worker_processes):
    """A LocalCluster of worker processes (armed: not this process) whose scheduler reruns
    nothing: the client resubmits lost chunks itself."""
    two_deaths_then_crashed(tmp_path, DaskExecutor(cluster=worker_processes, chunk=4,
                                                   plugins=PLUGINS))


@pytest.mark.parametrize("cluster", [True], indirect=True)     # nannies restart the workers
def test_a_task_that_kills_two_workers_is_crashed_on_a_running_cluster(tmp_path, cluster):
    """Its scheduler reruns lost chunks itself (Dask's default)."""
    two_deaths_then_crashed(tmp_path, DaskExecutor(scheduler=cluster.address, chunk=4,
                                                   plugins=PLUGINS))


def two_deaths_then_crashed(tmp_path, executor) -> None:
    puzzles = tmp_path / "deadly.txt"
    puzzles.write_text("\n".join(UNIQUE_4X4[:3] + [EMPTY_4X4]) + "\n")
    comparison = run_comparison([puzzles], ["fake", "fake-regicide"], executor=executor,
                                out=tmp_path / "run", repeat=1, plugins=PLUGINS)
    frame = comparison.results.set_index(["puzzle_id", "engine"])
    assert len(frame) == 8
    assert frame.loc[("deadly:4", "fake-regicide"), "status"] == "crashed"
    assert "two Dask workers died" in frame.loc[("deadly:4", "fake-regicide"), "message"]
    assert (frame.drop(("deadly:4", "fake-regicide"))["status"] == "solved").all()


@pytest.mark.parametrize("shared", [True, False])
def test_an_xcsp3_file_reaches_workers_by_its_path_or_as_bytes_once(shared, tmp_path, mark,
                                                                   monkeypatch,
                                                                   worker_processes):
    """Worker processes read an absolute path themselves: nothing is shipped. A relative
    path that only the client resolves (the workers started in another folder) reaches
    them as the file's bytes, at most once per worker, written into the worker's folder
    under the file's name; its tasks are solved and verified all the same."""
    pytest.importorskip("pycsp3")
    monkeypatch.setenv(instance_cache.FOLDER_ENV, str(tmp_path / "cache"))
    here = tmp_path / "client"
    here.mkdir()
    (here / "Fam-1.xml").write_text(xml("<allDifferent> x[] </allDifferent>"))
    monkeypatch.chdir(here)             # the workers' folder stays the test's
    executor = DaskExecutor(cluster=worker_processes)
    comparison = run_comparison([str(here / "Fam-1.xml") if shared else "Fam-1.xml"],
                                ["backtracking"], executor=executor, out=tmp_path / "run",
                                repeat=4)
    results = comparison.results
    assert len(results) == 4 and set(results["puzzle_id"]) == {"Fam-1"}
    assert set(results["status"]) == {"solved"} and results["verified"].eq(1).all()

    def copies(dask_worker):
        folder = Path(dask_worker.local_directory)
        return [(str(p.relative_to(folder)), p.read_bytes()) for p in folder.rglob("Fam-1.xml")]

    with distributed.Client(worker_processes, set_as_default=False) as client:
        found = list(client.run(copies).values())
    data = (here / "Fam-1.xml").read_bytes()
    if shared:
        assert executor.shipped == {} and found == [[], []]
        return
    (digest,) = executor.shipped
    assert executor.shipped[digest] == len(data)
    assert all(len(mine) <= 1 for mine in found) and any(found)
    assert {copy for mine in found for copy in mine} == {(f"{FOLDER}/{digest}/Fam-1.xml", data)}


def test_a_worker_writes_shipped_bytes_once_and_only_with_the_files_digest(tmp_path):
    """A copy of the reference points at the worker's copy (its name, digest and cache
    setting kept); bytes of another digest leave the reference as it was."""
    from compare.executors.dask.shipping import localized
    from puzzles.formats.xcsp3.kind import reference
    path = tmp_path / "Fam-2.xml"
    path.write_bytes(xml("<allDifferent> x[] </allDifferent>").encode())
    puzzle = reference(str(path))
    gone = type(puzzle)("elsewhere/Fam-2.xml", puzzle.digest, puzzle.nbytes, puzzle.name,
                        puzzle.source)
    object.__setattr__(gone, "_cache", ("folder", "on"))
    fetched = []

    def fetch(key):
        fetched.append(key)
        return path.read_bytes() if key == "right" else b"x" * puzzle.nbytes

    worker = tmp_path / "worker"
    assert localized({"p": gone}, {puzzle.digest: "wrong"}, str(worker), fetch)["p"] is gone
    for _ in range(2):
        moved = localized({"p": gone}, {puzzle.digest: "right"}, str(worker), fetch)["p"]
        assert moved is not gone and moved.path == str(worker / FOLDER / puzzle.digest /
                                                       "Fam-2.xml")
    assert fetched == ["wrong", "right"] and Path(moved.path).read_bytes() == path.read_bytes()
    assert (moved.name, moved.digest, moved.__dict__["_cache"]) == (
        "Fam-2", puzzle.digest, ("folder", "on"))
    assert gone.path == "elsewhere/Fam-2.xml"
    readable = localized({"p": puzzle}, {puzzle.digest: "right"}, str(tmp_path / "w2"), fetch)
    assert readable["p"] is puzzle and fetched == ["wrong", "right"]


@pytest.mark.parametrize("where", ["local", "dask"])
def test_a_shape_warm_up_killed_at_its_limit_runs_again_on_either_executor(where, tmp_path,
                                                                           mark, monkeypatch):
    """A first compile of 1.6 s on a new shape, with a warm-up limit of 0.6 s (the task's
    1.1 s with its grace where longer): killed twice, the limit doubled each time, its
    task then runs and is solved, not a timeout; the verdict line counts the retries,
    on a Dask worker as in a local run."""
    monkeypatch.setattr(supervision, "WARMUP_LIMIT_S", 0.6)
    sixteen = tmp_path / "sixteen.txt"
    sixteen.write_text((REPO / "puzzles" / "data" / "gen-16x16-easy.txt").read_text())
    executor = DaskExecutor(cluster="local:1", plugins=PLUGINS) if where == "dask" else None
    comparison = run_comparison([sixteen], ["fake-compile:nap=1.6:above=81"], sample=1,
                                executor=executor, out=tmp_path / "run", repeat=1,
                                timeout=0.1, workers=1, plugins=PLUGINS)
    assert list(comparison.results["status"]) == ["solved"]
    (run,) = comparison.runs
    assert [k["shape"] for k in run["warmup"]["killed"]] == ["sudoku-16/alldiff"] * 2
    line = comparison.write_report().verdict.line()
    assert line.startswith("OK: 1 task: 1 solved; ")
    assert "(2 shape warm-up(s) killed at their limit, the task run again" in line


def test_the_warm_up_of_every_solver_process_on_the_cluster_is_on_record():
    """Two Dask workers' solver processes: one warm-up record, rows of an engine added up."""
    def part(seconds, kills):
        return {"warmup": {"start-up": [{"engine": "a", "workers": 1, "total_s": seconds,
                                         "max_s": seconds}],
                           "shapes": [{"engine": "a", "shape": "s", "workers": 1,
                                       "total_s": seconds, "max_s": seconds}],
                           "killed": [{"engine": "a", "shape": "s", "seconds": 1.0}] * kills,
                           "prepared": []},
                "processes": {"a": 1 + kills}, "worker_ready_rss_mb": 100.0 + seconds,
                "peak_rss_method": "VmHWM", "memory_limit_mb": None}
    merged = merged_facts([part(1.0, 0), part(2.0, 2)])
    assert merged["warmup"]["start-up"] == [{"engine": "a", "workers": 2, "total_s": 3.0,
                                            "max_s": 2.0}]
    assert merged["warmup"]["shapes"][0]["workers"] == 2 and len(merged["warmup"]["killed"]) == 2
    assert merged["processes"] == {"a": 4} and merged["worker_ready_rss_mb"] == 102.0
    assert merged_facts([]) == {}


@pytest.mark.parametrize("args, message", [
    (["--cluster", "local:0"], "expected local:N"),
    (["--cluster", "remote"], "expected local:N"),
    (["--executor", "local", "--scheduler", "tcp://127.0.0.1:1"], "go with --executor dask"),
    (["--scheduler", "tcp://127.0.0.1:1", "--cluster", "local:2"], "not both"),
])
def test_bad_cluster_settings_exit_2_and_start_nothing(args, message, tmp_path, capsys, mark):
    out = tmp_path / "never"
    assert run_main(["--puzzles", str(BOJ), "--engines", "backtracking", *args,
                     "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()
