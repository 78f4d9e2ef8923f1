"""Per-puzzle verdicts: wrong answers, and engines that disagree.

The checker has judged each answer alone (``verified``). Here the engines are
compared per puzzle and mode, across formulations (answers are decoded, so a
formulation cannot hide a difference):

* the same status: one engine's verified solution refutes another's
  "unsatisfiable";
* the same solution where it must be the same: ``lexfirst`` mode, or a
  puzzle shown unique (a complete count of 1);
* the same count, among engines that finished counting.

Timeouts, errors, crashes and unsupported modes carry no answer, so they are
never disagreements. Each finding carries a command a user can paste.

They are not silent either: ``failures`` lists the tasks that errored,
crashed or ran out of memory, since a run where an engine always raises has
checked nothing about it. ``model_only`` names the kinds the checker could
judge only against the CSP model the engines solved (no rules of their own
registered), where a wrong model would pass unnoticed.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass

from compare.judge.rulebook import rules_for
from compare.judge.rules import BUILTIN  # noqa: F401  (registers the built-in judges)
from engines import ANSWERED_WORDS, FAILED_WORDS, Status

# The judge's words: an answer checked and found right or wrong (a wrong answer shows
# WRONG in place of its status), and the two kinds of finding.
VERIFIED, WRONG = "verified", "wrong"
UNANSWERED = "no answer"    # a task whose status carries none (a timeout, a crash...)
WRONG_ANSWER, DISAGREEMENT = "wrong answer", "disagreement"


@dataclass
class Finding:
    kind: str               # WRONG_ANSWER or DISAGREEMENT
    puzzle_id: str
    mode: str
    engines: list[str]
    detail: str
    reproduce: str

    def line(self) -> str:
        return (f"{self.kind.upper()}: {self.puzzle_id} ({self.mode}) "
                f"{', '.join(self.engines)}: {self.detail}")


@dataclass
class Failure:
    engine: str
    status: str             # error, crashed or memout
    count: int
    message: str            # the first such task's message

    def line(self) -> str:
        return f"{self.engine}: {self.status} x{self.count} (first: {self.message or 'no message'})"


def failures(frame) -> list[Failure]:
    """Tasks that gave no answer because the engine or its worker failed."""
    failed = frame[frame["status"].isin(FAILED_WORDS)]
    found = []
    for (engine, status), group in failed.groupby(["engine", "status"], sort=False):
        message = " ".join(str(group["message"].dropna().iloc[0]).split()) if (
            group["message"].notna().any()) else ""
        found.append(Failure(engine, status, len(group), _short(message, 160)))
    return found


def model_only(kinds) -> list[str]:
    """The kinds among ``kinds`` without rules of their own: judged on the model only."""
    return sorted(str(k) for k in set(kinds) if rules_for(k) is None)


def findings(frame, puzzles: dict[str, dict], env: dict[str, str] | None = None) -> list[Finding]:
    """Every wrong answer and disagreement in a results frame.

    ``env`` holds the variables the run was started with that a pasted
    command needs too (the plugin list and its PYTHONPATH).
    """
    found: list[Finding] = []
    wrong = frame[frame["verified"].eq(False).fillna(False)]
    for row in wrong.drop_duplicates(["puzzle_id", "formulation", "engine", "mode"]).itertuples():
        found.append(Finding(WRONG_ANSWER, row.puzzle_id, row.mode,
                             [_who(row.engine, row.formulation, frame)], row.reason,
                             reproduce(puzzles.get(row.puzzle_id), [row.engine], row.mode,
                                       row.limit, row.formulation, env)))
    good = frame[frame["status"].isin(ANSWERED_WORDS) & frame["verified"].eq(True).fillna(False)]
    for (pid, mode), group in _suspects(good):
        detail = _disagreement(group, mode)
        if detail:
            names = sorted(set(group["engine"]))
            forms = sorted(set(group["formulation"]))
            found.append(Finding(DISAGREEMENT, pid, mode,
                                 sorted({_who(r.engine, r.formulation, frame)
                                         for r in group.itertuples()}),
                                 detail, reproduce(puzzles.get(pid), names, mode,
                                                   int(group["limit"].iloc[0]),
                                                   forms[0] if len(forms) == 1 else None,
                                                   env)))
    return found


def _suspects(good):
    """Groups (puzzle, mode) that differ in status, count or answer: a cheap first cut."""
    keys = ["puzzle_id", "mode"]
    spread = good.groupby(keys, sort=False).agg(
        statuses=("status", "nunique"), counts=("count", "nunique"),
        answers=("answer", "nunique"))
    odd = spread[(spread[["statuses", "counts", "answers"]] > 1).any(axis=1)]
    if odd.empty:
        return []
    flagged = good.set_index(keys).loc[odd.index].reset_index()
    return flagged.groupby(keys, sort=False)


def _who(engine: str, formulation: str, frame) -> str:
    """An engine label, with the formulation when the run had several."""
    if frame["formulation"].nunique() > 1:
        return f"{engine} [{formulation}]"
    return engine


def _disagreement(group, mode: str) -> str | None:
    statuses = set(group["status"])
    if len(statuses) > 1:
        sat = _names(group[group["status"] == Status.SOLVED.value])
        unsat = _names(group[group["status"] == Status.UNSAT.value])
        return f"{unsat} say unsatisfiable, {sat} found a verified solution"
    if mode == "count":
        counts = group.dropna(subset=["count"]).groupby("count")
        if counts.ngroups > 1:
            return "counts differ: " + "; ".join(
                f"{int(c)} by {_names(g)}" for c, g in counts)
    unique = mode == "lexfirst" or (mode == "count" and group["count"].eq(1).all())
    answers = group.dropna(subset=["answer"]).groupby("answer", sort=False)
    if unique and answers.ngroups > 1:
        why = "lexfirst" if mode == "lexfirst" else "the puzzle is unique"
        parts = [f"{_names(g)} gave {_short(a)}" for a, g in answers]
        return f"different solutions where {why}: " + "; ".join(parts)
    return None


def _names(rows) -> str:
    return "/".join(sorted(set(rows["engine"]))) or "none"


def _short(answer: str, width: int = 24) -> str:
    return answer if len(answer) <= width else answer[:width] + "..."


def reproduce(puzzle: dict | None, engines: list[str], mode: str, limit: int,
              formulation: str | None, env: dict[str, str] | None = None) -> str:
    """A one-line shell command that runs the engines on this puzzle alone."""
    prefix = "".join(f"{name}={shlex.quote(value)} " for name, value in (env or {}).items())
    if puzzle is None:
        return "(puzzle not recorded)"
    extra = f" --mode {mode}" + (f" --limit {limit}" if mode == "count" else "")
    if formulation and formulation != (puzzle.get("formulations") or "").split(",")[0]:
        extra += f" --formulation {shlex.quote(formulation)}"
    text, origin = puzzle.get("text"), puzzle.get("origin")
    if text and puzzle.get("line") == 0:
        feed, solve = "", f"solve --puzzle {shlex.quote(text)}"
    elif text:
        feed, solve = f"echo {shlex.quote(text)} | ", "solve --format line"
    else:
        names = ",".join(engines)
        return (f"{prefix}python run_compare.py --puzzles {shlex.quote(origin)} "
                f"--engines {shlex.quote(names)}{extra.replace(' --formulation', ' --formulations')}")
    if len(engines) == 1:
        return f"{feed}{prefix}python run_compare.py {solve} --engine {shlex.quote(engines[0])}{extra}"
    loop = " ".join(shlex.quote(e) for e in engines)
    return (f"for e in {loop}; do {feed}{prefix}python run_compare.py {solve} "
            f"--engine \"$e\"{extra}; done")
