"""The verdict line: the first line of every report, on the terminal and in summary.md.

It is defined here once, from the stored results alone, so every status a
task can end in (today's and any added later) is counted in it: a line that
said "every answer was verified" over a run where half the tasks timed out
told less than the truth. It names, in this order, what went wrong (wrong
answers and disagreements), what gave no answer (errors, crashes, memouts),
what was not finished or not compared, and what ran out of time, with how
many repeats were killed while their shape was still warming up. The same
figures go to ``summary.json`` for tools.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd

from compare.facts import Fact
from compare.limits import FAIL_ON, INCOMPLETE
from compare.reporting.summary import duration, per_task
from compare.run.progress import counted
from engines import ANSWERED_WORDS, FAILED_WORDS, Status

# Verdict words, worst first; the line opens with the worst that applies.
WORDS = ("WRONG", "FAILED", "INCOMPLETE", "TIMEOUT", "OK")
RUN_WRONG, RUN_FAILED, RUN_INCOMPLETE, RUN_TIMEOUT, RUN_OK = WORDS


@dataclass
class Verdict:
    """What a run's results say, counted per task (repeats folded, see ``per_task``)."""
    tasks: int = 0                                   # tasks with a stored result
    repeats: int = 1                                 # runs of each task (--repeat)
    statuses: dict[str, int] = field(default_factory=dict)   # task status -> tasks
    wrong: int = 0                                   # wrong answers and disagreements
    missing: int = 0                                 # planned results not stored
    not_compared: int = 0                            # tasks left out of the engine tables
    warmup_kills: int = 0                            # repeats killed warming up their shape
    warmup_s: float = 0.0                            # untimed warm-up the workers paid
    warmup_retries: int = 0                          # shape warm-ups killed, their task rerun
    prepared: dict[str, float] = field(default_factory=dict)  # engine preparations: seconds

    @property
    def failed(self) -> int:
        return sum(self.statuses.get(s, 0) for s in FAILED_WORDS)

    @property
    def word(self) -> str:
        if self.wrong:
            return RUN_WRONG
        if self.failed:
            return RUN_FAILED
        if self.missing:
            return RUN_INCOMPLETE
        if self.statuses.get(Status.TIMEOUT.value):
            return RUN_TIMEOUT
        return RUN_OK

    def line(self) -> str:
        """One line: the verdict word, every status counted, and what was checked."""
        if not self.tasks:
            return "EMPTY: no results yet"
        counts = []
        for status, n in sorted(self.statuses.items(), key=lambda kv: _rank(kv[0])):
            text = f"{n} {status}"
            if status == Status.TIMEOUT.value and self.warmup_kills:
                text += (f" ({self.warmup_kills} repeat(s) killed while their shape was "
                         "warming up)")
            counts.append(text)
        parts = [f"{counted(self.tasks, self.repeats)}: " + ", ".join(counts)]
        if self.missing:
            parts.append(f"{self.missing} planned result(s) missing (continue with --resume)")
        if self.not_compared:
            parts.append(f"{self.not_compared} task(s) not compared (not finished by every "
                         "engine)")
        if self.wrong:
            parts.append(f"{self.wrong} wrong answer(s) or disagreement(s)")
        else:
            given = "every answer given was verified" if self.answered < self.tasks else \
                "every answer was verified"
            parts.append(f"{given} and the engines agree")
        if self.warmup_s:
            notes = [f"{duration(s)} of it {what}, once before the workers"
                     for what, s in self.prepared.items()]
            if self.warmup_retries:
                notes.append(f"{self.warmup_retries} shape warm-up(s) killed at their limit, "
                             "the task run again with twice the limit")
            parts.append(f"warm-up {duration(self.warmup_s)} untimed"
                         + (f" ({'; '.join(notes)})" if notes else ""))
        return f"{self.word}: " + "; ".join(parts)

    @property
    def answered(self) -> int:
        return sum(self.statuses.get(s, 0) for s in ANSWERED_WORDS)

    def fail_counts(self) -> dict[str, int]:
        """What ``--fail-on`` can name, counted: tasks per status, missing results."""
        return {word: self.missing if word == INCOMPLETE else self.statuses.get(word, 0)
                for word in FAIL_ON}

    def fails_on(self, wanted) -> list[str]:
        """The ``--fail-on`` words that apply to this run."""
        found = self.fail_counts()
        return [w for w in wanted if found.get(w)]

    def as_dict(self) -> dict:
        return {"verdict": self.word, "line": self.line(), **asdict(self)}


def _rank(status: str) -> tuple[int, str]:
    order = (*ANSWERED_WORDS, Status.TIMEOUT.value, *FAILED_WORDS, Status.UNSUPPORTED.value)
    return (order.index(status) if status in order else len(order), status)


def verdict_of(frame: pd.DataFrame, *, wrong: int = 0, planned: dict | None = None,
               compared: int | None = None, runs: list | None = None) -> Verdict:
    """The verdict over a results frame; ``compared``: the tasks the tables used."""
    if frame.empty:
        return Verdict()
    tasks = per_task(frame)
    statuses = tasks["status"].value_counts()
    stored = frame.groupby("engine").size()
    missing = sum(max(0, int(n) - int(stored.get(e, 0))) for e, n in (planned or {}).items())
    killed = int(frame["fact"].eq(Fact.WARMUP_KILLED).sum()) if "fact" in frame else 0
    repeats = int(frame["repeat"].nunique()) if "repeat" in frame else 1
    return Verdict(tasks=len(tasks), repeats=repeats,
                   statuses={str(k): int(v) for k, v in statuses.items()},
                   wrong=wrong, missing=missing,
                   not_compared=max(0, len(tasks) - compared) if compared is not None else 0,
                   warmup_kills=killed, warmup_s=warmup_seconds(runs or []),
                   warmup_retries=sum(len((r.get("warmup") or {}).get("killed", []))
                                      for r in runs or []),
                   prepared=prepared_seconds(runs or []))


def warmup_seconds(runs: list[dict]) -> float:
    """The untimed warm-up paid over every session: the workers' start-up and shapes,
    the shape warm-ups killed at their limit, and the engines' preparations."""
    total = 0.0
    for run in runs:
        warmup = run.get("warmup") or {}
        total += sum(e.get("total_s", 0.0) for part in ("start-up", "shapes")
                     for e in warmup.get(part, []))
        total += sum(e.get("seconds", 0.0) for part in ("killed", "prepared")
                     for e in warmup.get(part, []))
    return total


def prepared_seconds(runs: list[dict]) -> dict[str, float]:
    """Seconds spent on each engine preparation (``Engine.prepare``: a first compile,
    say) over every session, by what it was and how it ended."""
    found: dict[str, float] = {}
    for run in runs:
        for entry in (run.get("warmup") or {}).get("prepared", []):
            what = entry.get("preparation", "preparing an engine")
            if entry.get("outcome", "done") != "done":
                what += f" ({entry['outcome']})"
            found[what] = found.get(what, 0.0) + entry.get("seconds", 0.0)
    return found
