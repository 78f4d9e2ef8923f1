"""What every command shares: the exit codes and the usage error (defined once, in
``compare.errors``), the exit code of a report, argument types.
"""
from __future__ import annotations

import argparse
import difflib
import math
import re
import shlex
import sys

from compare.errors import Exit, UsageError  # noqa: F401  (every command finds them here)
from compare.limits import FAIL_ON, RANGES, range_text


def report_exit(report, allow_errors: bool = False, fail_on=()) -> Exit:
    """A report's exit code: wrong answers first, then tasks that gave no answer, then
    what ``--fail-on`` names (timeouts, unsupported tasks, missing results)."""
    if not report.clean:
        return Exit.PROBLEMS
    if report.failures and not allow_errors:
        return Exit.ERRORS
    if report.verdict.fails_on(fail_on):
        return Exit.ERRORS
    return Exit.OK


def fail_on(text: str) -> tuple[str, ...]:
    """An argparse type: ``--fail-on timeout,incomplete``, each word checked."""
    words = tuple(w.strip() for w in text.split(",") if w.strip())
    wrong = [w for w in words if w not in FAIL_ON]
    if wrong or not words:
        hint = suggest(wrong[0], FAIL_ON) if wrong else ""
        raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(FAIL_ON)}{hint}")
    return words


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """``--shift-ms``, ``--allow-errors`` and ``--fail-on``: what a report's ratios and
    exit code depend on, the same for a run and for ``report`` rebuilding one."""
    parser.add_argument("--shift-ms", type=setting("shift_ms"), metavar="MS",
                        help="shift added to every time in the paired ratios (default: a tenth "
                             "of the baseline's median time in the run)")
    parser.add_argument("--allow-errors", action="store_true",
                        help="exit 0 even when tasks errored, crashed or ran out of memory")
    parser.add_argument("--fail-on", type=fail_on, default=(), metavar="LIST",
                        help="also exit 4 when any task ends so: comma-separated from "
                             f"{', '.join(FAIL_ON)} (e.g. --fail-on timeout for CI)")


def suggest(name: str, known) -> str:
    """' (did you mean X?)' for a near miss among ``known``, else ''."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def say(message: str) -> None:
    """One line on stderr, even when the message spans several."""
    print(" ".join(str(message).split()), file=sys.stderr)


def say_fault(err: Exception) -> None:
    """A fault on stderr: one line, or the block another tool printed (``ToolReport``:
    MiniZinc's compiler), under a first line naming the input."""
    report = getattr(err, "report", None)
    if isinstance(report, str) and "\n" in report.strip():
        print(f"error: {err.source}: {report.splitlines()[0]}", file=sys.stderr)
        print("\n".join(report.strip().splitlines()[1:]), file=sys.stderr)
    else:
        say(f"error: {err}")


def shell_word(arg: str) -> str:
    """``arg`` quoted for a shell, on one line and shown as it is: a word with a newline,
    a control or direction character (U+202E) or a byte that is not UTF-8 becomes a
    ``$'...'`` word with those escaped (``\\n``, ``\\u202e``, ``\\xff``), so a recorded
    command line can be read, and pasted, as the user typed it."""
    if arg.isprintable():
        return shlex.quote(arg)
    out = []
    for ch in arg:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:          # a byte that is not UTF-8 (surrogate escape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, f"\\x{code:02x}"))
        else:
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def command_line(prefix: str, argv) -> str:
    """The command as a shell would run it again: ``prefix`` and each argument quoted."""
    return " ".join([prefix, *map(shell_word, argv)])


def in_range(kind, low, high):
    """An argparse type: a finite number from ``low`` to ``high``, both included."""
    def shown(value) -> str:
        return f"{int(value):_}" if kind is int or float(value).is_integer() else f"{value:g}"

    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be a finite number")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range ({shown(low)}..{shown(high)})")
        return value
    parse.__name__ = kind.__name__
    return parse


def setting(name: str):
    """The argparse type of a numeric run setting, with its range from ``limits``."""
    return in_range(*RANGES[name])


def seconds_of_ms(value: float | None) -> float | None:
    """A millisecond option (``--shift-ms``) in seconds; None stays None (not given)."""
    return None if value is None else value / 1000


def add_settings(parser: argparse.ArgumentParser, options) -> None:
    """Numeric options from ``(flag, setting, metavar, help[, default])`` rows: the type
    and the range in the help both come from ``limits``, so they cannot drift apart."""
    for flag, name, metavar, text, *default in options:
        parser.add_argument(flag, type=setting(name), metavar=metavar,
                            default=default[0] if default else None,
                            help=f"{text}; range {range_text(name)}")


class OneLineParser(argparse.ArgumentParser):
    """Usage errors in one line and exit 2, as every other bad input, with a
    "did you mean" for a near miss of a choice or an option name."""

    def error(self, message: str):
        self.exit(Exit.USAGE, f"{self.prog}: error: {' '.join(message.split())}"
                              f"{self._near_miss(message)} (see {self.prog} --help)\n")

    def _near_miss(self, message: str) -> str:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            return suggest(choice[1], re.findall(r"'([^']*)'", choice[2]))
        unknown = re.search(r"unrecognized arguments: (\S+)", message)
        if unknown and unknown[1].startswith("--"):
            return suggest(unknown[1].split("=")[0], self._option_string_actions)
        return ""
