"""Sudoku text formats: BOJ 2239 and BOJ 2580 grids, and one puzzle per line.

* ``boj2239``: n rows of n characters (9 lines of 9 digits for BOJ 2239).
  Read as whitespace-separated tokens, as the judge's reference solution
  does, so the 9 rows may also sit on one line.
* ``boj2580``: n lines of n space-separated decimal numbers.
* ``line``: the n*n cells on one line, row-major (16, 81, 256 or 625 chars).

Cell alphabet of ``line`` and ``boj2239``: ``1``-``9`` then ``A``-``P``
(A=10 ... P=25, lower case accepted), ``.`` or ``0`` for a blank; the same
alphabet as ``../shared/datasets``. Everywhere: blank lines are skipped and
``#`` starts a comment that runs to the end of the line.

Every fault is a ``PuzzleInputError`` naming the 1-based line it is on, so the
front ends can print one located line instead of a traceback.

The three register themselves with the loader (``puzzles.formats.registry``)
as text formats: no file ending, each recognising its own texts. A grid file
is one entry; a ``line`` file is one entry per data line, a bad line an entry
with its error. Line files are parsed on a fast path (one ``bytes.translate``
per line, givens checked per size in one numpy pass) because the harness
samples from dataset files of 50,000 lines.
"""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from functools import lru_cache, partial
from itertools import islice
from operator import itemgetter

from puzzles.errors import PuzzleInputError
from puzzles.formats.registry import Entry, register_format
from puzzles.kinds.sudoku import VALUE_CHARS, Sudoku, format_grid, units  # noqa: F401  (format_grid: re-exported)
from puzzles.reading import decode_input, source_stem  # noqa: F401  (re-exported)

FORMATS = Sudoku.formats                  # ("boj2239", "boj2580", "line")
SIDES = (4, 9, 16, 25)
LINE_LENGTHS = {n * n: n for n in SIDES}
BOM = "\ufeff"
BAD = 255   # the byte value a character outside the alphabet translates to

_CHAR_VALUE = {".": 0, "0": 0}
for _v, _ch in enumerate(VALUE_CHARS, start=1):
    _CHAR_VALUE[_ch] = _CHAR_VALUE[_ch.lower()] = _v
# bytes.translate table: alphabet byte -> its value, anything else -> BAD.
_BYTE_TABLE = bytes(_CHAR_VALUE.get(chr(b), BAD) for b in range(256))


def content_lines(text: str, limit: int | None = None) -> list[tuple[int, str]]:
    """``(line number, text)`` of the lines that hold data: comments and blanks dropped."""
    return list(islice(_data_lines(text), limit))


def numbered_lines(text: str):
    """Lines numbered as editors number them: only ``\n`` ends a line (``\r`` is stripped)."""
    return enumerate(text.removeprefix(BOM).split("\n"), start=1)


def _lines_on_demand(text: str):
    """``numbered_lines`` without splitting the whole text first: detection reads
    only a text's head, and a dataset file is 50,000 lines."""
    text = text.removeprefix(BOM)
    start, number = 0, 1
    while (end := text.find("\n", start)) >= 0:
        yield number, text[start:end]
        start, number = end + 1, number + 1
    yield number, text[start:]


def _data_lines(text: str):
    for number, raw in _lines_on_demand(text):
        line = strip_comment(raw)
        if line:
            yield number, line


def strip_comment(raw: str) -> str:
    if "#" in raw:
        raw = raw.split("#", 1)[0]
    return raw.strip()


# ----- detection --------------------------------------------------------------
def detect_format(text: str) -> str:
    """The format a ``# format: NAME`` comment names, else a guess from the first data line.

    A 16-character first line is ambiguous: sixteen such lines are read as one
    16x16 ``boj2239`` grid, anything else as 4x4 puzzles in ``line`` format.
    ``generate`` writes the comment, so its files always read back as written.
    """
    declared = declared_format(text)
    if declared is not None:
        return declared
    lines = content_lines(text, limit=17)
    if not lines:
        return "line"
    first = lines[0][1]
    tokens = first.split()
    if len(tokens) > 1:
        return "boj2239" if len(tokens[0]) >= 3 else "boj2580"
    width = len(first)
    if width == 16:
        return "boj2239" if len(lines) == 16 else "line"
    if width in LINE_LENGTHS:
        return "line"
    return "boj2239" if width <= 25 and len(lines) > 1 else "line"


def declared_format(text: str) -> str | None:
    """The format named by a ``# format: NAME`` comment above the first data line."""
    for _, raw in _lines_on_demand(text):
        stripped = raw.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return None
        match = _DIRECTIVE.match(stripped)
        if match and match.group(1).lower() in FORMATS:
            return match.group(1).lower()
    return None


