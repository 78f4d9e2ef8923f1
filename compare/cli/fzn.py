"""``fzn-backtracker``: the project's engines as a FlatZinc solver, for MiniZinc.

MiniZinc compiles a model into FlatZinc with a solver's library and runs the
solver's executable on the ``.fzn`` file. This is that executable: it reads
the file (``puzzles.formats.flatzinc``), translates it into the model
(``puzzles.formats.minizinc.translate``), solves it with the backtracker (or
any engine, ``--engine``), checks every answer with the independent checker,
and prints the FlatZinc way:

* each solution as ``name = value;`` lines on the output variables, then ``----------``;
* ``==========`` once the search has listed every solution it was asked for
  and there are no more (``-a``), or after the one solution when the model has
  no others to look for;
* ``=====UNSATISFIABLE=====`` when there is none;
* ``=====UNKNOWN=====`` when the time ran out first, or the model has no exact
  form here (the reason on stderr).

Flags (FlatZinc's standard ones): ``-a`` all solutions, ``-n N`` at most N,
``-s`` statistics (``%%%mzn-stat`` lines), ``-t MS`` time limit, ``-r SEED``
and ``-p N`` accepted (the search is deterministic and single-threaded).
``--install [DIR]`` writes the solver configuration (``.msc``) that makes
``minizinc --solver backtracker`` find this executable and the project's
library of native globals.

Exit codes: 0 answered (any of the above but an error), 2 bad input or usage
(one line on stderr, ``FILE:LINE:COL: what`` for a FlatZinc fault), 3 the
engine failed or an answer did not pass the checker (``=====ERROR=====``).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from importlib import resources
from pathlib import Path

import engines
from compare.cli.common import Exit, OneLineParser, say
from compare.judge.checker import check_model
from compare.limits import RANGES
from engines import Status
from puzzles.errors import PuzzleInputError
from puzzles.formats.flatzinc import read
from puzzles.formats.minizinc.translate import translate

SOLVER_ID = "org.cspcompare.backtracker"
SEPARATOR, COMPLETE = "----------", "=========="
UNSATISFIABLE, UNKNOWN, ERROR = ("=====UNSATISFIABLE=====", "=====UNKNOWN=====",
                                 "=====ERROR=====")
NO_LIMIT_S = 86_400.0          # a day: the longest time limit any setting takes


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="fzn-backtracker",
        description="Solve a FlatZinc file with the project's backtracker (a MiniZinc "
                    "solver). Exit codes: 0 answered, 2 bad input or usage, 3 engine failed.")
    parser.add_argument("file", nargs="?", help="the .fzn file")
    parser.add_argument("-a", "--all-solutions", action="store_true", dest="all",
                        help="print every solution")
    parser.add_argument("-n", "--num-solutions", type=int, metavar="N",
                        help="print at most N solutions")
    parser.add_argument("-s", "--statistics", action="store_true", help="print statistics")
    parser.add_argument("-t", "--time-limit", type=int, metavar="MS", help="time limit (ms)")
    parser.add_argument("-r", "--random-seed", type=int, metavar="SEED", help="accepted")
    parser.add_argument("-p", "--parallel", type=int, metavar="N", help="accepted")
    parser.add_argument("-f", "--free-search", action="store_true", help="accepted")
    parser.add_argument("--engine", default="backtracking", metavar="SPEC",
                        help="engine spec (default: backtracking)")
    parser.add_argument("--install", nargs="?", const="", metavar="DIR",
                        help="write the MiniZinc solver configuration into DIR (default: "
                             "the user's MiniZinc solvers folder) and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)      # a usage fault: one line, exit 2
    if args.install is not None:
        return install(args.install)
    if not args.file:
        say("error: a .fzn file is required")
        return Exit.USAGE
    most = RANGES["limit"][2]
    if args.num_solutions is not None and not 1 <= args.num_solutions <= most:
        say(f"error: -n takes a whole number from 1 to {most:,} (-a lists them all)")
        return Exit.USAGE
    if args.time_limit is not None and not 1 <= args.time_limit <= NO_LIMIT_S * 1000:
        say(f"error: -t takes milliseconds from 1 to {NO_LIMIT_S * 1000:,.0f}")
        return Exit.USAGE
    try:
        made = translate(read(args.file), Path(args.file).stem, key=os.path.abspath(args.file))
        engine = engines.get_engine(args.engine)
    except (PuzzleInputError, ValueError) as err:    # a bad file, an unknown engine
        say(f"error: {err}")
        return Exit.USAGE
    return _solve(made, engine, args)


def _solve(made, engine, args) -> int:
    model = made.model
    if model.structure.unsupported:
        say(f"fzn-backtracker: n/a: {model.structure.unsupported}")
        print(UNKNOWN)
        return Exit.OK
    wanted = None if args.all else (args.num_solutions or 1)
    timeout = args.time_limit / 1000 if args.time_limit else NO_LIMIT_S
    mode = "first" if wanted == 1 else "count"
    limit = max(2, (wanted or 0) + 1) if wanted is not None else 10 ** 9
    result = engine.solve(model, mode, limit, timeout)
    if result.status == Status.UNSUPPORTED:
        say(f"fzn-backtracker: n/a: {result.message}")
        print(UNKNOWN)
        return Exit.OK
    if result.status not in (Status.SOLVED, Status.UNSAT, Status.TIMEOUT):
        say(f"fzn-backtracker: {result.status.value}: {result.message}")
        print(ERROR)
        return Exit.FAILED
    shown = result.solutions[:wanted] if wanted else result.solutions
    for values in shown:
        reason = check_model(model, values)
        if reason:
            say(f"fzn-backtracker: the engine's answer does not hold: {reason}")
            print(ERROR)
            return Exit.FAILED
        print(made.format_answer(values))
        print(SEPARATOR)
    if args.statistics:
        _statistics(result)
    found = result.count if mode == "count" else len(result.solutions)
    if result.status == Status.UNSAT or (result.status == Status.SOLVED and not shown):
        print(UNSATISFIABLE if result.status == Status.UNSAT else UNKNOWN)
    elif result.status == Status.TIMEOUT and not shown:
        print(UNKNOWN)
    elif result.status == Status.SOLVED and mode == "count" and len(shown) == (found or 0) \
            and (wanted is None or found <= wanted):
        print(COMPLETE)        # every solution there is has been printed
    elif mode == "count" and wanted is None and (found or 0) > len(shown):
        say(f"fzn-backtracker: {found} solutions, the first {len(shown)} printed "
            "(an engine keeps no more)")
    sys.stdout.flush()
    return Exit.OK


def _statistics(result) -> None:
    failures = result.backtracks if result.failures is None else result.failures
    stats = {"nodes": result.nodes, "failures": failures,
             "initTime": round(result.build_s, 6), "solveTime": round(result.solve_s, 6)}
    stats.update({name: getattr(result, name) for name in ("propagations", "restarts",
                                                          "nogoods")
                  if getattr(result, name) is not None})
    for key, value in stats.items():
        print(f"%%%mzn-stat: {key}={value}")
    print("%%%mzn-stat-end")


def install(folder: str) -> int:
    """Write the solver configuration; MiniZinc then lists ``backtracker``."""
    target = Path(folder) if folder else _user_solvers()
    beside = Path(sys.executable).parent / "fzn-backtracker"     # this environment's script
    executable = str(beside) if beside.exists() else (shutil.which("fzn-backtracker")
                                                      or os.path.abspath(sys.argv[0]))
    config = solver_config(executable)
    try:
        target.mkdir(parents=True, exist_ok=True)
        path = target / "cspcompare-backtracker.msc"
        path.write_text(json.dumps(config, indent=2) + "\n")
    except OSError as exc:
        say(f"error: cannot write the solver configuration into {target}: "
            f"{exc.strerror or exc}")
        return Exit.USAGE
    print(f"wrote {path}; run models with: minizinc --solver backtracker MODEL.mzn DATA.dzn")
    return Exit.OK


def solver_config(executable: str) -> dict:
    """The ``.msc`` contents: this executable, and the library of native globals."""
    return {"id": SOLVER_ID, "name": "backtracker", "version": "1.0",
            "mznlib": str(mznlib_folder()), "executable": executable,
            "tags": ["cp", "int"], "stdFlags": ["-a", "-n", "-s", "-t", "-r", "-p", "-f"],
            "supportsFzn": True, "needsSolns2Out": True}


def mznlib_folder() -> Path:
    """The project's MiniZinc library: the globals the model has natively."""
    return Path(str(resources.files("puzzles.formats.minizinc") / "mznlib"))


def _user_solvers() -> Path:
    """Where MiniZinc looks for a user's solver configurations (Linux and macOS)."""
    return Path.home() / ".minizinc" / "solvers"


def entry_point() -> None:
    """The console script."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
