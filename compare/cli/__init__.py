# PYTHON_ARGCOMPLETE_OK
"""The command line: ``run_compare.py [COMMAND] ...`` (also ``csp-compare``).

One argparse parser: the comparison's options, and the sub-commands as
subparsers, so ``--help`` lists them and shell completion (argcomplete)
knows them. Each sub-command module exposes ``build_parser()`` and
``main(argv) -> exit code`` and is imported only when chosen, so ``solve``
starts without pandas and matplotlib; with no sub-command the comparison
runs. Plugins (``COMPARE_PLUGINS``) are loaded here once, before any command
looks up an engine or a puzzle kind: first in a child process held to the
workers' start limit, so one that never finishes importing is one line.

A reader that stops early (``run_compare.py engines | head -1``) ends the
command quietly with exit 141, as a shell reports a process killed by SIGPIPE.
A standard stream the command was started without (``>&-``, ``2>&-``, ``<&-``)
is taken as /dev/null, so no file the command opens can land on its number:
a closed stderr loses the messages, never the run; a closed stdout is a
reader that has gone (the command finishes, and exits 141 if it had something
to print there and no fault of its own); a closed stdin is empty input, which
``solve`` refuses in one line (exit 2).
"""
from __future__ import annotations

import importlib
import io
import os
import signal
import sys
import threading

from compare.cli.common import Exit, OneLineParser, say
from compare.errors import FAULTS, exit_code
from compare.plugins import load_plugins, plugin_list
from compare.store.files import STORAGE_ERRNOS, storage_fault

# name -> (module, one line for --help); each module is imported when chosen.
COMMANDS = {
    "solve": ("compare.cli.solve", "one puzzle, judge style (BOJ 2239 / 2580 output)"),
    "generate": ("compare.cli.generate", "seeded, unique Sudoku puzzles"),
    "engines": ("compare.cli.engines", "engines and backends: installed, versions, options"),
    "kinds": ("compare.cli.kinds", "puzzle kinds: their specs and formulations"),
    "report": ("compare.cli.report", "rebuild a report, or compare two runs"),
    "bench": ("compare.cli.bench", "a benchmark file (default benchmarks/sudoku.toml)"),
}
SUBCOMMANDS = {name: module for name, (module, _) in COMMANDS.items()}
PIPE_CLOSED = 128 + signal.SIGPIPE if hasattr(signal, "SIGPIPE") else 1


def build_parser(full: bool = False):
    """The top-level parser: the comparison's options and the commands; ``full`` gives
    each command its own options too (for completion, which then imports them all), and
    engine specs and formulations their completers.

    The usage line says the command is optional: with none, the comparison runs
    with the options listed."""
    from compare.cli.run_args import build_parser as run_parser
    parser = run_parser()
    parser.usage = "%(prog)s [COMMAND] [options]"
    _add_commands(parser, full)
    if full:
        from compare.cli.completion import attach
        attach(parser)
    return parser


def command_parser():
    """The commands alone: picks one without importing the comparison's modules, so
    ``solve`` runs where only the engines and puzzles can be imported."""
    parser = OneLineParser(prog="run_compare.py", add_help=False)
    _add_commands(parser, full=False)
    return parser


def _add_commands(parser, full: bool) -> None:
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     title="commands (run_compare.py COMMAND --help)")
    for name, (module, text) in COMMANDS.items():
        parents = [importlib.import_module(module).build_parser()] if full else []
        commands.add_parser(name, help=text, add_help=False, parents=parents,
                            conflict_handler="resolve")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lost = closed_streams_to_null()
    code = _main(argv)
    if lost is not None and lost.said and code == Exit.OK:
        return PIPE_CLOSED            # what it printed went nowhere, as into a closed pipe
    return code


