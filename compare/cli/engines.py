"""``run_compare.py engines``: the registered engines, whether they are installed,
their versions, modes, constraint kinds and options."""
from __future__ import annotations

from tabulate import tabulate

import engines
from compare.cli.common import OneLineParser

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


def option_lines() -> list[str]:
    """One line per engine option: its choices (or type) and its default."""
    lines = []
    for name in engines.names():
        try:
            cls = engines.engine_class(name)
        except ImportError:
            continue
        for key, default in cls.option_defaults.items():
            choices = cls.option_choices.get(key)
            kind = "|".join(map(str, choices)) if choices else type(default).__name__
            lines.append(f"  {name}:{key}={kind}  (default {default})")
    return lines


def backend_lines() -> list[str]:
    """Engines that reach several solvers (cpmpy) list each one: working or why not."""
    lines = []
    for name, info in engines.installed().items():
        for backend in info.get("backends", []):
            state = (f"yes, {backend['version']}" if backend["working"]
                     else f"no ({backend['reason'] or 'pip install ' + backend['package']})")
            lines.append(f"  {name}:solver={backend['name']}  {state}  {backend.get('what', '')}")
    return lines


def render(table: list[tuple[str, ...]], columns=COLUMNS) -> str:
    """A console table: the header, a rule of dashes, the rows (tabulate's simple format)."""
    text = tabulate(table, headers=columns, tablefmt="simple", disable_numparse=True)
    return "\n".join(line.rstrip() for line in text.splitlines())


def build_parser() -> OneLineParser:
    return OneLineParser(
        prog="run_compare.py engines",
        description="List the registered engines: installed or not, version, "
                    "modes, constraint kinds and options.")


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    print(render(rows()))
    backends = backend_lines()
    if backends:
        print("\nBackends:")
        print("\n".join(backends))
    options = option_lines()
    if options:
        print("\nOptions (engine:key=value; several as engine:a=1:b=2):")
        print("\n".join(options))
    return 0
