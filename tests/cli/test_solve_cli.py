"""``run_compare.py solve``: judge samples, modes, and every exit path.

Most cases run ``compare.cli.solve.main`` in-process on the test-only engines of
``tests/fake_engines.py`` (``fake`` answers in static order with ascending
values, so its ``lexfirst`` is right); a few run the real command line as a
subprocess to prove the exit codes and the no-traceback promise end to end.
"""
from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engines
import tests.fake_engines  # noqa: F401  (registers fake, fake-wrong, fake-sleep)
from compare.cli.solve import main
from compare.judge.checker import check
from engines import Outcome, Status
from puzzles.base import Puzzle
from puzzles.formats.grids import parse_grid
from puzzles.model import AllDifferent, Model, Structure

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "puzzles" / "samples"
BOJ2239 = (SAMPLES / "boj2239.txt").read_text()
BOJ2239_OUT = (SAMPLES / "boj2239.out").read_text()
BOJ2580 = (SAMPLES / "boj2580.txt").read_text()
BOJ2580_OUT = (SAMPLES / "boj2580.out").read_text()
UNSAT_4X4 = "123....4........\n"     # r1c4 must be 4, which column 4 already holds
EMPTY_4X4 = "." * 16 + "\n"


class UnsatEngine(tests.fake_engines.FakeEngine):
    name = "solve-test-unsat"

    def search(self, translated, mode, limit, deadline):
        return Outcome(Status.UNSAT, count=0 if mode == "count" else None)


class BrokenEngine(tests.fake_engines.FakeEngine):
    name = "solve-test-broken"

    def search(self, translated, mode, limit, deadline):
        raise RuntimeError("wheels came off\nsecond line")


@pytest.fixture(autouse=True)
def test_engines():
    for cls in (UnsatEngine, BrokenEngine):
        engines.register(cls.name, cls)
    yield
    for cls in (UnsatEngine, BrokenEngine):
        engines._REGISTRY.pop(cls.name, None)


def solve(capsys, monkeypatch, *argv, stdin: bytes | str | None = None):
    if stdin is not None:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


# ----- the judge samples ---------------------------------------------------------------
def test_boj2239_prints_exactly_the_expected_answer(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", str(SAMPLES / "boj2239.txt"))
    assert (code, out, err) == (0, BOJ2239_OUT, "")


def test_boj2239_on_one_line_from_stdin(capsys, monkeypatch):
    one_liner = " ".join(BOJ2239.split()) + "\n"
    assert solve(capsys, monkeypatch, "--engine", "fake", stdin=one_liner) == (0, BOJ2239_OUT, "")


def test_boj2580_prints_a_valid_grid_in_its_format(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", stdin=BOJ2580)
    assert (code, err) == (0, "")
    answer, fmt = parse_grid(out)
    puzzle, _ = parse_grid(BOJ2580)
    assert fmt == "boj2580" and check(puzzle, answer.grid) is None
    assert out == BOJ2580_OUT        # the sample's solution is unique


def test_line_input_gets_a_line_answer(capsys, monkeypatch):
    puzzle = "".join(BOJ2239.split()).replace("0", ".") + "\n"
    code, out, _ = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "lexfirst",
                         stdin=puzzle)
    assert (code, out) == (0, "".join(BOJ2239_OUT.split()) + "\n")


def test_format_override_reads_and_writes_that_format(capsys, monkeypatch):
    code, out, _ = solve(capsys, monkeypatch, "--engine", "fake", "--format", "boj2580",
                         stdin=BOJ2580)
    assert (code, out) == (0, BOJ2580_OUT)
    code, _, err = solve(capsys, monkeypatch, "--engine", "fake", "--format", "boj2580",
                         stdin=BOJ2239)
    assert code == 2 and one_line(err) and "line 1: row 1 has 1 numbers" in err


# ----- modes ---------------------------------------------------------------------------
def test_count_prints_the_count(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "count",
                           "--limit", "300", stdin=EMPTY_4X4)
    assert (code, out, err) == (0, "288\n", "")


def test_count_at_the_limit_says_so(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "count",
                           stdin=EMPTY_4X4)
    assert (code, out) == (0, "2\n")
    assert one_line(err) and "limit reached" in err


def test_a_unique_puzzle_counts_one(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "count",
                           str(SAMPLES / "boj2239.txt"))
    assert (code, out, err) == (0, "1\n", "")


# ----- exit 1: no solution -----------------------------------------------------------------
@pytest.mark.parametrize("engine", ["fake", "solve-test-unsat"])
def test_no_solution_exits_1(capsys, monkeypatch, engine):
    code, out, err = solve(capsys, monkeypatch, "--engine", engine, stdin=UNSAT_4X4)
    assert (code, out, err) == (1, "", "no solution\n")


def test_counting_no_solution_prints_0_and_exits_1(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "count",
                           stdin=UNSAT_4X4)
    assert (code, out, err) == (1, "0\n", "no solution\n")


# ----- exit 3: the engine failed -------------------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    (["--engine", "fake-wrong"], "gave a wrong answer, not printed: "),
    (["--engine", "solve-test-broken"], "error (RuntimeError: wheels came off second line)"),
    (["--engine", "fake-sleep", "--timeout", "0.1"], "timeout (stopped after 0.1 s (the engine"),
    (["--engine", "fake", "--formulation", "onehot"], "unsupported"),
])
def test_engine_failures_exit_3_and_print_no_answer(capsys, monkeypatch, argv, fragment):
    code, out, err = solve(capsys, monkeypatch, *argv, str(SAMPLES / "boj2580.txt"))
    assert (code, out) == (3, "")
    assert one_line(err) and fragment in err


