"""RunSettings and EngineSpec: made and checked once, stored and read back, parsed once."""
from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import pytest

import engines
from compare.limits import SettingsError
from compare.settings import NAMES, RunSettings
from engines import EngineOptionError, EngineSpec

ROOT = Path(__file__).resolve().parents[2]


# ----- RunSettings -------------------------------------------------------------------------
def test_settings_round_trip_through_meta_json():
    made = RunSettings.make(puzzles=["puzzles/samples/boj2239.txt", "queens:8"],
                            engines="backtracking:variant=seed,cpsat:workers=2,seed=3",
                            mode="count", limit=5, timeout=2, repeat=1, sample=7, seed=4,
                            formulations="alldiff, pairwise", memory_limit=512,
                            repeat_timeouts=True, format="line")
    stored = json.loads(json.dumps({"config": {"settings": made.to_stored()}}))
    back = RunSettings.from_stored(stored["config"]["settings"])
    assert back == made
    assert back.engines == (EngineSpec("backtracking", [("variant", "seed")]),
                            EngineSpec("cpsat", [("workers", "2"), ("seed", "3")]))
    assert all(isinstance(e, EngineSpec) for e in back.engines)
    assert back.timeout == 2.0 and isinstance(back.timeout, float)
    assert back.formulations == ("alldiff", "pairwise")
    assert set(stored["config"]["settings"]) == set(NAMES)
    assert RunSettings.from_stored(RunSettings().to_stored()) == RunSettings()


def test_settings_of_an_earlier_run_folder_are_read():
    """meta.json as earlier versions wrote it: engines as the command line's comma text,
    every name present, mode, timeout and repeat also beside the settings."""
    old = {"puzzles": ["puzzles/samples/boj2239.txt"], "format": "auto",
           "engines": "backtracking,cpsat:workers=2", "mode": "first", "limit": 2,
           "timeout": 10.0, "repeat": 3, "sample": None, "seed": 0, "formulations": "alldiff",
           "memory_limit": None, "repeat_timeouts": False}
    settings = RunSettings.from_stored(old)
    assert settings.engines == ("backtracking", "cpsat:workers=2")
    assert settings.formulations == ("alldiff",) and settings.given == frozenset()
    assert RunSettings.from_stored({"engines": ["cpsat"], "mode": "count"}).limit == 2


@pytest.mark.parametrize("values, line", [
    ({"limit": 0}, "limit: 0 is out of range (1..1_000_000)"),
    ({"timeout": float("inf")}, "timeout: inf is out of range (0.001..86_400)"),
    ({"repeat": 1.5}, "repeat: 1.5 is not a whole number"),
    ({"mode": "fastest"}, "mode 'fastest': choose one of first, lexfirst, count"),
    ({"engines": " , "}, "--engines ' , ': no engine named"),
    ({"engines": "cpsat:workers"}, "engine spec 'cpsat:workers': option 'workers' is not "
                                   "key=value"),
    ({"speed": 3}, "unknown setting(s): speed"),
])
def test_settings_refused_in_one_line(values, line):
    with pytest.raises(SettingsError) as err:
        RunSettings.make(**values)
    assert str(err.value) == line and "\n" not in str(err.value)


def test_settings_are_frozen_and_know_what_was_given():
    settings = RunSettings.make(mode="count", limit=None)
    assert settings.given == {"mode"} and settings.limit == 2
    with pytest.raises(AttributeError):
        settings.mode = "first"
    stored = RunSettings.make(mode="count", limit=3)
    assert stored.differences(RunSettings.make(limit=3)) == []
    assert stored.differences(RunSettings.make(limit=4, mode="count")) == ["limit"]


# ----- EngineSpec ---------------------------------------------------------------------------
def test_engine_spec_parse_label_and_pickle():
    spec = EngineSpec.parse(" cpsat:workers=8 : seed=3 ")
    assert (spec.name, spec.options) == ("cpsat", (("workers", "8"), ("seed", "3")))
    assert spec.label == "cpsat:workers=8:seed=3" == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert type(pickle.loads(pickle.dumps(spec))) is EngineSpec
    assert pickle.loads(pickle.dumps(spec)).options == spec.options
    assert EngineSpec.parse_list("a:x=1,y=2, b") == [EngineSpec("a", [("x", "1"), ("y", "2")]),
                                                     EngineSpec("b")]
    assert EngineSpec.of(spec) is spec
    with pytest.raises(AttributeError):
        spec.name = "other"
    with pytest.raises(EngineOptionError, match="is not key=value"):
        EngineSpec.parse("cpsat:=8")


