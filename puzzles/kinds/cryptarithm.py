"""Cryptarithms such as ``SEND+MORE=MONEY``: distinct letters stand for
distinct digits, and the sum holds.

Syntax: words of letters joined by ``+`` or ``-``, one ``=``, and a sum of
words on the right too (``SEND+MORE=MONEY``, ``A-B=C``, ``ONE+ONE=TWO-ZERO``
are all fine). Letters are case-insensitive. A word of two or more letters
does not start with 0 (a one-letter word may be 0). Caps: ``MAX_WORD``
letters per word (18: the place values stay within 64-bit integers, which
CP-SAT needs) and ``MAX_WORDS`` words in all (100).

Variables are the distinct letters in alphabetical order, digits 0..9; words'
leading letters have domain 1..9. Formulations:

* ``sum``: AllDifferent over the letters and one Linear equality with
  place-value coefficients (left side minus right side == 0).
* ``columns``: AllDifferent over the letters and one Linear equality per
  column with carry variables (after the letters):
  ``left digits - right digits + carry_in == 10 * carry_out``. The carries are
  fixed by the letters, so counts and ``lexfirst`` match ``sum``; their
  domains are the bounds the columns allow (0..1 for two addends), so a
  carry is negative only where a subtraction can make it so.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from puzzles.base import Puzzle
from puzzles.errors import PuzzleInputError
from puzzles.model import AllDifferent, Linear, Model, Structure
from puzzles.specs import Spec, register_kind

_TERM = re.compile(r"([+-]?)([A-Z]+)")
MAX_WORD = 18
MAX_WORDS = 100


@dataclass(frozen=True)
class Term:
    sign: int          # +1 or -1
    word: str


def parse_side(text: str, source: str, side: str) -> tuple[Term, ...]:
    if not text:
        raise PuzzleInputError(source, None, f"the {side} side of '=' is empty")
    pos, terms = 0, []
    while pos < len(text):
        match = _TERM.match(text, pos)
        if match and (match.group(1) or not terms):
            terms.append(Term(-1 if match.group(1) == "-" else 1, match.group(2)))
            pos = match.end()
            continue
        if text[pos] in "+-" and pos + 1 == len(text):
            raise PuzzleInputError(source, None, f"the {side} side ends with {text[pos]!r}")
        bad = text[pos + 1] if text[pos] in "+-" else text[pos]
        raise PuzzleInputError(source, None, f"stray {bad!r} on the {side} side; expected "
                                             "words of letters joined by + or -")
    return tuple(terms)


def parse(text: str, source: str = "cryptarithm") -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    compact = "".join(text.split()).upper()
    if compact.count("=") != 1:
        raise PuzzleInputError(source, None,
                               f"a cryptarithm needs exactly one '=', found {compact.count('=')}")
    left, right = compact.split("=")
    return parse_side(left, source, "left"), parse_side(right, source, "right")


@lru_cache(maxsize=256)
def structure(left: tuple[Term, ...], right: tuple[Term, ...], formulation: str) -> Structure:
    terms = left + tuple(Term(-t.sign, t.word) for t in right)   # everything moved left
    letters = sorted({ch for t in terms for ch in t.word})
    index = {ch: i for i, ch in enumerate(letters)}
    leading = {t.word[0] for t in terms if len(t.word) > 1}
    domains = [tuple(range(1 if ch in leading else 0, 10)) for ch in letters]
    cons = [AllDifferent(tuple(range(len(letters))))]
    names = list(letters)
    if formulation == "sum":
        cons.append(_linear(_weights(terms, index, None), 0))
    elif formulation == "columns":
        width = max(len(t.word) for t in terms)
        carries = [len(letters) + k for k in range(width - 1)]   # carry into column k+1
        names += [f"carry{k + 1}" for k in range(width - 1)]
        low = high = 0                                            # the carry into this column
        for col in range(width):
            weights = _weights(terms, index, col)
            col_low, col_high = _bounds(weights, domains)
            if col > 0:
                weights[carries[col - 1]] = 1
            if col < width - 1:
                weights[carries[col]] = -10
                low, high = -(-(col_low + low) // 10), (col_high + high) // 10
                domains.append(tuple(range(low, max(low, high) + 1)))
            cons.append(_linear(weights, 0))
    else:
        raise ValueError(f"unknown cryptarithm formulation {formulation!r}")
    key = f"cryptarithm-{_equation(left, right)}/{formulation}"
    return Structure(key, tuple(names), tuple(domains), tuple(c for c in cons if c))


def _weights(terms, index, column: int | None) -> dict[int, int]:
    """Each letter's coefficient: its place values, or its count in one column."""
    weights: dict[int, int] = {}
    for t in terms:
        for place, ch in enumerate(reversed(t.word)):
            if column is None or place == column:
                weight = t.sign * (10 ** place if column is None else 1)
                weights[index[ch]] = weights.get(index[ch], 0) + weight
    return weights


