"""Scheduler addresses: checked before connecting, every failure one line within the wait.

Only 127.0.0.1 is ever contacted: a non-routable address is checked for its
form alone, and "a host that never answers" is a local port that accepts and
says nothing.
"""
from __future__ import annotations

import http.server
import importlib.util
import re
import socket
import subprocess
import threading
import time
from contextlib import contextmanager, suppress

import pytest

pytest.importorskip("distributed")
pytest.importorskip("psutil")

from compare.executors.dask.executor import ClusterError, DaskExecutor  # noqa: E402
from tests.executors.test_dask import (  # noqa: E402,F401,F811  (the fixture mark)
    BOJ,
    UNIQUE_4X4,
    Cluster,
    cli,
    env_for,
    free_port,
    mark,
    rows,
    started_and_storing,
)


@pytest.mark.parametrize("address, said", [
    ("foo", "expected tcp://HOST:PORT"),
    ("", "expected tcp://HOST:PORT"),
    ("tcp://127.0.0.1", "expected tcp://HOST:PORT"),
    ("127.0.0.1:99999", "is not a number from 1 to 65535"),
    ("http://127.0.0.1:8786", "unknown scheme 'http://'"),
    ("inproc://nothing", "inproc:// addresses exist only inside one process"),
    ("tcp://10.255.255.1:8786/x", "expected tcp://HOST:PORT"),
])
def test_a_malformed_scheduler_address_is_refused_before_connecting(address, said):
    with pytest.raises(ClusterError, match=re.escape(said)):
        DaskExecutor(["fake"], scheduler=address)


def test_a_well_formed_address_is_taken_as_given_without_connecting():
    """Checked only: the non-routable host here is never contacted."""
    assert DaskExecutor(["fake"], scheduler="10.255.255.1:8786").scheduler == \
        "tcp://10.255.255.1:8786"
    assert DaskExecutor(["fake"], scheduler="TCP://[::1]:8786").scheduler == "tcp://[::1]:8786"


@pytest.mark.parametrize("address, said", [
    ("tls://127.0.0.1:1", "tls:// needs Dask's TLS settings"),
    ("ucx://127.0.0.1:1", "ucx:// needs UCX for Python"),
])
def test_a_scheme_this_machine_cannot_speak_is_one_line(address, said):
    if address.startswith("ucx") and any(importlib.util.find_spec(m) for m in ("ucp", "ucxx")):
        pytest.skip("UCX for Python is installed here")
    with pytest.raises(ClusterError, match=re.escape(said)):
        DaskExecutor(["fake"], scheduler=address).start()


@contextmanager
def impostor(kind: str):
    """A 127.0.0.1 port where something that is not a Dask scheduler listens: one that
    accepts and never says a word, or an HTTP server."""
    if kind == "silent":
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        held = []

        def take() -> None:
            try:
                held.append(server.accept())
            except OSError:      # closed below before anyone came: nothing to hold
                pass
        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        try:
            yield server.getsockname()[1]
        finally:
            try:
                server.shutdown(socket.SHUT_RDWR)   # wakes a waiting accept (Linux)
            except OSError:
                pass
            server.close()
            thread.join(5)
            for conn, _ in held:
                conn.close()
        return
    httpd = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    httpd.RequestHandlerClass.log_message = lambda *a: None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("kind", ["silent", "http"])
def test_a_port_where_no_scheduler_answers_is_one_line_within_the_wait(kind):
    with impostor(kind) as port:
        started = time.monotonic()
        with pytest.raises(ClusterError, match="not as a Dask scheduler"):
            DaskExecutor(["fake"], scheduler=f"tcp://127.0.0.1:{port}", connect_s=2).start()
        assert time.monotonic() - started < 15


def test_a_refused_port_is_said_at_once():
    started = time.monotonic()
    with pytest.raises(ClusterError, match="refused"):
        DaskExecutor(["fake"], scheduler=f"tcp://127.0.0.1:{free_port()}").start()
    assert time.monotonic() - started < 8


@pytest.mark.parametrize("address", ["foo", "tls://127.0.0.1:1", "SILENT"])
def test_a_bad_scheduler_on_the_command_line_is_one_line_exit_2(address, tmp_path,
                                                                mark):  # noqa: F811
    out = tmp_path / "never"
    with impostor("silent") as port:
        address = address.replace("SILENT", f"tcp://127.0.0.1:{port}")
        env = env_for(mark, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
        proc = cli("--puzzles", BOJ, "--engines", "fake", "--scheduler", address, "--out", out,
                   env=env, timeout=90)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert not out.exists()


def test_a_scheduler_stopped_mid_run_is_one_line_without_dask_log_noise(
        tmp_path, mark):  # noqa: F811
    started = Cluster(tmp_path, env_for(mark), nanny=False)
    try:
        puzzles = tmp_path / "four.txt"
        puzzles.write_text("\n".join(UNIQUE_4X4) + "\n")
        out = tmp_path / "run"
        client = started_and_storing(puzzles, ["--scheduler", started.address, "--out", out],
                                     env_for(mark), stderr=subprocess.PIPE, text=True)
        assert len(rows(out / "results.sqlite")) < 60, "the run ended before the stop"
        started.procs[0].kill()
        _, err = client.communicate(timeout=120)
    finally:
        with suppress(Exception):
            started.client.close(timeout=2)
        for proc in started.procs:
            proc.kill()
            proc.wait()
    assert client.returncode == 2, err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "distributed" not in err and "Traceback" not in err
    assert rows(out / "results.sqlite")          # what was stored stays
