"""The garbage collector's part in a run, made small while results stream.

Kept apart from the runner: it is process-wide state shared by runs on
several threads, set by the first run to start and put back by the last.
"""
from __future__ import annotations

import gc
import threading

YOUNG_OBJECTS = 50_000  # the collector's first threshold while results stream: a batch
                        # of results lives and dies between two collections, unwalked


_COLLECTOR = {"runs": 0, "thresholds": None}
_COLLECTOR_LOCK = threading.Lock()


def collector_quiet() -> None:
    """The garbage collector's part in a run, made small; ``collector_back`` undoes it.

    What is alive when results start to stream (tasks, puzzles, records: a few
    objects per task) is frozen out of the collector's walks (``gc.freeze``),
    and the first generation collects every ``YOUNG_OBJECTS`` allocations
    instead of 700, so a batch of results is born and freed between two
    collections rather than walked, promoted and walked again. On a
    49,000-task sweep the collector took 0.5 s of the parent's CPU (10 us a
    result); so, 0.04 s. Runs on several threads at once share it: the first
    sets it, the last undoes it.
    """
    with _COLLECTOR_LOCK:
        _COLLECTOR["runs"] += 1
        if _COLLECTOR["runs"] == 1:
            _COLLECTOR["thresholds"] = gc.get_threshold()
            young, *older = _COLLECTOR["thresholds"]
            gc.set_threshold(max(young, YOUNG_OBJECTS), *older)
        gc.freeze()


def collector_back() -> None:
    with _COLLECTOR_LOCK:
        _COLLECTOR["runs"] -= 1
        if _COLLECTOR["runs"] == 0:
            gc.unfreeze()        # collectable again, at the next full collection
            gc.set_threshold(*_COLLECTOR["thresholds"])
