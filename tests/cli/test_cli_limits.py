"""Every numeric option of every command has a finite range: outside it, one line and exit 2."""
from __future__ import annotations

import math

import pytest

from compare.cli import bench, generate, run, solve
from compare.limits import RANGES, SettingsError, check_setting

OUTSIDE = ["inf", "-inf", "nan", "1e999", "1e12", "-1", "0", "abc"]

OPTIONS = [
    (run, "--timeout"), (run, "--limit"), (run, "--repeat"), (run, "--workers"),
    (run, "--sample"), (run, "--seed"), (run, "--memory-limit"),
    (solve, "--timeout"), (solve, "--limit"),
    (generate, "--count"), (generate, "--best-of"), (generate, "--seed"),
    (generate, "--clues"),
    (bench, "--timeout"), (bench, "--big-timeout"), (bench, "--workers"),
    (bench, "--repeat"), (bench, "--seed"),
]


@pytest.mark.parametrize("module, option", OPTIONS,
                         ids=[f"{m.__name__.rsplit('.', 1)[1]}{o}" for m, o in OPTIONS])
def test_out_of_range_numbers_are_one_line_and_exit_2(module, option, capsys):
    for text in OUTSIDE:
        if text in ("0", "-1") and option in ("--seed", "--clues"):
            continue                            # seeds and clue counts start at 0
        with pytest.raises(SystemExit) as exc:
            module.main([option, text])
        assert exc.value.code == 2, (option, text)
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and option in err, (option, text, err)
        assert "Traceback" not in err


def test_the_api_checks_the_same_ranges(tmp_path):
    from compare import run_comparison
    for bad in (math.inf, math.nan, 1e12, 0, -3, True, "10"):
        with pytest.raises(SettingsError):
            run_comparison(["queens:4"], ["backtracking"], timeout=bad, out=tmp_path / "x")
    with pytest.raises(SettingsError, match="workers"):
        run_comparison(["queens:4"], ["backtracking"], workers=10**6, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_every_range_is_finite_and_inside_is_accepted():
    for name, (kind, low, high) in RANGES.items():
        assert math.isfinite(low) and math.isfinite(high) and low <= high
        assert check_setting(name, kind(low)) == low
        assert check_setting(name, kind(high)) == high


@pytest.mark.parametrize("spec", ["cpsat:workers=100000", "cpsat:seed=99999999999"])
def test_engine_options_have_ranges_too(spec, capsys):
    assert run.main(["--engines", spec, "--puzzles", "queens:4", "--quiet"]) == 2
    assert "out of range" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["run", "solve", "generate", "engines", "kinds", "report",
                                  "bench"])
def test_every_command_reports_bad_usage_in_one_line(name, capsys):
    import importlib
    module = importlib.import_module(f"compare.cli.{name}")
    with pytest.raises(SystemExit) as exc:
        module.main(["--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("run_compare.py")
