"""The puzzles ``python run_compare.py`` runs when given none.

The two judge samples, plus puzzles this project generated itself with
``puzzles/kinds/generator.py`` (fixed seeds, committed under ``puzzles/data/`` so the
default run needs no generation time and is the same everywhere). Each file is
one source in the summary, from easy to hard. ``regenerate`` shows how each
file was made.
"""
from __future__ import annotations

from pathlib import Path

PUZZLES = Path(__file__).resolve().parents[1]      # the puzzles folder: samples/ and data/ sit there
SAMPLES = PUZZLES / "samples"
DATA = PUZZLES / "data"

# file name -> (side, count, clue target, seed, best_of) for the generated files
GENERATED = {
    "gen-4x4.txt": (4, 8, 5, 1, 1),
    "gen-9x9-easy.txt": (9, 10, 36, 2, 1),
    "gen-9x9-medium.txt": (9, 10, 30, 3, 1),
    "gen-9x9-hard.txt": (9, 16, 22, 4, 2),
    "gen-16x16-easy.txt": (16, 4, 160, 5, 1),
    "gen-16x16-hard.txt": (16, 6, 120, 6, 1),
}


def default_puzzle_files() -> list[str]:
    files = [SAMPLES / "boj2239.txt", SAMPLES / "boj2580.txt"]
    files += [DATA / name for name in GENERATED]
    return [str(f) for f in files]


def regenerate(count_solutions) -> None:
    """Rewrite ``puzzles/data`` (``python run_compare.py generate --default-set``)."""
    from puzzles.kinds.generator import file_text, generate
    DATA.mkdir(exist_ok=True)
    for old in DATA.glob("gen-*.txt"):
        old.unlink()
    for name, (side, count, clues, seed, best_of) in GENERATED.items():
        found = generate(side, count, clues, seed, count_solutions, best_of)
        text = file_text(found, side, count, clues, seed, best_of)
        (DATA / name).write_text(text, encoding="utf-8")
