"""Many answers judged at once: the checker's verdicts, vectorised with numpy.

A fast engine answers 9x9 Sudoku in tens of microseconds, and judging each
answer on its own (``checker.verify``: the model's constraints, then the
rules, in Python) cost the harness's parent about 0.2 ms: the parent, not
the engines, set the pace. Here the answers of one shape (side and
formulation) are stacked into an array and both judges run over the whole
stack in a few numpy operations:

* the rules, re-derived here from the side alone, as ``rules.sudoku`` does:
  every cell in 1..n, the givens kept, every row, column and box a
  permutation of 1..n;
* the model: every variable inside its domain and every constraint of the
  model's structure (AllDifferent, Linear, ``x != y + c``) on every answer.
  In these formulations the model's givens are the puzzle's, cell for cell,
  and the rules check above holds the answer to them.

It shares no code with any engine. Whatever it cannot take (other kinds,
the one-hot formulation, counts, several solutions, a constraint kind it
does not vectorise) goes to ``checker.verify`` one by one, and so does
every answer the stack rejects, so a rejection carries the same reason
either way. Accepting is the only thing decided here.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from math import isqrt

import numpy as np

from compare.judge.checker import SOLVED, verify
from puzzles.model import AllDifferent, Linear, NotEqualOffset

STACKED = ("alldiff", "pairwise")     # formulations whose variables are the cells
ACCEPTED = "1 solution(s) checked"    # the reason ``verify`` gives a good single answer


@dataclass
class Claim:
    """One result to judge: what ``checker.verify`` takes."""
    puzzle: object
    formulation: str
    result: object
    limit: int | None = None


def verify_many(claims: list[Claim], model_of) -> list[tuple[bool, str]]:
    """``checker.verify`` for every claim, in order; ``model_of(claim)`` builds a
    claim's model, needed only for the claims judged one by one and once per shape."""
    verdicts: list[tuple[bool, str] | None] = [None] * len(claims)
    groups: dict[tuple, list[int]] = {}
    for index, claim in enumerate(claims):
        key = _stackable(claim)
        if key is not None:
            groups.setdefault(key, []).append(index)
    for indices in groups.values():
        try:
            good = _judge_stack([claims[i] for i in indices], model_of)
        except (TypeError, ValueError, OverflowError):   # odd values: judged one by one
            continue
        for index, ok in zip(indices, good):
            if ok:
                verdicts[index] = (True, ACCEPTED)
    for index, claim in enumerate(claims):
        if verdicts[index] is None:
            verdicts[index] = _one(claim, model_of)
    return verdicts


def _one(claim: Claim, model_of) -> tuple[bool, str]:
    try:
        return verify(claim.puzzle, model_of(claim), claim.result, claim.formulation,
                      claim.limit)
    except Exception as exc:     # an answer the checker cannot even read is not verified
        return False, f"checker could not judge it: {type(exc).__name__}: {exc}"


def _stackable(claim: Claim) -> tuple | None:
    """The stack a claim joins, or None when only ``verify`` may judge it."""
    # Asked of every answer a sweep judges: an enum's word is read off ``_value_``
    # (the ``value`` property costs a microsecond), and the cheap tests go first.
    puzzle, result = claim.puzzle, claim.result
    if claim.formulation not in STACKED or getattr(puzzle, "kind", None) != "sudoku":
        return None
    status = result.status
    word = getattr(status, "_value_", None)
    if (word if word is not None else str(getattr(status, "value", status))) != SOLVED:
        return None
    solutions = result.solutions
    if result.mode == "count" or len(solutions) != 1:
        return None
    n = puzzle.n
    if len(solutions[0]) != n * n or len(puzzle.grid) != n * n:
        return None
    return n, claim.formulation


def _judge_stack(claims: list[Claim], model_of) -> np.ndarray:
    """Per claim, whether both judges accept its answer (False: ask ``verify``)."""
    n = claims[0].puzzle.n
    shape = (len(claims), n * n)
    # ``fromiter`` over the flattened answers: a third of ``np.array`` on a list of
    # tuples, which a sweep of 100,000 answers pays in the parent. Every answer has
    # n * n values (``_stackable``); a value that is no whole number raises here.
    answers = [c.result.solutions[0] for c in claims]
    if set(map(type, chain.from_iterable(answers))) != {int}:   # no bool, float, numpy scalar
        raise TypeError("not whole numbers")
    values = _stacked(answers, shape)
    givens = _stacked([c.puzzle.grid for c in claims], shape)
    good = ((values >= 1) & (values <= n)).all(axis=1)
    good &= ((givens == 0) | (givens == values)).all(axis=1)
    good &= _permutations(values, _sudoku_groups(n), n)
    return good & _model_holds(values, model_of(claims[0]).structure)


