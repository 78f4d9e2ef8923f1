"""Hostile and odd XCSP3 files through the real command line, in bounded time and memory.

Each file is refused with one line on stderr naming the file and what is
wrong, exit 2, within 10 seconds and 500 MB of resident memory, measured on
the ``run_compare.py solve FILE`` process (and anything it waited for) with
``os.wait4``; its address space is capped as well, so a regression fails here
instead of swamping the machine. A byte-order mark is valid XML and is read.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

if importlib.util.find_spec("pycsp3") is None:
    pytest.skip("pycsp3 is not installed (pip install -e '.[xcsp3]')", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 10
RSS_MB = 500
ADDRESS_SPACE = 3 << 30      # a guard only: the measure is the resident memory


def instance(variables: str, constraints: str = "<allDifferent> x y </allDifferent>") -> str:
    return (f'<instance format="XCSP3" type="CSP"><variables>{variables}</variables>'
            f"<constraints>{constraints}</constraints></instance>")


def with_x(domain: str) -> str:
    return instance(f'<var id="x"> {domain} </var><var id="y"> 1..3 </var>')


BOMBS = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
CASES = {
    "pieces": (lambda: with_x("\n".join(str(2 * i + 1) for i in range(10 ** 6))),
               "written in 1,000,000 pieces"),
    "ranges": (lambda: with_x("\n".join(f"{3 * i}..{3 * i + 1}" for i in range(200_000))),
               "written in 200,000 pieces"),
    "wide-ranges": (lambda: with_x(" ".join(f"{3 * i * 10 ** 6}..{(3 * i + 1) * 10 ** 6}"
                                            for i in range(10))),
                    "more than 1,000,000 values"),
    "shared-pieces": (lambda: instance('<array id="x" size="[200000]"> '
                                       + " ".join(str(2 * i) for i in range(10))
                                       + ' </array><var id="y"> 1..3 </var>',
                                       "<allDifferent> x[0] y </allDifferent>"),
                      "more than 1,000,000 pieces over all variables"),
    "distinct-domains": (lambda: instance("".join(f'<var id="v{i}"> {i}..{i + 999_999} </var>'
                                                  for i in range(6)) + '<var id="x"> 1 </var>'
                                          '<var id="y"> 1..3 </var>'),
                         "distinct domains hold more than 5,000,000 values"),
    "huge-array": (lambda: instance('<array id="x" size="[100000][100000]"> 1..3 </array>'
                                    '<var id="y"> 1..3 </var>',
                                    "<allDifferent> x[0][0] y </allDifferent>"),
                   "more than 200,000 variables"),
    "empty-range": (lambda: with_x("5..1"), "the range 5..1 in its domain is empty"),
    "empty-domain": (lambda: with_x(""), "variable x has an empty domain"),
    "not-a-number": (lambda: with_x("1 two 3"), "'two' in its domain is not a whole number"),
    "overlap": (lambda: with_x("1..5 3..7"), "holds 3 twice"),
    "external-entity": (lambda: '<?xml version="1.0"?>\n<!DOCTYPE instance [<!ENTITY e '
                                'SYSTEM "file:///etc/passwd">]>\n'
                                + with_x("1..3").replace("</instance>", "&e;</instance>"),
                        "entities/DTD are not allowed"),
    "billion-laughs": (lambda: f'<?xml version="1.0"?>\n<!DOCTYPE instance [<!ENTITY l0 "lol">'
                               f"{BOMBS}]>\n"
                               + with_x("1..3").replace("</instance>", "&l9;</instance>"),
                       "entities/DTD are not allowed"),
}


def run_bounded(*argv: str) -> tuple[int, str, str, float, float]:
    """``(exit code, stdout, stderr, seconds, peak resident MB)`` of the CLI."""
    # A small launcher starts the CLI and reports its peak: Linux keeps, in a
    # child's ru_maxrss, the resident peak of the process it was forked from, so
    # a CLI started from this (large) test process would be charged for it.
    launcher = (
        "import os, resource, subprocess, sys\n"
        "def cap():\n"
        f"    resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE}))\n"
        "p = subprocess.Popen([sys.executable, *sys.argv[2:]], preexec_fn=cap)\n"
        "_, status, usage = os.wait4(p.pid, 0)\n"
        "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
        "code = os.waitstatus_to_exitcode(status)\n"
        "sys.exit(code if code >= 0 else 128 - code)\n")
    handle, name = tempfile.mkstemp(suffix=".peak")
    os.close(handle)
    peak_file = Path(name)
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", launcher, str(peak_file), "run_compare.py",
                             *argv], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    killer = threading.Timer(4 * SECONDS, lambda: os.killpg(proc.pid, 9))
    killer.start()
    try:
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait()
    finally:
        killer.cancel()
    took = time.monotonic() - start
    try:
        peak_kb = int(peak_file.read_text())
    finally:
        peak_file.unlink(missing_ok=True)
    return proc.returncode, out.decode(), err.decode(), took, peak_kb / 1024


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_file_is_refused_in_one_line_within_bounds(tmp_path, case):
    build, fragment = CASES[case]
    path = tmp_path / f"{case}.xml"
    path.write_text(build())
    code, out, err, took, rss = run_bounded("solve", str(path))
    assert (code, out) == (2, ""), err
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line, err
    assert line.startswith(f"error: {path}") and fragment in line, line
    assert took < SECONDS, f"{took:.1f} s"
    assert rss < RSS_MB, f"{rss:.0f} MB"


def test_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.xml"
    path.write_bytes(b"\xef\xbb\xbf" + with_x("1..3").encode())
    code, out, err, took, rss = run_bounded("solve", str(path))
    assert code == 0, err
    assert out.splitlines() == ["x 1", "y 2"]
    assert took < SECONDS and rss < RSS_MB


def test_values_beyond_64_bits_are_na_before_the_engine_runs(tmp_path):
    """Not a bad file: n/a (exit 3), with whose limit it is, for each engine."""
    path = tmp_path / "big.xml"
    path.write_text(instance('<var id="x"> 99999999999999999999999 </var>'
                             '<var id="y"> 1..3 </var>', "<intension> ne(x,y) </intension>"))
    code, out, err, _, _ = run_bounded("solve", "--engine", "backtracking", str(path))
    assert (code, out) == (3, ""), err
    assert err.strip() == ("backtracking: unsupported (backtracking: values beyond ±2^63: "
                           "outside the tool's range (answers are carried as 64-bit "
                           "integers))")
