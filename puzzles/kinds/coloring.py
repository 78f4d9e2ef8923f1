"""Graph colouring from DIMACS ``.col`` files: give every vertex one of K
colours so that the two ends of each edge differ.

The DIMACS format (as in the COLOR benchmark files)::

    c a comment line
    p edge VERTICES EDGES        (``p col`` is accepted too)
    e U V                        one line per edge, vertices numbered 1..VERTICES

The edge count on the ``p`` line is not enforced (published files often count
each edge twice); duplicate edges are merged. A self-loop can never be
coloured, so it is reported as bad input.

Caps, so a typo cannot ask for unbounded memory or model-building time:
``MAX_VERTICES`` (100,000; checked on the ``p`` line, before any edge is
read), ``MAX_EDGES`` distinct edges (5,000,000: every DIMACS COLOR benchmark
fits) and ``MAX_COLORS`` (1,000).

Variable ``v_i`` is vertex i's colour, 1..K. Formulations: ``pairwise`` (one
``u != v`` per edge) and ``table`` (one Table of the allowed colour pairs per
edge).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from puzzles.base import Puzzle
from puzzles.errors import PuzzleInputError
from puzzles.model import Model, NotEqualOffset, Structure, Table
from puzzles.reading import read_text
from puzzles.specs import Spec, file_stem, register_kind

MAX_COLORS = 1000
MAX_VERTICES = 100_000
MAX_EDGES = 5_000_000


@dataclass(frozen=True)
class Graph:
    vertices: int
    edges: tuple[tuple[int, int], ...]   # 1-based, u < v, sorted, no duplicates

    @property
    def digest(self) -> str:
        return hashlib.sha1(repr(self.edges).encode()).hexdigest()[:10]


@lru_cache(maxsize=64)
def structure(graph: Graph, colors: int, formulation: str) -> Structure:
    names = tuple(f"v{i + 1}" for i in range(graph.vertices))
    domains = (tuple(range(1, colors + 1)),) * graph.vertices
    if formulation == "pairwise":
        cons = tuple(NotEqualOffset(u - 1, v - 1, 0) for u, v in graph.edges)
    elif formulation == "table":
        allowed = tuple((a, b) for a in range(1, colors + 1)
                        for b in range(1, colors + 1) if a != b)
        cons = tuple(Table((u - 1, v - 1), allowed) for u, v in graph.edges)
    else:
        raise ValueError(f"unknown colouring formulation {formulation!r}")
    key = f"coloring-{graph.vertices}v{len(graph.edges)}e-{graph.digest}/k{colors}/{formulation}"
    return Structure(key, names, domains, cons)


@dataclass(frozen=True)
class Coloring(Puzzle):
    graph: Graph
    colors: int
    name: str = ""
    source: str = ""

    kind = "coloring"
    formulations = ("pairwise", "table")

    @property
    def size(self) -> int:
        return self.graph.vertices

    def to_model(self, formulation: str | None = None) -> Model:
        chosen = self.check_formulation(formulation)
        return Model(structure(self.graph, self.colors, chosen), (), self.name)

    def format_answer(self, answer) -> str:
        """``VERTEX COLOUR`` per line."""
        return "\n".join(f"{vertex} {colour}" for vertex, colour in enumerate(answer, 1))


def read_col(text: str, source: str) -> Graph:
    """Parse DIMACS ``.col`` text; every fault names its line."""
    vertices = None
    edges: set[tuple[int, int]] = set()
    for lineno, raw in enumerate(text.splitlines(), 1):
        fields = raw.split()
        if not fields or fields[0] == "c":
            continue
        tag = fields[0]
        if tag == "p":
            if vertices is not None:
                raise PuzzleInputError(source, lineno, "second 'p' line")
            vertices = _problem_line(fields, source, lineno)
        elif tag == "e":
            if vertices is None:
                raise PuzzleInputError(source, lineno, "edge before the 'p edge VERTICES EDGES' line")
            edges.add(_edge_line(fields, vertices, source, lineno))
            if len(edges) > MAX_EDGES:
                raise PuzzleInputError(source, lineno, f"more than {MAX_EDGES:,} edges, the "
                                                       "most a graph may have here")
        else:
            raise PuzzleInputError(source, lineno,
                                   f"unknown line type {tag[:20]!r}; expected c, p or e")
    if vertices is None:
        raise PuzzleInputError(source, None, "no 'p edge VERTICES EDGES' line")
    return Graph(vertices, tuple(sorted(edges)))


def _problem_line(fields, source: str, lineno: int) -> int:
    if (len(fields) != 4 or fields[1] not in ("edge", "col")
            or not fields[2].isdigit() or not fields[3].isdigit()):
        raise PuzzleInputError(source, lineno, "bad problem line; expected 'p edge VERTICES EDGES'")
    vertices = int(fields[2])
    if not 1 <= vertices <= MAX_VERTICES:
        raise PuzzleInputError(source, lineno, f"{vertices} vertices; a graph here has "
                                               f"1 to {MAX_VERTICES:,}")
    return vertices


def _edge_line(fields, vertices: int, source: str, lineno: int) -> tuple[int, int]:
    if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
        raise PuzzleInputError(source, lineno, "bad edge line; expected 'e U V'")
    u, v = int(fields[1]), int(fields[2])
    for end in (u, v):
        if not 1 <= end <= vertices:
            raise PuzzleInputError(source, lineno, f"edge vertex {end} out of range 1..{vertices}")
    if u == v:
        raise PuzzleInputError(source, lineno, f"self-loop on vertex {u} can never be coloured")
    return (min(u, v), max(u, v))


def load_file(path: str, colors: int) -> Coloring:
    graph = read_col(read_text(path), path)
    stem = file_stem(path)
    return Coloring(graph, colors, f"{stem}:colors={colors}", stem)


@register_kind("coloring", "coloring:FILE.col:colors=K  DIMACS graph colouring with K colours",
               formulations=Coloring.formulations)
def load(spec: Spec) -> Coloring:
    spec.check_options("colors")
    path = spec.existing_file(".col file")
    colors = spec.int_option("colors", None, 1, MAX_COLORS)
    if colors is None:
        raise spec.fail("coloring needs a colour count, as in coloring:FILE.col:colors=3")
    return load_file(path, colors)
