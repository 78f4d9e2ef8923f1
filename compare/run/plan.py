"""A comparison run, validated and planned before anything is written or started.

The settings say what a run computes (``compare.settings.RunSettings``, checked
when made); ``--resume`` takes them from the store so a continued run is the
same run. Everything else the user named (the engines' registry names and
options, baseline, puzzles, output folder) is checked here, so a typo costs
nothing and a bad request never touches an existing folder.
"""
from __future__ import annotations

import hashlib
import os
import platform
import shlex
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable

import engines
from compare.errors import CompareError, Exit
from compare.executors import executor_for
from compare.executors.base import Executor, WorkerSetup, warmup_note
from compare.executors.tasks import PuzzleRecord, build_tasks, formulation_hint, sample_per_origin
from compare.limits import SettingsError, check_setting
from compare.plugins import plugin_environment, plugin_hint
from compare.run import provenance as environment
from compare.run.calibration import Calibration, taken
from compare.run.progress import counted
from compare.run.runner import execute, puzzle_digest, record_digest
from compare.settings import RunSettings
from compare.store.folder import RunFolder, check_out
from puzzles.base import Puzzle
from puzzles.kinds.default_set import default_puzzle_files
from puzzles.loader import load_puzzles, puzzle_paths

API_ORIGIN = "<api>"       # the origin of puzzle objects handed to the Python API


class WorkersFailed(CompareError, RuntimeError):
    """No worker process could start, so the tasks left did not run (``ran`` did): exit 3."""

    exit_code = Exit.FAILED

    def __init__(self, why: str, ran: int = 0):
        super().__init__(why)
        self.ran = ran


@dataclass
class Plan:
    """A validated run: what to compute, where, and the workers already starting."""
    settings: RunSettings
    stored: bool                 # settings came from the store (resume)
    labels: list[engines.EngineSpec]     # the engines run, each in its canonical form
    identities: dict
    baseline: str | None
    executor: Executor
    run: RunFolder               # the output folder: made, locked, its store open
    workers: int
    started: float = field(default_factory=time.perf_counter)
    records: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)     # fingerprint of each input, pre-sample
    tasks: list = field(default_factory=list)
    speed: dict = field(default_factory=lambda: taken("start"))   # before the workers start

    @property
    def folder(self) -> Path:
        return self.run.path


def make_plan(asked: RunSettings, *, out: str | Path | None = None, resume: bool = False,
              workers: int | None = None, baseline: str | None = None,
              objects: Iterable[Puzzle] = (), executor: Executor | None = None) -> Plan:
    """Validate everything, load the puzzles, prepare the folder, start the workers
    (``asked`` is checked already: a ``RunSettings`` is valid once made)."""
    if workers is not None:
        workers = check_setting("workers", workers)
    folder, settings, stored = _output_and_settings(asked, out, resume)
    try:
        return _planned(folder, settings, stored, resume, workers, baseline, objects, executor)
    except BaseException:
        folder.close()             # a plan that is not made holds no connection, no lock
        raise


def _planned(folder: RunFolder, settings: RunSettings, stored: bool, resume: bool,
             workers: int | None, baseline: str | None, objects: Iterable[Puzzle],
             executor: Executor | None) -> Plan:
    labels, identities = engine_labels(settings.engines)
    chosen = _baseline(baseline, labels)
    check_out(folder.path, resume)
    if settings.memory_limit and not sys.platform.startswith("linux"):
        raise SettingsError("--memory-limit needs Linux (it reads /proc and sets RLIMIT_AS)")
    objects = {f"{API_ORIGIN}:{i + 1}": p for i, p in enumerate(objects)}
    if executor is None:
        executor = executor_for(workers=workers)
    executor.bind(worker_setup(settings, labels))      # once, whatever starts it and when
    try:
        early = not objects and _started_early(executor, settings, labels, workers)
        return _loaded(folder, settings, stored, resume, workers, chosen, labels, identities,
                       objects, executor, early)
    except BaseException:
        executor.close()
        raise


def worker_setup(settings: RunSettings, labels: list[engines.EngineSpec]) -> WorkerSetup:
    """What the run's workers are set up with: the engines, the settings their warm-up
    follows, the memory limit (``Executor.bind``)."""
    return WorkerSetup(tuple(labels), settings.mode, settings.limit, settings.formulations_run,
                       settings.memory_limit)


