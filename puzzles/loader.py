"""Puzzles from a file, stdin or a spec, each with an id the reports can cite.

A file is either one grid (``boj2239`` / ``boj2580``) or one puzzle per line
(``line``), unless its extension names its kind (``.xml``, ``.xml.lzma``:
XCSP3). A folder stands for the files in it whose extension names their kind
(``puzzle_paths``). In a multi-puzzle file a bad line becomes an ``Entry`` with an
error, so one typo does not cost the rest of the file. Line files are parsed
on a fast path (one ``bytes.translate`` per line) because the harness samples
from dataset files of 50,000 lines.
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass

from puzzles.base import Puzzle
from puzzles.catalog import is_spec, load_spec
from puzzles.errors import PuzzleInputError
from puzzles.formats.grids import (
    FORMATS,
    check_givens,
    content_lines,
    detect_format,
    line_values,
    numbered_lines,
    parse_grid,
    repeats_in_batch,
    source_stem,
    strip_comment,
)
from puzzles.formats.xcsp3.kind import EXTENSIONS as XCSP3_EXTENSIONS
from puzzles.formats.xcsp3.kind import load_file as load_xcsp3
from puzzles.kinds.sudoku import Sudoku
from puzzles.reading import STDIN, read_text

__all__ = ["STDIN", "Entry", "load_puzzles", "parse_text", "puzzle_paths", "read_text"]


@dataclass
class Entry:
    """One puzzle of an input, or the error that stopped it loading."""
    source: str
    line: int
    puzzle: Puzzle | None
    error: PuzzleInputError | None
    name: str = ""       # the id of a whole-file puzzle (an XCSP3 instance's name)

    @property
    def id(self) -> str:
        """``stem:line``; a spec (line 0) is its own id."""
        if self.name:
            return self.name
        if self.line == 0:
            return self.source
        return f"{source_stem(self.source)}:{self.line}"


def load_puzzles(arg: str, fmt: str = "auto") -> list[Entry]:
    """Every puzzle named by ``arg``: a path, ``-`` for stdin, or a puzzle spec."""
    arg = os.fspath(arg)
    if is_spec(arg):
        return [Entry(arg, 0, load_spec(arg), None)]
    if arg.endswith(XCSP3_EXTENSIONS) and not os.path.isdir(arg):
        puzzle = load_xcsp3(arg)
        return [Entry(arg, 0, puzzle, None, puzzle.name)]
    source = STDIN if arg == "-" else arg
    return parse_text(read_text(arg), source, fmt)


def puzzle_paths(arg: str) -> list[str]:
    """``arg`` itself, or for a folder the files in it whose extension names their
    kind (XCSP3's ``.xml``, ``.xml.lzma``), in name order."""
    if not os.path.isdir(arg):
        return [arg]
    try:
        names = sorted(os.listdir(arg))
    except OSError as exc:
        raise PuzzleInputError(arg, None, f"cannot list the folder: {exc.strerror}") from None
    paths = [os.path.join(arg, n) for n in names
             if n.endswith(XCSP3_EXTENSIONS) and os.path.isfile(os.path.join(arg, n))]
    if not paths:
        raise PuzzleInputError(arg, None, "a folder with no puzzle file (a folder is read "
                                          f"for {', '.join(XCSP3_EXTENSIONS)} files)")
    return paths


def parse_text(text: str, source: str, fmt: str = "auto") -> list[Entry]:
    """All puzzles of a text: one grid, or one puzzle per line."""
    if fmt == "auto":
        fmt = detect_format(text)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (choose from auto, {', '.join(FORMATS)})")
    if fmt != "line":
        return [_grid_entry(text, source, fmt)]
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


def _grid_entry(text: str, source: str, fmt: str) -> Entry:
    lines = content_lines(text)
    first = lines[0][0] if lines else 1
    try:
        sudoku, _ = parse_grid(text, fmt, source)
    except PuzzleInputError as err:
        if not lines:
            raise
        return Entry(source, err.line or first, None, err)
    entry = Entry(source, first, None, None)
    entry.puzzle = _named(sudoku, entry)
    return entry


def _line_entries(text: str, source: str) -> list[Entry]:
    """One entry per data line; givens are checked per size in one batch."""
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


def _named(sudoku: Sudoku, entry: Entry) -> Sudoku:
    return Sudoku(sudoku.n, sudoku.grid, entry.id, source_stem(entry.source))
