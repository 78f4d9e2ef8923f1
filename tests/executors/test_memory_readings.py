"""Memory readings of worker processes through psutil: right, cheap to repeat, and None
once a process is gone."""
from __future__ import annotations

import multiprocessing as mp
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from compare.executors.local.pool import Worker
from compare.executors.local.worker.session import _virtual_bytes, rss_mb
from compare.facts import peak_rss_of


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


TRIM_PROBE = """
import gc, sys
from compare.executors.local.worker.session import rss_mb, settle_heap
keep, freed = [], []
for i in range(200_000):          # 2 KB blocks from malloc, a survivor every 64th
    (keep if i % 64 == 0 else freed).append(bytearray(2048))
grown = rss_mb()
del freed
gc.collect()
freed_only = rss_mb()
settle_heap()
print(grown, freed_only, rss_mb())
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
def test_settling_the_heap_gives_freed_memory_back_to_the_system():
    """Freed blocks between survivors stay resident until ``settle_heap`` returns them:
    the next task's peak does not carry what the last one freed."""
    out = subprocess.run([sys.executable, "-c", TRIM_PROBE], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout
    grown, freed_only, settled = (float(x) for x in out.split())
    assert freed_only > grown - 100           # freed, yet still resident
    assert settled < freed_only - 250          # about 390 MB of blocks given back


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_another_process_s_peak_is_its_kernel_high_water_mark():
    """What the parent reads of a worker just before killing it at the time limit."""
    assert peak_rss_of(os.getpid()) == pytest.approx(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, rel=0.05)
    assert peak_rss_of(2 ** 22 + 12345) is None          # no such process
