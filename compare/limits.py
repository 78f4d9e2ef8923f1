"""The finite range of every numeric setting, shared by the command line and the API,
and the words ``--fail-on`` takes.

Anything outside (``inf``, ``nan``, ``1e999``, a timeout of ten years) is
refused in one line before anything runs; docs/harness.md lists the ranges.
"""
from __future__ import annotations

import math

from compare.errors import SettingsError  # noqa: F401  (its importers find it here too)
from engines import Status

# Both ends included.
SEED_MAX = 2 ** 32 - 1
RANGES: dict[str, tuple[type, float, float]] = {
    "limit": (int, 1, 1_000_000),
    "timeout": (float, 0.001, 86_400.0),          # one day
    "repeat": (int, 1, 1_000),
    "workers": (int, 1, 1_024),                   # then capped by tasks and memory
    "sample": (int, 1, 10_000_000),
    "seed": (int, 0, SEED_MAX),
    "memory_limit": (float, 64.0, 1_048_576.0),   # MB: 64 MB to 1 TB
    "chunk": (int, 1, 1_000_000),                 # tasks per Dask task
    "shift_ms": (float, 0.0, 60_000.0),           # the paired ratios' time shift
    "fail_above": (float, 1.0, 1_000.0),          # report --compare: the slowdown that fails
}


# What ``--fail-on`` may name, beside errors, crashes and memouts (which always fail
# unless ``--allow-errors``): two statuses, and planned results missing; the report's
# ``Verdict.fail_counts`` counts each.
INCOMPLETE = "incomplete"
FAIL_ON = (Status.TIMEOUT.value, Status.UNSUPPORTED.value, INCOMPLETE)


def range_text(name: str) -> str:
    kind, low, high = RANGES[name]
    return f"{_shown(low, kind)}..{_shown(high, kind)}"


def _shown(value, kind) -> str:
    if kind is int or float(value).is_integer():
        return f"{int(value):_}"
    return f"{value:g}"


def check_setting(name: str, value):
    """``value`` as the setting's type, if it is a finite number in range; else SettingsError."""
    kind, low, high = RANGES[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(f"{name}: {value!r} is not a number")
    if not math.isfinite(value) or not low <= value <= high:
        raise SettingsError(f"{name}: {value!r} is out of range ({range_text(name)})")
    if kind is int and value != int(value):
        raise SettingsError(f"{name}: {value!r} is not a whole number")
    return kind(value)
