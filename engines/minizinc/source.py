"""The user's own MiniZinc model run by the solver, its answer mapped onto the model.

A model translated from a MiniZinc pair carries the pair (``puzzles.model.Source``):
its files and where each output of the pair sits in the model. In ``first`` mode the
engine runs that pair, not the project's translation written back as MiniZinc:

* compile: ``minizinc --solver ID -c MODEL [DATA] --output-mode dzn``, with the
  solver's own library (``library = "solver"``); when that library does not
  type-check the model (``type error``), again with MiniZinc's standard library,
  ``-G std`` (``library = "std"``): every global then reaches the solver
  decomposed, as the standard library writes it, instead of as its native
  propagator. The output mode is the project's flattening's
  (``puzzles.formats.minizinc.flatten.OUTPUT_MODE``): both annotate every
  variable of the model as an output, so the solver prints a value for each name
  the model's ``Source.outputs`` places;
* read (``named_values``): the first solution the solver prints, FlatZinc style
  (``x = 3;``, ``b = true;``, ``q = array1d(1..4, [2, 4, 1, 3]);``), by name;
* complete (``completed``): those values fixed at their model indices, every other
  model variable (the project's flattening introduces its own) found by
  ``engines.support.completion`` within the time left. When no completion exists
  the answer still goes out, the unknowns at their domain's least value, with a
  message saying so: the judge, which checks the project's flattening, then finds
  the constraint it breaks.
"""
from __future__ import annotations

import re

from engines.support.completion import answer
from puzzles.model import Model

__all__ = ["NO_COMPLETION", "STD_LIBRARY", "compile_command", "completed", "named_values",
           "runs_source", "type_error"]

OUTPUT_MODE = "dzn"            # the project's flattening's: the same names as outputs
STD_LIBRARY = ["-G", "std"]
NO_COMPLETION = ("the solver's answer has no completion in the project's flattening "
                 "(unknown variables set to their least value)")
_TYPE_ERROR = re.compile(r"\btype error\b", re.IGNORECASE)
_SCALAR = re.compile(r"-?\d+|true|false")
_ARRAY = re.compile(r"array\d+d\s*\((.*)\[(.*)\]\s*\)", re.DOTALL)


def runs_source(model: Model) -> bool:
    """Whether the model carries a MiniZinc pair the solver can run itself."""
    return model.source is not None and model.source.format == "minizinc" \
        and bool(model.source.files)


def compile_command(minizinc: str, solver_id: str, model: Model, fzn: str, ozn: str,
                    std: bool) -> list[str]:
    """The compile of the user's pair for ``solver_id``; ``std``: with ``-G std``."""
    return [minizinc, "--solver", solver_id, *(STD_LIBRARY if std else []), "-c",
            *model.source.files, "--fzn", fzn, "--ozn", ozn, "--output-mode", OUTPUT_MODE]


def type_error(stderr: str) -> bool:
    """Whether a failed compile is a type error (a library that does not fit the
    model), not a fault of the model itself that ``-G std`` would meet again."""
    return bool(_TYPE_ERROR.search(stderr))


def named_values(raw: str) -> dict[str, tuple[int, ...]]:
    """The first solution of the solver's FlatZinc output: each name's values (one for
    a variable, the items in order for an array; a Boolean as 0/1). A statement that is
    not integers and Booleans (a set, an output cut short) is left out."""
    block = []
    for line in raw.splitlines():
        if line.strip() == "----------":
            break
        if not line.startswith("%"):
            block.append(line)
    found: dict[str, tuple[int, ...]] = {}
    for statement in "\n".join(block).split(";"):
        name, equals, value = statement.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name.isidentifier():
            continue
        array = _ARRAY.fullmatch(value)
        items = array.group(2).split(",") if array else [value]
        items = [item.strip() for item in items if item.strip()]
        if all(_SCALAR.fullmatch(item) for item in items):
            found[name] = tuple(1 if item == "true" else 0 if item == "false" else int(item)
                                for item in items)
    return found


def _known(model: Model, named: dict[str, tuple[int, ...]]) -> tuple[dict[int, int], bool]:
    """The named values at their model indices, and whether they agree with each other
    and with the constants the project's flattening placed among the outputs."""
    known: dict[int, int] = {}
    agree = True
    for out in model.source.outputs:
        values = named.get(out[1])
        if values is None:
            continue
        places = (out[2],) if out[0] == "var" else out[3]
        if len(values) != len(places):
            raise RuntimeError(f"the solver gave {len(values)} values of {out[1]}, the "
                               f"project's flattening places {len(places)}")
        for place, value in zip(places, values):
            if isinstance(place, tuple):                 # a constant ("int"/"bool", value)
                agree = agree and int(place[1]) == value
            elif known.setdefault(place, value) != value:
                agree = False
    return known, agree


def completed(model: Model, named: dict[str, tuple[int, ...]], deadline: float | None,
              stats: dict) -> tuple[tuple[int, ...], str]:
    """A value per model variable from the solver's ``named`` values, and a message
    (empty, or ``NO_COMPLETION``); ``stats`` gains ``completion_s`` and
    ``completion_known`` (the values the solver gave). TimeoutError past ``deadline``."""
    known, agree = _known(model, named)
    stats["completion_known"] = len(known)
    values, found = answer(model, known, deadline, stats, possible=agree)
    return values, "" if found else NO_COMPLETION
