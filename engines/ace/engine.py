"""ACE, the reference XCSP3 solver (Java), run as an executable on the model written as XCSP3.

A model is written by ``engines.ace.writer`` and solved by ``java -Xmx.. -jar
ACE-*.jar FILE.xml``; ACE's ``v <instantiation>`` lines name every model variable,
so its answers are judged like any engine's. A model translated from an XCSP3
file runs that file itself in ``first`` mode, and in ``count`` mode when it has
no auxiliary variable (``engines.ace.instance``).
The jar is the one the PyPI package pycsp3 ships (``pycsp3/solvers/ace``),
found without importing pycsp3. See docs/engines.md, "ace".
"""
from __future__ import annotations

import glob
import importlib.util
import os
import re
import resource
import tempfile
import time
from dataclasses import dataclass, replace
from functools import lru_cache

from engines.ace import instance as own
from engines.ace.writer import FALSE, constraint_lines, write
from engines.base import Engine
from engines.contract import MODES, Outcome, Status
from engines.external import (
    ExecutableMissing,
    find_executable,
    jvm_heap_flag,
    missing_reason,
    run_solver,
)
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Table,
)

JAVA_HINT = "Debian package default-jre-headless"
# ACE searches on one thread; a serial collector keeps the JVM's garbage collection
# on that thread too, as every other engine runs on one core. The JVM's other
# reservations (class space, code cache, metaspace; 1.3 GB of address space by default)
# and glibc's malloc arenas are kept small, so it starts under an inherited
# address-space cap (a worker's under --memory-limit) with the heap ``heap_flag`` gives.
JVM = ("-XX:+UseSerialGC", "-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=64m",
       "-XX:MaxMetaspaceSize=128m")
NON_HEAP_MB = 512          # address space the JVM needs beside its heap, with JVM's flags
NO_LIMIT_S = 10 * 24 * 3600.0
# Every run: all model variables kept and printed (ACE drops variables in no constraint
# and fixes isolated ones to an arbitrary value by default), each solution as it is found,
# in plain XML, without colours.
COMMON = ("-xe", "-xc=false", "-npc", "-omv=false", "-riv=false")
# ``lexfirst``: depth-first in variable order, least value first, one run (no restarts)
# with no cutoff (one run stops at the cutoff, 10 failures by default, answering UNKNOWN),
# no last-conflict reordering, variables fixed by preprocessing kept (ACE 2.6 fails an
# assertion when it drops them all): the first solution is the lexicographically least.
LEXICO = ("-varh=Lexico", "-valh=First", "-r_n=1", f"-r_c={2**63 - 1}", "-lc=0", "-dsp=false")
VALUES = re.compile(r"<list>(.*?)</list>\s*<values>(.*?)</values>")
FOUND = re.compile(r"^d FOUND SOLUTIONS\s+([\d,]+)", re.MULTILINE)   # "60,000"


