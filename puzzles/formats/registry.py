"""The file formats the loader reads, each registered by the module that reads it.

A format has a name, the file-name endings that are read in it (and that a
folder is listed for), and one way in or two: ``load(path)`` reads a file
itself (XCSP3's compressed XML), ``parse(text, source)`` reads a text already
decoded (Sudoku grids, from a file or stdin). ``sniff(text)`` says whether a
text of no known ending is in the format, for ``--format auto``. Every way in
returns ``Entry`` rows: a file of many puzzles keeps a bad line as an entry
with its error, so one typo does not cost the rest of the file.

A format known by its endings but not read yet is registered as a refusal
(``register_refusal``): a file ending so gets one line saying its format is
not supported, instead of being guessed at as a Sudoku grid, and a reader
registered later for the same endings takes them over.

The loader imports the built-in formats; a plugin module (``compare.plugins``)
calls ``register_format`` itself, as it calls ``register_kind`` for a kind.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from puzzles.base import Puzzle
from puzzles.errors import PuzzleInputError
from puzzles.reading import source_stem

__all__ = ["Entry", "FileFormat", "format_for_path", "register_format", "register_refusal",
           "registered_formats", "sniffed_format", "suffixes", "text_format", "text_formats"]


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


@dataclass(frozen=True)
class FileFormat:
    """One registered format: its name, its file endings, and how it is read."""
    name: str
    suffixes: tuple[str, ...] = ()
    sniff: Callable[[str], bool] | None = None
    load: Callable[[str], list[Entry]] | None = None
    parse: Callable[[str, str], list[Entry]] | None = None
    refusal: str = ""        # a format named but not read: why a file of it is refused
    refer: Callable[[str], list[Entry]] | None = None   # a run's way in: references


_FORMATS: dict[str, FileFormat] = {}


def register_format(name: str, suffixes: tuple[str, ...] = (), *,
                    sniff: Callable[[str], bool] | None = None,
                    load: Callable[[str], list[Entry]] | None = None,
                    parse: Callable[[str, str], list[Entry]] | None = None,
                    refer: Callable[[str], list[Entry]] | None = None) -> FileFormat:
    """Make ``name`` readable by the loader; a later registration of a name replaces it.

    A file whose name ends with one of ``suffixes`` is read by ``load(path)``,
    or else its text by ``parse(text, source)``; at least one is needed.
    ``refer(path)``, if given, is how a run reads it: entries whose puzzles are
    references the workers load (a file per instance, parsed where it runs).
    """
    if load is None and parse is None:
        raise ValueError(f"format {name!r} needs load (a path) or parse (a text)")
    fmt = FileFormat(name, tuple(suffixes), sniff, load, parse, refer=refer)
    _FORMATS[name] = fmt
    return fmt


def register_refusal(name: str, suffixes: tuple[str, ...], title: str,
                     reason: str = "") -> FileFormat:
    """Name a format the loader does not read: a file ending in ``suffixes`` is refused
    in one line naming the file and ``title`` (bad input), or saying ``reason`` where
    given, and a folder is not listed for it. A reader registered later for these
    endings replaces the refusal."""
    def refuse(path: str) -> list[Entry]:
        if reason:
            raise PuzzleInputError(path, None, reason)
        read = ", ".join(f"{f.name} ({' '.join(f.suffixes)})" if f.suffixes else f.name
                         for f in _FORMATS.values() if not f.refusal)
        raise PuzzleInputError(path, None, f"{title} is not a supported format (read "
                                           f"here: {read})")
    fmt = FileFormat(name, tuple(suffixes), load=refuse, refusal=title)
    _FORMATS[name] = fmt
    return fmt


def registered_formats() -> dict[str, FileFormat]:
    """Every format registered so far, by name, in registration order."""
    return dict(_FORMATS)


def suffixes() -> tuple[str, ...]:
    """Every registered file ending that is read: what a folder is listed for."""
    return tuple(s for fmt in _FORMATS.values() if not fmt.refusal for s in fmt.suffixes)


def format_for_path(path: str) -> FileFormat | None:
    """The format a file's name ends in (the longest ending wins; of two equal
    endings, the one registered later), if any."""
    best, length = None, 0
    for fmt in _FORMATS.values():
        for suffix in fmt.suffixes:
            if len(suffix) >= length and path.endswith(suffix):
                best, length = fmt, len(suffix)
    return best


def text_formats() -> tuple[str, ...]:
    """The formats that read a text: what ``--format`` may name."""
    return tuple(name for name, fmt in _FORMATS.items() if fmt.parse is not None)


def text_format(name: str) -> FileFormat:
    """The text format ``name``; an unknown name is a ``ValueError`` listing the known ones."""
    fmt = _FORMATS.get(name)
    if fmt is None or fmt.parse is None:
        raise ValueError(f"unknown format {name!r} (choose from auto, "
                         f"{', '.join(text_formats())})")
    return fmt


def sniffed_format(text: str) -> FileFormat | None:
    """The text format that recognises ``text``: the latest registered is asked first,
    so a plugin's format can claim a text before the built-in guesses do."""
    for fmt in reversed(_FORMATS.values()):
        if fmt.parse is not None and fmt.sniff is not None and fmt.sniff(text):
            return fmt
    return None
