"""The errors a command can end on, each with its exit code, and the codes themselves.

Every fault a user can meet is a ``CompareError``: its message is the one
line the command line prints, and its class carries the exit code, so a
front end catches the base once and exits with ``err.exit_code`` instead of
listing the error types of every module. ``puzzles/`` and ``engines/`` do
not import ``compare``; their input errors are mapped here (``exit_code``).
The README's table lists the same codes.
"""
from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

from puzzles.errors import PuzzleInputError


class Exit(IntEnum):
    OK = 0               # run: every answer verified, engines agree; solve: solved
    PROBLEMS = 1         # run: a wrong answer or a disagreement
    NO_SOLUTION = 1      # solve: the puzzle has no solution
    USAGE = 2            # bad usage or input: one line on stderr names the fault
    FAILED = 3           # solve: the engine failed; run: no worker could start
    ERRORS = 4           # run, report: tasks errored, crashed or ran out of memory (or
                         # timed out, were unsupported or are missing, with --fail-on)
    SLOWER = 5           # report --compare: an engine slower than --fail-above, with confidence
    MISSED = 5           # bench: a target failed (a performance finding, as SLOWER)
    STORAGE = 6          # the disk refused a write (full, read-only): what was stored is kept
    INTERRUPTED = 130    # Ctrl-C or SIGTERM: finished results are kept


class CompareError(Exception):
    """A fault the user can act on: ``str(err)`` is its one line, ``exit_code`` its code."""

    exit_code: ClassVar[int] = Exit.USAGE


class UsageError(CompareError):
    """A request that cannot be carried out as given (exit 2)."""


class SettingsError(CompareError, ValueError):
    """A run that cannot be carried out as asked: one line, exit 2 on the command line."""


class ArgumentError(SettingsError, TypeError):
    """A Python API call given an argument it does not take (a wrong type, an empty
    list, a negative shift): names the argument and what it takes. A ``SettingsError``,
    and a ``TypeError`` too, so either ``except`` finds it."""


class PluginError(CompareError):
    """A plugin that cannot be found or fails while it is imported (exit 2), whatever it
    raises (``KeyboardInterrupt`` and ``SystemExit`` included)."""


class ClusterError(CompareError, RuntimeError):
    """The executor cannot run the comparison (an unknown kind, a cluster unreachable or
    missing engines): exit 2."""


class StoreError(CompareError, ValueError):
    """A results file that SQLite cannot read, or that this code cannot: named in one
    line, never a traceback (exit 2)."""


class SchemaError(StoreError):
    """A results file written in a schema version this code does not know (exit 2)."""


class StorageError(CompareError):
    """The disk refused a write (full, read-only, gone): one line naming the path and why.

    What was committed before stays committed; the command line exits 6.
    """

    exit_code = Exit.STORAGE


class FolderBusy(SettingsError):
    """Another process is writing the run folder (exit 2)."""


# Every fault a front end reports in one line: ours, and bad puzzle input (``puzzles``
# knows nothing of ``compare``, so its error is mapped here, to bad usage).
FAULTS: tuple[type[BaseException], ...] = (CompareError, PuzzleInputError)


def exit_code(err: BaseException) -> int:
    """The exit code of one of the ``FAULTS``."""
    return err.exit_code if isinstance(err, CompareError) else Exit.USAGE
