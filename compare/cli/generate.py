"""``run_compare.py generate``: write seeded, unique Sudoku puzzles, one per line.

The generator lives in ``puzzles/`` and knows no engines; this front end hands
it a solution counter built on an engine (the backtracker by default, in
``count`` mode with limit 2, which is the uniqueness check).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import engines
from compare.cli.common import Exit, OneLineParser, in_range, say, setting
from compare.errors import StorageError
from compare.store.files import write_text
from puzzles.kinds.default_set import regenerate
from puzzles.kinds.generator import DEFAULT_CLUES, file_text, generate

BAD_USAGE = Exit.USAGE
MAX_COUNT = 100_000     # puzzles per call
MAX_BEST_OF = 1_000     # grids carved per puzzle


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="run_compare.py generate",
        description="Generate unique Sudoku puzzles (random full grid, then givens "
                    "removed while the solution stays unique).")
    parser.add_argument("--size", type=int, choices=(4, 9, 16, 25), default=9,
                        help="grid side (default 9)")
    parser.add_argument("--count", type=in_range(int, 1, MAX_COUNT), default=10,
                        help=f"puzzles to write (default 10; 1..{MAX_COUNT:_})")
    parser.add_argument("--clues", type=in_range(int, 0, 625),
                        help="target number of givens; fewer is harder (default: "
                             + ", ".join(f"{k}x{k}: {v}" for k, v in DEFAULT_CLUES.items()) + ")")
    parser.add_argument("--seed", type=setting("seed"), default=1,
                        help="random seed (default 1; 0..2^32-1)")
    parser.add_argument("--best-of", type=in_range(int, 1, MAX_BEST_OF), default=1, metavar="K",
                        help=f"carve K grids per puzzle and keep the fewest clues "
                             f"(default 1; 1..{MAX_BEST_OF})")
    parser.add_argument("--engine", default="backtracking",
                        help="engine used to count solutions (default backtracking)")
    parser.add_argument("--out", metavar="FILE", help="output file (default: stdout)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.add_argument("--default-set", action="store_true",
                        help="rewrite the embedded default set under puzzles/data")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        count_solutions = engines.solution_counter(args.engine)
    except (engines.UnknownEngine, engines.EngineOptionError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return BAD_USAGE
    if args.default_set:
        regenerate(count_solutions)
        return 0
    if args.clues is not None and not 0 <= args.clues <= args.size ** 2:
        print(f"error: --clues must be in 0..{args.size ** 2} for --size {args.size}",
              file=sys.stderr)
        return BAD_USAGE
    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and not args.force:
        print(f"error: {out} exists (use --force to overwrite)", file=sys.stderr)
        return BAD_USAGE
    if out is not None and not out.parent.is_dir():
        print(f"error: cannot write {out}: no folder {out.parent}", file=sys.stderr)
        return BAD_USAGE
    start = time.perf_counter()
    found = generate(args.size, args.count, args.clues, args.seed, count_solutions, args.best_of)
    text = file_text(found, args.size, args.count, args.clues, args.seed, args.best_of)
    if out is None:
        sys.stdout.write(text)
    else:
        try:       # a full disk keeps the old file whole, never half a new one
            write_text(out, text)
        except StorageError as err:
            say(f"error: {err}; {out} is as it was")
            return Exit.STORAGE
    clues = sorted(p.clues for p in found)
    print(f"{len(found)} puzzles of {args.size}x{args.size}, clues {clues[0]}..{clues[-1]}, "
          f"in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0
