"""What a run was measured on, recorded at its start and end.

Timings mean something only beside the machine, the load it carried and the
code and library versions that produced them, so every run stores this in its
results file (meta ``environment``, one record per invocation: a resumed run
adds one) and every report prints it. The benchmark report uses the same
helpers, so the two never describe a machine differently.
"""
from __future__ import annotations

import importlib.metadata
import platform
import subprocess
from datetime import datetime
from pathlib import Path

import psutil

from compare.plugins import plugin_hashes

# Libraries whose version changes figures even though no engine is named after them.
REPORT_LIBRARIES = ("pandas", "numpy", "scipy", "matplotlib")
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def cpu_model() -> str:
    """The CPU's name (psutil does not give it: /proc/cpuinfo, else ``platform``)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def memory_gb() -> float | None:
    """Physical memory in GiB, or None where the system does not say."""
    try:
        return psutil.virtual_memory().total / 2 ** 30
    except (OSError, RuntimeError):
        return None


def available_memory_mb() -> float | None:
    """Memory available to new processes without swapping, in MiB (None: unknown)."""
    try:
        return psutil.virtual_memory().available / 2 ** 20
    except (OSError, RuntimeError):
        return None


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (psutil emulates them where the system
    has none, e.g. Windows; None where it cannot)."""
    try:
        return [round(x, 2) for x in psutil.getloadavg()]
    except (AttributeError, OSError, RuntimeError):
        return None


def version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          timeout=10)


def _checkout(root: Path) -> bool:
    """Whether ``root`` is the top of a git checkout: a package installed into some
    other repository's folder is not that repository's code."""
    top = _git(root, "rev-parse", "--show-toplevel").stdout.strip()
    return bool(top) and Path(top).resolve() == root.resolve()


def code_state(root: Path = PROJECT_ROOT) -> str:
    """The project's git commit, marked when tracked files differ from it."""
    try:
        if not _checkout(root):
            return "not a git checkout"
        head = _git(root, "rev-parse", "--short", "HEAD").stdout.strip()
        dirty = _git(root, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout (git not runnable)"
    return f"git {head}" + (" with uncommitted changes" if dirty else " (clean)")


def commit(root: Path = PROJECT_ROOT, ref: str = "HEAD") -> dict:
    """The full commit id and its commit time, which put runs in commit order; empty
    where ``root`` is no checkout of the project or ``ref`` names no commit."""
    try:
        if not _checkout(root):
            return {}
        shown = _git(root, "show", "-s", "--format=%H %cI", ref, "--")
    except (OSError, subprocess.SubprocessError):
        return {}
    parts = shown.stdout.split()
    if shown.returncode or len(parts) != 2:
        return {}
    return {"commit": parts[0], "committed": parts[1]}


def now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def machine() -> dict:
    """The parts that do not change while a run lasts."""
    return {"cpu": cpu_model(), "cores": psutil.cpu_count(), "memory_gb": memory_gb(),
            "os": platform.platform(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "host": platform.node(), "code": code_state(), **commit()}


def libraries(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Versions of the given engine libraries and of the report's own libraries."""
    found = {name: v for name, v in (extra or {}).items() if name and name != "builtin"}
    found.update({name: version(name) for name in REPORT_LIBRARIES})
    return found


def at_start(engine_libraries: dict[str, str] | None = None, command: str = "") -> dict:
    """One invocation's record, as it starts."""
    return {**machine(), "libraries": libraries(engine_libraries), "command": command,
            "plugins": plugin_hashes(), "started": now(), "load_start": load_average()}


def at_end(record: dict, interrupted: bool = False) -> dict:
    """The same record, completed as the invocation ends."""
    ended = {**record, "ended": now(), "load_end": load_average()}
    if interrupted:
        ended["interrupted"] = True
    return ended


def describe(record: dict) -> list[str]:
    """The record as short lines for a report."""
    memory = record.get("memory_gb")
    lines = [f"machine: {record.get('cpu', '?')}, {record.get('cores', '?')} cores, "
             + (f"{memory:.1f} GiB memory" if memory else "memory unknown"),
             f"system: {record.get('os', '?')}; Python {record.get('python', '?')}"]
    libs = record.get("libraries") or {}
    if libs:
        lines.append("libraries: " + ", ".join(f"{k} {v}" for k, v in libs.items()))
    lines.append(f"code: {record.get('code', '?')}")
    if record.get("started"):
        ended = record.get("ended") or "not recorded (killed)"
        lines.append(f"started {record['started']}, ended {ended}"
                     + (" (interrupted)" if record.get("interrupted") else ""))
    if "load_start" in record:
        lines.append(f"load average (1, 5, 15 min): {_load(record.get('load_start'))} at start"
                     + (f", {_load(record.get('load_end'))} at end" if "ended" in record
                        else ""))
    return lines


def _load(values) -> str:
    return "/".join(f"{x:.2f}" for x in values) if values else "?"
