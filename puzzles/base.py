"""What every puzzle kind offers the harness: a model, and a way back from values."""
from __future__ import annotations

from abc import ABC, abstractmethod

from puzzles.model import Model


class Puzzle(ABC):
    """One instance of a puzzle kind (a Sudoku grid, an N-Queens board...)."""

    kind: str = "puzzle"
    formulations: tuple[str, ...] = ("default",)

    name: str = ""
    source: str = ""
    # The group the summary puts a whole-file puzzle in, instead of its file
    # (an XCSP3 instance's family); "" keeps the file or spec.
    family: str = ""
    # True where the kind's rules check every constraint of the input as it was
    # given (an XCSP3 instance's): the judge then skips the model, and a process
    # that judges need never build or hold it.
    rules_judge_alone: bool = False
    # True where every puzzle of the kind is a model structure of its own (a file per
    # instance): a worker warms the kind's first shape only, and later ones time their
    # translation as their build, instead of translating each twice.
    shape_per_puzzle: bool = False

    @abstractmethod
    def to_model(self, formulation: str | None = None) -> Model:
        """The CSP model; ``formulation`` picks one of ``self.formulations``."""

    def decode(self, values, formulation: str | None = None) -> tuple[int, ...]:
        """The puzzle's own answer (e.g. the grid) from a model solution.

        Identity unless a formulation re-encodes the puzzle (one-hot Booleans,
        say); the checker judges this decoded answer against the puzzle's rules.
        """
        return tuple(values)

    @property
    def size(self) -> int:
        """A size figure for tables (grid side, board side, vertex count)."""
        return 0

    @property
    def clues(self) -> int:
        """How many values are given (0 where the notion does not apply)."""
        return 0

    # Kinds with several written forms (Sudoku's BOJ and line formats) list
    # them here and take one as ``format_answer``'s ``fmt``.
    formats: tuple[str, ...] = ()

    def format_answer(self, answer) -> str:
        """The decoded answer as the kind writes it; values on one line here."""
        return " ".join(map(str, answer))

    def written(self, answer, fmt: str | None = None) -> str:
        """The answer in ``fmt`` where the kind has that form, else its own way;
        newline-terminated."""
        text = (self.format_answer(answer, fmt) if fmt in self.formats
                else self.format_answer(answer))
        return text if text.endswith("\n") else text + "\n"

    def load_note(self) -> str | None:
        """One line on what loading cost (parse and translation times), if notable."""
        return None

    def warmup_twin(self) -> "Puzzle | None":
        """A puzzle of the same shape (same model structure) that solves at once.

        The harness solves it untimed before a worker's first timed task on a
        shape, so one-off costs (structure tables, engine caches, first-use
        code paths) are not charged to whichever puzzle happens to come first.
        Kinds whose every puzzle is a shape of its own have none.
        """
        return None

    def one_line(self) -> str | None:
        """The puzzle as one line that reads back as itself, if the kind has one."""
        return None

    def check_formulation(self, formulation: str | None) -> str:
        chosen = formulation or self.formulations[0]
        if chosen not in self.formulations:
            raise ValueError(
                f"{self.kind} has no formulation {chosen!r} "
                f"(choose from {', '.join(self.formulations)})")
        return chosen
