"""``engines.external.run_solver`` with real executables: limits and interrupts hold
for the solver process and every process it starts."""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

import engines
from engines.base import Engine
from engines.contract import Status, Unsupported
from engines.external import (
    ExecutableMissing,
    find_executable,
    jvm_heap_flag,
    missing_reason,
    run_solver,
)
from engines.external.process import GRACE_S, OUTPUT_CAP

PY = sys.executable
ROOT = Path(__file__).resolve().parents[2]

# Ignores SIGTERM, starts a grandchild in its group and one that leaves it (a new
# session), both ignoring SIGTERM too (an ignored signal stays ignored across exec),
# then writes the three pids to argv[1].
STUBBORN = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    inside = subprocess.Popen(["sleep", "60"])
    outside = subprocess.Popen(["sleep", "60"], start_new_session=True)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {inside.pid} {outside.pid}")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    print("started", flush=True)
    time.sleep(60)
""")


def gone(pid: int) -> bool:
    """No process runs as ``pid`` (a zombie runs nothing; its reaping is its parent's)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def all_gone(pids, within: float = 1.0) -> bool:
    until = time.monotonic() + within
    while time.monotonic() < until:
        if all(gone(p) for p in pids):
            return True
        time.sleep(0.02)
    return all(gone(p) for p in pids)


def read_pids(path: Path, within: float = 10.0) -> list[int]:
    until = time.monotonic() + within
    while not path.exists():
        assert time.monotonic() < until, "the solver never started its children"
        time.sleep(0.02)
    return [int(p) for p in path.read_text().split()]


def test_a_normal_exit_returns_its_code_output_and_memory():
    done = run_solver([PY, "-c", "import sys; data = sys.stdin.read(); print('out', data);"
                       " print('err', file=sys.stderr); sys.exit(3)"],
                      timeout_s=10, memory_mb=500, stdin="given")
    assert (done.returncode, done.stdout, done.stderr) == (3, "out given\n", "err\n")
    assert not (done.timed_out or done.memout or done.interrupted)
    assert done.limit_status() is None and done.ended == "exit code 3"
    assert done.wall_s < 5 and done.peak_rss_mb and 1 < done.peak_rss_mb < 500


def test_the_time_limit_ends_a_tree_that_ignores_sigterm(tmp_path):
    pidfile = tmp_path / "pids"
    done = run_solver([PY, "-c", STUBBORN, str(pidfile)], timeout_s=1.0)
    pids = read_pids(pidfile)
    assert done.timed_out and done.limit_status() is Status.TIMEOUT
    assert done.returncode == -signal.SIGKILL and not done.interrupted
    assert done.stdout == "started\n"
    assert 1.0 + GRACE_S - 0.1 <= done.wall_s <= 1.0 + GRACE_S + 1.0
    assert all_gone(pids, within=0.5), [p for p in pids if not gone(p)]


def test_the_address_space_limit_stops_a_memory_hog_as_memout():
    start = time.monotonic()
    done = run_solver([PY, "-c", "x = b'x' * (2 << 30)"], timeout_s=10, memory_mb=200)
    assert done.memout and done.limit_status() is Status.MEMOUT
    assert "MemoryError" in done.stderr and done.returncode == 1
    assert time.monotonic() - start < 3


def test_the_memory_poll_kills_a_tree_whose_grandchild_grows_past_the_limit():
    hog = ("import time\nkept = []\nfor _ in range(100):\n"
           "    kept.append(b'x' * (20 << 20))\n    time.sleep(0.02)\n")
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {hog!r}])"
    start = time.monotonic()
    done = run_solver([PY, "-c", parent], timeout_s=10, memory_mb=200,
                      limit_address_space=False)
    assert done.memout and not done.timed_out
    assert done.returncode == -signal.SIGKILL
    assert 200 < done.peak_rss_mb < 1000
    assert time.monotonic() - start < 4


def test_a_missing_executable_says_why_in_one_line(tmp_path):
    with pytest.raises(ExecutableMissing) as missing:
        run_solver(["csp-compare-no-such-solver", "x.fzn"], timeout_s=1)
    assert str(missing.value) == "csp-compare-no-such-solver is not installed"
    assert isinstance(missing.value, Unsupported)
    with pytest.raises(ExecutableMissing, match=r"^fzn-nothing is not installed "
                                                r"\(Debian package flatzinc\)$"):
        find_executable("fzn-nothing", "Debian package flatzinc")
    script = tmp_path / "solver.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(ExecutableMissing, match="is not executable") as denied:
        run_solver([str(script)], timeout_s=1)
    assert "\n" not in str(denied.value)
    script.chmod(0o755)
    assert find_executable(str(script)) == str(script)
    assert run_solver([str(script)], timeout_s=5).stdout == "hi\n"
    assert run_solver(["./solver.sh"], timeout_s=5, cwd=str(tmp_path)).stdout == "hi\n"


