"""The Python API: one call runs a comparison; the command line is a thin layer on it.

    from compare import run_comparison
    comparison = run_comparison(["puzzles/samples/boj2239.txt", "queens:8"],
                                engines=["backtracking", "cpsat"], mode="lexfirst")
    comparison.results          # one row per task (pandas)
    comparison.by_engine        # the summary table
    comparison.write_report()   # summary.md, results.csv, plots in comparison.folder

It works from a plain script or a notebook, with no ``__main__`` guard:
worker processes never re-run the caller's script. When no worker can
start it raises ``WorkersFailed`` instead of returning results that say
nothing.

Arguments are checked where they enter, in the API's words: one path (a
``str`` or ``Path``) where a list is taken is a list of one; an empty list
is refused (None means the default); a value of a type an argument does not
take is an ``ArgumentError`` (a ``SettingsError`` and a ``TypeError``)
naming the argument and what it takes.
"""
from __future__ import annotations

import math
import os
import re
import reprlib
import shlex
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Sequence

from compare.errors import ArgumentError, ClusterError
from compare.executors import executor_for
from compare.executors.base import Executor
from compare.judge.verdict import failures, findings
from compare.limits import RANGES
from compare.plugins import PluginError, load_plugins
from compare.reporting import summary
from compare.reporting.history import History, HistoryError
from compare.reporting.history import history as _history
from compare.reporting.report import Report, build_report
from compare.reporting.runs import RunDiff
from compare.reporting.runs import compare_runs as _compare_runs
from compare.reporting.summary import natural_key
from compare.run.plan import SettingsError, WorkersFailed, make_plan, run_plan
from compare.settings import RunSettings
from compare.store.folder import RunFolder
from engines import EngineSpec
from puzzles.base import Puzzle

__all__ = ["ArgumentError", "ClusterError", "Comparison", "History", "PluginError", "RunDiff", "SettingsError",
           "WorkersFailed", "compare_runs", "history", "natural_key", "open_comparison",
           "run_comparison"]


@dataclass
class Comparison:
    """A run's output folder, read back as tables; the store is the truth."""
    folder: Path
    baseline: str | None = None
    shift_ms: float | None = None   # the paired ratios' shift (``--shift-ms``); None: the run's

    def __post_init__(self):
        self.folder = Path(_path("folder", self.folder))
        _name("baseline", self.baseline)
        _shift("shift_ms", self.shift_ms)

    @cached_property
    def run(self) -> RunFolder:
        """The folder, read through one store connection."""
        return RunFolder(self.folder)

    @cached_property
    def results(self):
        """Every stored task result, one row each (the columns of results.csv), puzzles
        in natural order (``:2`` before ``:10``; ``natural_key`` sorts so too)."""
        return summary.in_puzzle_order(self.run.results)

    @property
    def puzzles(self) -> dict[str, dict]:
        return self.run.puzzles

    @property
    def config(self) -> dict:
        return self.run.config

    @property
    def runs(self) -> list[dict]:
        """The timing of each session (wall time, first and last result, workers,
        warm-up), oldest first; a resume with nothing left to run records one
        with no tasks."""
        return self.run.runs

    @property
    def throughput(self):
        """Puzzles per second per engine and source, by ``solve_s`` and ``total_s``
        (formatted, as in summary.md; the sums behind them are in ``results``)."""
        return summary.throughput_table(self.results)

    @property
    def wall_rate(self) -> str | None:
        """Results per second of wall clock over the last session that had a
        rate to measure (see ``summary.wall_rate``)."""
        rates = [summary.wall_rate(run) for run in self.runs]
        return next((r for r in reversed(rates) if r), None)

    @property
    def tasks(self):
        """One row per task, repeats folded into medians, over the puzzle runs every
        engine finished (all of them, unless the run was cut short)."""
        return self.run.tasks

    @property
    def chosen_baseline(self) -> str | None:
        return summary.choose_baseline(self.tasks, self.baseline or self.config.get("baseline"))

    @property
    def shift_s(self) -> float:
        """The paired ratios' shift: ``shift_ms``, else the run's own
        (a tenth of the baseline's median time, ``summary.run_shift``)."""
        if self.shift_ms is not None:
            return self.shift_ms / 1000
        return summary.run_shift(self.tasks, self.chosen_baseline)

    @property
    def by_engine(self):
        return summary.engine_table(self.tasks, self.chosen_baseline, shift_s=self.shift_s)

    @property
    def by_source(self):
        return summary.engine_table(self.tasks, self.chosen_baseline, by=["source"],
                                    shift_s=self.shift_s)

    @property
    def by_family(self):
        """Per family (the puzzle's name up to its first ``-``) and engine, as report.html."""
        tasks = self.tasks.assign(family=self.tasks["puzzle_id"].map(summary.family))
        return summary.engine_table(tasks, self.chosen_baseline, by=["family"],
                                    shift_s=self.shift_s)

    @property
    def problems(self) -> list:
        """Wrong answers and disagreements, each with a command that reproduces it."""
        return findings(self.results, self.puzzles, self.config.get("plugin_env"))

    @property
    def failures(self) -> list:
        """Tasks that errored, crashed or ran out of memory, per engine and status."""
        return failures(self.results)

    @property
    def ok(self) -> bool:
        return not self.problems

    def write_report(self, quiet: bool = True) -> Report:
        """summary.md, report.html, results.csv (and .parquet), meta.json and the plots,
        in ``folder``."""
        return build_report(self.run, self.baseline, quiet,
                            None if self.shift_ms is None else self.shift_ms / 1000)


