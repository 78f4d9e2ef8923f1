"""The run step: tasks through an executor, every result checked, every row stored.

Checking happens here in the parent, not in the workers: the checker then
never shares a process with the engine it judges, and a worker that dies
cannot take a verdict with it. It costs the parent about 0.2 ms per 9x9
answer, so an answer several engines agree on is checked once.
"""
from __future__ import annotations

import sys
import time
from datetime import datetime, timezone

from compare.harness.executor import Executor
from compare.harness.store import Store
from compare.harness.tasks import PuzzleRecord, Task
from compare.judge.checker import verify
from engines import Result, Status
from engines.base import ANSWERED

SHOUT_AT_MOST = 10     # wrong answers shouted while running; the report lists all


def puzzle_row(rec: PuzzleRecord) -> dict:
    """The puzzles-table row: enough to rebuild a reproduce command later."""
    return {"puzzle_id": rec.puzzle_id, "source": rec.source, "origin": rec.origin,
            "line": rec.line, "kind": rec.puzzle.kind, "size": rec.puzzle.size,
            "clues": rec.puzzle.clues, "formulations": ",".join(rec.puzzle.formulations),
            "text": puzzle_text(rec)}


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
               identity: tuple[str, str]) -> dict:
    """Check one result and flatten it into a results-table row."""
    puzzle = rec.puzzle
    verified, reason = _verdict(task, puzzle, result)
    status = result.status
    if status in ANSWERED and result.total_s > task.timeout and verified:
        reason = f"answered in {result.total_s:.2f} s, over the time limit; {reason}"
        status = Status.TIMEOUT
    answer = None
    if result.solutions:
        answer = answer_string(puzzle, result.solutions[0], task.formulation)
    stats = {k: v for k, v in result.stats.items() if k != "traceback"}
    return {
        "puzzle_id": task.puzzle_id, "source": rec.source, "kind": puzzle.kind,
        "size": puzzle.size, "clues": puzzle.clues, "engine": task.engine,
        "formulation": task.formulation, "mode": task.mode, "limit": task.limit,
        "timeout": task.timeout, "repeat": task.repeat, "status": str(status),
        "verified": verified if result.status in ANSWERED else None,
        "build_s": result.build_s, "solve_s": result.solve_s, "total_s": result.total_s,
        "nodes": result.nodes, "backtracks": result.backtracks,
        "library": result.library or identity[0], "version": result.version or identity[1],
        "count": result.count, "answer": answer, "reason": reason,
        "message": result.message[:500],
        "stats": _json(stats) if stats else None,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "host": result.host,
    }


_verdicts: dict[tuple, tuple[bool, str]] = {}


def _verdict(task: Task, puzzle, result: Result) -> tuple[bool, str]:
    """The checker's judgement, once per distinct answer to a puzzle.

    Engines that agree return the same solutions; the checker is a pure
    function of puzzle, formulation and answer, so the same answer is judged
    once and the judgement reused (with four engines, three checks in four).
    """
    key = (task.puzzle_id, task.formulation, task.mode, task.limit, str(result.status),
           result.count, tuple(map(tuple, result.solutions)))
    found = _verdicts.get(key)
    if found is None:
        try:
            model = puzzle.to_model(task.formulation)
            found = verify(puzzle, model, result, task.formulation, task.limit)
        except Exception as exc:     # an answer the checker cannot even read is not verified
            found = (False, f"checker could not judge it: {type(exc).__name__}: {exc}")
        _verdicts[key] = found
    return found


def _json(stats: dict) -> str:
    import json
    return json.dumps(stats, default=str, sort_keys=True)


def execute(tasks: list[Task], records: dict[str, PuzzleRecord], executor: Executor,
            store: Store, identities: dict[str, tuple[str, str]],
            progress: bool = True, started: float | None = None) -> dict:
    """Run, check and store every task; wrong answers are shouted as they come.

    Returns timing figures; ``started`` (``perf_counter``) is when the workers
    were started, so the wall time includes their start-up.
    """
    _verdicts.clear()        # keyed by puzzle id, which only names one puzzle within a run
    bar = _progress(len(tasks), progress)
    started = time.perf_counter() if started is None else started
    cpu, first, wrong, task_s = time.process_time(), None, 0, 0.0
    puzzles = {pid: rec.puzzle for pid, rec in records.items()}
    try:
        for task, result in executor.run(tasks, puzzles):
            first = first or time.perf_counter() - started
            row = result_row(task, records[task.puzzle_id], result, identities[task.engine])
            store.add(row)
            task_s += row["total_s"] or 0.0
            if row["verified"] is False:
                wrong += 1
                if wrong <= SHOUT_AT_MOST:
                    _shout(bar, f"WRONG ANSWER: {task.engine} on {task.puzzle_id} "
                                f"({task.mode}): {row['reason']}")
            if bar is not None:
                bar.update(1)
    finally:
        store.flush()
        if bar is not None:
            bar.close()
    return {"tasks": len(tasks), "wrong": wrong, "wall_s": time.perf_counter() - started,
            "first_s": first or 0.0, "task_s": task_s,
            "parent_cpu_s": time.process_time() - cpu}


def _progress(total: int, wanted: bool):
    if not wanted or not sys.stderr.isatty() or total == 0:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="task", smoothing=0.05, dynamic_ncols=True)


def _shout(bar, message: str) -> None:
    if bar is not None:
        bar.write(f"!!! {message}", file=sys.stderr)
    else:
        print(f"!!! {message}", file=sys.stderr)
