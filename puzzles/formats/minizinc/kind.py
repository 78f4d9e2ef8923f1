"""MiniZinc models with their data: a puzzle per pair, flattened where it is solved.

A run's puzzle is a reference (``MiniZinc``): the model's and the data file's
paths, the content digest of both files' bytes and their size, read by the
parent without running anything. Where the task runs (the worker, untimed,
before the solve: ``load_input``) the pair is flattened by MiniZinc
(``flatten``), the FlatZinc parsed, and translated into a model
(``translate``), through the on-disk cache of translated instances
(``puzzles.formats.instance_cache``): two entries, the parsed FlatZinc (what
the judge reads) and the translation, so a pair is flattened once across runs,
workers and ``--resume``. The parent judges answers on the FlatZinc alone
(``rules_judge_alone``, ``compare.judge.rules.minizinc``). The digest covers
the model and data files, not files a model includes: a changed include is
seen once the cache entry is gone (``--no-cache``).

The inputs read (``inputs``): a ``.mzn`` file, ``MODEL.mzn:DATA.dzn``, a folder
of models and data, an mzn-bench ``instances.csv``. A data file or a FlatZinc
file alone is refused in one line saying what to give instead.
"""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from puzzles.errors import PuzzleInputError
from puzzles.formats.flatzinc import FlatZinc
from puzzles.formats.flatzinc import ast as fz
from puzzles.formats.minizinc import inputs
from puzzles.formats.minizinc.flatten import flatten, library_version
from puzzles.formats.reference import ByReference
from puzzles.formats.registry import Entry, register_format, register_refusal
from puzzles.model import Model, Source
from puzzles.reading import read_text

__all__ = ["MiniZinc", "answer_names", "folder_inputs", "load_file", "pair_entries",
           "reference", "split_pair", "written"]

_SOURCES = (Path(__file__).parent, Path(__file__).parent.parent / "flatzinc")
_VERSION: list[str] = []
split_pair = inputs.split_pair
folder_inputs = inputs.folder_inputs


def translator_version() -> str:
    """A digest of the flattening (library, compiler) and of the sources of this package
    and of the FlatZinc parser: any change to them makes new cache entries."""
    if not _VERSION:
        digest = hashlib.blake2b(digest_size=8)
        digest.update(library_version().encode())
        for folder in _SOURCES:
            for path in sorted(folder.glob("*.py")):
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
        _VERSION.append(digest.hexdigest())
    return _VERSION[0]


def answer_names(flat: FlatZinc) -> tuple[str, ...]:
    """The FlatZinc variables an answer gives values of, in order: every variable not
    assigned another (``var int: y = x``), in the file's order, as the translation
    numbers them."""
    return tuple(v.name for v in flat.variables if not isinstance(v.value, (fz.Ref, fz.Index)))