def heap_flag(memory_mb: int) -> str:
    """``-Xmx`` for ``memory_mb`` (``jvm_heap_flag``), lowered to fit the address-space
    cap this process passes on to its children, when it has one."""
    heap = int(jvm_heap_flag(memory_mb)[4:-1])
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        heap = min(heap, max(16, soft // (1 << 20) - NON_HEAP_MB))
    return f"-Xmx{heap}m"


@lru_cache(maxsize=1)
def ace_jar() -> str | None:
    """The ACE jar inside the installed pycsp3 package (the newest version), or None;
    looked up once per process (every result names its version)."""
    spec = importlib.util.find_spec("pycsp3")        # finds the package, runs none of it
    for root in (spec.submodule_search_locations or []) if spec else []:
        jars = glob.glob(os.path.join(root, "solvers", "ace", "ACE-*.jar"))
        if jars:
            return max(jars, key=lambda jar: [int(part) if part.isdigit() else -1
                                              for part in jar_version(jar).split(".")])
    return None


def jar_version(jar: str) -> str:
    """``2.6`` of ``.../ACE-2.6.jar``."""
    return os.path.basename(jar)[len("ACE-"):-len(".jar")]


class AceEngine(Engine):
    name = "ace"
    library = "pycsp3"
    modes = frozenset(MODES)
    constraint_kinds = frozenset({AllDifferent, Linear, NotEqualOffset, Table, ReifiedLinear,
                                  Clause, Element, Arith, AllDifferentList})
    # ACE holds values in Java ints (32 bits) and sums in longs.
    value_range = (31, "ACE's range (32-bit Java integers)")
    option_defaults = {"memory_mb": 2048}
    in_default_set = False

    @classmethod
    def validate_options(cls, options) -> None:
        cls.require_ints(options, ("memory_mb",), {"memory_mb": 64})

    @classmethod
    def unavailable_reason(cls) -> str:
        if ace_jar() is None:
            return "the ACE jar is not installed (pip install pycsp3: pycsp3/solvers/ace)"
        return missing_reason("java", JAVA_HINT)

    @classmethod
    def available(cls) -> bool:
        return not cls.unavailable_reason()

    @classmethod
    def version(cls) -> str:
        jar = ace_jar()
        return jar_version(jar) if jar else "missing"

    def solve(self, model: Model, mode: str = "first", limit: int = 2,
              timeout: float | None = None):
        """The base's; the instance's own file runs where ``own.runs_instance`` says, the
        written model everywhere else."""
        if model.source is not None and not own.runs_instance(model, mode):
            model = replace(model, source=None)
        return super().solve(model, mode, limit, timeout)

    def translate(self, model: Model):
        if own.runs_instance(model, "first"):        # ``solve`` kept the source: run it
            return OwnInstance(model)
        structure = model.structure
        if not structure.size:        # nothing for ACE to read: each constraint is decided
            holds = all(constraint_lines(c, ()) != FALSE for c in structure.constraints)
            return None, holds
        return write(model), structure.size

    def search(self, translated, mode: str, limit: int, deadline: float | None) -> Outcome:
        if isinstance(translated, OwnInstance):
            return self._search_instance(translated.model, mode, limit, deadline)
        text, size = translated
        if text is None:              # a model of no variable: ``size`` says if it holds
            found = [()] if size else []
            return Outcome(Status.SOLVED if size else Status.UNSAT, found,
                           len(found) if mode == "count" else None)
        left = NO_LIMIT_S if deadline is None else deadline - time.perf_counter()
        if left <= 0:
            return Outcome(Status.TIMEOUT, count=0 if mode == "count" else None)
        wanted = max(1, limit) if mode == "count" else 1
        with tempfile.TemporaryDirectory(prefix="ace-") as folder:
            path = os.path.join(folder, "model.xml")
            with open(path, "w") as handle:
                handle.write(text)
            done = self._run(path, mode, wanted, left)
        names = tuple(f"x{i}" for i in range(size))
        outcome = read_outcome(done, lambda listed, values: model_solution(names, listed,
                                                                           values),
                               mode, wanted)
        outcome.stats["ran"] = "translation"
        return outcome

    def _search_instance(self, model: Model, mode: str, limit: int,
                         deadline: float | None) -> Outcome:
        """ACE on the instance's own file; its answer completed in the model."""
        left = NO_LIMIT_S if deadline is None else deadline - time.perf_counter()
        if left <= 0:
            return Outcome(Status.TIMEOUT, count=0 if mode == "count" else None)
        wanted = max(1, limit) if mode == "count" else 1
        with tempfile.TemporaryDirectory(prefix="ace-") as folder:
            path = own.write_xml(model.source.files[0], folder)
            arrays = own.declared(path)
            done = self._run(path, mode, wanted, left)
        outcome = read_outcome(done, lambda listed, values: own.instance_solution(
            model, own.named_values(listed, values, arrays)), mode, wanted)
        outcome.stats["ran"] = "instance"
        solutions, message = [], ""
        for solution in outcome.solutions:
            if mode == "count" and None in solution:
                raise RuntimeError("ACE left an instance variable out of a solution it counted")
            try:
                values, message = own.completed(model, solution, deadline, outcome.stats)
            except TimeoutError:
                return Outcome(Status.TIMEOUT, count=0 if mode == "count" else None,
                               stats=outcome.stats, message=own.COMPLETION_TIMEOUT)
            solutions.append(values)
        return replace(outcome, solutions=solutions, message=message or outcome.message)

    def _run(self, path: str, mode: str, wanted: int, left: float):
        """``java -jar ACE.jar PATH`` with the mode's options, the time ``left`` and the
        engine's memory."""
        jar = ace_jar()
        if jar is None:
            raise ExecutableMissing(self.unavailable_reason())
        java = find_executable("java", JAVA_HINT)
        options = [*COMMON, f"-s={wanted}", f"-t={max(1, int(left * 1000))}"]
        if mode == "lexfirst":
            options += LEXICO
        memory = self.options["memory_mb"]
        return run_solver([java, heap_flag(memory), *JVM, "-jar", jar, path, *options],
                          timeout_s=left, memory_mb=memory, limit_address_space=False,
                          env={**os.environ, "MALLOC_ARENA_MAX": "2"})


@dataclass(frozen=True)
class OwnInstance:
    """The translation of a model ACE solves through its instance's own file."""
    model: Model


def model_solution(names: tuple[str, ...], listed: str, values: str) -> tuple[int, ...]:
    """A solution of the written model: every ``x{i}`` by name."""
    by_name = dict(zip(listed.split(), map(int, values.split())))
    return tuple(by_name[name] for name in names)


def read_outcome(done, decode, mode: str, wanted: int) -> Outcome:
    """ACE's answer from its output: the solutions printed, each read by
    ``decode(LIST, VALUES)`` from its ``<instantiation>``, then ``s ...``."""
    solutions, seen = [], set()
    verdict = None
    for line in done.stdout.splitlines():
        if line.startswith("v "):
            found = VALUES.search(line)
            if found is None:
                continue
            solution = decode(found.group(1), found.group(2))
            if solution in seen:
                raise RuntimeError("ACE printed one solution twice")
            seen.add(solution)
            solutions.append(solution)
        elif line.startswith("s "):
            verdict = line[2:].strip()
    stats = {"ace_wall_s": round(done.wall_s, 4)}
    if done.peak_rss_mb is not None:
        stats["ace_peak_rss_mb"] = round(done.peak_rss_mb, 1)
    count = len(solutions) if mode == "count" else None
    if done.stdout_dropped and mode == "count":     # the middle of a long listing is gone
        found = FOUND.search(done.stdout)
        if found is not None:
            count = int(found.group(1).replace(",", ""))
        elif done.limit_status() is None:          # stopped by a limit: what was read counts
            raise RuntimeError("ACE's listing was cut and its count is missing")
    limited = done.limit_status()
    if limited is not None and (count or len(solutions)) < wanted:
        return Outcome(limited, solutions, count, stats=stats)
    complete = any(line.strip() == "d COMPLETE EXPLORATION" for line in done.stdout.splitlines())
    if solutions and ((count or len(solutions)) >= wanted or complete):
        return Outcome(Status.SOLVED, solutions, count, stats=stats)
    if verdict == "UNSATISFIABLE" and not solutions:
        return Outcome(Status.UNSAT, [], count, stats=stats)
    if verdict in ("UNKNOWN", "SATISFIABLE") and "ERROR" not in done.stdout:
        return Outcome(Status.TIMEOUT, solutions, count, stats=stats)    # ACE's own -t
    tail = " ".join((done.stderr or done.stdout).split())[-300:]
    raise RuntimeError(f"ACE ended with {done.ended} and no verdict: {tail}")
