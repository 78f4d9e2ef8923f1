"""A plugin for measuring ``report --compare``: the backtracker, 2 ms slower per solve.

It registers itself under the backtracker's own name, so a run with it has the
same engine labels as an ordinary run and ``report --compare`` pairs them::

    python run_compare.py --quiet --out /tmp/a
    COMPARE_PLUGINS=tests/slowed_backtracking.py python run_compare.py --quiet --out /tmp/b
    python run_compare.py report --compare /tmp/a /tmp/b --fail-above 1.1    # exits 5

``SLOWED_MS`` sets another delay (default 2).
"""
from __future__ import annotations

import os
import time

import engines
from engines.backtracking.engine import BacktrackingEngine

DELAY_S = float(os.environ.get("SLOWED_MS", "2")) / 1000


class SlowedBacktracking(BacktrackingEngine):
    def search(self, translated, mode, limit, deadline):
        time.sleep(DELAY_S)
        return super().search(translated, mode, limit, deadline)


engines.register("backtracking", SlowedBacktracking)
