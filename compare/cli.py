"""Sub-command dispatch for ``run_compare.py``.

``solve`` answers one puzzle (judge style); everything else is the comparison
run. Each sub-command module exposes ``main(argv) -> exit code``.
"""
from __future__ import annotations

import sys

SUBCOMMANDS = {
    "solve": "compare.solve_cli",
    "generate": "compare.generate_cli",
    "engines": "compare.engines_cli",
    "report": "compare.report_cli",
    "bench": "compare.bench_cli",
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    import importlib
    if argv and argv[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[argv[0]])
        return module.main(argv[1:])
    from compare import run
    return run.main(argv)
