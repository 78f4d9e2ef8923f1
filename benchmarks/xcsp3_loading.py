"""XCSP3 loading time: this project's parse + translation against CPMpy's own loader.

    python benchmarks/xcsp3_loading.py                       # the slowest files of the set
    python benchmarks/xcsp3_loading.py --all                 # every file of the set
    python benchmarks/xcsp3_loading.py path/to/a.xml.lzma ...

Each load runs in a fresh process (pycsp3 keeps global state between
parses), timed inside it after the imports: ``load_file`` (read, pycsp3's
parse, recording, translation into the model) and ``cpmpy.tools.xcsp3.
load_xcsp3`` (read, the same pycsp3 parse, CPMpy's model). The two loads of a
file run back to back, so their ratio is measured under the same load of the
machine; with ``--rounds N`` (default 3) each file's pair runs N times, which
of the two goes first alternating, and the table shows the median of each
time and of the N ratios (one pair on a shared machine moved the ratio from
1.1 to 2.6). Prints a Markdown table; the ratio is ours / CPMpy's.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from statistics import median

from compare.benchmark import DATASETS

FOLDER = DATASETS / "xcsp3_2024_csp"
# the files that take longest to load (parse time, measured once over the whole set)
SLOWEST = ("Takuzu-150_c24", "SocialGolfers-08-08-09_c24", "WordSquare-hak-11-ogd2008_c24",
           "AverageAvoiding-60_c24")

OURS = """
import json, sys, time
from puzzles.formats.xcsp3.kind import load_file
start = time.perf_counter()
puzzle = load_file(sys.argv[1])
parse_s, translate_s = puzzle.load_times
print(json.dumps({"total": time.perf_counter() - start, "parse": parse_s,
                  "translate": translate_s,
                  "na": puzzle.to_model().structure.unsupported}))
"""
THEIRS = """
import json, lzma, sys, time
from cpmpy.tools.xcsp3 import load_xcsp3
start = time.perf_counter()
load_xcsp3(sys.argv[1], open=(lambda p: lzma.open(p, "rt")) if sys.argv[1].endswith(".lzma")
           else open)
print(json.dumps({"total": time.perf_counter() - start}))
"""


def timed(code: str, path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True)
    if proc.returncode:
        return {"total": float("nan"), "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--all", action="store_true", help="every file of the set")
    parser.add_argument("--rounds", type=int, default=3, choices=range(1, 101),
                        metavar="N", help="loads of each file by each loader (default 3)")
    args = parser.parse_args(argv)
    files = args.files or (sorted(FOLDER.glob("*.xml.lzma")) if args.all
                           else [FOLDER / f"{name}.xml.lzma" for name in SLOWEST])
    missing = [f for f in files if not f.is_file()]
    if missing:
        print(f"error: no such file {missing[0]}", file=sys.stderr)
        return 2
    print("| instance | parse s | translate s | ours s | CPMpy s | ours / CPMpy |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in files:
        pairs = []
        for round_ in range(args.rounds):
            if round_ % 2:
                theirs = timed(THEIRS, path)
                pairs.append((timed(OURS, path), theirs))
            else:
                pairs.append((timed(OURS, path), timed(THEIRS, path)))
        ours = {key: median(o.get(key, float("nan")) for o, _ in pairs)
                for key in ("parse", "translate", "total")}
        theirs = median(t["total"] for _, t in pairs)
        ratio = median(o["total"] / t["total"] if t["total"] else float("nan")
                       for o, t in pairs)
        name = path.name.removesuffix(".lzma").removesuffix(".xml")
        note = " (n/a)" if pairs[0][0].get("na") else ""
        print(f"| {name}{note} | {ours['parse']:.2f} | {ours['translate']:.2f} | "
              f"{ours['total']:.2f} | {theirs:.2f} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
