"""The run step: tasks through an executor, every result checked, every row stored.

Checking happens here in the parent, not in the workers: the checker then
never shares a process with the engine it judges, and a worker that dies
cannot take a verdict with it. Results are checked in batches: what arrived
since the executor last paused (it yields ``None`` before it waits), at most
``BATCH`` at a time, judged together (``compare.judge.batch``, numpy over
every answer of a shape), then stored at once. One by one, in Python, the
check cost the parent about 0.2 ms per 9x9 answer and capped a fast engine
at about 1,500 verified results per second. An answer several engines
agree on is checked once.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
from datetime import datetime, timezone

from compare.executors.base import Executor
from compare.executors.tasks import PuzzleRecord, Task
from compare.facts import Fact, peak_rss_mb
from compare.judge.batch import Claim, verify_many
from compare.run.collector import collector_back, collector_quiet
from compare.run.progress import progress_bar
from compare.store.store import Store
from engines import ANSWERED, Result, Status, status_word
from puzzles.reading import shown_name

SHOUT_AT_MOST = 10     # wrong answers shouted while running; the report lists all
BATCH = 2048           # results checked and stored together, at most
STATS_MAX_CHARS = 16_384   # engine statistics kept per task, as JSON text
SOLVED, UNSAT, TIMEOUT = Status.SOLVED.value, Status.UNSAT.value, Status.TIMEOUT.value


def now_text() -> str:
    """The time a result is stored, to the second, as the results table writes it."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def puzzle_row(rec: PuzzleRecord) -> dict:
    """The puzzles-table row: enough to rebuild a reproduce command later."""
    return {"puzzle_id": rec.puzzle_id, "source": rec.source, "origin": shown_name(rec.origin),
            "line": rec.line, "kind": rec.puzzle.kind, "size": rec.puzzle.size,
            "clues": rec.puzzle.clues, "formulations": ",".join(rec.puzzle.formulations),
            "text": puzzle_text(rec), "digest": record_digest(rec)}


def puzzle_digest(puzzle) -> str:
    """A hash of the puzzle's content, so a resumed run can tell a changed input."""
    return hashlib.sha256(f"{type(puzzle).__name__}:{puzzle!r}".encode()).hexdigest()[:24]


def record_digest(rec: PuzzleRecord) -> str:
    return rec.digest or puzzle_digest(rec.puzzle)


def puzzle_text(rec: PuzzleRecord) -> str | None:
    """One line that names the puzzle on its own: a Sudoku line, or the spec."""
    text = rec.puzzle.one_line()
    if text:
        return text
    if rec.line == 0:
        return rec.origin
    return None


def answer_string(puzzle, values, formulation: str | None = None) -> str:
    """The decoded answer on one line, as the puzzle writes it.

    A malformed answer (wrong length, stray values) cannot always be decoded or
    written as a grid; the checker has already rejected it, so its raw values
    are shown instead of stopping the run.
    """
    try:
        decoded = puzzle.decode(values, formulation)
        text = puzzle.written(decoded, "line").strip()
    except Exception:
        return " ".join(map(str, values))
    return " ".join(map(str, decoded)) if "\n" in text else text


def result_row(task: Task, rec: PuzzleRecord, result: Result,
               identity: tuple[str, str], verdict: tuple[bool, str] | None = None,
               finished_at: str | None = None) -> dict:
    """Check one result (unless ``verdict`` is its check, made in a batch) and
    flatten it into a results-table row.

    ``verified`` judges the stored status: a right answer that came after the
    time limit is stored as a timeout, which carries no verdict (the reason
    keeps what the checker said); a wrong one stays wrong however late.
    """
    # Called once per result in the parent (a sweep stores 100,000): the status word
    # and total are read once, and empty stats skip the copy and the JSON.
    puzzle = rec.puzzle
    verified, reason = verdict or judge_all([(task, result)], {task.puzzle_id: rec}, {})[0]
    status = result.status
    total_s = result.build_s + result.solve_s
    answered = status in ANSWERED
    if answered and total_s > task.timeout and verified:
        reason = f"answered in {total_s:.2f} s, over the time limit; {reason}"
        status, answered = Status.TIMEOUT, False
    answer = None
    if result.solutions:
        answer = answer_string(puzzle, result.solutions[0], task.formulation)
    raw = result.stats
    stats = {k: v for k, v in raw.items() if k != "traceback"} if raw else None
    where = result.traceback or (raw.get("traceback") if raw else None) or None
    where = where if isinstance(where, str) else None
    return {
        "puzzle_id": task.puzzle_id, "source": rec.source, "kind": puzzle.kind,
        "size": puzzle.size, "clues": puzzle.clues, "engine": task.engine,
        "formulation": task.formulation, "mode": task.mode, "limit": task.limit,
        "timeout": task.timeout, "repeat": task.repeat, "status": status_word(status),
        "verified": verified if answered else None,
        "build_s": result.build_s, "solve_s": result.solve_s, "total_s": total_s,
        "nodes": result.nodes, "backtracks": result.backtracks,
        "failures": result.failures, "propagations": result.propagations,
        "restarts": result.restarts, "nogoods": result.nogoods,
        "library": result.library or identity[0], "version": result.version or identity[1],
        "count": result.count, "answer": answer, "reason": reason,
        "message": result.message[:500],
        "stats": bounded_stats(stats) if stats else None,
        "finished_at": finished_at or now_text(),
        "cpu_s": result.cpu_s, "peak_rss_mb": result.peak_rss_mb, "host": result.host,
        "traceback": where, "fact": result.fact,
        **loading_fields(result.loading),
    }


