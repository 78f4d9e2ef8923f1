"""Test-only engines, registered when this module is imported.

Worker processes import it through ``COMPARE_ENGINE_PLUGINS=tests.fake_engines``
so the harness can be driven into its fault paths:

* ``fake``   : a small correct solver (static order, ascending values), so
  harness tests do not depend on the real engines' speed;
* ``fake-wrong`` : answers ``fake``'s solution with two blanks swapped, a wrong grid;
* ``fake-sleep`` : ignores the deadline and sleeps, so the worker must be killed;
* ``fake-crash`` : ``os._exit(1)`` on any puzzle but the warm-up ones;
* ``fake-error`` : raises on any puzzle but the warm-up ones (status ``error``);
* ``fake-unsat`` : claims every puzzle but the warm-up ones unsatisfiable, an
  answer only the cross-check between engines can refute;
* ``fake-nap``   : ``fake`` after a nap of ``nap`` seconds (default 0.1), so a
  run lasts long enough to be killed half-way;
* ``fake-doomed`` : fine in the parent, but kills any worker process that builds it;
* ``fake-hog``   : allocates ``mb`` megabytes (default 2048) in 64 MB steps, touching
  every page (with ``pause`` seconds between steps), then answers as ``fake``;
* ``fake-raise`` : raises RuntimeError in the middle of a solve;
* ``fake-exit``  : calls ``sys.exit(0)`` in the middle of a solve;
* ``fake-odd-stats`` : answers as ``fake`` with statistics that cannot be pickled,
  or (``big=1``) with 8 MB of them;
* ``fake-stall`` : ``fake``, but naps ``nap`` seconds (default 2) on puzzles from
  line ``line`` (default 30) of a file, so one task of a chunk runs long;
* ``fake-compile`` : ``fake``, but its first model of each grid size in a process
  takes ``nap`` seconds (default 3) to translate, as a first numba compile does
  (only models of more than ``above`` variables, default 0: all of them);
  with ``cache=DIR`` that compile is kept in ``DIR`` as numba's disk cache is:
  the engine names it as its preparation while ``DIR`` lacks it, ``prepare``
  fills it (``broken=1``: raises instead), and ``DIR/log`` has a line per
  compile and per preparation;
* ``fake-odd``   : ``fake``, but its result has the odd values ``ODD[field]`` on
  puzzles whose line number is a multiple of ``every`` (default 1: all of them);
* ``fake-slowed`` : ``fake`` after a nap of ``nap`` seconds (default 0.01) plus
  ``$FAKE_EXTRA_NAP_S``, so runs of the same engine label can differ in speed.
* ``fake-spin`` : the backtracker (so it answers any kind), but in a solver process
  it ignores SIGTERM and spins forever in the hook ``hook`` names: ``import`` (its
  library's import, on the first translate in a process), ``translate``, ``search``,
  ``warmup`` (the start-up warm-up's grids only) or ``prepare`` (a one-off
  preparation it always asks for). It declares no compile on first use.
"""
from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import time

import numpy as np

import engines
from engines import Engine, Outcome, Status
from engines.backtracking.engine import BacktrackingEngine
from engines.contract import timed_out
from puzzles.model import AllDifferent


class FakeEngine(Engine):
    name = "fake"
    library = ""

    def translate(self, model):
        n = model.structure.size
        peers = [set() for _ in range(n)]
        for con in model.structure.constraints:
            if isinstance(con, AllDifferent):
                for v in con.vars:
                    peers[v].update(con.vars)
        for v in range(n):
            peers[v].discard(v)
        return model, [sorted(p) for p in peers]

    def search(self, translated, mode, limit, deadline):
        model, peers = translated
        domains = model.domains()
        values = [d[0] if len(d) == 1 else 0 for d in domains]
        blanks = [v for v, d in enumerate(domains) if len(d) != 1]
        want = limit if mode == "count" else 1
        found, nodes = [], 0
        stack = [(0, iter(domains[blanks[0]]) if blanks else iter(()))]
        if not blanks:
            found.append(tuple(values))
            stack = []
        while stack:
            if timed_out(deadline):
                return Outcome(Status.TIMEOUT, found, len(found), nodes)
            depth, choices = stack[-1]
            var = blanks[depth]
            for value in choices:
                if all(values[p] != value for p in peers[var]):
                    values[var] = value
                    nodes += 1
                    if depth + 1 == len(blanks):
                        found.append(tuple(values))
                        if len(found) >= want:
                            return _done(found, mode, nodes)
                        continue
                    stack.append((depth + 1, iter(domains[blanks[depth + 1]])))
                    break
            else:
                values[var] = 0
                stack.pop()
        return _done(found, mode, nodes)