def _stacked(rows: list, shape: tuple[int, int]) -> np.ndarray:
    """Rows of whole numbers as one int64 array of ``shape``.

    Values from 0 to 255 (every Sudoku up to 255 x 255) go through ``bytes``,
    a C loop per row, five times faster than ``fromiter`` over Python ints; a
    row with any other value (or a non-integer: ``fromiter`` decides) goes
    the general way.
    """
    try:
        raw = b"".join(map(bytes, rows))
    except (ValueError, TypeError):
        flat = list(chain.from_iterable(rows))
        return np.fromiter(flat, dtype=np.int64, count=len(flat)).reshape(shape)
    return np.frombuffer(raw, dtype=np.uint8).astype(np.int64).reshape(shape)


@lru_cache(maxsize=None)
def _sudoku_groups(n: int) -> np.ndarray:
    """Rows, columns and boxes of an n x n Sudoku as cell indices, derived here."""
    box = isqrt(n)
    if box * box != n:
        raise ValueError(f"side {n} is not a square")
    cells = np.arange(n * n).reshape(n, n)
    boxes = cells.reshape(box, box, box, box).transpose(0, 2, 1, 3).reshape(n, n)
    return np.concatenate([cells, cells.T, boxes])


def _permutations(values: np.ndarray, groups: np.ndarray, n: int) -> np.ndarray:
    """Per answer, whether every group holds each of 1..n once (values already in 1..n).

    A group of n values in 1..n is a permutation when the bits ``1 << value``
    OR together to all of bits 1..n; an OR-reduce is several times cheaper
    than sorting every group, and a sweep judges 100,000 answers.
    """
    if n >= 63:
        return (np.sort(values[:, groups], axis=2) == np.arange(1, n + 1)).all(axis=(1, 2))
    bits = np.bitwise_or.reduce(np.left_shift(1, values[:, groups]), axis=2)
    return (bits == (1 << (n + 1)) - 2).all(axis=1)


def _model_holds(values: np.ndarray, structure) -> np.ndarray:
    """Per answer, whether every domain and constraint of ``structure`` holds."""
    low, high, checks = _prepared(structure)
    good = ((values >= low) & (values <= high)).all(axis=1)
    for kind, arrays in checks:
        if kind is AllDifferent:
            good &= _all_different(values[:, arrays])
        elif kind is NotEqualOffset:
            xs, ys, cs = arrays
            good &= (values[:, xs] != values[:, ys] + cs).all(axis=1)
        else:                              # Linear
            index, coeffs, op, rhs = arrays
            good &= _OPS[op](values[:, index] @ coeffs, rhs)
    return good


_PREPARED: dict[int, tuple] = {}     # id(structure) -> (structure, its arrays)


def _prepared(structure) -> tuple:
    """The structure's bounds and constraints as index arrays, made once per structure.

    Made afresh per batch they cost about 100 us: with hard puzzles a batch
    holds a few results, and this was most of their judging. The structure is
    kept beside its arrays, so its id names it for as long as the entry lives.
    """
    found = _PREPARED.get(id(structure))
    if found is not None and found[0] is structure:
        return found[1]
    low, high = _bounds(structure.domains)
    by_kind: dict[type, list] = {}
    for con in structure.constraints:
        by_kind.setdefault(type(con), []).append(con)
    checks: list[tuple] = []
    for kind, cons in by_kind.items():
        if kind is AllDifferent:
            for width in {len(c.vars) for c in cons}:
                checks.append((kind, np.array([c.vars for c in cons if len(c.vars) == width])))
        elif kind is NotEqualOffset:
            checks.append((kind, tuple(np.array([getattr(c, a) for c in cons])
                                       for a in ("x", "y", "c"))))
        elif kind is Linear:
            checks.extend((kind, (list(con.vars), np.array(con.coeffs, dtype=np.int64),
                                  con.op, con.rhs)) for con in cons)
        else:
            raise ValueError(f"{kind.__name__} is not vectorised")
    if len(_PREPARED) >= 64:               # a run meets a few shapes; never grow unbounded
        _PREPARED.clear()
    _PREPARED[id(structure)] = (structure, (low, high, checks))
    return low, high, checks


def _bounds(domains) -> tuple[np.ndarray, np.ndarray]:
    """Each variable's lowest and highest value; a domain with holes cannot be
    checked as a range (the caller then judges one by one)."""
    low = np.array([min(d) for d in domains], dtype=np.int64)
    high = np.array([max(d) for d in domains], dtype=np.int64)
    if any(len(d) != h - lo + 1 for d, lo, h in zip(domains, low.tolist(), high.tolist())):
        raise ValueError("a domain with holes")
    return low, high


def _all_different(groups: np.ndarray) -> np.ndarray:
    """Per answer (axis 0), whether each group (axis 1) has distinct values (axis 2).

    Values from 0 to 62 are told apart by counting the distinct bits they set
    (no sort); any other value range is sorted and compared with its neighbour.
    """
    if groups.size and 0 <= groups.min() and groups.max() < 63:
        bits = np.bitwise_or.reduce(np.left_shift(np.int64(1), groups), axis=2)
        return (np.bitwise_count(bits) == groups.shape[2]).all(axis=1)
    ordered = np.sort(groups, axis=2)
    return ~(ordered[:, :, 1:] == ordered[:, :, :-1]).any(axis=(1, 2))


_OPS = {"==": np.equal, "!=": np.not_equal, "<=": np.less_equal, ">=": np.greater_equal}
