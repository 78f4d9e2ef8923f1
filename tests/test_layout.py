"""The design holds: layers and no cycles (import-linter), lint (ruff), the README
front door, the Python API example, and a run under ``python -OO``."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if not found:
            pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
        return found
    return str(path)


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([tool("lint-imports"), "--no-cache"], cwd=folder, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(folder)))


def test_the_import_contracts_hold():
    proc = lint_imports(ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:]
    declared = (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert f"{declared} kept, 0 broken" in proc.stdout


def copy_of_the_code(tmp_path: Path) -> Path:
    copy = tmp_path / "tree"
    copy.mkdir()
    for name in ("compare", "engines", "puzzles"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    (copy / "tests").mkdir()
    for name in ("__init__.py", "import_contracts.py"):      # the project's contract types
        shutil.copy(ROOT / "tests" / name, copy / "tests" / name)
    return copy


@pytest.mark.parametrize("module, backward, contract", [
    ("compare/judge/verdict.py", "from compare.reporting import summary", "Layers"),
    ("compare/store/store.py", "import compare.api", "Layers"),
    ("compare/errors.py", "from compare.store import files", "Layers"),
    ("engines/cpsat.py", "from puzzles.kinds.sudoku import Sudoku", "Engines know models"),
    ("puzzles/kinds/queens.py", "import engines", "Puzzles know their rules"),
    ("puzzles/kinds/sudoku.py", "from puzzles import loader", "No import cycles"),
    ("compare/reporting/summary.py", "from engines.contract import ANSWERED",
     "Compare reaches engines only through the engines package"),
    ("compare/run/runner.py", "from engines.backtracking import numba_kernel",
     "Compare reaches engines only through the engines package"),
    ("compare/run/plan.py", "from compare.store.store import _ddl",
     "Private names stay in their module"),
    ("compare/reporting/report.py", "from compare.store import store; store._write_probe",
     "Private names stay in their module"),
    ("compare/executors/dask/worker.py", "from compare.executors.local.worker.transport import _serve",
     "Private names stay in their module"),
    ("compare/judge/rules/xcsp3.py", "from puzzles.formats.xcsp3 import model", "The judge checks"),
    ("compare/run/plan.py", "from compare.executors.local import pool",
     "The run and the front ends reach executors"),
    ("compare/reporting/report.py", "from compare.executors.dask import cluster",
     "The run and the front ends reach executors"),
    ("compare/executors/local/pool.py", "from compare.store import folder", "Layers"),
    ("compare/store/folder.py", "from compare.executors import tasks", "Layers"),
    ("engines/cpsat.py", "from engines.backtracking import shape", "Each engine stands alone"),
    ("engines/cpmpy/engine.py", "import engines.python_constraint", "Each engine stands alone"),
    ("puzzles/kinds/latin.py", "from puzzles.formats import grids", "Puzzle kinds know their rules"),
    ("compare/judge/rules/xcsp3.py", "from puzzles.formats.xcsp3.terms import linear_form",
     "The judge checks"),
])
def test_a_backward_import_breaks_a_contract(tmp_path, module, backward, contract):
    """A contract that cannot fail is not a check: each one is seen to break."""
    copy = copy_of_the_code(tmp_path)
    path = copy / module
    text = path.read_text()
    cut = text.index("\nfrom __future__ import annotations\n") + len(
        "\nfrom __future__ import annotations\n") if "from __future__" in text else 0
    path.write_text(text[:cut] + backward + "  # noqa\n" + text[cut:])
    proc = lint_imports(copy)
    assert proc.returncode != 0
    broken = proc.stdout.split("Broken contracts")[-1]
    assert contract in broken, proc.stdout[-2000:]


def test_ruff_is_clean():
    proc = subprocess.run([tool("ruff"), "check", "."], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]


# ----- the README -------------------------------------------------------------------------
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_short_front_door_whose_links_resolve():
    assert len(README.splitlines()) <= 250
    links = re.findall(r"\]\(([^)#\s]+)\)", README)
    assert links
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link


def test_every_docs_link_resolves():
    for page in (ROOT / "docs").rglob("*.md"):
        for link in re.findall(r"\]\(([^)#\s]+)\)", page.read_text(encoding="utf-8")):
            if not link.startswith("http"):
                assert (page.parent / link).exists(), f"{page}: {link}"


def test_the_product_never_speaks_of_the_tracker():
    pattern = re.compile(r"issue[ -]?#?\d", re.I)
    places = [ROOT / "README.md", ROOT / "run_compare.py", ROOT / "pyproject.toml"]
    for folder in ("compare", "engines", "puzzles", "docs", "tests", "benchmarks"):
        if (ROOT / folder).is_dir():
            places += [p for p in (ROOT / folder).rglob("*")
                       if p.suffix in (".py", ".md", ".toml")]
    hits = [f"{p}: {m.group(0)}" for p in places
            for m in pattern.finditer(p.read_text(encoding="utf-8", errors="replace"))]
    assert not hits


def test_the_readme_api_example_runs_as_a_plain_script_and_again(tmp_path):
    """No ``__main__`` guard: workers must not re-run the script. Run a second time,
    as a reader does, it works again, in a folder of its own."""
    match = re.search(r"```python\n(from compare import run_comparison\n.*?)```", README, re.S)
    assert match, "README lost its Python API example"
    script = tmp_path / "example.py"
    script.write_text(match.group(1))
    (tmp_path / "puzzles" / "samples").mkdir(parents=True)
    shutil.copy(ROOT / "puzzles" / "samples" / "boj2580.txt", tmp_path / "puzzles" / "samples")
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path / "tmp"))
    folders = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stdout.count("queens:6") >= 2        # one row per engine
        folders.append(Path(re.search(r"^report in (.+)$", proc.stdout, re.M)[1]))
        assert (folders[-1] / "summary.md").is_file()
    assert folders[0] != folders[1]
    assert all(folder.parent == tmp_path / "tmp" for folder in folders)


def test_the_api_raises_when_no_worker_can_start(tmp_path):
    from compare import WorkersFailed, run_comparison
    with pytest.raises(WorkersFailed, match="no worker could start"):
        run_comparison(["queens:4"], ["fake-doomed"], workers=1, out=tmp_path / "run",
                       plugins="tests.fake_engines")


@pytest.mark.slow
def test_a_run_under_python_OO_works(tmp_path):
    """No docstring is used as data, so optimised bytecode changes nothing."""
    proc = subprocess.run([sys.executable, "-OO", str(ROOT / "run_compare.py"), "--quiet",
                           "--puzzles", str(ROOT / "puzzles" / "samples" / "boj2239.txt"),
                           "queens:6", "--out", str(tmp_path / "run")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "## Definitions" in summary and "PAR2" in summary
