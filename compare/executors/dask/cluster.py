"""Reaching a Dask cluster: addresses checked, a scheduler probed, Dask's logs quieted.

What ``DaskExecutor`` needs before a single chunk is sent, and what can go
wrong on the way in one line (``ClusterError``): an address that is not
one, a scheme that needs what is not here (TLS settings, UCX), a port where
nothing or something else answers. Nothing here imports ``distributed``
until a run connects.
"""
from __future__ import annotations

import asyncio
import importlib.util
import logging
import socket
import time
from contextlib import contextmanager

from compare.errors import ClusterError  # noqa: F401  (raised here; the type lives with every error)
from compare.limits import RANGES, range_text

# Housekeeping a local cluster can do without: it serves no dashboard, and its
# scheduler and workers share this process, which checks every answer. Measured
# idle cost of a two-worker local cluster on 2 cores: 0.037 to 0.046 s of CPU per
# second with Dask's defaults, 0.005 to 0.006 with these.
QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}
LOCAL = "local:"
DEBUG_ENV = "COMPARE_DEBUG"     # set: distributed's own log reaches the console
QUIET_LOGGERS = ("distributed", "tornado")


SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")     # Dask's network transports
SECURE = ("tls", "wss")


def scheduler_address(text: str) -> str:
    """A scheduler address Dask can connect to, checked before anything connects.

    ``[SCHEME://]HOST:PORT`` with a known network scheme (``tcp`` when none is
    given), a host and a port from 1 to 65535; anything else is a
    ``ClusterError`` in one line. ``inproc://`` names a scheduler inside this
    very process, never a running cluster.
    """
    address = str(text).strip()
    shown = f"--scheduler {address!r}"
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    scheme = scheme.lower()
    if scheme == "inproc":
        raise ClusterError(f"{shown}: inproc:// addresses exist only inside one process; "
                           "give a running scheduler's address, e.g. tcp://HOST:8786, or "
                           "--cluster local:N")
    if scheme not in SCHEMES:
        raise ClusterError(f"{shown}: unknown scheme {scheme + '://'!r} (Dask schedulers "
                           f"listen on {', '.join(s + '://' for s in SCHEMES)})")
    host, colon, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or "/" in rest:
        raise ClusterError(f"{shown}: expected {scheme}://HOST:PORT, e.g. {scheme}://"
                           "10.0.0.5:8786")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ClusterError(f"{shown}: port {port!r} is not a number from 1 to 65535")
    return f"{scheme}://{rest}"


def local_cluster_size(spec) -> int:
    """N from ``local:N`` (or N itself), in the range of ``--workers``; the run then caps
    it as it caps ``--workers``, by its tasks and the memory available."""
    text = str(spec)
    count = text[len(LOCAL):] if text.startswith(LOCAL) else text
    _, low, high = RANGES["workers"]
    if not count.isdigit() or not low <= int(count) <= high:
        raise ClusterError(f"--cluster {spec}: expected local:N with N worker processes, "
                           f"N in {range_text('workers')}")
    return int(count)


@contextmanager
def quiet_dask_logs():
    """While the executor lives, nothing from ``distributed``'s loggers reaches the console.

    A run says what went wrong in one line of its own (a scheduler that went
    away, a worker that died); Dask's log of the same events (reconnect
    attempts, closing comms, tracebacks) is noise before that line. Dask sets
    levels on child loggers too (``distributed.client``), so each one that
    exists is silenced, and the parents' level covers those made later.
    ``COMPARE_DEBUG=1`` leaves them as they are.
    """
    manager = logging.root.manager
    names = [name for name in list(manager.loggerDict)
             if name.split(".")[0] in QUIET_LOGGERS] + list(QUIET_LOGGERS)
    loggers = {logging.getLogger(name) for name in names}
    before = {logger: logger.level for logger in loggers}
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in before.items():
            logger.setLevel(level)


def can_connect(address: str, security) -> None:
    """What the address's scheme needs here: TLS settings, the UCX package."""
    scheme = address.partition("://")[0]
    if scheme in SECURE and security.get_connection_args("client").get("ssl_context") is None:
        raise ClusterError(f"--scheduler {address}: {scheme}:// needs Dask's TLS settings "
                           "(distributed.comm.tls.ca-file, .client.cert and .client.key in "
                           "the Dask configuration, or a Security object from the API)")
    if scheme == "ucx" and not any(importlib.util.find_spec(m) for m in ("ucp", "ucxx")):
        raise ClusterError(f"--scheduler {address}: ucx:// needs UCX for Python (the ucx-py "
                           "or ucxx package), which is not installed here")


def probe(address: str, security, wait_s: float) -> None:
    """Connect and ask who answers, all within ``wait_s``: a ``ClusterError`` unless a
    Dask scheduler does. ``distributed.Client`` would otherwise retry a refused
    port until its timeout, log, and once it has failed hold the process a
    further 20 s while it closes."""
    from distributed.comm import connect

    start = time.monotonic()
    tcp_reachable(address, wait_s)
    left = max(0.1, wait_s - (time.monotonic() - start))

    async def ask():
        comm = await connect(address, timeout=left, **security.get_connection_args("client"))
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    not_dask = f"--scheduler {address}: something answers there, but not as a Dask scheduler"
    try:
        reply = asyncio.run(asyncio.wait_for(ask(), left))
    except (asyncio.TimeoutError, TimeoutError):
        raise ClusterError(f"{not_dask} (no Dask answer within {wait_s:g} s)") from None
    except Exception as exc:
        raise ClusterError(f"{not_dask} ({first_line(exc)})") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ClusterError(not_dask)


def tcp_reachable(address: str, wait_s: float) -> None:
    """A plain TCP connection first: a refused port is said at once, a host that
    never answers after ``wait_s``. (UCX does not go over TCP: Dask's connect tells.)"""
    scheme, _, rest = address.partition("://")
    if scheme == "ucx":
        return
    host, _, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") else host
    try:
        socket.create_connection((host, int(port)), timeout=wait_s).close()
    except socket.timeout:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} (no answer "
                           f"within {wait_s:g} s)") from None
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} "
                           f"({exc.strerror or first_line(exc)})") from None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
