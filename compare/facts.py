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
