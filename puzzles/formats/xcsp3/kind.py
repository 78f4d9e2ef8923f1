"""XCSP3 instances (``.xml``, ``.xml.lzma``): constraint problems written elsewhere.

The reader (``puzzles.formats.xcsp3.reader``, on pycsp3's parser) turns the file into
plain data, the ``Instance``; the translation (``puzzles.formats.xcsp3.model``) turns
that into the model. The judge (``compare.judge.rules.xcsp3``) reads the
``Instance`` too, never the translation, so a wrong translation is caught
instead of trusted.

A run's puzzle is a reference (``reference``): the file's path, size and
content digest, read by the parent without parsing anything. The instance and
its model are made on first use, in the process that uses them (the worker
that runs the task, untimed, before the solve: ``load_input``), through the
on-disk cache of translated instances (``puzzles.formats.instance_cache``),
so a file is parsed once across runs, workers and ``--resume``. A process
holds the last ``HELD`` instances it loaded (``puzzles.formats.reference``, the
behaviour every file-per-instance format shares); an older one is let go and read
back from the cache when needed again. ``load_file`` loads at once, without
the cache (``solve FILE``, the ``xcsp3:FILE`` spec).

``to_model`` hands out the model carrying its file (``puzzles.model.Source``,
format ``"xcsp3"``): ``files`` is the file's path, ``outputs`` the instance's
variable names, which are the model's first variables in that order. An engine
that runs the file itself (ACE) maps its answer back through them.

The parent judges answers on the instance alone (``rules_judge_alone``): the
judge's rules check every constraint as the file states it, so the
translation, as large again as the instance, is never read back there. The
instance and the model are two cache entries for that reason (they share no
rows: pickled together they were the sum of the two), and the parent holds
one instance at a time, read while its answers are judged. Entries are the
objects pickled as they are: the translation shares one tuple of rows between
the tables of one relation and pickle writes a shared object once (measured
on WordSquare-hak-11, 242 tables and 24 million rows: 57 MB read back in
0.5 s, where one numpy array per table was 433 MB and 26 s).
A file with one of these extensions is read as XCSP3 without a spec: the
format registers its extensions with the loader (``puzzles.formats.registry``).
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from puzzles.errors import PuzzleInputError
from puzzles.formats.reference import ByReference
from puzzles.formats.registry import Entry, register_format
from puzzles.formats.xcsp3.reader import (
    EXTENSIONS,
    Instance,
    family,
    instance_name,
    parse_instance,
    read_xml,
)
from puzzles.model import Model, Source
from puzzles.specs import Spec, register_kind

__all__ = ["EXTENSIONS", "Xcsp3", "load_entries", "load_file", "reference"]

_TRANSLATOR = ("reader", "screen", "model", "automata", "builder", "terms", "limits")


def translator_version() -> str:
    """A digest of the reader's and translation's sources: a cached model is the
    translation of this code, and any change to it makes new entries."""
    global _VERSION
    if not _VERSION:
        digest = hashlib.blake2b(digest_size=8)
        for name in _TRANSLATOR:
            digest.update((Path(__file__).parent / f"{name}.py").read_bytes())
        _VERSION = digest.hexdigest()
    return _VERSION


_VERSION = ""


# ----- the puzzle ------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Xcsp3(ByReference):
    """One XCSP3 instance by reference; parsed and translated where it is used."""
    path: str
    digest: str           # blake2b of the file's bytes: the cache's key, the resume check's
    nbytes: int
    name: str = ""
    source: str = ""

    kind = "xcsp3"
    formulations = ("default",)
    cache_kind = "xcsp3"

    def __repr__(self) -> str:         # the resume check hashes this: the file's content
        return f"Xcsp3({self.name!r}, {self.digest})"

    @property
    def family(self) -> str:
        return family(self.name)

    @property
    def size(self) -> int:
        """The file's size in KiB (known without parsing it)."""
        return -(-self.nbytes // 1024)

    @property
    def model(self) -> Model:
        return self.loaded()[1]

    def translator_version(self) -> str:
        return translator_version()

    def load_fresh(self) -> tuple:
        return _parsed(self.path)

    def to_model(self, formulation: str | None = None) -> Model:
        """The translation, carrying the file as its ``Source`` (the instance's names as
        ``outputs``, the tuple the instance holds: nothing is built per call)."""
        self.check_formulation(formulation)
        instance, model = self.loaded()[:2]
        source = Source("xcsp3", (os.path.abspath(self.path),), instance.variables)
        return replace(model, source=source)

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """The instance's own variables: auxiliary ones (after them) are dropped."""
        return tuple(values)[: len(self.instance.variables)]

    def format_answer(self, answer) -> str:
        """``NAME VALUE`` per line, on the instance's own variable names."""
        return "\n".join(f"{name} {value}"
                         for name, value in zip(self.instance.variables, answer))

    def load_note(self) -> str | None:
        """What loading found, once loaded (a reference says nothing before)."""
        if not self.input_loaded:
            return None
        instance, model = self.__dict__["_loaded"]
        times = self.load_times
        extra = model.structure.size - len(instance.variables)
        unsupported = model.structure.unsupported
        why = f"; n/a: {unsupported}" if unsupported else ""
        return (f"{self.name}: parsed in {times[0]:.2f} s, translated in "
                f"{times[1]:.2f} s; {len(instance.variables)} variables "
                f"(+{extra} auxiliary), {len(instance.constraints)} constraints{why}")


def _parsed(path: str) -> tuple[Instance, Model, float, float]:
    from puzzles.formats.xcsp3.model import translate  # the worker's, not the parent's
    start = time.perf_counter()
    instance = parse_instance(read_xml(path), path)
    parsed = time.perf_counter()
    model = translate(instance)
    return instance, model, parsed - start, time.perf_counter() - parsed


# ----- loading ------------------------------------------------------------------------------
def reference(path: str) -> Xcsp3:
    """The file as a reference: what the parent can check cheaply (it exists, can be
    read, is not empty) is checked here; everything else when it is loaded."""
    digest = hashlib.blake2b(digest_size=12)
    try:
        nbytes = os.path.getsize(path)
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise PuzzleInputError(path, None, f"cannot read: {exc.strerror or type(exc).__name__}") \
            from None
    if not nbytes:
        raise PuzzleInputError(path, None, "an empty file, not an XCSP3 instance")
    name = instance_name(path)
    return Xcsp3(path, digest.hexdigest(), nbytes, name, family(name))


def load_file(path: str) -> Xcsp3:
    """The file parsed and translated at once, without the cache; faults raise here."""
    puzzle = reference(path)
    instance, model, parse_s, translate_s = _parsed(path)
    object.__setattr__(puzzle, "_eager", True)
    object.__setattr__(puzzle, "_times", (parse_s, translate_s))
    puzzle.hold((instance, model))
    return puzzle


def load_entries(path: str) -> list[Entry]:
    """The file as the loader's one entry, named by the instance (parsed at once)."""
    puzzle = load_file(path)
    return [Entry(path, 0, puzzle, None, puzzle.name)]


def refer_entries(path: str) -> list[Entry]:
    """The file as the loader's one entry, a reference: a run's way in."""
    puzzle = reference(path)
    return [Entry(path, 0, puzzle, None, puzzle.name)]


register_format("xcsp3", EXTENSIONS, load=load_entries, refer=refer_entries)


@register_kind("xcsp3", "xcsp3:FILE  an XCSP3 satisfaction instance (.xml or .xml.lzma; "
               "a file of that extension needs no spec)")
def load(spec: Spec) -> Xcsp3:
    spec.check_options()
    return load_file(spec.existing_file(".xml or .xml.lzma file"))
