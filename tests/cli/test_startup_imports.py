"""The command line starts without the heavy libraries it does not use.

``--help``, the parsers and ``import compare`` must not import pandas,
matplotlib, OR-Tools or numba (each costs a large part of a second at every
call); a ``solve`` on the python kernel must not import numba. Each check
runs in a fresh interpreter and reads its ``sys.modules``. Timings are the
start-up benchmark's (benchmarks/startup.py), not a unit test's.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "matplotlib", "ortools", "numba", "scipy")
# The parsers --help, a run, solve, report and the small commands build (bench is a
# tool over benchmark files: its module reads them with pandas).
PARSERS = ("compare.cli", "compare.cli.common", "compare.cli.run_args", "compare.cli.solve",
           "compare.cli.generate", "compare.cli.engines", "compare.cli.kinds",
           "compare.cli.completion", "compare.cli.report")


def loaded_after(code: str) -> set[str]:
    """The heavy top-level packages a fresh interpreter holds after running ``code``."""
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & "
             f"set({list(HEAVY)!r}))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_help_imports_no_heavy_library():
    code = ("import contextlib, io\nfrom compare.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass")
    assert loaded_after(code) == set()


@pytest.mark.parametrize("module", PARSERS)
def test_a_parser_module_imports_no_heavy_library(module):
    code = f"import importlib\nm = importlib.import_module({module!r})\n"
    if module != "compare.cli":
        code += "getattr(m, 'build_parser', lambda: None)()\n"
    assert loaded_after(code) == set()


def test_import_compare_stays_light():
    assert loaded_after("import compare\ndir(compare)") == set()


def test_solve_on_the_python_kernel_imports_no_numba():
    code = ("import contextlib, io\nfrom compare.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['solve', 'puzzles/samples/boj2239.txt']) == 0")
    assert not loaded_after(code) & {"numba", "pandas", "matplotlib", "ortools"}


def test_the_probe_sees_a_heavy_import():
    """The check can fail: a module that does import pandas is seen."""
    assert "pandas" in loaded_after("import pandas")


def test_a_local_run_starts_its_forkserver_before_importing_the_comparison():
    """The forkserver imports the harness's modules while the parent imports pandas and
    the plan; a cluster run starts none here."""
    code = ("import contextlib, io, sys\n"
            "import compare.executors.local.processes as processes\n"
            "seen = []\n"
            "processes.start_forkserver = lambda: seen.append('compare.api' in sys.modules)\n"
            "from compare.cli import main\n"
            "with contextlib.redirect_stderr(io.StringIO()):\n"
            "    main(['--puzzles', 'puzzles/samples/boj2239.txt', '--engines', 'nosuch'])\n"
            "    main(['--cluster', 'local:1', '--engines', 'nosuch'])\n"
            "print(seen)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[False]"
