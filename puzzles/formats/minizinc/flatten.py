"""A MiniZinc model and its data, flattened to FlatZinc by the ``minizinc`` executable.

``flatten(model, data)`` runs ``minizinc --solver MSC -c MODEL [DATA] --fzn F --ozn O
--output-mode dzn`` in a temporary folder, removed after, and parses ``F`` with the FlatZinc parser
(``puzzles.formats.flatzinc``). The solver configuration ``MSC`` is written
into that folder each time: it names ``mznlib/``, beside this module, as the
solver's library, so the globals the models here take natively
(``fzn_all_different_int``, ``fzn_table_int``) stay whole and MiniZinc's
standard library decomposes every other global. The output mode makes every
variable the model declares an output of the FlatZinc (``output_var``,
``output_array``), whatever its output item prints: the names an answer gives.

The compiler runs in a session of its own, bounded by ``TIMEOUT_S``; past it
the whole group is killed. Every fault is a ``PuzzleInputError``: no
``minizinc`` on the PATH, a timeout, or a model that does not compile, whose
message is MiniZinc's own error block (it may span lines: the error, then the
file and place). An optimisation model flattens like any other; the
translation answers n/a for it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from puzzles.errors import PuzzleInputError, ToolReport
from puzzles.formats.flatzinc import FlatZinc, read

__all__ = ["MZNLIB", "NO_MINIZINC", "OUTPUT_MODE", "TIMEOUT_S", "flatten", "library_version",
           "solver_config"]

MZNLIB = Path(__file__).parent / "mznlib"
TIMEOUT_S = 300.0
NO_MINIZINC = "no minizinc executable: install MiniZinc (Debian package minizinc)"
SOLVER_ID = "org.cspcompare.backtracker"
# Every variable of the model, not only those its output item prints, is an output of
# the FlatZinc (``output_var``/``output_array``): a solver's compile of the same model
# with this mode gives values of exactly these names.
OUTPUT_MODE = "dzn"


def solver_config(folder: str | os.PathLike) -> Path:
    """Write the solver configuration (``.msc``) that points MiniZinc at ``mznlib``."""
    config = {"id": SOLVER_ID, "name": "backtracker", "version": "1.0",
              "mznlib": str(MZNLIB.resolve()), "executable": "fzn-backtracker",
              "stdFlags": ["-a", "-n", "-s", "-t", "-r"], "supportsFzn": True}
    path = Path(folder) / "backtracker.msc"
    path.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    return path


def executable(source: str = "minizinc") -> str:
    """The ``minizinc`` on the PATH; its absence is bad input (``source``'s), in one line."""
    found = shutil.which("minizinc")
    if found is None:
        raise PuzzleInputError(source, None, NO_MINIZINC)
    return found


def library_version() -> str:
    """A digest of what decides the flattening: the library's files and the compiler
    (its path, size and modification time), so a new MiniZinc makes new cache entries."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(MZNLIB.glob("*.mzn")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    found = shutil.which("minizinc")
    if found is not None:
        stat = os.stat(found)
        digest.update(f"{os.path.realpath(found)}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def flatten(model: str, data: str | None = None, source: str = "",
            timeout: float = TIMEOUT_S) -> tuple[FlatZinc, float]:
    """``model`` (with ``data``) as parsed FlatZinc, and the seconds MiniZinc took."""
    source = source or model
    program = executable(source)
    with tempfile.TemporaryDirectory(prefix="csp-compare-mzn-") as folder:
        fzn, ozn = os.path.join(folder, "model.fzn"), os.path.join(folder, "model.ozn")
        command = [program, "--solver", str(solver_config(folder)), "-c",
                   os.path.abspath(model)]
        if data is not None:
            command.append(os.path.abspath(data))
        command += ["--fzn", fzn, "--ozn", ozn, "--output-mode", OUTPUT_MODE]
        started = time.perf_counter()
        code, out, err = _run(command, folder, timeout, source)
        took = time.perf_counter() - started
        if code != 0 or not os.path.isfile(fzn):
            block = (err.strip() or out.strip()
                     or f"minizinc stopped with exit code {code} and said nothing")
            raise ToolReport(source, block)
        return read(fzn), took


def _run(command: list[str], folder: str, timeout: float, source: str) -> tuple[int, str, str]:
    try:
        child = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
    except OSError as exc:
        raise PuzzleInputError(source, None, f"cannot run minizinc: "
                                             f"{exc.strerror or type(exc).__name__}") from None
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child.pid)
        child.communicate()
        raise PuzzleInputError(source, None, f"minizinc did not flatten it within "
                                             f"{timeout:g} s") from None
    except BaseException:            # Ctrl-C: the compiler and its children go too
        _kill_group(child.pid)
        child.wait()
        raise
    return (child.returncode, out.decode("utf-8", "replace"),
            err.decode("utf-8", "replace"))


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
