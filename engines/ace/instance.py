"""An XCSP3 instance's own file run by ACE, its answer mapped onto the model.

A model translated from an XCSP3 file carries it (``puzzles.model.Source`` with
``format="xcsp3"``): ``files`` is the file, ``outputs`` the instance's variable
names, which are the model's first variables in that order (the translation's
auxiliary variables come after them). The engine runs the file itself in
``first`` mode, and in ``count`` mode when the model has no auxiliary variable
(see ``runs_instance``):

* write (``write_xml``): the file, decompressed when it is ``.xml.lzma``, into
  the task's folder;
* read (``declared``, ``named_values``): ACE prints a solution on the instance's
  own names, arrays compactly (``x[][]``, ``x[2][]``, ``x[0..3]``) and ``*`` for a
  cell it leaves out (an undefined cell of an array, or a variable it did not
  keep); the lists are expanded against the arrays the file declares
  (``<array id size>``), row by row;
* complete (``completed``): those values fixed at their model indices, every
  other model variable found by ``engines.support.completion`` within the time
  left. When no completion exists the answer still goes out, the unknowns at
  their domain's least value, with a message saying so: the judge, which checks
  the instance as stated, then flags it if the instance's own values are wrong.
"""
from __future__ import annotations

import itertools
import lzma
import os
import re
import shutil
import xml.etree.ElementTree as ET

from engines.support.completion import answer
from puzzles.model import Model

__all__ = ["COMPLETION_TIMEOUT", "NO_COMPLETION", "completed", "declared", "expand", "named_values",
           "runs_instance", "write_xml"]

NO_COMPLETION = ("ACE's answer to the instance has no completion in the project's "
                 "translation (unknown variables set to their least value)")
COMPLETION_TIMEOUT = ("ACE answered; completing its answer in the project's translation "
                      "ran out of time")
_REFERENCE = re.compile(r"([^\s\[\]]+)((?:\[[^\[\]]*\])*)")
_INDEX = re.compile(r"\[([^\[\]]*)\]")


def runs_instance(model: Model, mode: str) -> bool:
    """Whether ACE runs the instance's own file: in ``first`` mode, and in ``count``
    mode when the model's variables are exactly the instance's (its solutions are
    then the instance's, listed whole, with nothing to complete). ``lexfirst`` and
    a ``count`` over auxiliary variables run on the written model."""
    source = model.source
    if source is None or source.format != "xcsp3" or not source.files:
        return False
    return mode == "first" or (mode == "count"
                               and model.structure.size == len(source.outputs))


def write_xml(path: str, folder: str) -> str:
    """The instance's XML in ``folder`` (decompressed from ``.lzma``); its path."""
    target = os.path.join(folder, "instance.xml")
    opener = lzma.open if path.endswith(".lzma") else open
    with opener(path, "rb") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return target


def declared(xml_path: str) -> dict[str, tuple[int, ...]]:
    """Each array the file declares, by id, with its sizes (``size="[3][4]"``); a
    stand-alone variable with ``()``. Only the ``<variables>`` part is read."""
    arrays: dict[str, tuple[int, ...]] = {}
    for event, elem in ET.iterparse(xml_path, events=("start", "end")):
        if event == "start" and elem.tag in ("array", "var") and elem.get("id"):
            sizes = _INDEX.findall(elem.get("size", "")) if elem.tag == "array" else []
            arrays[elem.get("id")] = tuple(int(s) for s in sizes)
        elif event == "end" and elem.tag == "variables":
            break
    return arrays


def expand(reference: str, arrays: dict[str, tuple[int, ...]]) -> list[str]:
    """The variable names one token of ACE's ``<list>`` stands for, in order: ``x[][]``
    is every cell of ``x`` row by row, ``x[1][0..2]`` three cells, ``z`` itself."""
    found = _REFERENCE.fullmatch(reference)
    if found is None:
        raise RuntimeError(f"ACE listed {reference!r}, not a variable or an array")
    name, brackets = found.group(1), _INDEX.findall(found.group(2))
    if not brackets:
        return [name]
    sizes = arrays.get(name)
    if sizes is None or len(sizes) != len(brackets):
        raise RuntimeError(f"ACE listed {reference!r}, which the instance does not declare")
    axes = []
    for text, size in zip(brackets, sizes):
        low, dots, high = text.partition("..")
        if not text:
            axes.append(range(size))
        elif dots:
            axes.append(range(int(low), int(high) + 1))
        else:
            axes.append((int(text),))
    return [name + "".join(f"[{i}]" for i in cell) for cell in itertools.product(*axes)]


def named_values(names: str, values: str,
                 arrays: dict[str, tuple[int, ...]]) -> dict[str, int | None]:
    """One ``<instantiation>``'s values by variable name; ``None`` for a ``*``. A value
    written ``VxK`` is V K times (XCSP3's compact form)."""
    listed = [name for token in names.split() for name in expand(token, arrays)]
    read: list[int | None] = []
    for token in values.split():
        value, times, count = token.partition("x")
        value = None if value == "*" else int(value)
        read.extend([value] * (int(count) if times else 1))
    if len(read) != len(listed):
        raise RuntimeError(f"ACE gave {len(read)} values for {len(listed)} variables")
    return dict(zip(listed, read))


def instance_solution(model: Model, named: dict[str, int | None]) -> tuple:
    """The instance's variables' values in model order (``None`` where ACE gave none)."""
    return tuple(named.get(name) for name in model.source.outputs)


def completed(model: Model, solution: tuple, deadline: float | None,
              stats: dict) -> tuple[tuple[int, ...], str]:
    """A value per model variable from the instance's ``solution`` (model indices
    0..n-1, ``None`` unknown), and a message (empty, or ``NO_COMPLETION``); ``stats``
    gains ``completion_s``. TimeoutError past ``deadline``."""
    known = {i: v for i, v in enumerate(solution) if v is not None}
    if len(known) == model.structure.size:
        stats["completion_s"] = 0.0
        return tuple(solution), ""
    values, found = answer(model, known, deadline, stats)
    return values, "" if found else NO_COMPLETION
