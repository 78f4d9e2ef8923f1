"""What every command shares: the exit codes, the usage error, argument types.

Each exit code is defined here once; the README's table lists the same codes.
"""
from __future__ import annotations

import argparse
import math
import sys
from enum import IntEnum


class Exit(IntEnum):
    OK = 0               # run: every answer verified, engines agree; solve: solved
    PROBLEMS = 1         # run: a wrong answer or a disagreement
    NO_SOLUTION = 1      # solve: the puzzle has no solution
    USAGE = 2            # bad usage or input: one line on stderr names the fault
    FAILED = 3           # solve: the engine failed; run: no worker could start
    ERRORS = 4           # run, report: tasks errored, crashed or ran out of memory
    SLOWER = 5           # report --compare: an engine slower than --fail-above, with confidence
    INTERRUPTED = 130    # Ctrl-C or SIGTERM: finished results are kept


class UsageError(Exception):
    """A request that cannot be carried out as given (exit 2)."""


def report_exit(report, allow_errors: bool = False) -> Exit:
    """A report's exit code: wrong answers first, then tasks that gave no answer."""
    if not report.clean:
        return Exit.PROBLEMS
    if report.failures and not allow_errors:
        return Exit.ERRORS
    return Exit.OK


def shift_ms(text: str) -> float:
    """An argparse type: a time shift in milliseconds, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or more milliseconds")
    return value


def say(message: str) -> None:
    """One line on stderr, even when the message spans several."""
    print(" ".join(str(message).split()), file=sys.stderr)


def positive(kind, most: float | None = None):
    """An argparse type: a finite number above zero (and at most ``most``)."""
    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be a finite number")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"{text!r} must be at most {most:g}")
        return value
    parse.__name__ = kind.__name__
    return parse


class OneLineParser(argparse.ArgumentParser):
    """Usage errors in one line and exit 2, as every other bad input."""

    def error(self, message: str):
        self.exit(Exit.USAGE, f"{self.prog}: error: {' '.join(message.split())} "
                              f"(see {self.prog} --help)\n")
