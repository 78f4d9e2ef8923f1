"""The MiniZinc solvers installed here, as ``minizinc --solvers-json`` lists them.

Asked once per process (cached): every engine instance resolves its
``solver=`` against the same list. A solver is named as MiniZinc's ``--solver``
takes it: its full id (``org.gecode.gecode``), the id's last part
(``gecode``), its name, or a tag.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from engines.contract import Unsupported
from engines.external import ExecutableMissing, find_executable, run_solver

PACKAGE_HINT = "Debian package minizinc"
LIST_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Solver:
    """One solver configuration: what the engine needs of it."""
    id: str
    name: str
    version: str
    executable: str               # "" when the solver runs inside MiniZinc (a library)
    std_flags: frozenset[str]
    tags: tuple[str, ...]
    required_flags: tuple[str, ...]
    supports_fzn: bool

    @property
    def runs_directly(self) -> bool:
        """Whether the engine runs the solver's own executable on the FlatZinc file
        (with the standard flags it needs), skipping the MiniZinc driver's start."""
        return bool(self.executable) and self.supports_fzn and {"-a", "-n", "-s"} <= \
            self.std_flags

    @property
    def short(self) -> str:
        return self.id.rsplit(".", 1)[-1]


class SolverListError(Unsupported):
    """``minizinc --solvers-json`` could not be run or read; the message says why."""


def minizinc() -> str:
    """The ``minizinc`` executable's full path, or ``ExecutableMissing`` in one line."""
    return find_executable("minizinc", PACKAGE_HINT)


@lru_cache(maxsize=1)
def installed() -> tuple[tuple[Solver, ...], str]:
    """The solvers MiniZinc lists, and MiniZinc's version; asked once per process."""
    program = minizinc()
    listing = run_solver([program, "--solvers-json"], timeout_s=LIST_TIMEOUT_S)
    if listing.returncode != 0 or listing.limit_status() is not None:
        raise SolverListError(f"minizinc --solvers-json failed ({listing.ended})")
    try:
        configs = json.loads(listing.stdout)
    except ValueError:
        raise SolverListError("minizinc --solvers-json printed no JSON list") from None
    solvers = tuple(Solver(
        id=str(c.get("id", "")), name=str(c.get("name", "")),
        version=str(c.get("version", "")), executable=str(c.get("executable", "") or ""),
        std_flags=frozenset(c.get("stdFlags", ())), tags=tuple(c.get("tags", ())),
        required_flags=tuple(c.get("requiredFlags", ())),
        supports_fzn=bool(c.get("supportsFzn", False))) for c in configs if c.get("id"))
    version = run_solver([program, "--version"], timeout_s=LIST_TIMEOUT_S)
    first = version.stdout.strip().splitlines()[:1]
    words = first[0].split() if first else []
    return solvers, (words[-1] if words and words[-1][:1].isdigit() else "unknown")


def resolve(wanted: str) -> Solver:
    """The installed solver ``wanted`` names, or ``Unsupported`` in one line: not listed
    (naming those that are), or needing a flag the engine cannot guess (a MIP
    solver's library path)."""
    solvers, _ = installed()
    key = wanted.lower()
    for match in (lambda s: s.id.lower() == key, lambda s: s.short.lower() == key,
                  lambda s: s.name.lower() == key, lambda s: key in s.tags):
        found = [s for s in solvers if match(s)]
        if found:
            solver = found[0]
            if solver.required_flags:
                raise Unsupported(f"MiniZinc solver {solver.id} needs "
                                  f"{' '.join(solver.required_flags)} (not configured here)")
            return solver
    listed = ", ".join(s.id for s in solvers) or "none"
    raise Unsupported(f"MiniZinc solver {wanted!r} is not installed "
                      f"(minizinc --solvers lists: {listed})")


def missing(wanted: str) -> str:
    """Why ``wanted`` cannot run here in one line, or "" when it can."""
    try:
        resolve(wanted)
    except (ExecutableMissing, Unsupported) as exc:
        return str(exc)
    return ""
