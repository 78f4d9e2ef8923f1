"""``run_compare.py solve``: answer a puzzle the way the judges ask (BOJ 2239 / 2580).

FILE is read as the loader reads it: by its name where that names a format
(an XCSP3 ``.xml`` or ``.xml.lzma``, a spec such as ``xcsp3:FILE``; a format
not read here, such as MiniZinc's ``.mzn``, is refused in one line), else as
Sudoku grid text whose format is detected and used for the answer too.

Every answer passes the independent checker before it is printed; an engine
answer that fails it is reported, never shown. Exit codes (the README lists
them too):

* 0: solved (or counted at least one solution);
* 1: no solution;
* 2: bad input or usage: unreadable or malformed puzzle, unknown engine, option
  or formulation;
* 3: the engine failed: error, timeout, unsupported mode, or a wrong answer.

For a file of several puzzles the exit code is the highest any puzzle gets.
Errors are one line on stderr, never a traceback.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
import traceback

import engines
from compare.cli.common import (
    Exit,
    OneLineParser,
    UsageError,
    add_settings,
    say,
    say_fault,
)
from compare.executors.local.processes import ProcessDied, call_apart
from compare.judge.checker import NO_ANSWER, verify
from compare.plugins import plugin_hint
from puzzles.errors import PuzzleInputError
from puzzles.formats.grids import FORMATS, detect_format
from puzzles.loader import STDIN, load_puzzles, parse_text, read_by_name, read_text
from puzzles.reading import shown_name

SOLVED, NO_SOLUTION, BAD_INPUT, ENGINE_FAILED = Exit.OK, Exit.NO_SOLUTION, Exit.USAGE, Exit.FAILED


class HardTimeout(BaseException):
    """Raised from SIGALRM; a BaseException so ``Engine.solve`` cannot swallow it."""


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="run_compare.py solve",
        description="Solve one puzzle from FILE or stdin and print the answer in "
                    "the input's format. Exit codes: 0 solved, 1 no solution, "
                    "2 bad input or usage, 3 engine failed, 130 interrupted.")
    parser.add_argument("--engine", default="backtracking", metavar="E",
                        help="engine spec, e.g. backtracking:variant=seed or cpsat "
                             "(default: backtracking; see `run_compare.py engines`)")
    parser.add_argument("--mode", choices=engines.MODES,
                        help="default: lexfirst for BOJ 2239 input, first otherwise")
    add_settings(parser, [("--limit", "limit", "N", "count mode: stop counting at N "
                                                    "(default 2, a uniqueness check)", 2)])
    parser.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                        help="input (and output) format; default: detected")
    parser.add_argument("--formulation", metavar="F",
                        help="model formulation, e.g. alldiff, pairwise, onehot for Sudoku")
    add_settings(parser, [("--timeout", "timeout", "S", "give up after S seconds, model "
                                                        "build included (exit 3)")])
    parser.add_argument("--puzzle", metavar="SPEC",
                        help="a puzzle spec such as queens:8 instead of FILE")
    parser.add_argument("--debug", action="store_true",
                        help="when the engine fails, also print where (its traceback)")
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="puzzle file (a Sudoku grid file, an XCSP3 .xml or .xml.lzma, "
                             "or a spec such as xcsp3:FILE); stdin when absent or '-'")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.puzzle and args.file:
        parser.error("give either --puzzle SPEC or FILE, not both")
    try:
        engine = _engine(args.engine)
        fmt, entries = _entries(args)
        return max(_solve_entry(entry, fmt, engine, args, len(entries) > 1)
                   for entry in entries)
    except (PuzzleInputError, UsageError, engines.UnknownEngine,
            engines.EngineOptionError) as err:
        say_fault(err)
        return BAD_INPUT
    except KeyboardInterrupt:
        say("interrupted")
        return Exit.INTERRUPTED
    except BrokenPipeError:   # the reader stopped early (| head): no fault of the engine
        raise
    except Exception as exc:  # the promise: no traceback, whatever the input (unless asked)
        say(f"internal error: {type(exc).__name__}: {exc}")
        if args.debug:
            traceback.print_exc()
        return ENGINE_FAILED


def _engine(text: str):
    """The engine ``--engine`` names: its spec is read here, where it enters."""
    spec = engines.EngineSpec.parse(text)
    try:
        engine = engines.get_engine(spec)
    except engines.UnknownEngine as err:
        raise UsageError(str(err) + ("" if err.suggestion else
                                     plugin_hint("engine"))) from None
    except ImportError as exc:
        raise UsageError(f"engine {text!r} is not installed here ({exc})") from None
    if not engine.available():
        raise UsageError(f"engine {text!r} is not installed here")
    return engine


def _entries(args):
    """The input format (None for a spec) and the puzzles to solve."""
    if args.puzzle:
        return None, load_puzzles(args.puzzle)
    arg = args.file or "-"
    if read_by_name(arg):
        if args.format != "auto":
            raise UsageError(f"--format {args.format} is for Sudoku grid text; {arg} is read "
                             "by its name")
        return None, load_puzzles(arg)
    text = read_text(arg)
    fmt = detect_format(text) if args.format == "auto" else args.format
    return fmt, parse_text(text, STDIN if arg == "-" else shown_name(arg), fmt)


def _solve_entry(entry, fmt, engine, args, many: bool) -> int:
    where = f"{entry.id}: " if many else ""
    if entry.error is not None:
        say(f"error: {entry.error}")
        return BAD_INPUT
    puzzle = entry.puzzle
    mode = args.mode or ("lexfirst" if fmt == "boj2239" else "first")
    try:
        puzzle.check_formulation(args.formulation)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    started = time.perf_counter()
    model, result = solve_apart(engine, puzzle, args.formulation, mode, args.limit,
                                args.timeout)
    took = time.perf_counter() - started
    if (args.timeout is not None and took > args.timeout
            and str(result.status) != engines.Status.TIMEOUT.value):
        # an answer after the limit is no answer within it (the harness agrees)
        result = _timeout(engine, mode, f"answered after {took:.2f} s, over the limit of "
                                        f"{args.timeout:g} s")
    status = str(result.status)
    if status in NO_ANSWER:
        say(f"{where}{engine.label}: {status}{_detail(result)}")
        if args.debug and result.traceback:
            print(result.traceback.rstrip("\n"), file=sys.stderr)
        return ENGINE_FAILED
    verified, reason = verify(puzzle, model, result, args.formulation, args.limit)
    if not verified:
        say(f"{where}{engine.label} gave a wrong answer, not printed: {reason}")
        return ENGINE_FAILED
    if mode == "count":
        print(result.count or 0)
        if result.count and result.count >= args.limit:
            say(f"{where}limit reached: at least {result.count} solutions "
                "(raise --limit to count further)")
    if status == engines.Status.UNSAT.value:
        say(f"{where}no solution")
        return NO_SOLUTION
    if mode != "count":
        values = puzzle.decode(result.solution, args.formulation)
        print(puzzle.written(values, fmt), end="")
    return SOLVED


def _detail(result) -> str:
    parts = []
    if result.message:
        parts.append(result.message)
    if result.count:
        parts.append(f"{result.count} solutions counted before it stopped")
    return f" ({'; '.join(parts)})" if parts else ""


def _model(puzzle, formulation):
    try:
        return puzzle.to_model(formulation)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def solve_apart(engine, puzzle, formulation, mode: str, limit: int, timeout: float | None):
    """``(model, result)`` from a child process, as a worker of a run would solve it.

    The solver library runs there and this process only waits, so Ctrl-C and
    SIGTERM stay this tool's: whatever the library does with signals (CP-SAT
    and Z3 stop and answer "unknown", Exact raises, PySAT and Choco hold on
    in C), this process stops the child and exits 130. The child keeps the
    time limit itself (``solve_within``); one that overruns it even so is
    killed here a second later.
    """
    def build():
        return _model(puzzle, formulation)

    within = None if timeout is None else timeout + _grace(timeout) + 1.0
    try:
        return call_apart(solve_within, engine, build, mode, limit, timeout, within=within)
    except ProcessDied as died:
        if timeout is not None and died.overran:
            return None, _timeout(engine, mode, f"stopped after {timeout:g} s (the engine "
                                                "did not stop)")
        return None, engines.Result(engine.label, engine.library or "builtin",
                                    engine.version(), mode, engines.Status.ERROR,
                                    message=f"the engine's process died ({died})")


def _grace(timeout: float) -> float:
    return max(0.5, 0.25 * timeout)


def solve_within(engine, build, mode: str, limit: int, timeout: float | None):
    """``(model, result)``: ``build()`` the model, then ``engine.solve`` it, both within
    ``timeout``; stopped from outside if they overrun the engine's courtesy deadline."""
    if (timeout is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        model = build()
        return model, _solve(engine, model, mode, limit, timeout)

    def expire(signum, frame):
        raise HardTimeout

    model = None
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout + _grace(timeout))
    try:
        model = build()
        left = timeout - (time.perf_counter() - start)
        if left <= 0:
            return model, _timeout(engine, mode, f"building the model took longer than "
                                                 f"{timeout:g} s")
        return model, _solve(engine, model, mode, limit, left)
    except HardTimeout:
        during = "while building the model" if model is None else "the engine did not stop"
        return model, _timeout(engine, mode, f"stopped after {timeout:g} s ({during})")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _solve(engine, model, mode: str, limit: int, timeout: float | None):
    """``engine.solve``; an engine that calls ``sys.exit`` has failed, whatever the code."""
    try:
        return engine.solve(model, mode, limit, timeout)
    except SystemExit as exc:
        return engines.Result(engine.label, engine.library or "builtin", engine.version(),
                              mode, engines.Status.ERROR,
                              message=f"the engine called sys.exit({exc.code!r})")


def _timeout(engine, mode: str, message: str):
    return engines.Result(engine.label, engine.library or "builtin", engine.version(), mode,
                          engines.Status.TIMEOUT, message=message)
