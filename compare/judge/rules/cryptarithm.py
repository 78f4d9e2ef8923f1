"""Cryptarithms: distinct digits, no leading zero, and the sides are equal."""
from __future__ import annotations

from compare.judge.rulebook import out_of_range, register_rules, values_of


def check_cryptarithm(puzzle, answer) -> str | None:
    letters = puzzle.letters
    digits = values_of(answer, len(letters), "letters", lambda i: f"letter {letters[i]}")
    if isinstance(digits, str):
        return digits
    reason = out_of_range(digits, 0, 9, lambda i: f"letter {letters[i]}")
    if reason:
        return reason
    if len(set(digits)) != len(digits):
        return f"two letters share a digit: {dict(zip(letters, digits))}"
    digit = dict(zip(letters, digits))
    total = 0
    for side, terms in ((1, puzzle.left), (-1, puzzle.right)):
        for term in terms:
            text = "".join(str(digit[ch]) for ch in term.word)
            if len(text) > 1 and text[0] == "0":
                return f"{term.word} = {text} starts with 0"
            total += side * term.sign * int(text)
    if total:
        return f"the sides differ by {total}"
    return None


register_rules("cryptarithm", check_cryptarithm)