def _main(argv: list[str]) -> int:
    terminate_like_interrupt()
    try:
        load_plugins(within=_start_limit() if plugin_list() else None)
    except FAULTS as err:            # a plugin that cannot be found or fails to import
        say(f"error: {err}")
        return exit_code(err)
    except KeyboardInterrupt:        # Ctrl-C while a plugin was importing
        say("interrupted")
        return Exit.INTERRUPTED
    try:
        code = _dispatch(argv)
        sys.stdout.flush()           # a closed pipe is found here, not at exit
        return code
    except BrokenPipeError:
        return _pipe_closed()
    except KeyboardInterrupt:        # a command that has nothing of its own to say
        say("interrupted")
        return Exit.INTERRUPTED
    except FAULTS as err:            # any command: one line, and the fault's own exit code
        say(f"error: {err}")         # (a full disk 6; a damaged results file, bad input 2)
        return exit_code(err)
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
        say(f"error: {storage_fault(exc.filename or 'output', exc)}")
        return Exit.STORAGE


def _start_limit() -> float:
    """The workers' start limit, which the plugins' import here is held to as well
    (imported only when there are plugins: the executors are no concern otherwise)."""
    from compare.executors.base import start_limit
    return start_limit()


def _dispatch(argv: list[str]) -> int:
    """The sub-command argparse finds, given the rest of the line as it was typed (its
    own parser reads it); with none, the comparison."""
    if "_ARGCOMPLETE" in os.environ:
        try:
            import argcomplete
        except ImportError:
            return Exit.USAGE
        argcomplete.autocomplete(build_parser(full=True))
    if argv and not argv[0].startswith("-"):
        command = command_parser().parse_args(argv[:1]).command   # else "did you mean"
        return importlib.import_module(COMMANDS[command][0]).main(argv[1:])
    if {"-h", "--help"} & set(argv):
        build_parser().parse_args(argv)          # the help, with the commands listed
    _forkserver_ahead(argv)
    return importlib.import_module("compare.cli.run").main(argv)


def _forkserver_ahead(argv: list[str]) -> None:
    """A local run's forkserver starts now: it imports the harness's modules in its own
    process while this one imports the comparison's (pandas, the plan), so the first
    worker forks from a ready server. Not for a cluster; after a usage error it ends
    with this process."""
    if {"--executor", "--cluster", "--scheduler"} & {a.split("=")[0] for a in argv}:
        return
    from compare.executors import start_ahead  # here: the other commands need none of it
    start_ahead()


def entry_point() -> int:
    """The process's entry point (``run_compare.py``, ``csp-compare``): ``main``, and an
    interrupted command ends at once.

    Once the interrupted command has kept what it finished and said so, the
    interpreter's own teardown (a garbage collection over every module
    loaded: pandas, SciPy, numba, the solver libraries) would keep the user
    waiting several seconds more on a busy machine, for nothing: the stores
    are closed, the workers stopped. The streams are flushed and the process
    ends there.
    """
    code = main()
    if code == Exit.INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    return code


def _pipe_closed() -> int:
    """stdout's reader is gone: nothing more can be said there, and nothing on exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return PIPE_CLOSED


class LostOutput(io.TextIOWrapper):
    """stdout when the command was started without one: /dev/null, noting whether
    anything was printed (the command then ends as if its reader had gone)."""

    said = False

    def write(self, text: str) -> int:
        self.said = self.said or bool(text)
        return super().write(text)


def closed_streams_to_null() -> LostOutput | None:
    """Give fds 0, 1 and 2 /dev/null where the command was started without them, and
    Python's missing ``sys.stdout`` and ``sys.stderr`` streams on it. ``sys.stdin`` stays
    None: input that is not there is refused where it is read. Returns the new stdout,
    if there was none."""
    for fd, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, flags)      # takes the lowest free number: fd
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")   # noqa: SIM115
    if sys.stdout is not None:
        return None
    sys.stdout = LostOutput(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)
    return sys.stdout


def terminate_like_interrupt() -> None:
    """SIGTERM (``kill``, a batch system's time limit) stops a command as Ctrl-C does.

    Every command already handles ``KeyboardInterrupt`` by keeping what is
    finished, saying so in one line and exiting 130; the default SIGTERM
    action would instead end the process on the spot.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt
