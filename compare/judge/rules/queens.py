"""N-queens: one queen per row, no two on a column or a diagonal."""
from __future__ import annotations

from compare.judge.rulebook import out_of_range, register_rules, values_of


def check_queens(puzzle, answer) -> str | None:
    n = puzzle.n
    cols = values_of(answer, n, "rows", lambda i: f"row {i + 1}")
    if isinstance(cols, str):
        return cols
    reason = out_of_range(cols, 1, n, lambda i: f"row {i + 1}")
    if reason:
        return reason
    for i in range(n):
        for j in range(i + 1, n):
            if cols[i] == cols[j] or abs(cols[i] - cols[j]) == j - i:
                return (f"queens in rows {i + 1} and {j + 1} (columns {cols[i]} and "
                        f"{cols[j]}) attack each other")
    return None


register_rules("queens", check_queens)
