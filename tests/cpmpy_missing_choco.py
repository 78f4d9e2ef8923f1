"""Test-only plugin: CPMpy's Choco interface answers as it does without pychoco.

Loaded by worker processes through ``COMPARE_PLUGINS`` so an end-to-end
run can show that a missing backend is n/a with a reason, not an error.
"""
from __future__ import annotations

from cpmpy.solvers.choco import CPM_choco

CPM_choco.supported = staticmethod(lambda: False)