# ----- the puzzle ------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MiniZinc(ByReference):
    """One model with its data (or none) by reference; flattened where it is used."""
    model_path: str
    data_path: str | None
    digest: str           # blake2b of both files' bytes: the cache's key, the resume check's
    nbytes: int
    name: str = ""
    family: str = ""
    source: str = ""

    kind = "minizinc"
    formulations = ("default",)
    cache_kind = "minizinc"
    instance_part = "flat"

    def __repr__(self) -> str:         # the resume check hashes this: the files' content
        return f"MiniZinc({self.name!r}, {self.digest})"

    @property
    def source_name(self) -> str:
        """The argument that names the pair: MODEL.mzn:DATA.dzn, or the model."""
        return inputs.pair_spec(self.model_path, self.data_path)

    @property
    def size(self) -> int:
        """The files' size in KiB (known without flattening them)."""
        return -(-self.nbytes // 1024)

    @property
    def translation(self):
        """The FlatZinc's ``translate.Translation``: the model, names, outputs."""
        return self.loaded()[1]

    @property
    def model(self) -> Model:
        return self.translation.model

    def translator_version(self) -> str:
        return translator_version()

    def load_fresh(self) -> tuple:
        return _loaded(self)

    def to_model(self, formulation: str | None = None) -> Model:
        """The translation's model, carrying the pair itself as its ``Source``: an engine
        that runs MiniZinc solves the user's model and maps its outputs back."""
        self.check_formulation(formulation)
        translation = self.translation
        files = tuple(os.path.abspath(p) for p in (self.model_path, self.data_path)
                      if p is not None)
        source = Source("minizinc", files, translation.outputs, translation.booleans)
        return replace(translation.model, source=source)

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """The FlatZinc's own variables (``answer_names``): auxiliary ones are dropped."""
        return tuple(values)[: len(answer_names(self.instance))]

    def format_answer(self, answer) -> str:
        """``name = value;`` per output of the model, as MiniZinc writes a FlatZinc answer:
        by the translation where it is loaded, else from the FlatZinc alone (the parent,
        which never reads a translation back)."""
        if not self.input_loaded:
            return written(self.instance, answer)
        translation = self.translation
        values = list(answer)
        domains = translation.model.structure.domains
        values += [d[0] if len(d) == 1 else 0 for d in domains[len(values):]]
        return translation.format_answer(values)

    def load_note(self) -> str | None:
        """What loading found, once loaded (a reference says nothing before)."""
        if not self.input_loaded:
            return None
        flat, translation = self.__dict__["_loaded"]
        times = self.load_times
        structure = translation.model.structure
        own = len(answer_names(flat))
        why = f"; n/a: {structure.unsupported}" if structure.unsupported else ""
        return (f"{self.name}: flattened and parsed in {times[0]:.2f} s, translated in "
                f"{times[1]:.2f} s; {own} variables (+{max(structure.size - own, 0)} "
                f"auxiliary), {len(flat.constraints)} constraints{why}")


def written(flat: FlatZinc, answer) -> str:
    """The answer's outputs from the FlatZinc alone (``answer`` in ``answer_names`` order)."""
    values = dict(zip(answer_names(flat), answer))
    declared = {v.name: v for v in flat.variables}
    arrays = {a.name: a.items for a in flat.arrays}

    def shown(item) -> str:
        while isinstance(item, (fz.Ref, fz.Index)):
            if isinstance(item, fz.Index):
                item = arrays[item.name][item.index - 1]
            elif item.name in values:
                var = declared[item.name]
                value = values[item.name]
                return ("true" if value else "false") if var.type == fz.BOOL else str(value)
            else:
                item = declared[item.name].value
        return ("true" if item else "false") if isinstance(item, bool) else str(item)

    lines = [f"{v.name} = {shown(fz.Ref(v.name))};" for v in flat.variables if v.output]
    for array in flat.arrays:
        dims = array.output_dims
        if dims is not None:
            ranges = ", ".join(f"{d.low}..{d.high}" for d in dims)
            items = ", ".join(shown(item) for item in array.items)
            lines.append(f"{array.name} = array{len(dims)}d({ranges}, [{items}]);")
    return "\n".join(lines)


def _loaded(puzzle: MiniZinc) -> tuple:
    # the worker's, not the parent's: the translation is imported where it is used
    from puzzles.formats.minizinc.translate import translate
    start = time.perf_counter()
    flat, _ = flatten(puzzle.model_path, puzzle.data_path, puzzle.source_name)
    parsed = time.perf_counter()
    translation = translate(flat, puzzle.name)
    return flat, translation, parsed - start, time.perf_counter() - parsed


# ----- loading ------------------------------------------------------------------------------
def reference(model: str, data: str | None = None, family: str = "") -> MiniZinc:
    """The pair as a reference: what the parent can check cheaply (both files exist and
    can be read) is checked here; everything else when it is flattened."""
    digest = hashlib.blake2b(digest_size=12)
    nbytes = 0
    for path in (model, data):
        if path is None:
            digest.update(b"\0no data\0")
            continue
        try:
            nbytes += os.path.getsize(path)
            with open(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError as exc:
            raise PuzzleInputError(path, None, f"cannot read: "
                                               f"{exc.strerror or type(exc).__name__}") from None
        digest.update(b"\0")
    family = family or Path(os.path.abspath(model)).parent.name
    return MiniZinc(model, data, digest.hexdigest(), nbytes, pair_name(model, data), family,
                    family)


def pair_name(model: str, data: str | None) -> str:
    """``model-stem:data-stem``, or the model's stem alone."""
    stem = Path(model).name[: -len(inputs.MODEL_ENDING)]
    return stem if data is None else f"{stem}:{Path(data).stem}"


def load_file(model: str, data: str | None = None, family: str = "") -> MiniZinc:
    """The pair flattened and translated at once, without the cache; faults raise here."""
    puzzle = reference(model, data, family)
    flat, translation, parse_s, translate_s = _loaded(puzzle)
    object.__setattr__(puzzle, "_eager", True)
    object.__setattr__(puzzle, "_times", (parse_s, translate_s))
    puzzle.hold((flat, translation))
    return puzzle


def _entry(source: str, model: str, data: str | None, refer: bool, family: str = "",
           line: int = 0) -> Entry:
    try:
        puzzle = (reference if refer else load_file)(model, data, family)
    except PuzzleInputError as exc:
        return Entry(source, line, None, exc, pair_name(model, data))
    return Entry(source, line, puzzle, None, puzzle.name)


def _raise_alone(entry: Entry) -> list[Entry]:
    """A single pair's fault raises (one input, one error), as a single file's does."""
    if entry.error is not None:
        raise entry.error
    return [entry]


def pair_entries(arg: str, refer: bool = False) -> list[Entry]:
    """``MODEL.mzn:DATA.dzn`` as the loader's one entry."""
    model, data = inputs.split_pair(arg)
    return _raise_alone(_entry(arg, model, data, refer))


def model_entries(path: str, refer: bool = False) -> list[Entry]:
    """A ``.mzn`` file alone as the loader's one entry."""
    return _raise_alone(_entry(path, path, None, refer))


def csv_entries(path: str, refer: bool = False) -> list[Entry]:
    """An mzn-bench ``instances.csv``: an entry per row, a bad row kept with its error."""
    entries = []
    for line, problem, model, data in inputs.csv_rows(path, read_text(path)):
        if not model:
            entries.append(Entry(path, line, None, PuzzleInputError(
                path, line, "a row needs problem, model and data_file (data_file may be "
                            "empty)")))
            continue
        entry = _entry(path, model, data, refer, problem, line)
        entries.append(Entry(path, 0, entry.puzzle, entry.error, entry.name)
                       if entry.error is None else entry)
    return entries


register_format("minizinc", (inputs.MODEL_ENDING,), load=model_entries,
                refer=lambda path: model_entries(path, refer=True))
register_format("minizinc-instances", (".csv",), load=csv_entries,
                refer=lambda path: csv_entries(path, refer=True))
register_refusal("minizinc-data", inputs.DATA_ENDINGS + (".fzn",),
                 "MiniZinc data or FlatZinc", reason="a MiniZinc data file or a FlatZinc file "
                 "is not read alone: give a model and its data as MODEL.mzn:DATA.dzn (or "
                 ".json), a .mzn file, a folder of them, or an instances.csv")
