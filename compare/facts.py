"""What the harness knows of how a result came about, as data.

A result the harness ended or made itself carries one of these words in its
``fact`` field, stored in the results table's ``fact`` column, so the runner
and the reports count such results without reading message texts (the
message says the same to a person).
"""
from __future__ import annotations

from enum import StrEnum


class Fact(StrEnum):
    WARMUP_KILLED = "warmup_killed"    # killed at the time limit while its shape warmed up
    NOT_REPEATED = "not_repeated"      # a stand-in: timed out on an earlier repeat, not rerun
