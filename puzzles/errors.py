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


class PuzzleSyntaxError(PuzzleInputError):
    """Bad input located to a column too: ``str(err)`` is ``FILE:LINE:COL: what``, the
    form compilers print, so an editor can jump to it. ``column`` is 1-based."""

    def __init__(self, source: str, line: int, column: int, message: str):
        super().__init__(source, line, message)
        self.column = column
        self.args = (f"{source}:{line}:{column}: {message}",)

    def __reduce__(self):            # pickled whole, so a worker can send it back
        return type(self), (self.source, self.line, self.column, self.message)


class ToolReport(PuzzleInputError):
    """Bad input as another tool reported it (MiniZinc's compiler): ``report`` is that
    tool's own text, shown in one block as it printed it, lines and all, since its
    locations and hints span lines; ``str(err)`` stays one line."""

    def __init__(self, source: str, report: str):
        super().__init__(source, None, report)
        self.report = report

    def __reduce__(self):            # pickled whole, so a worker can send it back
        return type(self), (self.source, self.report)