def loading_fields(loading) -> dict:
    """How the worker loaded the input (a file per instance), untimed, as columns."""
    if not loading:
        return {"parse_s": None, "translate_s": None, "loaded_from": None}
    parse_s, translate_s, source = loading
    return {"parse_s": parse_s, "translate_s": translate_s, "loaded_from": source}


class Refutations:
    """An "unsatisfiable" claim is wrong once any engine's answer to the puzzle is verified.

    The checker cannot disprove such a claim alone (there is no answer to
    check), so it passes there; the proof is another row, stored before or
    after it, in any mode or formulation (answers are decoded to the puzzle).
    A claim met after the proof is stored as wrong; one stored before it is
    marked wrong in the store when the proof arrives. Resuming, the proofs
    already stored count too.
    """

    def __init__(self, store: Store):
        self.store = store
        self.solved_by = store.solved_puzzles()
        self.claimed = store.unsat_claims()    # puzzles with a standing unsat claim

    def judge(self, row: dict) -> list[str]:
        """Adjust ``row`` before it is stored; the engines whose stored claims it refutes."""
        pid = row["puzzle_id"]
        if row["verified"] is not True:
            return []
        if row["status"] == UNSAT:
            if pid in self.solved_by:
                row["verified"] = False
                row["reason"] = _refuted(self.solved_by[pid])
            else:
                self.claimed.add(pid)
            return []
        if row["status"] == SOLVED and pid not in self.solved_by:
            self.solved_by[pid] = row["engine"]
            if pid in self.claimed:      # the store is asked only when there is a claim
                self.claimed.discard(pid)
                return self.store.refute(pid, _refuted(row["engine"]))
        return []


class PuzzleRows:
    """The puzzles table, filled in input order as results need it.

    Each batch of results is stored with the rows of every puzzle up to the
    last one it answers, in the same transaction, so a stored result always
    has its puzzle's row, and a killed run keeps both. The rest are stored at
    the end, however the run ends. Stored ahead of the run, a sweep's 100,000
    rows kept the workers waiting over a second for their first tasks.
    """

    def __init__(self, records: dict[str, PuzzleRecord], store: Store):
        self.records, self.store, self.stored = list(records.values()), store, 0
        self.position = {pid: index for index, pid in enumerate(records)}

    def before(self, batch: list[tuple[Task, Result]]) -> None:
        upto = max(self.position.get(task.puzzle_id, -1) for task, _ in batch) + 1
        self.stage(upto)

    def stage(self, upto: int) -> None:
        if upto > self.stored:
            self.store.stage_puzzles([puzzle_row(r) for r in self.records[self.stored:upto]])
            self.stored = upto

    def rest(self) -> None:
        self.stage(len(self.records))


NOT_REPEATED = "not run again: timed out on repeat"   # how a stand-in's message begins


