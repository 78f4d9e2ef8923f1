"""Puzzles named by a spec instead of a file: ``queens:8``, ``coloring:g.col:colors=3``.

Syntax: ``KIND:ARG[:key=value ...][:FORMULATION]``. ``ARG`` is the kind's one
positional argument (a board size, a file, an equation); ``key=value`` parts
are the kind's options; a trailing bare word picks the formulation, which then
becomes the puzzle's default (the first of ``puzzle.formulations``). Parts are
split on ':', so a spec cannot name a file whose path holds a ':'.

Kinds register themselves with ``register_kind``; ``puzzles.catalog`` imports
the built-in ones, and a plugin module (``COMPARE_PLUGINS``) registers its own
when loaded, so a new puzzle kind is one file and nothing else.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from typing import Callable

from puzzles.base import Puzzle
from puzzles.errors import PuzzleInputError

_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Spec:
    """A parsed spec; ``fail`` makes the one-line error every bad spec gets."""
    text: str
    kind: str
    arg: str
    options: dict[str, str] = field(default_factory=dict)
    formulation: str | None = None

    def fail(self, message: str) -> PuzzleInputError:
        return PuzzleInputError(self.text, None, message)

    def check_options(self, *allowed: str) -> None:
        for key in self.options:
            if key not in allowed:
                known = ", ".join(allowed) or "none"
                raise self.fail(f"{self.kind} has no option {key!r} (options: {known})")

    def int_arg(self, what: str, low: int, high: int) -> int:
        return self._int(self.arg, what, low, high)

    def int_option(self, key: str, default: int | None, low: int, high: int) -> int | None:
        if key not in self.options:
            return default
        return self._int(self.options[key], key, low, high)

    def _int(self, raw: str, what: str, low: int, high: int) -> int:
        try:
            value = int(raw.strip())
        except ValueError:
            raise self.fail(f"{what} must be a whole number, got {raw!r}") from None
        if not low <= value <= high:
            raise self.fail(f"{what} must be between {low} and {high}, got {value}")
        return value

    def existing_file(self, what: str = "file") -> str:
        if not self.arg:
            raise self.fail(f"{self.kind} needs a {what}")
        if not os.path.isfile(self.arg):
            raise self.fail(f"no such {what} {self.arg!r}")
        return self.arg


@dataclass(frozen=True)
class Kind:
    name: str
    syntax: str
    loader: Callable[[Spec], Puzzle]
    formulations: tuple[str, ...] = ()


_KINDS: dict[str, Kind] = {}


def register_kind(name: str, syntax: str, formulations: tuple[str, ...] = ()):
    """Decorator for ``loader(spec: Spec) -> Puzzle``; ``syntax`` is the help line.

    The built-in kinds are listed in ``puzzles.catalog``; a plugin module calls
    this itself when it is loaded.
    """
    def decorate(loader):
        _KINDS[name] = Kind(name, syntax, loader, tuple(formulations))
        return loader
    return decorate


def registered() -> dict[str, Kind]:
    """Every kind registered so far, by name."""
    return dict(sorted(_KINDS.items()))


_KIND_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]+")   # two letters at least: not "C:"


def looks_like_spec(text: str) -> bool:
    """``word:...`` that names no existing file.

    An unknown word still counts, so a typo in the kind gets "unknown puzzle
    kind" rather than a puzzling "cannot read" about a file nobody meant.
    """
    if os.path.exists(text):
        return False
    kind, colon, _ = text.partition(":")
    return bool(colon) and (kind in _KINDS or _KIND_WORD.fullmatch(kind) is not None)


def parse_spec(text: str) -> Spec:
    kind, colon, rest = text.strip().partition(":")
    known = ", ".join(sorted(_KINDS))
    if not colon:
        raise PuzzleInputError(text, None, f"not a puzzle spec; expected KIND:ARG with KIND one of {known}")
    if kind not in _KINDS:
        close = difflib.get_close_matches(kind, list(_KINDS), n=1, cutoff=0.6)
        near = f" (did you mean {close[0]}?)" if close else ""
        plugin = "" if close else "; a kind from a plugin needs its module in COMPARE_PLUGINS"
        raise PuzzleInputError(text, None, f"unknown puzzle kind {kind!r}{near} (known: "
                               f"{known}), and no file of that name{plugin}")
    arg, *parts = rest.split(":")
    options, formulation = {}, None
    for i, part in enumerate(parts):
        if _OPTION.match(part):
            key, _, value = part.partition("=")
            if key in options:
                raise PuzzleInputError(text, None, f"option {key!r} given twice")
            options[key] = value
        elif part and i == len(parts) - 1:
            formulation = part
        else:
            raise PuzzleInputError(
                text, None, f"{part!r} is neither key=value nor a final formulation name")
    return Spec(text, kind, arg.strip(), options, formulation)


def load_registered(text: str) -> Puzzle:
    """The puzzle a spec names; any fault is a one-line ``PuzzleInputError``."""
    spec = parse_spec(text)
    puzzle = _KINDS[spec.kind].loader(spec)
    if spec.formulation is not None:
        puzzle = prefer_formulation(puzzle, spec.formulation, spec)
    return puzzle


def prefer_formulation(puzzle: Puzzle, formulation: str, spec: Spec) -> Puzzle:
    """Make ``formulation`` the puzzle's default by moving it to the front."""
    if formulation not in puzzle.formulations:
        raise spec.fail(f"{spec.kind} has no formulation {formulation!r} "
                        f"(formulations: {', '.join(puzzle.formulations)})")
    order = (formulation,) + tuple(f for f in puzzle.formulations if f != formulation)
    object.__setattr__(puzzle, "formulations", order)   # works on frozen dataclasses too
    return puzzle


def file_stem(path: str) -> str:
    """A file's name without folder or extension: the ``source`` of file-based kinds."""
    return os.path.splitext(os.path.basename(path))[0]
