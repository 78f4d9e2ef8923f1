"""The command line: ``run_compare.py [SUBCOMMAND] ...`` (also ``csp-compare``).

Each sub-command module exposes ``main(argv) -> exit code``; with no
sub-command the comparison runs. Plugins (``COMPARE_PLUGINS``) are loaded
here once, before any command looks up an engine or a puzzle kind.
"""
from __future__ import annotations

import importlib
import sys

from compare.cli.common import Exit, say
from compare.harness.plugins import PluginError, load_plugins

# Imported by name when chosen, so ``solve`` starts (and runs, even where the
# reporting libraries are missing) without importing pandas and matplotlib.
SUBCOMMANDS = {name: f"compare.cli.{name}"
               for name in ("solve", "generate", "engines", "kinds", "report", "bench")}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        load_plugins()
    except PluginError as err:
        say(f"error: {err}")
        return Exit.USAGE
    if argv and argv[0] in SUBCOMMANDS:
        return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    return importlib.import_module("compare.cli.run").main(argv)
