"""The command line behaves as the tools people know: help, completion, near misses, pipes."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare.cli import main as cli_main
from compare.run.progress import EtaLines

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "puzzles" / "samples" / "boj2239.txt"


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as stop:
        cli_main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    for command in ("solve", "generate", "engines", "kinds", "report", "bench"):
        assert f"\n    {command} " in out
    assert "the CPMpy backends run only when named" in " ".join(out.split())


@pytest.mark.parametrize("args, hint", [
    (["sovle", str(SAMPLE)], "invalid choice: 'sovle'"),
    (["--timout", "3"], "unrecognized arguments: --timout 3 (did you mean --timeout?)"),
    (["--mode", "frist"], "(did you mean first?)"),
    (["--puzzles", "quens:8"], "unknown puzzle kind 'quens' (did you mean queens?)"),
    (["--engines", "cpsta", "--puzzles", "queens:4"], "unknown engine 'cpsta' (did you mean "
                                                      "cpsat?)"),
    (["--engines", "cpsat:wokers=2", "--puzzles", "queens:4"], "has no option 'wokers' (did "
                                                               "you mean workers?)"),
    (["solve", "--engine", "cpsta", str(SAMPLE)], "(did you mean cpsat?)"),
])
def test_near_misses_get_a_did_you_mean_in_one_line(args, hint, capsys):
    assert code_of(args) == 2
    err = capsys.readouterr().err
    assert hint in err and err.count("\n") == 1
    if args[0] == "sovle":
        assert "(did you mean solve?)" in err


def code_of(args: list[str]) -> int:
    """The exit code of the command line, whether argparse exits or main returns."""
    try:
        return cli_main(args)
    except SystemExit as stop:
        return stop.code


def test_an_unknown_engine_without_plugins_points_at_the_plugin_variable(monkeypatch, capsys):
    monkeypatch.delenv("COMPARE_PLUGINS", raising=False)
    monkeypatch.delenv("COMPARE_ENGINE_PLUGINS", raising=False)
    assert cli_main(["--engines", "mine", "--puzzles", "queens:4"]) == 2
    assert "an engine from a plugin needs its module or file named in COMPARE_PLUGINS" in \
        capsys.readouterr().err


def _closed_after_one_line(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.Popen([sys.executable, "run_compare.py", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()                   # as `| head -1` does
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, "", err)


@pytest.mark.parametrize("command", ["engines", "solve"])
def test_a_closed_pipe_ends_quietly(command, tmp_path):
    if command == "solve":
        many = tmp_path / "many.txt"
        many.write_text((SAMPLE.read_text().replace("\n", "").strip() + "\n") * 400)
        args = ["solve", "--format", "line", str(many)]
    else:
        args = ["engines"]
    done = _closed_after_one_line(*args)
    assert done.returncode in (0, 141)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert "BrokenPipeError" not in done.stderr


def test_shell_completion_knows_commands_and_their_options(tmp_path):
    pytest.importorskip("argcomplete")
    answer = tmp_path / "completions"
    for line, expected in (("run_compare.py so", "solve"), ("run_compare.py --tim", "--timeout"),
                           ("run_compare.py report --comp", "--compare")):
        env = dict(os.environ, COMP_LINE=line, COMP_POINT=str(len(line)), _ARGCOMPLETE="1",
                   _ARGCOMPLETE_STDOUT_FILENAME=str(answer), _ARGCOMPLETE_IFS=" ")
        subprocess.run([sys.executable, "run_compare.py"], cwd=REPO, env=env, timeout=120,
                       pass_fds=(), stdin=subprocess.DEVNULL, capture_output=True)
        assert expected in answer.read_text().split()


def test_progress_lines_for_a_log_say_what_is_done_and_what_is_left(capsys):
    eta = EtaLines(10, every_s=0.0)
    eta.update(4)
    line = capsys.readouterr().err.strip()
    assert line.startswith("progress: 4/10 tasks (40%), ")
    assert "elapsed, about " in line and line.endswith(" left")
    eta.update(6)                              # the last one: the report follows, no line
    assert capsys.readouterr().err == ""


def test_solve_runs_where_the_report_and_system_libraries_cannot_be_imported():
    blocked = ("pandas", "matplotlib", "psutil", "tabulate", "scipy")
    code = ("import runpy, sys\n"
            + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
            + f"sys.argv = ['run_compare.py', 'solve', {str(SAMPLE)!r}]\n"
            "runpy.run_path('run_compare.py', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 9
