"""``run_compare.py kinds``: the puzzle kinds, how to name them, their formulations."""
from __future__ import annotations

from compare.cli.common import OneLineParser
from compare.cli.engines import render
from puzzles.catalog import catalog

COLUMNS = ("kind", "formulations", "origin", "file or spec")


def rows() -> list[tuple[str, ...]]:
    return [(k.name, ",".join(k.formulations) or "-", k.origin, k.syntax) for k in catalog()]


def build_parser() -> OneLineParser:
    return OneLineParser(
        prog="run_compare.py kinds",
        description="List the puzzle kinds (built-in and from COMPARE_PLUGINS): "
                    "the spec or file that names one, and its formulations "
                    "(the first is the default).")


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    print(render(rows(), COLUMNS))
    return 0
