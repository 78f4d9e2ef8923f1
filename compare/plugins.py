"""Plugins: engines and puzzle kinds (with their judges) from outside the repository.

One variable, ``COMPARE_PLUGINS``, names them: comma-separated module names
(importable through ``PYTHONPATH``) or paths to ``.py`` files. Loading a
plugin just imports it; the module registers what it brings with
``engines.register``, ``puzzles.specs.register_kind`` and
``compare.judge.rulebook.register_rules``. The CLI and the Python API load
plugins once at start, and every worker process loads the same list before
its first task, so a plugin engine or kind works in the workers too.

A plugin's import is its own code running in the command: whatever it prints
then goes to stderr (the command's own output, such as ``solve``'s answer or
``report --json``, stays exact), and the command line first imports the list
in a child process under the workers' start limit, so a plugin that never
finishes importing is one line (exit 2) instead of a command that hangs.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Sequence

from compare.errors import PluginError

PLUGIN_ENV = "COMPARE_PLUGINS"
LEGACY_PLUGIN_ENV = "COMPARE_ENGINE_PLUGINS"   # older name, still read
_loaded: dict[str, object] = {}


def plugin_list(named: str | Sequence[str] | None = None) -> list[str]:
    """The plugins ``named`` (a list, or a comma list as the environment and the
    command line give it), or the environment's when None; each once, in order."""
    if named is None:
        named = ",".join(filter(None, (os.environ.get(PLUGIN_ENV, ""),
                                       os.environ.get(LEGACY_PLUGIN_ENV, ""))))
    names = named.split(",") if isinstance(named, str) else named
    return list(dict.fromkeys(p.strip() for p in names if p.strip()))


def load_plugins(names: list[str] | str | None = None,
                 within: float | None = None) -> list[str]:
    """Import every plugin once; returns the list loaded, in order.

    ``within``: seconds the plugins not loaded yet may take to import in a child
    process first (``check_apart``); past it, a ``PluginError`` and nothing imported
    here. None: imported here at once (a worker, whose start is timed already)."""
    if names is None or isinstance(names, str):
        names = plugin_list(names)
    new = [name for name in names if name not in _loaded]
    if new and within is not None:
        check_apart(new, within)
    for name in new:
        with stdout_to_stderr():
            _loaded[name] = _import(name)
    return list(names)


# The child of ``check_apart``: the parent's import path, then each plugin, named on
# stderr before it starts; its own faults are the parent's to report.
_CHILD = """import json, sys
sys.path[:] = json.loads(sys.argv[1])
from compare.plugins import import_for_check
import_for_check(sys.argv[2:])
"""
_MARK = "\0plugin "


def check_apart(names: list[str], within: float) -> None:
    """Import ``names`` in a child process (a session of its own) given ``within``
    seconds; one still importing then is killed with anything it started, and named
    in a ``PluginError``. A child that fails otherwise is let be: the import here
    then says why, in the plugin's own words."""
    with tempfile.TemporaryFile() as said:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, json.dumps(sys.path), *names],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=said,
            start_new_session=True)
        try:
            child.wait(timeout=within)
            return
        except subprocess.TimeoutExpired:
            said.seek(0)
            marks = [line for line in said.read().decode("utf-8", "replace").split("\n")
                     if line.startswith(_MARK)]
            name = marks[-1][len(_MARK):] if marks else names[0]
            raise PluginError(f"plugin {name}: still importing after {within:g} s (the "
                              "start limit; COMPARE_START_LIMIT sets it)") from None
        finally:
            if child.poll() is None:
                _kill_session(child)


