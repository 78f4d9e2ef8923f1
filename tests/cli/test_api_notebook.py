"""The API as a notebook uses it: cells run again, errors in its own words, ids in order."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest

import compare
from compare.api import api_wording
from compare.limits import SettingsError
from compare.reporting.summary import natural_key

REPO = Path(__file__).resolve().parents[2]


def test_puzzle_ids_sort_naturally():
    ids = pd.Series(["f:10", "f:2", "g:1", "f:1", "f:2#2", "e"])
    ordered = ids.sort_values(key=compare.natural_key).tolist()
    assert ordered == ["e", "f:1", "f:2", "f:2#2", "f:10", "g:1"]
    assert natural_key is compare.natural_key


@pytest.mark.parametrize("cli, api", [
    ("--out /x/run: folder is not empty (use --resume to continue a run there, or choose "
     "another folder)", "out=/x/run: folder is not empty (use resume=True to continue a run "
                        "there, or choose another folder)"),
    ("--formulations nosuch: no puzzle has any of them",
     "formulations=nosuch: no puzzle has any of them"),
    ("--memory-limit needs Linux", "memory_limit needs Linux"),
    ("--baseline cpsat is not among the engines run", "baseline cpsat is not among the "
                                                      "engines run"),
])
def test_settings_errors_are_said_in_the_api_words(cli, api):
    assert api_wording(cli) == api


@pytest.mark.slow
def test_out_none_runs_in_a_new_temporary_folder_each_time(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(REPO))        # the workers import the plugin
    runs = [compare.run_comparison(["latin:4"], ["fake"], plugins="tests.fake_engines",
                                   repeat=1, workers=1) for _ in range(2)]
    first, second = (r.folder for r in runs)
    assert first != second
    for folder in (first, second):
        assert folder.parent == Path(tempfile.gettempdir())
        assert folder.name.startswith("csp-compare-")
    assert not (tmp_path / "reports").exists()        # nothing in the working folder
    assert list(runs[1].results["status"]) == ["solved"]
    assert runs[1].by_engine.set_index("engine").loc["fake", "solved"] == 1


def test_a_folder_in_use_is_refused_in_the_api_words(tmp_path):
    (tmp_path / "x").write_text("something")
    with pytest.raises(SettingsError) as err:
        compare.run_comparison(["latin:4"], ["backtracking"], out=tmp_path)
    assert str(err.value).startswith(f"out={tmp_path}: folder is not empty (use resume=True")
    with pytest.raises(SettingsError, match="resume=True needs out=FOLDER"):
        compare.run_comparison(["latin:4"], ["backtracking"], resume=True)