def _done(found, mode, nodes):
    status = Status.SOLVED if found else Status.UNSAT
    return Outcome(status, found, len(found) if mode == "count" else None, nodes)


class _FaultyEngine(FakeEngine):
    """Correct on the warm-up puzzles (workers solve those first), faulty on the rest."""

    def search(self, translated, mode, limit, deadline):
        if translated[0].name == "warm-up":
            return super().search(translated, mode, limit, deadline)
        return self.misbehave(translated, mode, limit, deadline)

    def misbehave(self, translated, mode, limit, deadline):
        raise NotImplementedError


class WrongEngine(_FaultyEngine):
    name = "fake-wrong"

    def misbehave(self, translated, mode, limit, deadline):
        outcome = FakeEngine.search(self, translated, mode, limit, deadline)
        blanks = [v for v, d in enumerate(translated[0].domains()) if len(d) != 1]
        if outcome.solutions and len(blanks) >= 2:
            sol = list(outcome.solutions[0])
            a, b = next((a, b) for a in blanks for b in blanks if sol[a] != sol[b])
            sol[a], sol[b] = sol[b], sol[a]
            outcome.solutions[0] = tuple(sol)
        return outcome


class SleepEngine(_FaultyEngine):
    name = "fake-sleep"

    def misbehave(self, translated, mode, limit, deadline):
        time.sleep(3600)


class CrashEngine(_FaultyEngine):
    name = "fake-crash"

    def misbehave(self, translated, mode, limit, deadline):
        os._exit(1)


class ErrorEngine(_FaultyEngine):
    name = "fake-error"

    def misbehave(self, translated, mode, limit, deadline):
        raise RuntimeError("this engine always fails")


class UnsatEngine(_FaultyEngine):
    name = "fake-unsat"

    def misbehave(self, translated, mode, limit, deadline):
        return Outcome(Status.UNSAT, [], 0 if mode == "count" else None)


class NapEngine(_FaultyEngine):
    name = "fake-nap"
    option_defaults = {"nap": 0.1}

    def misbehave(self, translated, mode, limit, deadline):
        time.sleep(self.options["nap"])
        return FakeEngine.search(self, translated, mode, limit, deadline)


class DoomedEngine(FakeEngine):
    name = "fake-doomed"

    def __init__(self, **options):
        if multiprocessing.parent_process() is not None:
            os._exit(3)
        super().__init__(**options)