def run_comparison(puzzles: Iterable[str | Path | Puzzle] | None = None,
                   engines: Sequence[str] | str | None = None, *,
                   mode: str | None = None, limit: int | None = None,
                   timeout: float | None = None, repeat: int | None = None,
                   workers: int | None = None, sample: int | None = None,
                   seed: int | None = None, formulations: Sequence[str] | str | None = None,
                   format: str | None = None, memory_limit: float | None = None,
                   repeat_timeouts: bool | None = None, out: str | Path | None = None,
                   resume: bool = False, baseline: str | None = None,
                   plugins: str | Sequence[str] | None = None,
                   executor: Executor | str | None = None, scheduler: str | None = None,
                   cluster=None, chunk: int | None = None, progress: bool = False,
                   announce: bool = False, command: str | None = None) -> Comparison:
    """Run engines on puzzles, check every answer, store every result.

    ``puzzles``: file paths, specs (``queens:8``) or puzzle objects, or one of
    them alone (default: the embedded default set). ``engines``: engine specs, a
    list or one comma text (default: every installed engine). An empty list is
    refused: None asks for the default. The other settings mean what the command-line flags
    of the same names mean, with the same defaults (``first`` mode, limit 2,
    10 s, three repeats, a worker per core, no memory limit; a task that
    timed out is not run again on later repeats unless ``repeat_timeouts``). With ``resume`` the settings come
    from the run in ``out``, any given one must match it, and only its
    missing tasks run.

    ``executor``: ``"local"`` (the default: worker processes here), ``"dask"``
    (with ``scheduler`` an address, or ``cluster`` ``"local:N"`` or a Dask
    cluster object such as ``dask_jobqueue.SLURMCluster``; ``chunk`` tasks per
    Dask task, default adaptive), or an ``Executor`` such as a ``DaskExecutor``.

    ``out``: the output folder; None (the default) makes a new temporary
    folder (``tempfile.mkdtemp``), so running the call again, as a notebook
    cell is, starts afresh; ``comparison.folder`` says where it is. A
    request that cannot run raises ``SettingsError`` naming the keyword
    arguments (``out=...``); with ``command`` (the command line that started
    the run, recorded with it) it names that command's flags.
    """
    puzzles = _many("puzzles", puzzles, (str, os.PathLike, Puzzle),
                    "a path, a spec such as 'queens:8' or a Puzzle", "the default set")
    engines = _engines(engines)
    _name("baseline", baseline)
    out = None if out is None else _path("out", out)
    loaded = load_plugins(list(plugins) if plugins is not None and not isinstance(plugins, str)
                          else plugins)
    names, objects = [], []
    for item in puzzles or ():
        (objects if isinstance(item, Puzzle) else names).append(
            item if isinstance(item, Puzzle) else os.fspath(item))
    try:
        asked = RunSettings.make(
            puzzles=names or None, format=format, engines=engines, mode=mode, limit=limit,
            timeout=timeout, repeat=repeat, sample=sample, seed=seed,
            formulations=formulations, memory_limit=memory_limit,
            repeat_timeouts=repeat_timeouts)
    except SettingsError as err:
        if command is not None:         # the command line's own words
            raise
        raise SettingsError(api_wording(str(err))) from None
    if executor is None or isinstance(executor, str):
        executor = executor_for(executor, scheduler=scheduler, cluster=cluster, chunk=chunk,
                                workers=workers, plugins=loaded)
    temporary = out is None
    if temporary and resume:
        raise SettingsError("resume=True needs out=FOLDER, the folder of the run to continue")
    if temporary:
        out = Path(tempfile.mkdtemp(prefix="csp-compare-"))
    try:
        plan = make_plan(asked, out=out, resume=resume, workers=workers, baseline=baseline,
                         objects=objects, executor=executor)
    except SettingsError as err:
        if temporary:
            _remove_if_empty(out)
        if command is not None:         # the command line's own words
            raise
        raise SettingsError(api_wording(str(err))) from None
    if command is None:
        command = "python -c " + shlex.quote("from compare import run_comparison; ...")
    try:
        run_plan(plan, command, progress=progress, announce=announce)
    except KeyboardInterrupt:
        raise Interrupted(plan.folder) from None
    return Comparison(plan.folder, plan.baseline)