def test_engine_canonical_spec_is_its_label():
    engine = engines.get_engine(EngineSpec.parse("backtracking:variant=seed"))
    assert engine.spec == engine.label == "backtracking:variant=seed"
    assert isinstance(engine.spec, EngineSpec) and engine.spec.name == "backtracking"
    plain = engines.get_engine(EngineSpec.parse("backtracking:variant=fast:kernel=python"))
    assert plain.spec == "backtracking" and plain.spec.options == ()     # defaults left out


def test_unknown_engine_carries_its_suggestion():
    with pytest.raises(engines.UnknownEngine) as err:
        engines.get_engine(EngineSpec("backtrackin"))
    assert err.value.suggestion == "backtracking" and err.value.name == "backtrackin"
    with pytest.raises(engines.UnknownEngine) as err:
        engines.get_engine(EngineSpec("zzzzzz"))
    assert err.value.suggestion is None


# Calls that cut text at a colon, outside the one reader of engine specs: each is
# about something else (a registry's module:Class target, a scheduler address, a
# puzzle id, a /proc line), named by what it cuts.
NOT_ENGINE_SPECS = {"target.partition", "rest.rpartition", "task.puzzle_id.rsplit",
                    "pid.rsplit", "line.split", "str(puzzle_id).split"}
COLON_CUT = re.compile(r"([\w.]+(?:\([\w.]*\))?)\.(r?split|r?partition)\(\s*[\"']:[\"']")


def test_one_place_parses_an_engine_spec():
    cuts = {}
    for path in sorted((ROOT / "compare").rglob("*.py")) + sorted((ROOT / "engines").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        for match in COLON_CUT.finditer(path.read_text(encoding="utf-8")):
            cuts.setdefault(name, []).append(f"{match[1]}.{match[2]}")
    assert cuts.pop("engines/spec.py") == ["text.strip().split", "text.rpartition"]
    for name, found in cuts.items():
        assert set(found) <= NOT_ENGINE_SPECS, (name, found)
    text = "\n".join(p.read_text(encoding="utf-8") for p in ROOT.glob("[ce]*/**/*.py"))
    assert "parse_spec" not in text and "split_engines" not in text


# ----- run folders --------------------------------------------------------------------------
def test_a_run_folder_with_settings_as_earlier_versions_stored_them_resumes_and_reports(
        tmp_path):
    """Earlier versions kept the engines as the command line's comma text and mode,
    timeout and repeat twice; such a folder resumes with its settings and reports."""
    from compare.api import open_comparison, run_comparison
    from compare.cli import report as report_cli
    from compare.store.store import Store

    out = tmp_path / "run"
    run_comparison(["queens:5"], "backtracking", repeat=1, workers=1, out=out)
    with Store(out) as store:
        config = store.meta("config")
        assert not {"mode", "timeout", "repeat"} & set(config)      # kept once, in settings
        settings = {**config["settings"], "engines": "backtracking"}
        store.set_meta("config", {**config, "settings": settings, "mode": "first",
                                  "timeout": 10.0, "repeat": 1})
    again = run_comparison(["queens:5"], "backtracking", out=out, resume=True)
    assert again.config["settings"]["engines"] == "backtracking"     # kept as written
    assert report_cli.main(["--out", str(out)]) == 0
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    assert RunSettings.from_stored(meta["config"]["settings"]) == RunSettings.make(
        puzzles=["queens:5"], engines="backtracking", repeat=1)
    assert len(open_comparison(out).tasks) == 1


def test_the_plugin_list_travels_as_a_list():
    from compare.plugins import plugin_list
    assert plugin_list(["a.b", " c ", "a.b", ""]) == ["a.b", "c"]
    assert plugin_list("a.b, c,a.b") == ["a.b", "c"]
    assert plugin_list([]) == []


def test_the_plan_hands_engine_specs_to_the_tasks_and_the_workers(tmp_path):
    from compare.run import plan as planning
    made = planning.make_plan(RunSettings.make(puzzles=["queens:4"], repeat=1,
                                               engines="backtracking:variant=fast"),
                              out=tmp_path / "run", workers=1)
    try:
        assert made.labels == ["backtracking"] and type(made.labels[0]) is EngineSpec
        task = pickle.loads(pickle.dumps(made.tasks[0]))      # as it travels to a worker
        assert type(task.engine) is EngineSpec and task.engine.name == "backtracking"
        assert made.settings.engines == ("backtracking:variant=fast",)   # as asked
    finally:
        made.executor.close()
        made.run.close()
