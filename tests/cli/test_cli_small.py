"""The small things a new user meets first: usage, completion of values, near misses of a
formulation, ``report --json``, ``dir(compare)``."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import compare
import engines
from compare.cli import build_parser
from compare.cli import main as cli_main
from compare.cli.completion import COMPLETERS, EngineSpecs, Formulations
from compare.cli.report import main as report_main

REPO = Path(__file__).resolve().parents[2]


def code_of(args: list[str]) -> int:
    try:
        return cli_main(args)
    except SystemExit as stop:
        return stop.code


# ----- the usage line --------------------------------------------------------------------
def test_the_usage_line_shows_the_command_is_optional(capsys):
    assert code_of(["--help"]) == 0
    usage = capsys.readouterr().out.splitlines()[0]
    assert usage == "usage: run_compare.py [COMMAND] [options]"


# ----- completion of values --------------------------------------------------------------
def test_engine_specs_complete_to_names_then_that_engines_options():
    specs = EngineSpecs(many=True)
    builtin = ["backtracking", "python-constraint", "cpsat", "cpmpy"]
    assert specs("") == engines.names()                   # plugins' engines (tests') too
    assert specs("")[:4] == builtin
    assert specs("cp") == ["cpsat", "cpmpy"]
    assert specs("cps") == ["cpsat", "cpsat:workers=", "cpsat:seed="]
    assert specs("cpsat:w") == ["cpsat:workers="]
    assert "backtracking:variant=seed" in specs("backtracking:")
    assert "cpmpy:solver=z3" in specs("cpmpy:solver=")
    assert specs("cpmpy:solver=z3:") == ["cpmpy:solver=z3:workers=", "cpmpy:solver=z3:seed="]
    assert specs("nosuch:") == [] and specs("zz") == []


def test_a_comma_list_completes_its_last_item_and_one_spec_does_not():
    assert EngineSpecs(many=True)("backtracking,cps")[0] == "backtracking,cpsat"
    assert EngineSpecs(many=False)("backtracking,cps") == []
    forms = Formulations(many=True)
    assert forms("alldiff,p") == ["alldiff,pairwise"]
    assert "alldiff" not in " ".join(forms("alldiff,")).replace("alldiff,", "")
    assert forms("")[:3] == ["alldiff", "pairwise", "onehot"]     # the catalog's order
    assert {"sum", "columns", "table"} <= set(forms(""))          # every kind's
    assert Formulations(many=False)("one") == ["onehot"]


def test_each_value_option_of_every_command_has_its_completer():
    parser = build_parser(full=True)
    found = {}

    def walk(p):
        for action in p._actions:
            for option in action.option_strings:
                if option in COMPLETERS:
                    found.setdefault(option, set()).add(getattr(action, "completer", None))
            if isinstance(action, argparse._SubParsersAction):
                for command in action.choices.values():
                    walk(command)
    walk(parser)
    assert set(found) == set(COMPLETERS)
    for option, completers in found.items():
        assert completers == {COMPLETERS[option]}, option


@pytest.mark.parametrize("line, expected, absent", [
    ("run_compare.py --engines cp", {"cpsat", "cpmpy"}, "run_compare.py"),
    ("run_compare.py --engines backtracking,cpsat:w", {"backtracking,cpsat:workers="}, ""),
    ("run_compare.py solve --engine python-c", {"python-constraint"}, ""),
    ("run_compare.py --formulations alldiff,p", {"alldiff,pairwise"}, ""),
])
def test_the_shell_completes_engine_specs_and_formulations(line, expected, absent, tmp_path):
    pytest.importorskip("argcomplete")
    answer = tmp_path / "completions"
    env = dict(os.environ, COMP_LINE=line, COMP_POINT=str(len(line)), _ARGCOMPLETE="1",
               _ARGCOMPLETE_STDOUT_FILENAME=str(answer), _ARGCOMPLETE_IFS="\n")
    subprocess.run([sys.executable, "run_compare.py"], cwd=REPO, env=env, timeout=120,
                   stdin=subprocess.DEVNULL, capture_output=True)
    offered = {word.strip() for word in answer.read_text().split("\n") if word.strip()}
    assert expected <= offered, offered
    assert not any(word.endswith(".py") for word in offered)       # no file names


# ----- a formulation's near miss ---------------------------------------------------------
@pytest.mark.parametrize("puzzles, word, hint", [
    (["queens:4", "latin:4"], "onehott", "(did you mean onehot?)"),
    (["queens:4"], "onehott", "(the puzzles have: alldiff, pairwise)"),
])
def test_an_unknown_formulation_gets_a_did_you_mean_in_one_line(puzzles, word, hint, capsys,
                                                                 tmp_path):
    args = ["--puzzles", *puzzles, "--formulations", word, "--engines", "backtracking",
            "--out", str(tmp_path / "run")]
    assert code_of(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--formulations {word}: no puzzle has any of them {hint}" in err


# ----- report --json ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("json") / "run"
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(REPO)               # the workers import the plugin
    try:
        compare.run_comparison(["latin:4"], ["fake"], plugins="tests.fake_engines",
                               repeat=1, workers=1, out=out)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    return out


def test_report_out_json_prints_the_summary_json_instead_of_the_tables(run_folder, capsys):
    assert report_main(["--out", str(run_folder), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((run_folder / "summary.json").read_text())
    assert printed["verdict"]["verdict"] == "OK"
    assert [row["engine"] for row in printed["engines"]][0] == "fake"


def test_report_history_json_is_refused_in_one_line(run_folder, capsys):
    with pytest.raises(SystemExit) as stop:
        report_main(["--history", str(run_folder), "--json"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--json does not go with --history" in err


# ----- dir(compare) ----------------------------------------------------------------------
def test_dir_lists_the_api_names_without_importing_pandas():
    code = ("import sys, compare\n"
            "names = dir(compare)\n"
            "assert 'pandas' not in sys.modules, 'pandas imported'\n"
            "print(' '.join(names))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names = done.stdout.split()
    for name in ("run_comparison", "open_comparison", "compare_runs", "history",
                 "Comparison", "SettingsError", "natural_key", "load_plugins"):
        assert name in names
    assert set(compare.__all__) <= set(dir(compare))
    for name in compare.__all__:
        assert getattr(compare, name) is not None
