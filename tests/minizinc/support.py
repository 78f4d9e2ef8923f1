"""A tiny MiniZinc model with data, written where a test asks, and the skip without MiniZinc."""
from __future__ import annotations

import shutil

import pytest

needs_minizinc = pytest.mark.skipif(shutil.which("minizinc") is None,
                                    reason="MiniZinc (the minizinc executable) is not installed")

MODEL = """include "alldifferent.mzn";
int: n;
array[1..n] of var 1..n: x;
var bool: b;
constraint alldifferent(x);
constraint x[1] < x[2] \\/ b;
solve satisfy;
"""


def write_pair(folder, model: str = "tiny", data: str = "three", n: int = 3):
    """``folder/model.mzn`` and ``folder/data.dzn`` (n = ``n``); their paths."""
    model_path, data_path = folder / f"{model}.mzn", folder / f"{data}.dzn"
    model_path.write_text(MODEL)
    data_path.write_text(f"n = {n};\n")
    return model_path, data_path


def solutions(n: int) -> set[tuple]:
    """The model's solutions ``(x..., b)`` by brute force, b as 0 or 1."""
    from itertools import permutations
    return {(*x, b) for x in permutations(range(1, n + 1)) for b in (0, 1)
            if x[0] < x[1] or b}
