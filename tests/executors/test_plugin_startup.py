"""Plugins at start-up: whatever a plugin does while it is imported is one line, never a hang."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compare.executors.base import START_LIMIT_ENV
from compare.executors.local.executor import LocalExecutor
from compare.limits import SettingsError

REPO = Path(__file__).resolve().parents[2]
IN_WORKERS = "import multiprocessing\nif multiprocessing.parent_process() is not None:\n"


def command(tmp_path: Path, plugin: str, *args, **env) -> subprocess.Popen:
    path = tmp_path / "plugin.py"
    path.write_text(plugin)
    environ = dict(os.environ, COMPARE_PLUGINS=str(path), PYTHONPATH=str(REPO), **env)
    return subprocess.Popen([sys.executable, "run_compare.py", *map(str, args)], cwd=REPO,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, list[str]]:
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err.splitlines()


@pytest.mark.parametrize("plugin, said", [
    ("raise KeyboardInterrupt\n", "raised KeyboardInterrupt while it was imported"),
    ("import sys\nsys.exit(3)\n", "called sys.exit(3) while it was imported"),
])
def test_a_plugin_raising_at_import_is_a_plugin_error(tmp_path, plugin, said):
    code, lines = finish(command(tmp_path, plugin, "engines"))
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("error: plugin ") and said in lines[0]


def test_ctrl_c_while_a_plugin_imports_is_an_interruption(tmp_path):
    proc = command(tmp_path, "import time\ntime.sleep(60)\n", "engines")
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)        # handled as Ctrl-C is
    code, lines = finish(proc)
    assert code == 130 and lines == ["interrupted"]


@pytest.mark.slow
def test_a_plugin_that_hangs_only_in_workers_ends_the_run_in_one_line(tmp_path):
    plugin = IN_WORKERS + "    import time\n    time.sleep(3600)\n"
    start = time.monotonic()
    proc = command(tmp_path, plugin, "--puzzles", "queens:5", "--engines", "backtracking",
                   "--repeat", 1, "--out", tmp_path / "run", "--quiet",
                   **{START_LIMIT_ENV: "2"})
    code, lines = finish(proc)
    assert code == 3, lines
    assert lines == ["error: no worker could start: loading the plugins and engines took "
                     f"over 2 s (the limit; {START_LIMIT_ENV} sets it); nothing was run"]
    assert time.monotonic() - start < 60


@pytest.mark.slow
def test_a_plugin_that_fails_only_in_workers_is_named_at_once(tmp_path):
    plugin = IN_WORKERS + "    raise KeyboardInterrupt\n"
    proc = command(tmp_path, plugin, "--puzzles", "queens:5", "--engines", "backtracking",
                   "--repeat", 1, "--out", tmp_path / "run", "--quiet")
    code, lines = finish(proc)
    assert code == 3
    assert len(lines) == 1 and "no worker could start: plugin " in lines[0]
    assert "raised KeyboardInterrupt while it was imported" in lines[0]


@pytest.mark.parametrize("value", ["0", "nan", "inf", "soon"])
def test_a_bad_start_limit_is_a_settings_error(monkeypatch, value):
    monkeypatch.setenv(START_LIMIT_ENV, value)
    with pytest.raises(SettingsError, match=START_LIMIT_ENV):
        LocalExecutor(1, ["backtracking"])


@pytest.mark.parametrize("plugin", ["while True:\n    pass\n",
                                    "import time\nwhile True:\n    time.sleep(1)\n"])
def test_a_plugin_that_never_finishes_importing_is_one_line(tmp_path, plugin):
    start = time.monotonic()
    code, lines = finish(command(tmp_path, plugin, "engines", **{START_LIMIT_ENV: "2"}),
                         timeout=60)
    assert code == 2
    assert lines == [f"error: plugin {tmp_path / 'plugin.py'}: still importing after 2 s "
                     f"(the start limit; {START_LIMIT_ENV} sets it)"]
    assert time.monotonic() - start < 30


def test_a_plugin_that_hangs_at_import_does_not_hold_solve(tmp_path):
    proc = command(tmp_path, "import threading\nthreading.Event().wait()\n", "solve",
                   REPO / "puzzles/samples/boj2239.txt", **{START_LIMIT_ENV: "1"})
    code, lines = finish(proc, timeout=60)
    assert code == 2 and len(lines) == 1 and "still importing after 1 s" in lines[0]


NOISY = ["print('hello from the plugin')\n",
         "import os\nos.write(1, b'raw bytes on fd 1\\n')\n",
         "import sys\nsys.stdout.write('no newline')\n"]


@pytest.mark.parametrize("plugin", NOISY)
def test_what_a_plugin_prints_at_import_goes_to_stderr(tmp_path, plugin):
    sample = REPO / "puzzles/samples/boj2239.txt"
    proc = command(tmp_path, plugin, "solve", sample)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out == (REPO / "puzzles/samples/boj2239.out").read_text()
    assert err.strip() in plugin


def test_report_compare_json_stays_exact_with_a_printing_plugin(tmp_path):
    import json
    run = tmp_path / "run"
    made = subprocess.run([sys.executable, "run_compare.py", "--puzzles", "queens:5",
                           "--engines", "backtracking", "--repeat", "1", "--workers", "1",
                           "--quiet", "--out", run], cwd=REPO, capture_output=True, timeout=300)
    assert made.returncode == 0, made.stderr
    proc = command(tmp_path, NOISY[0], "report", "--compare", run, run, "--json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert isinstance(json.loads(out), (dict, list))
    assert "hello from the plugin" in err