def _started_early(executor: Executor, settings: RunSettings,
                   labels: list[engines.EngineSpec], workers: int | None) -> bool:
    """Workers started before big puzzle files are read, so their start-up overlaps it.

    Reading 99,389 puzzles takes about 1.9 s, and a numba worker's start-up
    (imports, kernel load, warm-up) about 1.7 s. Files under ``EARLY_START_BYTES``
    together read in a blink: their workers start after, as many as the tasks
    need. The count here comes from the files' lines, which bound the puzzles.
    """
    try:
        paths = [p for name in settings.puzzles or () for p in puzzle_paths(name)]
        if sum(os.path.getsize(p) for p in paths) < EARLY_START_BYTES:
            return False
        lines = sum(_lines(p) for p in paths)
    except (OSError, ValueError):    # reading them will say what is wrong, in one line
        return False
    puzzles = min(lines, settings.sample or lines)
    tasks = puzzles * len(labels) * settings.repeat * len(settings.formulations_run)
    executor.fit(worker_count(workers, tasks, settings.memory_limit)[0])
    _cap_cluster(executor, tasks, settings.memory_limit)
    executor.start()
    return True


def _cap_cluster(executor: Executor, tasks: int, memory_limit: float | None) -> str | None:
    """A cluster the executor starts here is capped as ``--workers`` is; the note if cut."""
    local = executor.local_workers
    if not local:
        return None
    executor.local_workers, note = worker_count(local, tasks, memory_limit,
                                                asked_as=f"--cluster local:{local}")
    return note


def _lines(path: str) -> int:
    count, last = 0, b"\n"
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            count, last = count + chunk.count(b"\n"), chunk[-1:]
    return count + (last != b"\n")


def _loaded(folder: RunFolder, settings: RunSettings, stored: bool, resume: bool,
            workers: int | None, chosen: str | None, labels: list[engines.EngineSpec],
            identities: dict, objects: dict,
            executor: Executor, early: bool) -> Plan:
    records, skipped, inputs = _records(settings, objects)
    tasks = build_tasks(records, labels, settings.mode, settings.limit,
                        settings.timeout, settings.repeat,
                        list(settings.formulations) if settings.formulations else None)
    if not tasks:
        raise SettingsError(f"--formulations {','.join(settings.formulations or ())}: "
                            "no puzzle has any of them"
                            + formulation_hint(records, settings.formulations or ()))
    if stored:
        _check_unchanged(folder, records, inputs, settings.sample)
    count, note = worker_count(workers, len(tasks), settings.memory_limit)
    if note:
        print(f"note: {note}", file=sys.stderr)
    local_note = None if early else _cap_cluster(executor, len(tasks), settings.memory_limit)
    if local_note and not note:
        print(f"note: {local_note}", file=sys.stderr)
    folder.prepare(resume)
    executor.fit(count)     # made for --workers, or started on an estimate: as the tasks need
    plan = Plan(settings, stored, labels, identities, chosen, executor, folder, count,
                records=records, skipped=skipped, inputs=inputs, tasks=tasks)
    try:
        executor.start()             # workers warm up while the store is read
    except BaseException:
        executor.close()
        if not resume:
            folder.discard()
        raise
    plan.workers = executor.workers or count
    return plan


WORKER_MB = 250       # what one worker may need, engines loaded and solving
EARLY_START_BYTES = 1 << 20    # puzzle files this big start their workers before reading


