"""The engine example of docs/extending.md is complete: it runs and is judged correct."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_documented_engine_solves_and_counts(tmp_path):
    text = (REPO / "docs" / "extending.md").read_text()
    code = re.search(r"```python\n(# my_engine\.py.*?)```", text, re.S)[1]
    assert "..." not in code
    (tmp_path / "my_engine.py").write_text(code)
    sample = tmp_path / "four.txt"
    sample.write_text("1.3..........2.4\n")       # a 4x4 grid with several answers
    env = {"COMPARE_PLUGINS": str(tmp_path / "my_engine.py"), "PATH": "/usr/bin:/bin"}
    for mode, expected in (("lexfirst", 0), ("count", 0)):
        done = subprocess.run([sys.executable, "run_compare.py", "solve", "--engine", "mine",
                               "--mode", mode, str(sample)], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == expected, done.stderr
    lex = subprocess.run([sys.executable, "run_compare.py", "solve", "--engine", "mine",
                          "--mode", "lexfirst", str(sample)], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    reference = subprocess.run([sys.executable, "run_compare.py", "solve", "--mode",
                                "lexfirst", str(sample)],
                               cwd=REPO, capture_output=True, text=True, timeout=120)
    assert lex.stdout == reference.stdout and len(lex.stdout.split()) == 1
