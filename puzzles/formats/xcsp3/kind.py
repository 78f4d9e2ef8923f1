"""XCSP3 instances (``.xml``, ``.xml.lzma``): constraint problems written elsewhere.

The reader (``puzzles.formats.xcsp3.reader``, on pycsp3's parser) turns the file into
plain data, the ``Instance``; the translation (``puzzles.formats.xcsp3.model``) turns
that into the model. The judge (``compare.judge.rules.xcsp3``) reads the
``Instance`` too, never the translation, so a wrong translation is caught
instead of trusted. Both happen once, when the file is loaded (workers
receive the result); their times travel with the puzzle (``load_note``).
A file with one of these extensions is read as XCSP3 without a spec: the
format registers its extensions with the loader (``puzzles.formats.registry``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from puzzles.base import Puzzle
from puzzles.formats.registry import Entry, register_format
from puzzles.formats.xcsp3.model import translate
from puzzles.formats.xcsp3.reader import EXTENSIONS, Instance, family, parse_instance, read_xml
from puzzles.model import Model
from puzzles.specs import Spec, register_kind

__all__ = ["EXTENSIONS", "Xcsp3", "load_entries", "load_file"]


# ----- the puzzle ------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Xcsp3(Puzzle):
    """One XCSP3 instance, parsed and translated once; workers receive both."""
    instance: Instance
    model: Model = field(repr=False)
    parse_s: float = 0.0
    translate_s: float = 0.0
    name: str = ""
    source: str = ""

    kind = "xcsp3"
    formulations = ("default",)

    def __repr__(self) -> str:         # the resume check hashes this: the file's content
        return f"Xcsp3({self.instance.name!r}, {self.instance.digest})"

    @property
    def family(self) -> str:
        return family(self.instance.name)

    @property
    def size(self) -> int:
        return len(self.instance.variables)

    def to_model(self, formulation: str | None = None) -> Model:
        self.check_formulation(formulation)
        return self.model

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """The instance's own variables: auxiliary ones (after them) are dropped."""
        return tuple(values)[: len(self.instance.variables)]

    def format_answer(self, answer) -> str:
        """``NAME VALUE`` per line, on the instance's own variable names."""
        return "\n".join(f"{name} {value}"
                         for name, value in zip(self.instance.variables, answer))

    def load_note(self) -> str:
        structure = self.model.structure
        extra = structure.size - len(self.instance.variables)
        why = f"; n/a: {structure.unsupported}" if structure.unsupported else ""
        return (f"{self.instance.name}: parsed in {self.parse_s:.2f} s, translated in "
                f"{self.translate_s:.2f} s; {len(self.instance.variables)} variables "
                f"(+{extra} auxiliary), {len(self.instance.constraints)} constraints{why}")


def load_file(path: str) -> Xcsp3:
    start = time.perf_counter()
    instance = parse_instance(read_xml(path), path)
    parsed = time.perf_counter()
    model = translate(instance)
    done = time.perf_counter()
    return Xcsp3(instance, model, parsed - start, done - parsed, instance.name,
                 family(instance.name))


def load_entries(path: str) -> list[Entry]:
    """The file as the loader's one entry, named by the instance."""
    puzzle = load_file(path)
    return [Entry(path, 0, puzzle, None, puzzle.name)]


register_format("xcsp3", EXTENSIONS, load=load_entries)


@register_kind("xcsp3", "xcsp3:FILE  an XCSP3 satisfaction instance (.xml or .xml.lzma; "
               "a file of that extension needs no spec)")
def load(spec: Spec) -> Xcsp3:
    spec.check_options()
    return load_file(spec.existing_file(".xml or .xml.lzma file"))


