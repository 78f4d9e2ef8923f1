"""The harness: run engines on puzzles, check every answer, tabulate, report.

Steps, as in mzn-bench: run (``executor``, ``store``) -> check (``checker``,
``verdict``) -> report (``summary``, ``plots``).
"""