def worker_count(asked: int | None, tasks: int, memory_limit: float | None,
                 asked_as: str | None = None) -> tuple[int, str | None]:
    """Workers to start: as asked (default: one per core), but no more than there are
    tasks or than available memory holds; a note when an explicit request is cut
    (``asked_as`` names the request, ``--workers N`` by default)."""
    wanted = asked or os.cpu_count() or 1
    count, why = wanted, []
    if tasks < count:
        count = tasks
        why.append(f"{tasks} task{'' if tasks == 1 else 's'}")
    available = available_mb()
    if available is not None:
        each = max(WORKER_MB, memory_limit or 0)
        fits = max(1, int(available // each))
        if fits < count:
            count = fits
            why.append(f"{available / 1024:.1f} GB of memory available, about "
                       f"{each:.0f} MB a worker")
    count = max(1, count)
    if asked and count < asked:
        return count, f"{asked_as or f'--workers {asked}'} capped to {count} ({'; '.join(why)})"
    return count, None


def available_mb() -> float | None:
    """Memory available to new processes (psutil's ``available``: Linux's
    ``MemAvailable``, and its equivalent elsewhere), where the system says."""
    return environment.available_memory_mb()


def run_plan(plan: Plan, command: str, progress: bool = False, announce: bool = False) -> dict:
    """Run the missing tasks; every finished result is in the store at once."""
    with plan.run:                  # every result committed, the folder let go at the end
        try:
            timing = _run_stored(plan, command, progress, announce)
        finally:
            plan.executor.close()   # also when the store or the user stopped the run
    failed = plan.executor.gave_up
    if failed:
        raise WorkersFailed(failed, timing["results"])
    return timing


def _run_stored(plan: Plan, command: str, progress: bool, announce: bool) -> dict:
    store = plan.run.store
    if not plan.stored:
        store.set_meta("config", _config(plan, command))
        store.set_meta("inputs", plan.inputs)
    store.set_meta("skipped", plan.skipped)     # lines added since may be bad ones
    store.set_meta("planned", dict(Counter(t.engine for t in plan.tasks)))
    done = store.done_keys()
    todo = [t for t in plan.tasks if t.key not in done]
    plan.executor.fit(len(todo))           # resuming: perhaps a few tasks left
    if announce:
        _announce(plan, todo)
    sessions = store.meta("environment", [])
    session = environment.at_start(dict(plan.identities.values()), full_command(command))
    store.set_meta("environment", sessions + [session])
    speed = Calibration(store.meta("calibration"), len(sessions) + 1, plan.speed)
    interrupted = True
    try:
        timing = execute(todo, {r.puzzle_id: r for r in plan.records}, plan.executor,
                         store, plan.identities, progress, plan.started,
                         plan.settings.repeat_timeouts, speed.between)
        interrupted = False
        speed.sample("end")
    finally:
        store.set_meta("environment", sessions + [environment.at_end(session, interrupted)])
        store.set_meta("calibration", speed.stored())
    timing["workers"] = min(plan.workers, max(1, len(todo)))
    store.set_meta("runs", store.meta("runs", []) + [timing])
    return timing


# ----- settings and output folder ---------------------------------------------------
def _output_and_settings(asked: RunSettings, out,
                         resume: bool) -> tuple[RunFolder, RunSettings, bool]:
    """The output folder and the run settings (from the store when resuming)."""
    if not resume:
        return RunFolder.new(out), asked, False
    folder = RunFolder.resumed(out)
    try:
        saved = RunSettings.from_stored(folder.settings)
    except SettingsError:
        folder.close()
        raise
    clash = saved.differences(asked)
    if clash:
        folder.close()
        raise SettingsError(f"--resume: {', '.join('--' + k for k in clash)} differ from "
                            f"the run in {folder.path}; drop them or use another --out")
    return folder, saved, True


def _check_unchanged(run: RunFolder, records: list[PuzzleRecord], inputs: dict,
                     sample: int | None) -> None:
    """A resumed run refuses inputs whose puzzles differ from those its results answer.

    A puzzle edited, moved, or now an invalid line (its old results would stay
    beside a "skipped" note) is refused; puzzles only added run as new tasks.
    A sampled run refuses any change to a sampled file: the same seed would
    draw other puzzles, and the store would hold two draws.
    """
    restore = ("restore the input, or start a new run with another --out")
    folder, stored, before_inputs = run.path, run.puzzles, run.meta("inputs")
    if sample and before_inputs:
        moved = [origin for origin, print_ in inputs.items()
                 if origin in before_inputs and before_inputs[origin] != print_]
        if moved:
            raise SettingsError(f"--resume: {moved[0]} changed since the sampled run in "
                                f"{folder} began; --sample {sample} would now draw other "
                                f"puzzles than its stored results answer: {restore}")
    now = {r.puzzle_id: r for r in records}
    changed = [r for r in records if stored.get(r.puzzle_id, {}).get("digest")
               and stored[r.puzzle_id]["digest"] != record_digest(r)]
    gone = [row for pid, row in stored.items()
            if pid not in now and row.get("origin") in inputs]
    if changed:
        first = changed[0]
        where = f"{first.origin}, line {first.line}" if first.line else first.origin
        raise SettingsError(f"--resume: {len(changed)} puzzle(s) changed since the run in "
                            f"{folder} began (first: {where}); its stored results answer the "
                            f"old ones: {restore}")
    if gone:
        first = gone[0]
        where = f"{first['origin']}, line {first['line']}" if first.get("line") else first["origin"]
        raise SettingsError(f"--resume: {len(gone)} puzzle(s) of the run in {folder} are no "
                            f"longer valid in its input (first: {where}); their stored "
                            f"results answer lines that are gone: {restore}")


# ----- engines --------------------------------------------------------------------------
def engine_labels(specs: Iterable[engines.EngineSpec] | None
                  ) -> tuple[list[engines.EngineSpec], dict]:
    """The engines in their canonical form (the label their results carry), validated
    here so a typo costs nothing."""
    labels, identities = [], {}
    for spec in specs or engines.default_specs():
        try:
            engine = engines.get_engine(spec)
        except engines.UnknownEngine as err:
            raise SettingsError(str(err) + ("" if err.suggestion else
                                            plugin_hint("engine"))) from None
        except engines.EngineOptionError as err:
            raise SettingsError(str(err)) from None
        except ImportError as exc:
            raise SettingsError(f"engine {spec.label!r} is not installed here ({exc})") from None
        if not engine.available():
            raise SettingsError(f"engine {spec.label!r} is not installed here")
        if engine.label not in identities:
            labels.append(engine.spec)
            identities[engine.label] = (engine.library or "builtin", engine.version())
    if not labels:
        raise SettingsError("no engine to run")
    return labels, identities


def _baseline(wanted: str | None, labels: list[str]) -> str | None:
    if not wanted:
        return None
    try:
        label = engines.get_engine(engines.EngineSpec.parse(wanted)).label
    except (engines.UnknownEngine, engines.EngineOptionError, ImportError) as err:
        raise SettingsError(f"--baseline: {err}") from None
    if label not in labels:
        raise SettingsError(f"--baseline {wanted} is not among the engines run "
                            f"({', '.join(labels)})")
    return label


# ----- puzzles ----------------------------------------------------------------------------
def _records(settings: RunSettings,
             objects: dict) -> tuple[list[PuzzleRecord], list[str], dict]:
    """Every valid puzzle (sampled); bad lines are reported, kept for the report, skipped.

    Also a fingerprint of each input as read, before sampling: a resumed
    sampled run draws the same puzzles only from the same input.
    """
    good, skipped, seen, inputs = [], [], {}, {}
    names = settings.puzzles or ([] if objects else default_puzzle_files())
    for arg in dict.fromkeys(p for name in names for p in puzzle_paths(name)):
        fingerprint = hashlib.sha256()
        for entry in load_puzzles(arg, settings.format, refer=True):
            fingerprint.update(f"{entry.id}\0{entry.line}\0".encode())
            note = entry.puzzle.load_note() if entry.puzzle is not None else None
            if note:
                print(f"loaded: {note}", file=sys.stderr)
            if entry.error is None:
                digest = puzzle_digest(entry.puzzle)
                fingerprint.update(digest.encode() + b"\n")
                good.append((arg, (entry.id, entry.puzzle, entry.line, digest)))
                continue
            fingerprint.update(b"invalid\n")
            skipped.append(str(entry.error))
            print(f"skipped: {entry.error}", file=sys.stderr)
        inputs[arg] = fingerprint.hexdigest()[:24]
    for pid, puzzle in objects.items():
        good.append((API_ORIGIN, (puzzle.name or pid, puzzle, int(pid.rsplit(":", 1)[1]), "")))
    records = []
    for arg, (eid, puzzle, line, digest) in sample_per_origin(good, settings.sample,
                                                              settings.seed):
        pid = _unique_id(eid, arg, seen)
        source = (puzzle.source or pid) if line else (puzzle.family or arg)
        records.append(PuzzleRecord(pid, puzzle, source, arg, line, digest))
    if not records:
        raise SettingsError("no valid puzzle to run")
    return records, skipped, inputs


def _unique_id(pid: str, origin: str, seen: dict[str, str]) -> str:
    """``stem:line``, told apart when two files share a stem (``a/x.txt``, ``b/x.txt``)."""
    candidate, number = pid, 1
    while candidate in seen and seen[candidate] != origin:
        number += 1
        candidate = f"{pid}#{number}"
    seen[candidate] = origin
    return candidate


# ----- bookkeeping --------------------------------------------------------------------------
def full_command(command: str) -> str:
    """The command with the plugin variables it needs, so it pastes and reruns."""
    return "".join(f"{k}={shlex.quote(v)} " for k, v in plugin_environment().items()) + command


def _config(plan: Plan, command: str) -> dict:
    return {"settings": plan.settings.to_stored(), "baseline": plan.baseline,
            "workers": plan.workers, "engines_run": [label.label for label in plan.labels],
            "plugin_env": plugin_environment(),
            "command": full_command(command),
            "started": datetime.now().isoformat(timespec="seconds"),
            "machine": f"{platform.platform()}, {os.cpu_count()} cores, "
                       f"Python {platform.python_version()}"}


def _announce(plan: Plan, todo) -> None:
    """The header: tasks counted as the verdict counts them, repeats said apart."""
    done, repeats = len(plan.tasks) - len(todo), plan.settings.repeat
    print(f"{len(plan.records)} puzzles x {len(plan.labels)} engines "
          f"({', '.join(plan.labels)}): {counted(len(plan.tasks) // repeats, repeats)}"
          + (f", {done} of {len(plan.tasks)} task runs already done" if done else "")
          + f"; {plan.workers} workers" + warmup_note(plan.labels)
          + f"; output {plan.folder}", file=sys.stderr)
