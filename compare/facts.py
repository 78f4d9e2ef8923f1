"""What the harness knows of how a result came about, as data.

A result the harness ended or made itself carries one of these words in its
``fact`` field, stored in the results table's ``fact`` column, so the runner
and the reports count such results without reading message texts (the
message says the same to a person).
"""
from __future__ import annotations

import resource
import sys
from enum import StrEnum


class Fact(StrEnum):
    WARMUP_KILLED = "warmup_killed"    # killed at the time limit while its shape warmed up
    NOT_REPEATED = "not_repeated"      # a stand-in: timed out on an earlier repeat, not rerun


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB (every stored memory figure's
    unit): ``ru_maxrss``, which Linux gives in KiB and macOS in bytes."""
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value / (1024 * 1024) if sys.platform == "darwin" else value / 1024


def peak_rss_of(pid: int) -> float | None:
    """Another process's peak resident memory (``VmHWM`` of ``/proc/PID/status``), in MB;
    None where the system does not say. A worker resets its mark at each task start, so
    read just before a kill it is the killed task's own peak."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