def _kill_session(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        child.kill()
    child.wait()


def import_for_check(names: list[str]) -> None:
    """``check_apart``'s child: import each plugin, saying which on stderr first."""
    for name in names:
        print(f"{_MARK}{name}", file=sys.stderr, flush=True)
        try:
            _import_module(name)
        except BaseException:        # the parent imports it again and reports why
            sys.exit(1)


@contextmanager
def stdout_to_stderr():
    """What a plugin prints while it imports goes to stderr, both Python's ``print``
    and the process's fd 1 (where there is one), so the command's output stays exact."""
    saved = None
    try:
        sys.stdout.flush()
        if sys.stdout.fileno() == 1 and sys.stderr.fileno() == 2:
            saved = os.dup(1)
            os.dup2(2, 1)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        saved = None
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            try:
                os.dup2(saved, 1)
            finally:
                os.close(saved)


def _import(name: str):
    """Import one plugin; whatever it raises, ``KeyboardInterrupt`` and ``SystemExit``
    included, is a ``PluginError``: a plugin must not end or hang the command that
    loads it. Only a real Ctrl-C (SIGINT arriving meanwhile) stays an interruption."""
    with _ctrl_c_watched() as pressed:
        try:
            return _import_module(name)
        except KeyboardInterrupt:
            if pressed():
                raise
            raise PluginError(f"plugin {name}: raised KeyboardInterrupt while it was "
                              "imported") from None
        except SystemExit as exc:
            raise PluginError(f"plugin {name}: called sys.exit({exc.code!r}) while it was "
                              "imported") from None


@contextmanager
def _ctrl_c_watched():
    """Tell a Ctrl-C or SIGTERM that arrives while plugins import from a plugin's own raise."""
    pressed: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: True            # no handler here: any interruption is taken as real
        return
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def note(signum, frame):
        pressed.append(True)
        handler = before[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler == signal.SIG_DFL:
            raise KeyboardInterrupt

    try:
        for sig, handler in before.items():
            if handler != signal.SIG_IGN:
                signal.signal(sig, note)
        yield lambda: bool(pressed)
    finally:
        for sig, handler in before.items():
            try:
                signal.signal(sig, handler)
            except (ValueError, OSError, TypeError):
                pass


def _import_module(name: str):
    is_file = name.endswith(".py") or os.sep in name or "/" in name
    try:
        if not is_file:
            return importlib.import_module(name)
        path = Path(name).expanduser().resolve()
        if not path.is_file():
            raise PluginError(f"plugin {name}: no such file")
        module_name = f"compare_plugin_{path.stem}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module
    except PluginError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name == name:
            raise PluginError(f"plugin {name}: no such module (is its folder on "
                              "PYTHONPATH?)") from None
        raise PluginError(f"plugin {name}: {type(exc).__name__}: {exc}") from None
    except Exception as exc:
        raise PluginError(f"plugin {name}: {type(exc).__name__}: {exc}") from None


def plugin_environment() -> dict[str, str]:
    """The variables a pasted command needs to see the same plugins."""
    names = plugin_list()
    env = {PLUGIN_ENV: ",".join(names)} if names else {}
    if names and os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def plugin_hashes() -> dict[str, str]:
    """A SHA-256 of each loaded plugin's code, per file (a package: each of its .py files).

    The commit of this repository says nothing about a plugin's code, so a
    comparison of two runs checks these instead: a changed plugin file is a
    changed engine, whatever its label.
    """
    found = {}
    for module in _loaded.values():
        where = getattr(module, "__file__", None)
        if not where:
            continue
        path = Path(where)
        files = sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
        for file in files:
            try:
                found[str(file)] = hashlib.sha256(file.read_bytes()).hexdigest()
            except OSError:
                found[str(file)] = "unreadable"
    return found


def plugin_hint(what: str = "engine") -> str:
    """A hint for an unknown name that no registered one resembles: perhaps a plugin's."""
    if plugin_list():
        return (f"; plugins loaded: {', '.join(plugin_list())}, none registers it "
                "(see docs/extending.md)")
    return (f"; an {what} from a plugin needs its module or file named in {PLUGIN_ENV} "
            "(see docs/extending.md)")
