"""Graph colouring: the two ends of every edge differ."""
from __future__ import annotations

from compare.judge.rulebook import out_of_range, register_rules, values_of


def check_coloring(puzzle, answer) -> str | None:
    graph = puzzle.graph
    colours = values_of(answer, graph.vertices, "vertices", lambda i: f"vertex {i + 1}")
    if isinstance(colours, str):
        return colours
    reason = out_of_range(colours, 1, puzzle.colors, lambda i: f"vertex {i + 1}")
    if reason:
        return reason
    for u, v in graph.edges:
        if colours[u - 1] == colours[v - 1]:
            return f"edge {u}-{v} joins two vertices of colour {colours[u - 1]}"
    return None


register_rules("coloring", check_coloring)
