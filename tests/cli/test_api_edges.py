"""The Python API checks its arguments where they enter: one path is a list of one, an empty
list is refused, and a wrong type is an ``ArgumentError`` naming the argument."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import compare
from compare import (
    ArgumentError,
    SettingsError,
    compare_runs,
    history,
    open_comparison,
    run_comparison,
)
from compare.errors import CompareError

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "puzzles" / "samples" / "boj2239.txt"
QUICK = {"repeat": 1, "workers": 1}


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("api") / "run"
    run_comparison(["queens:5"], ["backtracking"], out=out, **QUICK)
    return out


@pytest.mark.parametrize("one", [str(SAMPLE), SAMPLE])
def test_one_path_is_one_puzzle(tmp_path, one):
    comparison = run_comparison(one, "backtracking", out=tmp_path / "run", **QUICK)
    assert list(comparison.results["puzzle_id"]) == ["boj2239:1"]


@pytest.mark.parametrize("given, argument", [
    ({"puzzles": []}, "puzzles=[]"),
    ({"puzzles": ()}, "puzzles=()"),
    ({"puzzles": iter([])}, "puzzles="),
    ({"puzzles": ["queens:4"], "engines": []}, "engines=[]"),
])
def test_an_empty_list_is_refused(tmp_path, given, argument):
    with pytest.raises(ArgumentError, match="an empty list names none") as err:
        run_comparison(out=tmp_path / "run", **{"engines": ["backtracking"], **given})
    assert str(err.value).startswith(argument)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("given, said", [
    ({"puzzles": [None]}, "puzzles[0]=None: takes a path"),
    ({"puzzles": ["queens:4", 123]}, "puzzles[1]=123: takes a path"),
    ({"puzzles": 5}, "puzzles=5: takes a path"),
    ({"puzzles": [""]}, "puzzles[0]='': takes a path"),
    ({"engines": [None]}, "engines[0]=None: takes an engine spec"),
    ({"engines": 5}, "engines=5: takes an engine spec"),
    ({"engines": ["backtracking", 1.5]}, "engines[1]=1.5: takes an engine spec"),
    ({"baseline": 5}, "baseline=5: takes an engine's name"),
    ({"out": 123}, "out=123: takes a folder's path"),
    ({"out": ""}, "out='': takes a folder's path"),
])
def test_a_wrong_type_is_the_apis_own_error(given, said):
    arguments = {"puzzles": ["queens:4"], "engines": ["backtracking"], **given}
    with pytest.raises(ArgumentError) as err:
        run_comparison(**arguments)
    assert str(err.value).startswith(said)
    assert isinstance(err.value, SettingsError) and isinstance(err.value, TypeError)
    assert isinstance(err.value, CompareError) and err.value.exit_code == 2


def test_reading_calls_check_their_folders(run_folder):
    with pytest.raises(ArgumentError, match=r"^folder=None: takes a folder's path"):
        open_comparison(None)
    with pytest.raises(ArgumentError, match=r"^a=None: takes a folder's path"):
        compare_runs(None, None)
    with pytest.raises(ArgumentError, match=r"^b=3: takes a folder's path"):
        compare_runs(run_folder, 3)
    with pytest.raises(ArgumentError, match=r"^folders=None"):
        history(None)
    with pytest.raises(ArgumentError, match=r"^folders=\[\]: .*an empty list names none"):
        history([])
    with pytest.raises(ArgumentError, match=r"^folders\[1\]=7"):
        history([run_folder, 7])
    with pytest.raises(ArgumentError, match=r"^baseline=1: takes an engine's name"):
        open_comparison(run_folder, baseline=1)


@pytest.mark.parametrize("shift", ["x", -1, -0.001, float("nan"), float("inf"), 1e9, True])
def test_a_shift_is_milliseconds_in_range(run_folder, shift):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no numpy warning on the way
        with pytest.raises(ArgumentError, match=r"^shift_ms=.*: takes milliseconds from 0"):
            compare_runs(run_folder, run_folder, shift_ms=shift)
        with pytest.raises(ArgumentError, match=r"^shift_ms="):
            history([run_folder], shift_ms=shift)
        with pytest.raises(ArgumentError, match=r"^shift_ms="):
            compare.Comparison(run_folder, shift_ms=shift)


def test_one_folder_is_a_series_of_one(run_folder):
    assert len(history(str(run_folder)).runs) == 1
    assert len(history(run_folder).runs) == 1
    assert compare_runs(str(run_folder), run_folder, shift_ms=0) is not None
