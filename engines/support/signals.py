"""Solver libraries that take the host process's signals, and how to give them back."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

HOST_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM")
                     if hasattr(signal, name))


@contextmanager
def host_signals_kept():
    """Solver-library code inside leaves the host process's Ctrl-C and SIGTERM as they were.

    Some libraries take these signals when they load or solve: OR-Tools resets
    SIGINT to the default action (the process dies on Ctrl-C with no word),
    Exact installs handlers of its own for both (the process ignores them).
    The process that runs the tool decides what an interrupt does, so each
    handler is put back afterwards, at the C level too (``signal.signal``
    reinstalls it even where Python still believes it is in place), and the
    two signals are unblocked. Only the main thread may set handlers; from
    another thread the code runs unguarded.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in HOST_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, HOST_SIGNALS)