def test_ctrl_c_in_the_caller_kills_the_tree_before_it_is_raised(tmp_path):
    pidfile = tmp_path / "pids"
    main = threading.main_thread().ident
    seen: list[int] = []

    def interrupt():
        seen.extend(read_pids(pidfile))
        signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_solver([PY, "-c", STUBBORN, str(pidfile)], timeout_s=30)
    assert time.monotonic() - start < 5
    assert len(seen) == 3 and all_gone(seen, within=0.5)


CALLER = textwrap.dedent("""
    import sys
    from engines.external import run_solver
    run_solver(sys.argv[1:], timeout_s=30)
    print("returned")
""")


def test_sigterm_to_the_caller_kills_the_tree_then_ends_the_caller(tmp_path):
    pidfile = tmp_path / "pids"
    caller = subprocess.Popen([PY, "-c", CALLER, PY, "-c", STUBBORN, str(pidfile)],
                              cwd=ROOT, stdout=subprocess.PIPE)
    try:
        pids = read_pids(pidfile)
        caller.send_signal(signal.SIGTERM)
        out, _ = caller.communicate(timeout=5)
    finally:
        caller.kill()
    assert caller.returncode == -signal.SIGTERM and b"returned" not in out
    assert all_gone(pids, within=0.5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_solver_dies_with_a_caller_killed_outright(tmp_path):
    pidfile = tmp_path / "pid"
    solver = f"echo $$ > {pidfile}.tmp && mv {pidfile}.tmp {pidfile} && exec sleep 60"
    caller = subprocess.Popen([PY, "-c", CALLER, "sh", "-c", solver], cwd=ROOT)
    try:
        pids = read_pids(pidfile)
        caller.kill()
        caller.wait(5)
    finally:
        caller.kill()
    assert all_gone(pids, within=2.0)


def test_a_flood_of_output_is_capped_without_deadlock():
    flood = ("import sys\nfor stream in (sys.stdout, sys.stderr):\n"
             "    stream.buffer.write(b'first' + b'y' * 50_000_000 + b'last')\n")
    done = run_solver([PY, "-c", flood], timeout_s=20)
    assert done.returncode == 0 and done.wall_s < 10
    for text, dropped in ((done.stdout, done.stdout_dropped), (done.stderr, done.stderr_dropped)):
        assert text.startswith("firsty") and text.endswith("ylast")
        assert dropped == 50_000_009 - OUTPUT_CAP
        assert len(text) < OUTPUT_CAP + 100 and "bytes left out" in text


def test_a_signal_from_elsewhere_reads_as_interrupted_and_an_oom_report_as_memout():
    killed = run_solver(["sh", "-c", "kill -TERM $$"], timeout_s=5)
    assert killed.interrupted and killed.returncode == -signal.SIGTERM
    assert not killed.timed_out and killed.limit_status() is None
    oom = run_solver([PY, "-c", "import sys; print('Exception in thread \"main\" "
                      "java.lang.OutOfMemoryError: Java heap space', file=sys.stderr);"
                      " sys.exit(1)"], timeout_s=5)
    assert oom.memout and oom.limit_status() is Status.MEMOUT


def test_the_jvm_heap_flag_leaves_a_quarter_of_the_limit_to_the_jvm():
    assert jvm_heap_flag(1000) == "-Xmx750m"
    assert jvm_heap_flag(2048.0) == "-Xmx1536m"


class MissingSolverEngine(Engine):
    name = "missing-executable-probe"
    hint = "Debian package flatzinc"

    @classmethod
    def available(cls) -> bool:
        return not missing_reason("csp-compare-no-such-solver", cls.hint)

    @classmethod
    def unavailable_reason(cls) -> str:
        return missing_reason("csp-compare-no-such-solver", cls.hint)


def test_the_engines_listing_shows_why_an_executable_engine_is_missing():
    engines.register(MissingSolverEngine.name, MissingSolverEngine)
    try:
        info = engines.installed()[MissingSolverEngine.name]
    finally:
        engines._REGISTRY.pop(MissingSolverEngine.name, None)   # the test's own entry
    assert info["available"] is False
    assert info["error"] == "csp-compare-no-such-solver is not installed (Debian package flatzinc)"
