"""csp-compare: run CSP engines on puzzles, check every answer, compare the engines.

The Python API (the command line is a thin layer over it)::

    from compare import run_comparison
    comparison = run_comparison(["queens:8"], ["backtracking", "cpsat"], mode="count",
                                limit=100)
    print(comparison.by_engine)

Benchmark files have theirs in ``compare.benchmark`` (``run_benchmark``).

Layers, each importing only the ones below it: ``cli`` -> ``benchmark`` -> ``api`` ->
``reporting`` -> ``run`` -> ``executors`` and ``store`` -> ``judge`` -> ``settings``
-> ``engines`` and ``puzzles`` (the full list: pyproject.toml's import-linter contract).
The API names (``__all__``, listed by ``dir(compare)``) are resolved on first
use, so ``import compare.cli`` for a quick ``solve`` does not pay for pandas
and matplotlib.
"""
from __future__ import annotations

import importlib

_API = {"ArgumentError", "Comparison", "History", "Interrupted", "PluginError", "RunDiff",
        "SettingsError",
        "WorkersFailed", "compare_runs", "history", "natural_key", "open_comparison",
        "run_comparison"}
__all__ = sorted(_API | {"load_plugins"})


def __dir__() -> list[str]:
    """The API names too, though none is imported until it is used (``dir(compare)``,
    a notebook's tab completion)."""
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str):
    if name in _API:
        return getattr(importlib.import_module("compare.api"), name)
    if name == "load_plugins":
        return importlib.import_module("compare.plugins").load_plugins
    raise AttributeError(f"module 'compare' has no attribute {name!r}")
