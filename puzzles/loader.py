"""Puzzles from a file, stdin or a spec, each with an id the reports can cite.

A file whose name ends as a registered format says (``.xml``, ``.xml.lzma``:
XCSP3; ``.mzn``, ``.csv``: MiniZinc) is read in that format; any other file,
and stdin, is read as text in the format ``fmt`` names, or with ``auto`` in the
one that recognises it (the Sudoku grid formats ``boj2239``, ``boj2580``,
``line``). ``MODEL.mzn:DATA.dzn`` names a MiniZinc model with its data. A file
whose ending names a format not read alone (MiniZinc's ``.dzn``) is refused in
one line. A folder stands for the files in it whose name ends as a read format
says, a MiniZinc model for its pairs with the data files beside it
(``puzzle_paths``).

The formats live in ``puzzles.formats`` and register themselves
(``puzzles.formats.registry``); the built-in ones are imported here by name,
so a format cannot silently go missing.
"""
from __future__ import annotations

import os

# The built-in formats, one line each: importing a format registers it.
import puzzles.formats.grids  # noqa: F401
import puzzles.formats.minizinc.kind as minizinc
import puzzles.formats.xcsp3.kind  # noqa: F401
from puzzles.catalog import is_spec, load_spec
from puzzles.errors import PuzzleInputError
from puzzles.formats.registry import (
    Entry,
    format_for_path,
    sniffed_format,
    suffixes,
    text_format,
)
from puzzles.reading import STDIN, check_readable, read_text, shown_name

__all__ = ["STDIN", "Entry", "load_puzzles", "parse_text", "puzzle_paths", "read_by_name",
           "read_text"]


def load_puzzles(arg: str, fmt: str = "auto", refer: bool = False) -> list[Entry]:
    """Every puzzle named by ``arg``: a path, ``-`` for stdin, or a puzzle spec.

    ``refer``: a file of a format that reads by reference (XCSP3) gives
    references, loaded where they are used, instead of parsed puzzles (a run).
    """
    arg = os.fspath(arg)
    if minizinc.split_pair(arg) is not None:         # MODEL.mzn:DATA.dzn
        return minizinc.pair_entries(arg, refer)
    if is_spec(arg):
        return [Entry(arg, 0, load_spec(arg), None)]
    if arg != "-":
        check_readable(arg)           # a FIFO or a device: refused before any open
    named = None if arg == "-" or os.path.isdir(arg) else format_for_path(arg)
    if refer and named is not None and named.refer is not None:
        return named.refer(arg)
    if named is not None and named.load is not None:
        return named.load(arg)
    source = STDIN if arg == "-" else shown_name(arg)
    if named is not None:
        return named.parse(read_text(arg), source)
    return parse_text(read_text(arg), source, fmt)


def read_by_name(arg: str) -> bool:
    """Whether ``arg`` is read by what it is named (a spec, a file whose name ends as a
    registered format says) rather than by what its text looks like."""
    arg = os.fspath(arg)
    return arg != "-" and (is_spec(arg) or (not os.path.isdir(arg)
                                            and format_for_path(arg) is not None))


def puzzle_paths(arg: str) -> list[str]:
    """``arg`` itself, or for a folder the files in it whose name ends as a registered
    format says (XCSP3's ``.xml``, ``.xml.lzma``), in name order."""
    if not os.path.isdir(arg):
        return [arg]
    try:
        names = sorted(os.listdir(arg))
    except OSError as exc:
        raise PuzzleInputError(arg, None, f"cannot list the folder: {exc.strerror}") from None
    endings = suffixes()
    paths = [os.path.join(arg, n) for n in names
             if n.endswith(endings) and os.path.isfile(os.path.join(arg, n))]
    if not paths:
        raise PuzzleInputError(arg, None, "a folder with no puzzle file (a folder is read "
                                          f"for {', '.join(endings)} files)")
    return minizinc.folder_inputs(arg, paths)     # a model stands for its pairs with data


def parse_text(text: str, source: str, fmt: str = "auto") -> list[Entry]:
    """All puzzles of a text in ``fmt``, or with ``auto`` in the format that recognises it."""
    if fmt == "auto":
        found = sniffed_format(text)
        if found is None:
            raise PuzzleInputError(source, None, "no registered format recognises this text")
        return found.parse(text, source)
    return text_format(fmt).parse(text, source)
