"""A plain (non-editable) install works: a wheel in a fresh virtual environment
runs the default comparison and a ``solve`` from any folder."""
from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_wheel_installs_and_runs_outside_the_repository(tmp_path):
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                            "--wheel-dir", str(dist), str(ROOT)], capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = dist.glob("csp_compare-*.whl")
    env_dir = tmp_path / "venv"
    # The fresh environment sees this one's packages, so the engines' libraries
    # (ortools, pandas...) need no download; the project itself comes from the wheel only.
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "outer.pth").write_text(
        "\n".join(p for p in sys.path if p.endswith("site-packages")) + "\n")
    installed = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q",
                                str(wheel)], capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    command = env_dir / "bin" / "csp-compare"
    run = subprocess.run([str(command), "--quiet", "--workers", "2"], cwd=work,
                         capture_output=True, text=True, timeout=600,
                         env={"PATH": str(env_dir / "bin") + ":/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-3000:]
    reports = list((work / "reports").glob("*/summary.md"))
    assert reports, "the report goes under the current folder, not site-packages"
    page = reports[0].with_name("report.html")
    assert "Content-Security-Policy" in page.read_text(encoding="utf-8")   # assets packaged
    sample = "1.3...5.9..21.94.....7.4...3..5.2..6.6.....5.7..8.3..4...4.1.....92.58..8.4...1.7"
    solved = subprocess.run([str(command), "solve", "--format", "line"], input=sample + "\n",
                            cwd=work, capture_output=True, text=True, timeout=120)
    assert solved.returncode == 0, solved.stderr
    assert len(solved.stdout.strip()) == 81 and "." not in solved.stdout