def _bounds(weights: dict[int, int], domains) -> tuple[int, int]:
    """The least and greatest value of a weighted sum of letters over their domains."""
    ends = [(w * min(domains[v]), w * max(domains[v])) for v, w in weights.items()]
    return sum(min(e) for e in ends), sum(max(e) for e in ends)


def _linear(weights: dict[int, int], rhs: int) -> Linear | None:
    """None for an equation whose letters all cancel (``A=A``): it always holds."""
    kept = sorted((v, c) for v, c in weights.items() if c)
    if not kept:
        return None
    return Linear(tuple(c for _, c in kept), tuple(v for v, _ in kept), "==", rhs)


def _equation(left, right) -> str:
    def side(terms):
        text = "".join(("-" if t.sign < 0 else "+") + t.word for t in terms)
        return text[1:] if text.startswith("+") else text
    return f"{side(left)}={side(right)}"


@dataclass(frozen=True)
class Cryptarithm(Puzzle):
    left: tuple[Term, ...]
    right: tuple[Term, ...]
    name: str = ""
    source: str = "cryptarithm"

    kind = "cryptarithm"
    formulations = ("sum", "columns")

    def __post_init__(self):
        if not self.name:
            object.__setattr__(self, "name", _equation(self.left, self.right))
        check_letters(self.left, self.right, self.source)

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple(sorted({ch for t in self.left + self.right for ch in t.word}))

    @property
    def size(self) -> int:
        return len(self.letters)

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        return Model(structure(self.left, self.right, chosen), (), self.name)

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """One digit per letter, letters in alphabetical order (carries dropped)."""
        return tuple(values[:len(self.letters)])

    def format_answer(self, answer) -> str:
        """The equation in digits, then the letter map: ``9567+1085=10652``."""
        digit = dict(zip(self.letters, answer))
        equation = "".join(str(digit.get(ch, ch)) for ch in self.name)
        return equation + "\n" + " ".join(f"{ch}={digit[ch]}" for ch in self.letters)


def check_letters(left, right, source: str) -> None:
    terms = left + right
    if len(terms) > MAX_WORDS:
        raise PuzzleInputError(source, None, f"{len(terms)} words; at most {MAX_WORDS}")
    longest = max(terms, key=lambda t: len(t.word))
    if len(longest.word) > MAX_WORD:
        raise PuzzleInputError(source, None, f"a word of {len(longest.word)} letters; "
                                             f"at most {MAX_WORD}")
    letters = {ch for t in terms for ch in t.word}
    if len(letters) > 10:
        raise PuzzleInputError(source, None, f"{_equation(left, right)} has {len(letters)} "
                                             "distinct letters; at most 10 fit in the digits 0-9")


def from_text(text: str, source: str = "cryptarithm") -> Cryptarithm:
    """The puzzle for an equation; faults are reported against ``source``."""
    left, right = parse(text, source)
    check_letters(left, right, source)
    return Cryptarithm(left, right)


@register_kind("cryptarithm", "cryptarithm:SEND+MORE=MONEY  letters to distinct digits",
               formulations=Cryptarithm.formulations)
def load(spec: Spec) -> Cryptarithm:
    spec.check_options()
    return from_text(spec.arg, spec.text)