# ----- exit 2: bad input or usage ----------------------------------------------------------------
@pytest.mark.parametrize("stdin, fragment", [
    ("", "<stdin>: empty input"),
    (BOJ2239.replace("002109400", "0021x9400"), "<stdin>, line 2: stray character 'x'"),
    (BOJ2239.replace("002109400", "002109A00"),
     "<stdin>, line 2: value 'A' (= 10) is out of range"),
    (BOJ2239.replace("000704000", "100704000"), "<stdin>, line 3: r1c1 and r3c1 both hold 1"),
    (BOJ2239 + "000000000\n", "<stdin>, line 10: extra row 10"),
    ("1" * 80, "<stdin>, line 1: 80 cells"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "<stdin>, line 3: binary data"),
    (b"\xff\xfe\xfd", "<stdin>, line 1: not UTF-8"),
])
def test_bad_input_exits_2_with_one_located_line(capsys, monkeypatch, stdin, fragment):
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", stdin=stdin)
    assert (code, out) == (2, "")
    assert one_line(err) and fragment in err


@pytest.mark.parametrize("argv, fragment", [
    (["--engine", "nope"], "unknown engine 'nope'"),
    (["--engine", "fake:speed=11"], "has no option 'speed'"),
    (["--engine", "fake:oops"], "is not key=value"),
    (["--formulation", "sideways"], "no formulation 'sideways'"),
    (["missing.txt"], "missing.txt: cannot read"),
    ([str(SAMPLES)], "cannot read"),
])
def test_bad_usage_exits_2(capsys, monkeypatch, argv, fragment):
    if "--engine" not in argv:
        argv = ["--engine", "fake", *argv]
    code, out, err = solve(capsys, monkeypatch, *argv, stdin=BOJ2239)
    assert (code, out) == (2, "")
    assert one_line(err) and fragment in err


@pytest.mark.parametrize("argv", [["--mode", "fastest"], ["--limit", "0"], ["--timeout", "x"],
                                  ["--puzzle", "queens:8", "file.txt"]])
def test_argument_errors_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


# ----- several puzzles, and puzzle specs ---------------------------------------------
def test_a_multi_puzzle_file_answers_each_and_reports_bad_lines(capsys, monkeypatch, tmp_path):
    path = tmp_path / "batch.txt"
    path.write_text("# three\n" + EMPTY_4X4 + "1" * 16 + "\n" + UNSAT_4X4)
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", "--mode", "lexfirst",
                           str(path))
    assert code == 2                       # the worst of 0, 2 and 1
    assert out == "1234341221434321\n"
    assert err.splitlines() == [
        f"error: {path}, line 3: r1c1 and r1c2 both hold 1 (row 1)",
        "batch:4: no solution"]


class Trio(Puzzle):
    """Three values that differ, the first given: a puzzle that is not a grid."""
    kind = "solve-test-trio"

    def to_model(self, formulation=None):
        self.check_formulation(formulation)
        structure = Structure("trio", ("a", "b", "c"), ((1, 2, 3),) * 3,
                              (AllDifferent((0, 1, 2)),))
        return Model(structure, ((0, 3),))