class TimeoutsOnce:
    """A task that timed out on one repeat is a timeout on its later repeats, unrun.

    Another try would only spend the time limit again (a 10 s timeout repeated
    three times was two thirds of the default run); the stand-in result keeps
    the first timeout's times, says in its message that it did not run, and
    carries the fact (``Fact.NOT_REPEATED``) that the runner and reports count.
    Resuming, the timeouts already stored count too.
    """

    def __init__(self, store: Store | None = None):
        self.timed_out: dict[tuple, tuple[int, Result]] = {}
        for row in store.timeouts() if store is not None else ():
            key = tuple(row[k] for k in ("puzzle_id", "formulation", "engine", "mode"))
            result = Result(row["engine"], row["library"] or "", row["version"] or "",
                            row["mode"], Status.TIMEOUT, build_s=row["build_s"] or 0.0,
                            solve_s=row["solve_s"] or 0.0)
            self.timed_out.setdefault(key, (row["repeat"], result))

    def note(self, task: Task, row: dict, result: Result) -> None:
        if row["status"] == TIMEOUT and result.fact != Fact.NOT_REPEATED:
            self.timed_out.setdefault(task.key[:-1], (task.repeat, result))

    def skip(self, task: Task) -> Result | None:
        if not self.timed_out:          # asked of every task handed out: most runs have none
            return None
        found = self.timed_out.get(task.key[:-1])
        if found is None or found[0] >= task.repeat:
            return None
        repeat, first = found
        return Result(first.engine, first.library, first.version, task.mode, Status.TIMEOUT,
                      build_s=first.build_s, solve_s=first.solve_s,
                      message=f"{NOT_REPEATED} {repeat + 1} (--repeat-timeouts runs it)",
                      fact=Fact.NOT_REPEATED)


def not_repeated(frame) -> int:
    """How many stored results are stand-ins for a timeout's later repeats."""
    if "fact" not in frame or frame.empty:
        return 0
    return int(frame["fact"].eq(Fact.NOT_REPEATED).sum())


def _refuted(engine: str) -> str:
    return f"claims unsatisfiable, but {engine} found a verified solution"


def judge_all(done: list[tuple[Task, Result]], records: dict[str, PuzzleRecord],
              cache: dict) -> list[tuple[bool, str]]:
    """The checker's judgement of each result, once per distinct answer to a puzzle.

    Engines that agree return the same solutions; the checker is a pure
    function of puzzle, formulation and answer, so the same answer is judged
    once and the judgement reused (with four engines, three checks in four).
    The answers not judged before are judged together (``verify_many``). The
    cache belongs to one run: it is keyed by puzzle id, which names one puzzle
    only within a run, and two runs may go on at once in one process.
    """
    verdicts: list = [None] * len(done)
    new: dict[tuple, tuple[Claim, list[int]]] = {}
    for index, (task, result) in enumerate(done):
        key = (task.puzzle_id, task.formulation, task.mode, task.limit,
               status_word(result.status), result.count, _answers(result))
        found = cache.get(key)
        if found is not None:
            verdicts[index] = found
            continue
        waiting = new.get(key)
        if waiting is None:
            new[key] = waiting = (Claim(records[task.puzzle_id].puzzle, task.formulation,
                                        result, task.limit), [])
        waiting[1].append(index)
    if new:
        judged = verify_many([claim for claim, _ in new.values()], _model_of)
        for (key, (_, indices)), verdict in zip(new.items(), judged):
            cache[key] = verdict
            for index in indices:
                verdicts[index] = verdict
    return verdicts


def _answers(result: Result) -> tuple:
    """The answers as a key part. Whole numbers from 0 to 255 (a Sudoku's) are kept as
    ``bytes``, whose hash is computed once, not at each of the cache's look-ups."""
    solutions = result.solutions
    try:                          # tuples already (the boundary makes them so): not copied
        answers = tuple(solutions) if type(solutions) is list and all(
            type(s) is tuple for s in solutions) else tuple(map(tuple, solutions))
    except TypeError:             # not a list of sequences: judged (and refused) as it is
        return (repr(solutions),)
    try:
        return tuple(map(bytes, answers))
    except (ValueError, TypeError):
        return answers


def _model_of(claim: Claim):
    """The model the judge checks beside the rules; None where the rules check the
    whole input alone, so the parent never reads back a translation."""
    if claim.puzzle.rules_judge_alone:
        return None
    return claim.puzzle.to_model(claim.formulation)


