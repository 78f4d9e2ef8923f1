"""The rulebook: which judge applies to a puzzle kind, and the helpers judges share.

A judge reads the puzzle's own data (board size, cages, edges, words) and the
decoded answer, never the CSP model or the code that builds it, so a wrong
model shows up as a rejected answer instead of being trusted. Each judge
returns None for a valid answer, else a short reason. Plugin kinds register
their judge here with ``register_rules``, next to their ``register_kind``.
"""
from __future__ import annotations

import operator
from typing import Callable, Sequence

Rule = Callable[[object, Sequence[int]], "str | None"]
RULES: dict[str, Rule] = {}


def register_rules(kind: str, fn: Rule) -> None:
    """Judge answers of puzzles whose ``kind`` is ``kind`` with ``fn``."""
    RULES[kind] = fn


def rules_for(kind: str) -> Rule | None:
    return RULES.get(kind)


def whole_numbers(values: Sequence, name: Callable[[int], str]) -> list[int] | str:
    """Values as ints, or the reason one is not a whole number."""
    out = []
    for i, value in enumerate(values):
        try:
            out.append(operator.index(value))
        except TypeError:
            return f"{name(i)} holds {value!r} (not a whole number)"
    return out


def repeat_in_groups(groups) -> str | None:
    for label, values in groups:
        seen = set()
        for value in values:
            if value in seen:
                return f"{label} repeats {value}"
            seen.add(value)
    return None


def values_of(answer, length: int, what: str, name) -> list[int] | str:
    if len(answer) != length:
        return f"wrong length: {len(answer)} values for {length} {what}"
    return whole_numbers(answer, name)


def out_of_range(values, low: int, high: int, name) -> str | None:
    for i, value in enumerate(values):
        if not low <= value <= high:
            return f"{name(i)} = {value} is outside {low}..{high}"
    return None