_DIRECTIVE = re.compile(r"#\s*format:\s*([A-Za-z0-9]+)\s*$")


# ----- parsing ------------------------------------------------------------------
def parse_grid(text: str, fmt: str = "auto",
               source: str = "<stdin>") -> tuple[Sudoku, str]:
    """One puzzle in ``fmt`` (or the detected format); returns it and the format."""
    if fmt == "auto":
        fmt = detect_format(text)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from auto, {', '.join(FORMATS)})")
    if "\0" in text:
        raise PuzzleInputError(source, text.count("\n", 0, text.index("\0")) + 1,
                               "binary data (NUL byte), not a puzzle text")
    lines = content_lines(text)
    if not lines:
        raise PuzzleInputError(source, None, "empty input: no puzzle found")
    reader = {"boj2239": _read_compact, "boj2580": _read_numbers, "line": _read_single_line}
    n, grid, row_lines = reader[fmt](lines, source)
    check_givens(n, grid, source, row_lines)
    stem = source_stem(source)
    return Sudoku(n, grid, stem, stem), fmt


def _read_single_line(lines, source):
    if len(lines) > 1:
        raise PuzzleInputError(
            source, lines[1][0],
            "a second puzzle line where one puzzle was expected")
    number, text = lines[0]
    n, grid = line_values(text, source, number)
    return n, tuple(grid), [number] * n


def line_values(text: str, source: str, number: int) -> tuple[int, bytes]:
    """The side and cell values (as bytes) of one ``line``-format puzzle.

    Givens are not checked here: the loader checks a whole file at once.
    """
    n = LINE_LENGTHS.get(len(text))
    if n is None:
        raise PuzzleInputError(
            source, number,
            f"{len(text)} cells; a puzzle line needs 16, 81, 256 or 625 "
            "(4x4, 9x9, 16x16 or 25x25)")
    return n, _cells(text, n, source, number, "position")


def _cells(text: str, n: int, source: str, number: int, where: str) -> bytes:
    """Values of alphabet characters as bytes; the fast path is one ``bytes.translate``."""
    try:
        values = text.encode("ascii").translate(_BYTE_TABLE)
    except UnicodeEncodeError:
        values = bytes(BAD for _ in text)
    if max(values) <= n:
        return values
    for i, ch in enumerate(text):
        value = _CHAR_VALUE.get(ch)
        if value is None:
            raise PuzzleInputError(source, number,
                                   f"stray character {ch!r} at {where} {i + 1}")
        if value > n:
            raise _out_of_range(source, number, f"{ch!r} (= {value})", n)
    raise AssertionError("unreachable: a bad byte was not found")


def _out_of_range(source, number, shown, n):
    return PuzzleInputError(
        source, number,
        f"value {shown} is out of range for a {n}x{n} grid (1..{n}, 0 blank)")


def _side(*guesses: int) -> int:
    """The first plausible side among the guesses; 9 when none is."""
    return next((g for g in guesses if g in SIDES), 9)


def _read_compact(lines, source):
    tokens = [(number, tok) for number, text in lines for tok in text.split()]
    n = _side(len(tokens[0][1]), len(tokens))
    return _read_rows(tokens, n, source, "cells", str, lambda row, number, tok: _cells(
        tok, n, source, number, f"row {row}, column"))


def _read_numbers(lines, source):
    n = _side(len(lines[0][1].split()), len(lines))
    return _read_rows(lines, n, source, "numbers", str.split, lambda row, number, toks: [
        _number(tok, n, source, number) for tok in toks])


def _read_rows(rows, n: int, source: str, what: str, split, values):
    """Rows in reading order, so the first fault in the text is the one reported."""
    grid, row_lines = [], []
    for row, (number, text) in enumerate(rows, start=1):
        if row > n:
            raise PuzzleInputError(source, number,
                                   f"extra row {row}: a {n}x{n} grid has {n} rows")
        parts = split(text)
        if len(parts) != n:
            raise PuzzleInputError(
                source, number, f"row {row} has {len(parts)} {what}; a {n}x{n} grid needs {n}")
        grid.extend(values(row, number, parts))
        row_lines.append(number)
    if len(rows) < n:
        raise PuzzleInputError(source, rows[-1][0],
                               f"input ends after {len(rows)} rows; a {n}x{n} grid needs {n}")
    return n, tuple(grid), row_lines


def _number(token: str, n: int, source: str, number: int) -> int:
    if token == ".":
        return 0
    if not (token.isascii() and token.isdigit()):
        bad = next(ch for ch in token if not (ch.isascii() and ch.isdigit()))
        within = f" in {token!r}" if token != bad else ""
        raise PuzzleInputError(source, number,
                               f"stray character {bad!r}{within}; expected numbers 0..{n}")
    value = int(token)
    if value > n:
        raise _out_of_range(source, number, token, n)
    return value