class HogEngine(_FaultyEngine):
    name = "fake-hog"
    option_defaults = {"mb": 2048, "pause": 0.0}

    def misbehave(self, translated, mode, limit, deadline):
        held = []
        for _ in range(self.options["mb"] // 64):
            held.append(bytearray(64 * 1024 * 1024))
            time.sleep(self.options["pause"])
        outcome = FakeEngine.search(self, translated, mode, limit, deadline)
        outcome.stats["held_mb"] = 64 * len(held)
        return outcome


class RaiseEngine(_FaultyEngine):
    name = "fake-raise"

    def misbehave(self, translated, mode, limit, deadline):
        raise RuntimeError("fake-raise always fails")


class ExitEngine(_FaultyEngine):
    name = "fake-exit"

    def misbehave(self, translated, mode, limit, deadline):
        sys.exit(0)


class OddStatsEngine(_FaultyEngine):
    name = "fake-odd-stats"
    option_defaults = {"big": 0}

    def misbehave(self, translated, mode, limit, deadline):
        outcome = FakeEngine.search(self, translated, mode, limit, deadline)
        if self.options["big"]:
            outcome.stats["dump"] = "x" * (8 * 1024 * 1024)
        else:
            outcome.stats["callback"] = lambda: None     # no pickle takes a lambda
        return outcome


class StallEngine(FakeEngine):
    name = "fake-stall"
    option_defaults = {"nap": 2.0, "line": 30}

    def search(self, translated, mode, limit, deadline):
        if translated[0].name.endswith(f":{self.options['line']}"):
            time.sleep(self.options["nap"])
        return super().search(translated, mode, limit, deadline)


class CompileEngine(FakeEngine):
    name = "fake-compile"
    compiles_on_first_use = True
    option_defaults = {"nap": 3.0, "cache": "", "above": 0, "broken": 0}
    compiled: set = set()

    def translate(self, model):
        size = model.structure.size
        if size > self.options["above"] and size not in self.compiled:
            self.compiled.add(size)
            if not self._cached():
                self._log("compile")
                time.sleep(self.options["nap"])
        return super().translate(model)

    def preparation(self):
        if self.options["cache"] and not self._cached():
            return "compiling fake-compile"
        return None

    def prepare(self):
        self._log("prepare")
        if self.options["broken"]:
            raise OSError("no room left on the device")
        time.sleep(self.options["nap"])
        with open(os.path.join(self.options["cache"], "compiled"), "w"):
            pass

    def _cached(self) -> bool:
        return bool(self.options["cache"]) and os.path.exists(
            os.path.join(self.options["cache"], "compiled"))

    def _log(self, what: str) -> None:
        if self.options["cache"]:
            with open(os.path.join(self.options["cache"], "log"), "a") as handle:
                handle.write(f"{what} {os.getpid()}\n")


class SlowedEngine(FakeEngine):
    name = "fake-slowed"
    option_defaults = {"nap": 0.01}

    def search(self, translated, mode, limit, deadline):
        time.sleep(self.options["nap"] + float(os.environ.get("FAKE_EXTRA_NAP_S", "0")))
        return super().search(translated, mode, limit, deadline)


# What ``fake-odd`` puts in its results, by ``field``: the first group cannot be
# stored and makes the result an error naming the field; the second is
# normalised (numpy numbers, text, stats keys) and the answer stands.
ODD = {
    "count": {"count": 10 ** 30},
    "nodes": {"nodes": math.nan},
    "count-text": {"count": "5"},
    "backtracks": {"backtracks": -1},
    "status": {"status": "maybe"},
    "build_s": {"build_s": math.inf},
    "solve_s": {"solve_s": "fast"},
    "solutions": {"solutions": [("x", "y")]},
    "stats-type": {"stats": ["not", "a", "dict"]},
    "numpy": {"nodes": np.int64(7), "backtracks": np.uint32(2), "solve_s": np.float32(0.001)},
    "stats": {"stats": {1: 2, "a": np.int64(3), (1, 2): math.nan, "s": {4, 5},
                        "deep": {"x": np.array([1, 2])}}},
    "message": {"message": "odd \udcff text\x00"},
}


class OddEngine(FakeEngine):
    name = "fake-odd"
    option_defaults = {"field": "count", "every": 1}
    option_choices = {"field": tuple(ODD)}

    def solve(self, model, mode="first", limit=2, timeout=None):
        result = super().solve(model, mode, limit, timeout)
        line = model.name.rsplit(":", 1)[-1]
        if line.isdigit() and int(line) % self.options["every"] == 0:
            for key, value in ODD[self.options["field"]].items():
                setattr(result, key, value)
        return result


class SpawnEngine(_FaultyEngine):
    name = "fake-spawn"
    option_defaults = {"session": 0, "orphan": 0, "hang": 0}

    def misbehave(self, translated, mode, limit, deadline):
        import subprocess
        mark = os.environ.get("FAKE_SPAWN_MARK", "fake-spawn")
        sleeper = [sys.executable, "-c", "import time; time.sleep(600)", mark]
        if self.options["orphan"]:        # the shell exits at once, its child lives on
            subprocess.run(["/bin/sh", "-c", " ".join(f"'{a}'" for a in sleeper) + " &"],
                           check=True)
        else:
            subprocess.Popen(sleeper, start_new_session=bool(self.options["session"]))
        if self.options["hang"]:
            time.sleep(3600)
        return FakeEngine.search(self, translated, mode, limit, deadline)


SPIN_HOOKS = ("import", "translate", "search", "warmup", "prepare")


def _spin() -> None:
    """Hang as a runaway library does: deaf to SIGTERM, busy, forever."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        pass


class SpinEngine(BacktrackingEngine):
    name = "fake-spin"
    option_defaults = {**BacktrackingEngine.option_defaults, "hook": "search"}
    option_choices = {**BacktrackingEngine.option_choices, "hook": SPIN_HOOKS}
    imported = False            # the library's import, once per process

    def _in(self, hook: str) -> bool:
        return (self.options["hook"] == hook
                and multiprocessing.parent_process() is not None)   # never the caller

    def preparation(self):
        return "spinning" if self.options["hook"] == "prepare" else None

    def prepare(self):
        if self._in("prepare"):
            _spin()

    def translate(self, model):
        if self._in("import") and not SpinEngine.imported:
            _spin()
        SpinEngine.imported = True
        if self._in("translate") or (self._in("warmup") and model.name.startswith("warm-up")):
            _spin()
        return super().translate(model)

    def search(self, translated, mode, limit, deadline):
        if self._in("search"):
            _spin()
        return super().search(translated, mode, limit, deadline)


for _cls in (FakeEngine, WrongEngine, SleepEngine, CrashEngine, ErrorEngine, UnsatEngine,
             NapEngine, DoomedEngine, HogEngine, RaiseEngine, ExitEngine, OddStatsEngine,
             StallEngine, CompileEngine, OddEngine, SlowedEngine, SpawnEngine, SpinEngine):
    engines.register(_cls.name, _cls)
