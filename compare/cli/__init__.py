"""The command line: ``run_compare.py [SUBCOMMAND] ...`` (also ``csp-compare``).

Each sub-command module exposes ``main(argv) -> exit code``; with no
sub-command the comparison runs. Plugins (``COMPARE_PLUGINS``) are loaded
here once, before any command looks up an engine or a puzzle kind.
"""
from __future__ import annotations

import importlib
import signal
import sys
import threading

from compare.cli.common import Exit, say
from compare.harness.plugins import PluginError, load_plugins
from compare.harness.store import STORAGE_ERRNOS, StorageError, storage_fault

# Imported by name when chosen, so ``solve`` starts (and runs, even where the
# reporting libraries are missing) without importing pandas and matplotlib.
SUBCOMMANDS = {name: f"compare.cli.{name}"
               for name in ("solve", "generate", "engines", "kinds", "report", "bench")}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    terminate_like_interrupt()
    try:
        load_plugins()
    except PluginError as err:
        say(f"error: {err}")
        return Exit.USAGE
    except KeyboardInterrupt:        # Ctrl-C while a plugin was importing
        say("interrupted")
        return Exit.INTERRUPTED
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
        return importlib.import_module("compare.cli.run").main(argv)
    except KeyboardInterrupt:        # a command that has nothing of its own to say
        say("interrupted")
        return Exit.INTERRUPTED
    except StorageError as err:      # any command: the disk, not the input, is at fault
        say(f"error: {err}")
        return Exit.STORAGE
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
        say(f"error: {storage_fault(exc.filename or 'output', exc)}")
        return Exit.STORAGE


def terminate_like_interrupt() -> None:
    """SIGTERM (``kill``, a batch system's time limit) stops a command as Ctrl-C does.

    Every command already handles ``KeyboardInterrupt`` by keeping what is
    finished, saying so in one line and exiting 130; the default SIGTERM
    action would instead end the process on the spot.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
