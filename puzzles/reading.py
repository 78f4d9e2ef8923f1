"""Reading a puzzle input's bytes: the one place files and stdin are opened.

Every kind reads through here, so a binary file, bad encoding, unreadable
path or oversized input is the same one-line ``PuzzleInputError`` whatever the
kind. Inputs are read in blocks with two caps, so ``/dev/zero`` or a runaway
pipe is refused after a bounded read instead of filling memory:

* ``MAX_LINE_BYTES`` per line (1 MiB; the longest puzzle line, a 25x25 grid,
  is 625 characters);
* ``MAX_INPUT_BYTES`` per file or stdin (256 MiB; the largest public Sudoku
  set here, 49,151 lines, is 4 MB).

Only regular files (and folders, by the loader) are read by path: a FIFO or a
device would block or never end, so it is refused in one line; ``-`` reads
stdin, whatever it is. A file name that is not UTF-8 (the bytes the system
gave, as surrogate escapes) is read as it is and shown escaped (``x\\xff``)
in puzzle ids and messages, so it can be stored and printed.
"""
from __future__ import annotations

import os
import stat
import sys
from functools import lru_cache
from pathlib import Path

from puzzles.errors import PuzzleInputError

STDIN = "<stdin>"
MAX_LINE_BYTES = 1 << 20
MAX_INPUT_BYTES = 256 << 20
BLOCK = 1 << 20


@lru_cache(maxsize=256)
def source_stem(source: str) -> str:
    """A short name for tables and puzzle ids: the file stem, or ``stdin``.

    Cached: every puzzle id of a file asks for it, 100,000 times in a sweep.
    """
    if source in ("-", STDIN):
        return "stdin"
    return shown_name(Path(source).stem or source)


def shown_name(name: str) -> str:
    """``name`` as text that can be written anywhere: the bytes of a name that is not
    UTF-8 (surrogate escapes) as ``\\xff``; any other name unchanged."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def check_readable(path: str) -> None:
    """Refuse, in one line, a path that is neither a regular file nor a folder: a FIFO
    would block the read forever and a device never ends (``-`` is stdin, not a path)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return                       # the open that follows names the fault
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        what = "a FIFO" if stat.S_ISFIFO(mode) else (
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise PuzzleInputError(shown_name(path), None, f"{what}, not a puzzle file (give "
                                                       "a file, a folder, or - for stdin)")


def read_text(arg: str) -> str:
    """The decoded text of a file or (``-``) stdin; every failure is bad input."""
    source = STDIN if arg == "-" else shown_name(arg)
    if arg == "-" and sys.stdin is None:
        raise PuzzleInputError(source, None, "cannot read: stdin is closed")
    try:
        if arg == "-":
            data = read_capped(sys.stdin.buffer, source)
        else:
            check_readable(arg)
            with open(arg, "rb") as handle:
                data = read_capped(handle, source)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PuzzleInputError(source, None, f"cannot read: {reason}") from None
    return decode_input(data, source)


def read_capped(handle, source: str) -> bytes:
    """All of ``handle``, or a ``PuzzleInputError`` as soon as a cap is passed."""
    try:
        size = os.fstat(handle.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        size = 0
    if size > MAX_INPUT_BYTES:
        raise _too_big(source)
    blocks: list[bytes] = []
    total = lines = run = 0          # bytes, newlines, and bytes since the last newline
    while True:
        block = handle.read(BLOCK)
        if not block:
            return b"".join(blocks)
        total += len(block)
        if total > MAX_INPUT_BYTES:
            raise _too_big(source)
        pieces = block.split(b"\n")
        if len(pieces) == 1:
            run += len(block)
        else:
            lengths = [run + len(pieces[0]), *map(len, pieces[1:-1])]
            longest = max(lengths)
            if longest > MAX_LINE_BYTES:
                raise _too_long(source, lines + lengths.index(longest) + 1)
            lines += len(pieces) - 1
            run = len(pieces[-1])
        if run > MAX_LINE_BYTES:
            raise _too_long(source, lines + 1)
        blocks.append(block)


def _too_big(source: str) -> PuzzleInputError:
    return PuzzleInputError(source, None, f"more than {MAX_INPUT_BYTES >> 20} MiB, the most "
                                          "one input may hold")


def _too_long(source: str, line: int) -> PuzzleInputError:
    return PuzzleInputError(source, line, f"line longer than {MAX_LINE_BYTES >> 20} MiB, the "
                                          "most one line may hold")


def decode_input(data: bytes, source: str) -> str:
    """Text from raw bytes; binary garbage is bad input, not a crash later on."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise PuzzleInputError(source, _line_of(data, nul),
                               "binary data (NUL byte), not a puzzle text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PuzzleInputError(
            source, _line_of(data, exc.start),
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