class LabelledTrio(Trio):
    def format_answer(self, values):
        return "a={} b={} c={}".format(*values)


@pytest.mark.parametrize("puzzle, printed", [(Trio(), "3 1 2\n"),
                                             (LabelledTrio(), "a=3 b=1 c=2\n")])
def test_puzzle_specs_print_their_own_answer(capsys, monkeypatch, puzzle, printed):
    import puzzles.loader
    monkeypatch.setattr(puzzles.loader, "is_spec", lambda arg: arg == "trio:3")
    monkeypatch.setattr(puzzles.loader, "load_spec", lambda arg: puzzle)
    assert solve(capsys, monkeypatch, "--engine", "fake", "--mode", "lexfirst",
                 "--puzzle", "trio:3") == (0, printed, "")


# ----- the real command line ----------------------------------------------------------------------
def run_cli(*argv, stdin: bytes = b"", plugins: str = "tests.fake_engines"):
    env = dict(os.environ, COMPARE_ENGINE_PLUGINS=plugins)
    return subprocess.run([sys.executable, "run_compare.py", *argv], input=stdin, cwd=ROOT,
                          env=env, capture_output=True, timeout=120)


def test_cli_solves_the_boj2239_sample():
    done = run_cli("solve", "--engine", "fake", stdin=BOJ2239.encode())
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, BOJ2239_OUT, b"")


@pytest.mark.parametrize("argv, stdin, code", [
    (["solve", "--engine", "fake"], bytes(range(256)) * 4, 2),
    (["solve", "--engine", "fake"], BOJ2239.replace("509", "503", 1).encode(), 2),
    (["solve", "--engine", "no-such-engine"], BOJ2239.encode(), 2),
    (["solve", "--engine", "fake"], UNSAT_4X4.encode(), 1),
    (["solve", "--engine", "fake-wrong"], BOJ2580.encode(), 3),
])
def test_cli_exit_codes_and_one_line_errors(argv, stdin, code):
    done = run_cli(*argv, stdin=stdin)
    err = done.stderr.decode()
    assert (done.returncode, done.stdout) == (code, b"")
    assert one_line(err), err


def test_cli_lists_engines():
    done = run_cli("engines")
    assert done.returncode == 0
    assert b"fake-wrong" in done.stdout and b"backtracking" in done.stdout


def installed(spec: str) -> bool:
    try:
        return engines.engine_class(spec.split(":")[0]).available()
    except ImportError:
        return False


REAL_ENGINES = [pytest.param(spec, marks=pytest.mark.skipif(
    not installed(spec), reason=f"engine {spec} is not installed"))
    for spec in ("backtracking", "backtracking:variant=seed", "backtracking:variant=fast",
                 "python-constraint", "cpsat")]


@pytest.mark.parametrize("spec", REAL_ENGINES)
def test_real_engines_answer_the_judge_samples_and_exit_alike(capsys, monkeypatch, spec):
    assert solve(capsys, monkeypatch, "--engine", spec, stdin=BOJ2239) == (0, BOJ2239_OUT, "")
    assert solve(capsys, monkeypatch, "--engine", spec, stdin=BOJ2580) == (0, BOJ2580_OUT, "")
    assert solve(capsys, monkeypatch, "--engine", spec, stdin=UNSAT_4X4) == \
        (1, "", "no solution\n")
    assert solve(capsys, monkeypatch, "--engine", spec, "--mode", "count", "--limit", "300",
                 stdin=EMPTY_4X4) == (0, "288\n", "")


@pytest.mark.skipif(not installed("backtracking"), reason="backtracking is not installed")
def test_the_default_engine_from_the_real_command_line():
    done = run_cli("solve", str(SAMPLES / "boj2239.txt"), plugins="")
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, BOJ2239_OUT, b"")


def test_debug_prints_where_the_engine_failed(capsys, monkeypatch):
    code, out, err = solve(capsys, monkeypatch, "--engine", "solve-test-broken", stdin=EMPTY_4X4)
    assert code == 3 and one_line(err)
    code, out, err = solve(capsys, monkeypatch, "--engine", "solve-test-broken", "--debug",
                           stdin=EMPTY_4X4)
    assert code == 3 and "Traceback" in err and "RuntimeError: wheels came off" in err


