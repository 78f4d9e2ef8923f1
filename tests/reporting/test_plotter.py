"""The PNGs drawn in a forked child (``plots.Plotter``) are the ones the parent would
draw; what the child raised is raised in the parent; a child that is gone is drawn for
in the parent; the pages' hex colours are matplotlib's; a run's parent never imports
matplotlib."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare.reporting import plots, summary
from tests.reporting.test_stats import MS, times_frame

ROOT = Path(__file__).resolve().parents[2]
# A Plotter forks only where os.fork is and the process has one thread; a test suite's
# process may hold threads other tests left, so these run in a fresh interpreter.
forks = pytest.mark.skipif(not hasattr(os, "fork"), reason="a Plotter forks only where "
                                                           "os.fork is")
PRELUDE = """
import os, signal, sys
from pathlib import Path
import pytest
from compare.reporting import plots
from tests.reporting.test_plotter import asked, two_engines
tmp_path = Path(sys.argv[1])
plotter = plots.Plotter()
assert plotter.pid is not None, "no child was forked"
"""


def two_engines():
    return summary.per_task(times_frame([1 * MS, 4 * MS, 2 * MS], [2 * MS, 1 * MS, 3 * MS],
                                        timeout=10.0))


def asked(plotter: plots.Plotter, folder: Path, tasks=None):
    files = tuple(folder / f"{name}.png" for name in ("cactus", "scatter", "profile"))
    plotter.ask(two_engines() if tasks is None else tasks, "a", files, ["a", "b"], 10.0,
                0.001)
    return files


def in_a_fresh_process(body: str, folder: Path) -> None:
    """Run ``body`` after ``PRELUDE`` (a Plotter made) in a new one-thread interpreter."""
    done = subprocess.run([sys.executable, "-c", PRELUDE + body + "\nprint('ok')\n",
                           str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split()[-1:] == ["ok"], done.stderr[-2000:]


@forks
def test_the_child_draws_byte_for_byte_the_pngs_the_parent_draws(tmp_path):
    in_a_fresh_process("""
here, there = tmp_path / "here", tmp_path / "there"
here.mkdir()
there.mkdir()
files = asked(plotter, there)
made = plotter.drawn()
assert made == list(files) and plotter.pid is None
mine = plots.draw_all(two_engines(), "a", tuple(here / f.name for f in files),
                      ["a", "b"], 10.0, 0.001)
assert [p.read_bytes() for p in mine] == [p.read_bytes() for p in made]
""", tmp_path)


@forks
def test_what_the_child_raised_is_raised_in_the_parent(tmp_path):
    in_a_fresh_process("""
asked(plotter, tmp_path, two_engines().drop(columns=["solved"]))
with pytest.raises(KeyError, match="solved"):
    plotter.drawn()
assert plotter.pid is None
""", tmp_path)


@forks
def test_a_child_that_is_gone_leaves_the_drawing_to_the_parent(tmp_path):
    in_a_fresh_process("""
os.kill(plotter.pid, signal.SIGKILL)
files = asked(plotter, tmp_path)
assert plotter.drawn() == list(files)
assert all(f.stat().st_size > 0 for f in files)
""", tmp_path)


@forks
def test_closing_an_unasked_plotter_ends_and_reaps_its_child(tmp_path):
    in_a_fresh_process("""
pid = plotter.pid
plotter.close()
assert plotter.pid is None
with pytest.raises(ChildProcessError):
    os.waitpid(pid, os.WNOHANG)
""", tmp_path)


def test_without_a_child_the_plotter_draws_in_this_process(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "fork")
    plotter = plots.Plotter()
    files = asked(plotter, tmp_path)
    assert plotter.pid is None and plotter.drawn() == list(files)


def test_the_hex_table_is_matplotlibs_for_every_colour_the_plots_use():
    from matplotlib.colors import to_hex
    used = {*plots.COLOURS, *plots.ENGINE_COLOURS}
    assert used <= set(plots.HEX)
    assert {c: plots.hex_colour(c) for c in used} == {c: to_hex(c) for c in used}
    assert plots.hex_colour("black") == to_hex("black")       # outside the table


def test_a_run_draws_its_pngs_but_its_parent_never_imports_matplotlib(tmp_path):
    out = tmp_path / "run"
    probe = ("import contextlib, io, sys\nfrom compare.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    code = main(['--puzzles', 'puzzles/samples/boj2239.txt', '--engines', "
             f"'backtracking', '--repeat', '1', '--quiet', '--out', {str(out)!r}])\n"
             "print(code, 'matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["0", "False"]
    assert (out / "cactus.png").stat().st_size > 0
