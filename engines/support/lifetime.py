"""How a process is tied to the one that started it, and how its end is told.

Shared by the harness's worker processes and by engines that run a solver
executable (``engines.external``); the harness reaches them through the
``engines`` package.
"""
from __future__ import annotations

import signal
import sys

PR_SET_PDEATHSIG = 1


def set_parent_death_signal() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux; False where unavailable.

    The kernel then kills this process the moment the thread that started it
    ends (for a process started from the main thread: when its parent exits).
    Safe to call between fork and exec (``preexec_fn``) once libc is loaded,
    which ``libc_prctl`` does ahead.
    """
    prctl = libc_prctl()
    if prctl is None:
        return False
    return prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0


_LIBC = {}


def libc_prctl():
    """libc's ``prctl``, loaded once (loading it after a fork can deadlock); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    if "prctl" not in _LIBC:
        import ctypes  # here, not at the top: ``import engines`` stays quick to start
        try:
            _LIBC["prctl"] = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _LIBC["prctl"] = None
    return _LIBC["prctl"]


def describe_exit(code) -> str:
    """A process's exit code in words: ``exit code 3``, ``signal SIGKILL``."""
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"
