"""Tables through tabulate, system facts through psutil: no hand-rolled layout or /proc."""
from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import psutil

from compare.cli.engines import render
from compare.reporting import summary
from compare.run import plan
from compare.run import provenance as environment


def test_markdown_tables_are_aligned_github_tables():
    table = pd.DataFrame({"engine": ["backtracking:variant=seed", "cpsat"], "tasks": [12, 3]})
    lines = summary.to_markdown(table, raw=True).splitlines()
    assert lines[0].startswith("| engine ") and set(lines[1]) <= {"|", "-", ":"}
    assert len({len(line) for line in lines}) == 1          # padded: columns line up
    assert [c.strip() for c in lines[2].strip("|").split("|")] == ["backtracking:variant=seed",
                                                                  "12"]


def test_console_tables_have_a_rule_under_the_header_and_no_trailing_spaces():
    lines = render([("cpsat", "yes"), ("python-constraint", "no (not installed)")],
                   ("engine", "available")).splitlines()
    assert lines[0].split() == ["engine", "available"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert lines[3].split(None, 1) == ["python-constraint", "no (not installed)"]
    assert all(line == line.rstrip() for line in lines)


def test_memory_and_load_come_from_psutil(monkeypatch):
    fake = SimpleNamespace(total=8 * 2 ** 30, available=3 * 2 ** 30)
    monkeypatch.setattr(psutil, "virtual_memory", lambda: fake)
    monkeypatch.setattr(psutil, "getloadavg", lambda: (1.234, 0.5, 0.25))
    assert environment.memory_gb() == 8.0
    assert plan.available_mb() == 3 * 1024
    assert environment.load_average() == [1.23, 0.5, 0.25]
