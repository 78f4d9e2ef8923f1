"""``run_compare.py engines``: which engines are registered, installed, and what they do."""
from __future__ import annotations

import argparse

import engines

COLUMNS = ("engine", "available", "version", "modes", "constraint kinds")


def rows() -> list[tuple[str, ...]]:
    table = []
    for name, info in engines.installed().items():
        available = "yes" if info["available"] else "no"
        if info.get("error"):
            available = f"no ({info['error']})"
        table.append((name, available, info["version"] or "-",
                      ",".join(info["modes"]) or "-",
                      ",".join(info["constraints"]) or "-"))
    return table


def render(table: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in [COLUMNS, *table]) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in [COLUMNS, *table]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(
        prog="run_compare.py engines",
        description="List the registered engines: installed or not, version, "
                    "modes and constraint kinds.").parse_args(argv)
    print(render(rows()))
    return 0
