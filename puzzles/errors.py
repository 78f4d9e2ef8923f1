"""The one error type for bad puzzle input, so every front end prints it alike."""
from __future__ import annotations


class PuzzleInputError(ValueError):
    """Bad input, located: ``str(err)`` is the one-line message users see.

    ``source`` is a file path or ``"<stdin>"`` (or a spec); ``line`` is 1-based,
    or None when the fault is not on one line (empty input, say).
    """

    def __init__(self, source: str, line: int | None, message: str):
        self.source, self.line, self.message = source, line, message
        where = source if line is None else f"{source}, line {line}"
        super().__init__(f"{where}: {message}")