def test_the_time_limit_covers_building_the_model(capsys, monkeypatch):
    """A puzzle whose model takes long to build is stopped at --timeout, not after."""
    import time as clock

    from puzzles import specs

    class SlowToBuild(Puzzle):
        kind = "slow-test"

        def to_model(self, formulation=None):
            clock.sleep(5)
            raise AssertionError("not reached")

    monkeypatch.setitem(specs._KINDS, "slow-test",
                        specs.Kind("slow-test", "slow-test:X", lambda spec: SlowToBuild()))
    code, out, err = solve(capsys, monkeypatch, "--puzzle", "slow-test:x", "--timeout", "0.2")
    assert code == 3 and one_line(err) and "while building the model" in err


@pytest.mark.slow
def test_ctrl_c_during_a_cpsat_search_is_an_interruption_not_a_timeout():
    """CP-SAT catches SIGINT itself and stops; that is exit 130, not 'time limit reached'."""
    import signal
    import time as clock
    proc = subprocess.Popen(
        [sys.executable, "run_compare.py", "solve", "--engine", "cpsat", "--puzzle",
         "queens:40", "--mode", "count", "--limit", "1000000"],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        clock.sleep(3)                   # imports done, the search under way
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:                             # a failure leaves no solver running
        if proc.poll() is None:
            import psutil
            for child in psutil.Process(proc.pid).children(recursive=True):
                child.kill()
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert err.strip() == "interrupted" and out == ""


class LateEngine(tests.fake_engines.FakeEngine):
    """A right answer, but only after ignoring the deadline for a while."""
    name = "solve-test-late"

    def search(self, translated, mode, limit, deadline):
        import time as clock
        clock.sleep(0.4)
        return super().search(translated, mode, limit, None)


class ExitingEngine(tests.fake_engines.FakeEngine):
    name = "solve-test-exit"

    def search(self, translated, mode, limit, deadline):
        sys.exit(0)


@pytest.mark.parametrize("cls, argv, message", [
    (LateEngine, ["--timeout", "0.3"], "timeout (answered after"),
    (ExitingEngine, [], "error (the engine called sys.exit(0))"),
])
def test_late_answers_and_sys_exit_are_engine_failures(cls, argv, message, capsys, monkeypatch):
    engines.register(cls.name, cls)
    try:
        code, out, err = solve(capsys, monkeypatch, "--engine", cls.name, *argv,
                               stdin=EMPTY_4X4)
    finally:
        engines._REGISTRY.pop(cls.name, None)
    assert (code, out) == (3, "") and one_line(err) and message in err, err


# ----- files read by their name: XCSP3, specs, and formats not read -------------------
XCSP3 = ('<instance format="XCSP3" type="CSP"><variables><array id="x" size="[3]"> 1..3 '
         '</array></variables><constraints><allDifferent> x[] </allDifferent>'
         '</constraints></instance>')


@pytest.mark.skipif(importlib.util.find_spec("pycsp3") is None, reason="pycsp3 is not installed")
@pytest.mark.parametrize("name, arg", [("inst.xml", "{}"), ("inst.xml.lzma", "{}"),
                                       ("inst.xml", "xcsp3:{}")])
def test_an_xcsp3_file_is_solved_by_its_name(capsys, monkeypatch, tmp_path, name, arg):
    import lzma
    path = tmp_path / name
    data = XCSP3.encode()
    path.write_bytes(lzma.compress(data) if name.endswith(".lzma") else data)
    code, out, err = solve(capsys, monkeypatch, "--engine", "backtracking", arg.format(path))
    assert (code, err) == (0, "")
    assert out == "x[0] 1\nx[1] 2\nx[2] 3\n"
    code, out, err = solve(capsys, monkeypatch, "--engine", "backtracking", "--format", "line",
                           arg.format(path))
    assert (code, out) == (2, "") and one_line(err) and "--format line is for Sudoku" in err


def test_a_minizinc_data_file_alone_is_refused_saying_what_to_give(capsys, monkeypatch,
                                                                   tmp_path):
    path = tmp_path / "queens.dzn"
    path.write_text("n = 4;\n")
    code, out, err = solve(capsys, monkeypatch, "--engine", "fake", str(path))
    assert (code, out) == (2, "") and one_line(err)
    assert err.startswith(f"error: {path}: a MiniZinc data file") and "MODEL.mzn:DATA.dzn" in err
