"""FlatZinc's tokens, and the cursor the parser reads them through.

One compiled regex finds each token with the blanks and ``%`` or ``/* */``
comments before it, so a file is scanned once, in C, as a stream: no token list
is held. At the end of the text the token is ``("end", "", len(text))``, for good. Every fault is a ``FlatZincError`` at a line and column.
"""
from __future__ import annotations

import re
from typing import NoReturn

from puzzles.errors import PuzzleSyntaxError

# Blanks and comments before a token are part of its match (an atomic group, so a
# long run of them is passed over once); the token is the named group that matched.
TOKEN = re.compile(r"""(?>(?:[ \t\r\n\f]+|%[^\n]*|/\*[\s\S]*?\*/)*)(?:
 (?P<float>[+-]?[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+))
|(?P<int>[+-]?(?:0x[0-9A-Fa-f]+|0o[0-7]+|[0-9]+))
|(?P<id>[A-Za-z_][A-Za-z0-9_]*)
|(?P<str>"(?:[^"\\\n]|\\[^\n])*")
|(?P<punct>\.\.|::|[][(){},:;=])
|(?P<end>\Z)
|(?P<bad>/\*|"|.))
""", re.VERBOSE)
KEYWORDS = frozenset({"annotation", "array", "bool", "constraint", "false", "float", "int",
                       "maximize", "minimize", "of", "predicate", "satisfy", "set", "solve",
                       "true", "var"})


class FlatZincError(PuzzleSyntaxError):
    """A FlatZinc file that cannot be read: ``FILE:LINE:COL: what`` (exit 2 on the
    command line, as every ``PuzzleInputError``)."""


def quote(text: str) -> str:
    """``text`` quoted for a message, cut to 24 characters: a line stays a line."""
    return repr(text if len(text) <= 24 else text[:21] + "...")


def describe(token: tuple) -> str:
    """A token as a message names it."""
    return "the end of the file" if token[0] == "end" else quote(token[1])


class Cursor:
    """The current token ``tok`` (kind, text, offset) of ``text``, and the moves on it."""

    def __init__(self, text: str, source: str):
        self.text, self.source = text, source
        self.pos = 0                      # where the token after ``tok`` is looked for
        self.tok = self._next()
        self._line_pos, self._line = 0, 1

    def _next(self) -> tuple:
        m = TOKEN.match(self.text, self.pos)
        kind = m.lastgroup
        if kind == "bad":
            self._bad(m.group(kind), m.start(kind))
        self.pos = m.end()
        return kind, m.group(kind), m.start(kind)

    def skip_to(self, pos: int) -> None:
        """Go on from ``pos``: the token there becomes ``tok``."""
        self.pos = pos
        self.tok = self._next()

    def _bad(self, text: str, pos: int):
        if text == '"':
            self.fail("unterminated string: no closing '\"' on its line", pos)
        if text == "/*":
            self.fail("unterminated comment: '/*' without '*/'", pos)
        self.fail(f"unexpected character {text!r}", pos)

    def line_of(self, pos: int) -> int:
        """The 1-based line of ``pos``: counted on from the last asked position when
        asked in file order, as items are."""
        if pos < self._line_pos:
            return self.text.count("\n", 0, pos) + 1
        self._line += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        pos = self.tok[2] if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - self.text.rfind("\n", 0, pos)
        raise FlatZincError(self.source, line, column, message)

    def advance(self) -> tuple:
        tok, self.tok = self.tok, self._next()
        return tok

    def accept(self, text: str) -> bool:
        if self.tok[1] == text:
            self.tok = self._next()
            return True
        return False

    def expect(self, text: str, where: str) -> None:
        if not self.accept(text):
            self.fail(f"expected {text!r} {where}, found {describe(self.tok)}")

    def ident(self, where: str) -> str:
        kind, text, _ = self.tok
        if kind != "id" or text in KEYWORDS:
            self.fail(f"expected a name {where}, found {describe(self.tok)}")
        self.tok = self._next()
        return text