# ----- givens -----------------------------------------------------------------
@lru_cache(maxsize=None)
def _unit_getters(n: int):
    named = [f"row {i + 1}" for i in range(n)] + [f"column {i + 1}" for i in range(n)] \
        + [f"box {i + 1}" for i in range(n)]
    return tuple((name, cells, itemgetter(*cells)) for name, cells in zip(named, units(n)))


def repeated_given(n: int, grid) -> tuple[int, int, str] | None:
    """The first two cells of one unit holding the same given, and the unit's name."""
    for name, cells, getter in _unit_getters(n):
        values = getter(grid)
        blanks = values.count(0)
        if len(set(values)) + max(blanks - 1, 0) == n:
            continue
        seen: dict[int, int] = {}
        for cell, value in zip(cells, values):
            if value and value in seen:
                return seen[value], cell, name
            seen[value] = cell
    return None


@lru_cache(maxsize=None)
def _unit_matrix(n: int):
    import numpy as np
    return np.array(units(n), dtype=np.intp)


def repeats_in_batch(n: int, grids: list[bytes]) -> list[bool]:
    """For each grid (n*n value bytes), whether a unit repeats a given.

    One vectorised pass over a whole file: per-grid Python loops cost seconds
    on the 50,000-line datasets.
    """
    import numpy as np
    cells = np.frombuffer(b"".join(grids), dtype=np.uint8).reshape(len(grids), n * n)
    grouped = np.sort(cells[:, _unit_matrix(n)], axis=-1)
    same = (grouped[..., 1:] == grouped[..., :-1]) & (grouped[..., 1:] > 0)
    return same.any(axis=(1, 2)).tolist()


def check_givens(n: int, grid, source: str, row_lines) -> None:
    """Reject two equal givens in a unit, at the line of the later cell."""
    clash = repeated_given(n, grid)
    if clash is None:
        return
    a, b, unit = clash
    raise PuzzleInputError(
        source, row_lines[b // n],
        f"{cell_name(a, n)} and {cell_name(b, n)} both hold {grid[a]} ({unit})")


def cell_name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


# ----- entries, for the loader ---------------------------------------------------------
def grid_entries(text: str, source: str, fmt: str) -> list[Entry]:
    """The one grid of a ``boj2239`` or ``boj2580`` text, or the error that stopped it."""
    lines = content_lines(text)
    first = lines[0][0] if lines else 1
    try:
        sudoku, _ = parse_grid(text, fmt, source)
    except PuzzleInputError as err:
        if not lines:
            raise
        return [Entry(source, err.line or first, None, err)]
    entry = Entry(source, first, None, None)
    entry.puzzle = Sudoku(sudoku.n, sudoku.grid, entry.id, source_stem(source))
    return [entry]


def line_entries(text: str, source: str) -> list[Entry]:
    """One entry per data line of a ``line`` text; givens are checked per size in one batch."""
    with _gc_paused():
        entries = _line_entries(text, source)
    if not entries:
        raise PuzzleInputError(source, None, "empty input: no puzzle found")
    return entries


@contextmanager
def _gc_paused():
    """No cyclic GC while building many small acyclic objects (a fifth of the time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _line_entries(text: str, source: str) -> list[Entry]:
    entries, pending = [], {}
    for number, raw in numbered_lines(text):
        line = strip_comment(raw)
        if not line:
            continue
        entry = Entry(source, number, None, None)
        entries.append(entry)
        try:
            n, cells = line_values(line, source, number)
        except PuzzleInputError as err:
            entry.error = err
            continue
        pending.setdefault(n, []).append((entry, cells))
    stem = source_stem(source)
    for n, parsed in pending.items():
        clashes = repeats_in_batch(n, [cells for _, cells in parsed])
        for (entry, cells), clash in zip(parsed, clashes):
            grid = tuple(cells)
            if clash:
                try:
                    check_givens(n, grid, source, (entry.line,) * n)
                except PuzzleInputError as err:
                    entry.error = err
                    continue
            entry.puzzle = Sudoku(n, grid, f"{stem}:{entry.line}", stem)
    return entries


def _detected_as(fmt: str, text: str) -> bool:
    return detect_format(text) == fmt


register_format("boj2239", sniff=partial(_detected_as, "boj2239"),
                parse=partial(grid_entries, fmt="boj2239"))
register_format("boj2580", sniff=partial(_detected_as, "boj2580"),
                parse=partial(grid_entries, fmt="boj2580"))
register_format("line", sniff=partial(_detected_as, "line"), parse=line_entries)
