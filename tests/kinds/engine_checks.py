"""One engine held against the brute force on a random model of the new kinds, in
every mode: what the engines' tests in this folder share."""
from __future__ import annotations

from compare.judge.checker import check_model
from engines.contract import KEEP_SOLUTIONS, Status
from puzzles.model import Model
from tests.kinds.random_models import solutions


def disagreements(engine, kind: str, seed: int, model) -> list[str]:
    """Each way the engine's answers differ from the brute force's (empty: none).

    ``first``: a solution the checker accepts, or UNSAT exactly when there is none;
    ``lexfirst``: the brute force's first solution; ``count`` with a limit above
    the number of solutions: that number, with every kept solution among them.
    """
    every = solutions(model)
    known = set(every)
    where = f"{kind} seed {seed}"
    wrong = []
    first = engine.solve(model, "first", timeout=30)
    if every:
        if first.status is not Status.SOLVED or check_model(model, first.solution) is not None:
            wrong.append(f"{where} first: {first.status} {first.solutions} {first.message}")
    elif first.status is not Status.UNSAT:
        wrong.append(f"{where} first: {first.status} {first.solutions}, want unsat")
    lex = engine.solve(model, "lexfirst", timeout=30)
    if lex.solutions[:1] != every[:1] or lex.status is not (
            Status.SOLVED if every else Status.UNSAT):
        wrong.append(f"{where} lexfirst: {lex.status} {lex.solutions[:1]}, want {every[:1]}")
    count = engine.solve(model, "count", limit=len(every) + 1, timeout=30)
    if count.count != len(every) or not set(count.solutions) <= known:
        wrong.append(f"{where} count: {count.status} {count.count}, want {len(every)} "
                     f"{count.message}")
    return wrong


TIMEOUT = 60.0     # per solve; far above what any case needs

def assert_matches_brute_force(engine, model: Model, label) -> None:
    truth = solutions(model)
    expected = Status.SOLVED if truth else Status.UNSAT
    first = engine.solve(model, "first", timeout=TIMEOUT)
    lex = engine.solve(model, "lexfirst", timeout=TIMEOUT)
    count = engine.solve(model, "count", limit=len(truth) + 5, timeout=TIMEOUT)
    assert (first.status, lex.status, count.status) == (expected,) * 3, \
        (label, first.message, lex.message, count.message)
    if truth:
        assert check_model(model, first.solution) is None, label
    assert lex.solution == (truth[0] if truth else None), label
    assert count.count == len(truth), label
    assert len(set(count.solutions)) == len(count.solutions) == min(len(truth), KEEP_SOLUTIONS)
    assert set(count.solutions) <= set(truth), label
