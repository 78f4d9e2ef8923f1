"""Memory readings of worker processes through psutil: right, cheap to repeat, and None
once a process is gone."""
from __future__ import annotations

import multiprocessing as mp
import os
import resource
import time

import psutil
import pytest

from compare.executors.local.pool import Worker
from compare.executors.local.worker.session import _virtual_bytes, rss_mb


def statm_mb(pid) -> tuple[float, float]:
    """The kernel's own figures (size, resident), in MB."""
    with open(f"/proc/{pid}/statm") as handle:
        size, resident = (int(x) for x in handle.read().split()[:2])
    page = resource.getpagesize() / (1024 * 1024)
    return size * page, resident * page


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_readings_agree_with_the_kernel():
    before = rss_mb()
    ballast = bytearray(64 * 1024 * 1024)        # touched: resident
    size, resident = statm_mb(os.getpid())
    assert abs(rss_mb() - resident) < 8 and rss_mb() > before + 48
    assert abs(rss_mb(psutil.Process()) - resident) < 8
    assert abs(_virtual_bytes() / 2 ** 20 - size) < 8
    del ballast


def test_a_worker_keeps_one_process_handle_and_a_gone_one_reads_none():
    proc = mp.get_context("fork").Process(target=time.sleep, args=(0.5,))
    proc.start()
    worker = Worker(proc=proc, conn=None, tokens=(None, None), lifeline=None)
    first = worker.watch()
    assert isinstance(first, psutil.Process) and worker.watch() is first
    proc.join()
    assert rss_mb(first) is None and rss_mb(proc.pid) is None