def bounded_stats(stats: dict) -> str | None:
    """Engine statistics as JSON, cut to ``STATS_MAX_CHARS`` with a note saying so.

    Engines put what they like in ``stats``; one that put 50 MB per task made a
    250 MB results.csv. Cut, the value is still JSON: the note, the size, and
    the start of the original text as a string.
    """
    if not stats:
        return None
    text = json.dumps(stats, default=str, sort_keys=True)
    if len(text) <= STATS_MAX_CHARS:
        return text
    note = {"note": f"engine stats cut to {STATS_MAX_CHARS:,} of {len(text):,} characters",
            "keys": sorted(map(str, stats))[:20]}
    room = STATS_MAX_CHARS - len(json.dumps(note)) - 40
    note["head"] = text[:max(0, room)]
    return json.dumps(note)


def execute(tasks: list[Task], records: dict[str, PuzzleRecord], executor: Executor,
            store: Store, identities: dict[str, tuple[str, str]],
            progress: bool = True, started: float | None = None,
            repeat_timeouts: bool = False, between=None) -> dict:
    """Run, check and store every task, and the puzzles' rows (``PuzzleRows``); wrong
    answers are shouted as they come.

    Returns timing figures; ``started`` (``perf_counter``) is when the puzzles
    had been read, so the wall time includes the workers' start-up, all of it
    unless they started early, during a long read (``plan``). ``first_s`` and
    ``last_s`` (the first and last result, since then) bound the part of the
    run that wall-clock throughput is measured over: workers warm, tasks
    flowing, every answer checked here as it comes. A task that timed out is
    not run again on later repeats unless ``repeat_timeouts`` (``TimeoutsOnce``).
    ``between`` runs after each batch is stored (the calibration samples there, when due).
    """
    bar = progress_bar(len(tasks), progress,
                       "task runs" if any(t.repeat for t in tasks) else "tasks")
    started = time.perf_counter() if started is None else started
    cpu, first, last = time.process_time(), None, None
    tally = {"wrong": 0, "task_s": 0.0, "stored": 0}
    puzzles = {pid: rec.puzzle for pid, rec in records.items()}
    refutations = Refutations(store)
    once = None if repeat_timeouts else TimeoutsOnce(store)
    batch: list[tuple[Task, Result]] = []
    cache: dict = {}
    rows = PuzzleRows(records, store)

    def settle() -> None:
        """Check, store and tell the results that came in."""
        tally["settling"] = True
        rows.before(batch)
        judged = judge_all(batch, records, cache)
        now = now_text()      # the batch came in together
        for (task, result), verdict in zip(batch, judged):
            row = result_row(task, records[task.puzzle_id], result,
                             identities[task.engine], verdict, now)
            if once is not None:
                once.note(task, row, result)
            refuted = refutations.judge(row)
            store.add(row)
            tally["stored"] += 1
            if result.fact != Fact.NOT_REPEATED:    # a stand-in took no time
                tally["task_s"] += row["total_s"] or 0.0
            wrong_now = [task.engine] if row["verified"] is False else []
            for engine in wrong_now + refuted:
                tally["wrong"] += 1
                if tally["wrong"] <= SHOUT_AT_MOST:
                    reason = row["reason"] if engine in wrong_now else _refuted(task.engine)
                    _shout(bar, f"WRONG ANSWER: {engine} on {task.puzzle_id} "
                                f"({task.mode}): {reason}")
        if bar is not None:
            bar.update(len(batch))
        batch.clear()
        tally["settling"] = False

    collector_quiet()
    try:
        for done in executor.run(tasks, puzzles, skip=once.skip if once else None,
                                 pauses=True):
            if done is not None:
                last = time.perf_counter() - started
                first = first or last
                batch.append(done)
            if batch and (done is None or len(batch) >= BATCH):
                settle()
                if between is not None:
                    between()
            elif done is None and bar is not None:
                bar.tick()           # long tasks running: the time left still moves
        if batch:
            settle()
    except BaseException:
        if batch and not tally.get("settling"):
            settle()             # stopped while results waited: they are kept
        raise
    finally:
        collector_back()
        rows.rest()
        store.flush()
        if bar is not None:
            bar.close()
    return {"tasks": len(tasks), "results": tally["stored"], "wrong": tally["wrong"],
            "wall_s": time.perf_counter() - started, "first_s": first or 0.0,
            "last_s": last or 0.0, "task_s": tally["task_s"],
            "parent_cpu_s": time.process_time() - cpu, "parent_peak_rss_mb": peak_rss_mb(),
            **executor.facts()}


def _shout(bar, message: str) -> None:
    if bar is not None:
        bar.write(f"!!! {message}", file=sys.stderr)
    else:
        print(f"!!! {message}", file=sys.stderr)
