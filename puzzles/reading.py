"""Reading a puzzle input's bytes: the one place files and stdin are opened.

Every kind reads through here, so a binary file, bad encoding or unreadable
path is the same one-line ``PuzzleInputError`` whatever the kind.
"""
from __future__ import annotations

import sys

from .errors import PuzzleInputError
from .formats import decode_input

STDIN = "<stdin>"


def read_text(arg: str) -> str:
    """The decoded text of a file or (``-``) stdin; every failure is bad input."""
    source = STDIN if arg == "-" else arg
    try:
        if arg == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(arg, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PuzzleInputError(source, None, f"cannot read: {reason}") from None
    return decode_input(data, source)
