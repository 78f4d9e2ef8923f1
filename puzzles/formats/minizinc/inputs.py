"""Which MiniZinc model and data files an argument names, before anything is read.

* ``MODEL.mzn``: the model alone (its data inside it, or none);
* ``MODEL.mzn:DATA.dzn`` (or ``.json``): the pair (``split_pair``);
* a folder: each ``.mzn`` in it with each ``.dzn`` and ``.json`` beside it, a model
  with none beside it alone (``folder_inputs``);
* an ``instances.csv`` in mzn-bench's layout: a header ``problem,model,data_file``
  (more columns may follow), paths relative to the CSV's folder, ``data_file``
  empty where the model holds its data (``csv_rows``).

Nothing here opens a model or a data file; the puzzle's reference does.
"""
from __future__ import annotations

import csv
import io
import os

from puzzles.errors import PuzzleInputError

__all__ = ["DATA_ENDINGS", "HEADER", "MODEL_ENDING", "csv_rows", "folder_inputs",
           "is_instances_csv", "pair_spec", "split_pair"]

MODEL_ENDING = ".mzn"
DATA_ENDINGS = (".dzn", ".json")
HEADER = ("problem", "model", "data_file")


def split_pair(arg: str) -> tuple[str, str] | None:
    """``(model, data)`` of a ``MODEL.mzn:DATA.dzn`` argument, else None."""
    if os.path.exists(arg):
        return None
    model, colon, data = arg.rpartition(":")
    if colon and model.endswith(MODEL_ENDING) and data.endswith(DATA_ENDINGS):
        return model, data
    return None


def pair_spec(model: str, data: str | None) -> str:
    """The argument that names a model and its data (the model alone without data)."""
    return model if data is None else f"{model}:{data}"


def folder_inputs(folder: str, paths: list[str]) -> list[str]:
    """``paths`` (a folder's listing) with each model replaced by its pairs with the data
    files beside it, in name order; a model without data files stays alone."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return paths
    data = [os.path.join(folder, n) for n in names
            if n.endswith(DATA_ENDINGS) and os.path.isfile(os.path.join(folder, n))]
    out: list[str] = []
    for path in paths:
        if path.endswith(MODEL_ENDING) and data:
            out.extend(pair_spec(path, d) for d in data)
        else:
            out.append(path)
    return out


def is_instances_csv(text: str) -> bool:
    """Whether a CSV's first line starts with the header ``problem,model,data_file``."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    return tuple(c.strip() for c in first.split(",")[:3]) == HEADER


def csv_rows(path: str, text: str) -> list[tuple[int, str, str, str | None]]:
    """``(line, problem, model, data)`` per row of an ``instances.csv``, paths joined to
    the CSV's folder; a row without a model gives ``model`` "" (the caller's error)."""
    if not is_instances_csv(text):
        raise PuzzleInputError(path, None, "a CSV file is read as an mzn-bench instances.csv, "
                                           "whose header starts problem,model,data_file")
    base = os.path.dirname(path)
    rows = []
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    next(reader)
    for row in reader:
        line = reader.line_num
        if not row or not any(cell.strip() for cell in row):
            continue
        if len(row) < 3 or not row[1].strip():
            rows.append((line, "", "", None))
            continue
        problem, model, data = (cell.strip() for cell in row[:3])
        rows.append((line, problem, os.path.join(base, model),
                     os.path.join(base, data) if data else None))
    return rows
