"""A damaged numba disk cache is discarded and rebuilt once, with one warning."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

REPO = Path(__file__).resolve().parents[2]
KERNEL = '''
from numba import njit

@njit(cache=True)
def add(a, b):
    return a + b
'''
# Calls the compiled function through the healer, as numba_kernel.solve does.
HEAL = '''
import sys
import tinykern
from engines.backtracking.compiled import cache as numba_cache
numba_cache.KERNEL_PACKAGE = "tinykern"
print(numba_cache.healing(tinykern.add, 2, 3))
'''


def python(code: str, folder: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=f"{folder}{os.pathsep}{REPO}")
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def damage(cache: Path, how: str) -> None:
    for path in cache.glob("tinykern.*.nbc"):
        data = bytearray(path.read_bytes())
        if how == "truncated":
            data = data[:len(data) // 3]
        elif how == "garbled bitcode":
            start = data.find(b"BC\xc0\xde")
            assert start > 0, "no LLVM bitcode in the cache entry"
            for i in range(start + 8, min(len(data), start + 2000)):
                data[i] ^= 0x5A
        else:
            data = bytearray(os.urandom(len(data)))
        path.write_bytes(bytes(data))


@pytest.fixture
def cached(tmp_path) -> Path:
    (tmp_path / "tinykern.py").write_text(KERNEL)
    first = python("import tinykern; print(tinykern.add(1, 2))", tmp_path)
    assert first.stdout.strip() == "3", first.stderr
    assert list((tmp_path / "__pycache__").glob("tinykern.*.nbc"))
    return tmp_path


@pytest.mark.parametrize("how", ["truncated", "garbled bitcode", "random bytes"])
def test_a_damaged_cache_entry_is_rebuilt_with_one_warning(cached, how):
    damage(cached / "__pycache__", how)
    unhealed = python("import tinykern; tinykern.add(2, 3)", cached)
    assert unhealed.returncode != 0        # what numba does on its own
    healed = python(HEAL, cached)
    assert healed.returncode == 0 and healed.stdout.strip() == "5", healed.stderr
    lines = healed.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: the numba kernel's disk cache")
    assert "compiling afresh" in lines[0]
    again = python("import tinykern; print(tinykern.add(2, 3))", cached)  # rebuilt on disk
    assert again.stdout.strip() == "5" and again.stderr == ""


def test_processes_meeting_the_damage_together_rebuild_once(cached):
    damage(cached / "__pycache__", "truncated")
    env = dict(os.environ, PYTHONPATH=f"{cached}{os.pathsep}{REPO}")
    procs = [subprocess.Popen([sys.executable, "-c", HEAL], cwd=cached, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [out.strip() for out, _ in outs] == ["5"] * 3
    warnings = [line for _, err in outs for line in err.splitlines()]
    assert len(warnings) == 1 and "compiling afresh" in warnings[0]


def test_a_fault_that_is_not_the_cache_is_not_hidden(tmp_path):
    from engines.backtracking.compiled import cache as numba_cache

    def broken():
        raise ValueError("the kernel's own fault")

    with pytest.raises(ValueError, match="own fault"):
        numba_cache.healing(broken)