def api_wording(text: str) -> str:
    """A settings error in the API's words: ``--out X:`` is ``out=X:``, ``--resume``
    is ``resume=True``, any other ``--flag`` its keyword argument's name."""
    def keyword(match: re.Match) -> str:
        name = match[1].replace("-", "_")
        if name in ("resume", "allow_errors", "quiet"):
            return f"{name}=True"
        return f"{name}=" if match[2] else name
    return re.sub(r"--([a-z][a-z-]*)( (?=\S+:(?:\s|$)))?", keyword, text)


# ----- arguments, checked where they enter ------------------------------------------------
PATH_TEXT = "a folder's path (a str or a Path)"


def _refuse(name: str, value, takes: str) -> ArgumentError:
    return ArgumentError(f"{name}={reprlib.repr(value)}: takes {takes}")


def _many(name: str, value, kinds: tuple, each: str, default: str | None) -> list | None:
    """A list argument: one item alone (a list of one), a non-empty iterable of
    ``kinds``, or None where there is a ``default`` (what None asks for)."""
    takes = f"{each}, a list of them, or None for {default}" if default else \
        f"{each} or a list of them"
    if value is None:
        if default:
            return None
        raise _refuse(name, value, takes)
    if isinstance(value, kinds):
        return [value]
    if isinstance(value, (bytes, dict)) or not hasattr(value, "__iter__"):
        raise _refuse(name, value, takes)
    items = list(value)
    if not items:
        raise _refuse(name, value, f"{takes}; an empty list names none")
    for index, item in enumerate(items):
        if not isinstance(item, kinds) or (isinstance(item, str) and not item.strip()):
            raise _refuse(f"{name}[{index}]", item, each)
    return items


def _engines(value):
    """``engines``: None, one comma text, or a non-empty list of specs."""
    if isinstance(value, str):
        return value
    return _many("engines", value, (str, EngineSpec),
                 "an engine spec such as 'cpsat' or 'backtracking:variant=seed'",
                 "every installed engine")


def _path(name: str, value) -> str | os.PathLike:
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise _refuse(name, value, PATH_TEXT)
    return value


def _name(name: str, value) -> None:
    if value is not None and not isinstance(value, str):
        raise _refuse(name, value, "an engine's name (a str) or None")


def _shift(name: str, value) -> None:
    """A shift in milliseconds: None, or a finite number in the command line's range."""
    if value is None:
        return
    _, low, high = RANGES["shift_ms"]
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or not low <= value <= high):
        raise _refuse(name, value, f"milliseconds from {low:g} to {high:g}, or None for "
                                   "the run's own shift")


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run; ``folder`` holds every finished result (resume there)."""

    def __init__(self, folder: Path | None):
        super().__init__(folder)
        self.folder = folder


def compare_runs(a: str | Path, b: str | Path, shift_ms: float | None = None) -> RunDiff:
    """Run B against run A (two output folders), per engine, as ``report --compare``;
    ``shift_ms`` None: per engine, a tenth of its median time in run A."""
    _shift("shift_ms", shift_ms)
    return _compare_runs(RunFolder.existing(_path("a", a)), RunFolder.existing(_path("b", b)),
                         None if shift_ms is None else shift_ms / 1000)


def history(folders: Sequence[str | Path], baseline: str | None = None,
            shift_ms: float | None = None, relative: bool = False) -> History:
    """Runs' output folders as a series, as ``report --history``: ``.table`` has each
    run's headline ratio per engine and source and the step test against the run
    before it; ``.steps`` the flagged steps; ``.runs`` the runs in commit order.
    ``relative``: steps tested on each task's time relative to the baseline's.
    ``shift_ms`` None: each step shifted by a tenth of its engine's median time.
    One folder alone is a series of one."""
    folders = _many("folders", folders, (str, os.PathLike), PATH_TEXT, None)
    _name("baseline", baseline)
    _shift("shift_ms", shift_ms)
    runs = [RunFolder.existing(folder) for folder in folders]
    try:
        return _history(runs, baseline, None if shift_ms is None else shift_ms / 1000,
                        relative)
    except HistoryError as err:
        raise SettingsError(str(err)) from None


def open_comparison(folder: str | Path, baseline: str | None = None) -> Comparison:
    """A finished (or interrupted) run's folder, read back without running anything."""
    _name("baseline", baseline)
    return Comparison(RunFolder.existing(_path("folder", folder)).path, baseline)
