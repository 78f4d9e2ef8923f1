"""The machine's speed, sampled during a run, so runs can be compared across drift.

A run's times measure the code and the machine together: two runs of the
same code on a machine that is busier the second time read as a slowdown.
Each run therefore times a fixed, deterministic CPU-bound workload (a
pure-Python loop and a numpy piece, about 10 ms; each sample times it three
times and keeps the median, so one timing cut by another process does not
count) in the parent process: at the start, between batches of results (at
most ``MAX_BETWEEN`` times, ever further apart) and at the end. The samples
and their summary are stored in meta.json (``calibration``); a resumed run
adds its own session's samples.

Between two runs, ``drift`` reads the two calibrations: the ratio of
their medians (B/A: how much slower B's machine was). Like is compared with like: when both runs have a few samples taken between
batches, only those count, as they ran beside busy workers like the tasks
did; else the samples at the start (taken before the workers start) and
the end, when no task runs. The noise floor (the
larger of that drift and the samples' spread, as a 95 % half-width) is the
smallest change a comparison may call; times are compared as measured. The samples run while workers
solve (the parent cannot pause a task being timed without changing it):
they measure the machine the tasks ran on, not any one task.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

WORKLOAD = "median of 3: lcg-dict 20000 + numpy sort-cumsum 60000"   # stored: unlike workloads don't compare
MAX_BETWEEN = 12        # samples between batches, at most, per session
FIRST_GAP_S = 2.0       # the first sample between batches comes this long after the start;
                        # each next one after as long again as the run has lasted (doubling)
BETWEEN_ENOUGH = 3      # samples between batches that, in both runs, are compared alone
TIE = 0.05              # a change within 5 % either way is a tie (as ``reporting.paired.TIE``)
Z95 = 1.959964

_DATA: dict = {}


def _python_part(n: int = 20_000) -> int:
    """Integer arithmetic, dict and loop work: what an interpreter spends its time on."""
    total, seen, x = 0, {}, 12345
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        key = x % 997
        seen[key] = seen.get(key, 0) + 1
        total += key
    return total + len(seen)


def _fixed_input() -> np.ndarray:
    """The numpy part's 60,000 numbers, the same in every run, made once and untimed."""
    if "array" not in _DATA:
        _DATA["array"] = np.random.default_rng(0).random(60_000)
    return _DATA["array"]


def _numpy_part(fixed: np.ndarray) -> float:
    """A sort and a few passes over the fixed numbers (single-threaded in numpy)."""
    values = fixed.copy()
    values.sort()
    return float(np.cumsum(values)[-1] + np.sqrt(values).sum())


REPEATS = 3             # a sample is the median of this many timings: one preempted is ignored


def workload() -> dict:
    """Time the workload once: seconds for each part and in all (``s``)."""
    fixed = _fixed_input()
    start = time.perf_counter()
    _python_part()
    middle = time.perf_counter()
    _numpy_part(fixed)
    end = time.perf_counter()
    return {"s": end - start, "python_s": middle - start, "numpy_s": end - middle}


def summary(samples: list[dict]) -> dict:
    """The median of the samples' times and their spread (standard deviation of log
    times, 0 with fewer than two samples): over all of them, over those taken between
    batches (``between``, beside busy workers) and over those at the start and end
    (``quiet``, with no task running)."""
    timed = [s for s in samples if s.get("s")]
    figures = _figures(timed)
    figures["between"] = _figures([s for s in timed if s.get("at") == "between"])
    figures["quiet"] = _figures([s for s in timed if s.get("at") in ("start", "end")])
    return figures


def taken(at: str, session: int = 1) -> dict:
    """One sample: the workload timed ``REPEATS`` times now, the median timing's parts,
    every timing (``each_s``), and when and where in the run (``at``)."""
    timings = sorted((workload() for _ in range(REPEATS)), key=lambda t: t["s"])
    middle = timings[len(timings) // 2]
    return {"at": at, "session": session,
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            **{k: round(v, 6) for k, v in middle.items()},
            "each_s": [round(t["s"], 6) for t in timings]}


def _figures(samples: list[dict]) -> dict:
    times = [s["s"] for s in samples if s["s"] > 0]
    if not times:
        return {"median_s": None, "spread": None, "count": 0}
    logs = [math.log(t) for t in times]
    spread = statistics.stdev(logs) if len(logs) > 1 else 0.0
    return {"median_s": statistics.median(times), "spread": spread, "count": len(times)}


class Calibration:
    """The samples of one session, added to those of the run's earlier sessions."""

    def __init__(self, earlier: dict | None = None, session: int = 1,
                 first: dict | None = None):
        same = earlier and earlier.get("workload") == WORKLOAD
        self.samples: list[dict] = list(earlier.get("samples", [])) if same else []
        if first is not None:       # taken before the workers started (``taken``)
            self.samples.append({**first, "session": session})
        self.session = session
        self.started = time.perf_counter()
        self.between_taken = 0
        self.next_at = FIRST_GAP_S

    def sample(self, at: str) -> dict:
        self.samples.append(taken(at, self.session))
        return self.samples[-1]

    def between(self) -> None:
        """Between batches of results: a sample when it is due, at most ``MAX_BETWEEN``."""
        if self.between_taken >= MAX_BETWEEN:
            return
        elapsed = time.perf_counter() - self.started
        if elapsed < self.next_at:
            return
        self.sample("between")
        self.between_taken += 1
        self.next_at = 2 * elapsed

    def stored(self) -> dict:
        """meta.json's ``calibration``: the workload, every sample, their summary."""
        return {"workload": WORKLOAD, "samples": self.samples, **summary(self.samples)}


# ----- between two runs ------------------------------------------------------------------
@dataclass
class Drift:
    """How much slower run B's machine was than A's, and the smallest change worth calling.

    ``applied``: both runs hold comparable calibrations, so changes are called
    only beyond ``tie`` (the larger of the tie band and ``floor``); else ``why``
    says what is missing. Times are compared as measured, not divided by the
    drift: the parent times the workload beside busy workers, so its reading
    follows the load on the cores as much as the machine's speed, and dividing
    by it moved identical runs apart. What it can say honestly is how large a
    change the machine alone may make.
    """
    applied: bool
    ratio: float = 1.0
    spread: float = 0.0         # the 95 % half-width of the ratio, as a fraction
    floor: float = 0.0          # exp(max(|log ratio|, log(1 + spread))) - 1
    why: str = ""
    medians: tuple = field(default=(None, None))
    counts: tuple = field(default=(0, 0))
    basis: str = "samples"      # which samples were compared: all, or those between batches

    @property
    def tie(self) -> float:
        return max(TIE, self.floor) if self.applied else TIE

    def normalised(self, times):
        """B's times as compared: as measured (the drift widens the floor instead)."""
        return times

    def line(self, a: str = "A", b: str = "B") -> str:
        """What was applied and the floor's size, in one line."""
        if not self.applied:
            return (f"Machine drift: not applied ({self.why}): times are not normalised "
                    f"and the tie band ({TIE:.0%}) is the only noise floor.")
        ms = [f"{m * 1000:.1f} ms" for m in self.medians]
        return (f"Machine drift: the calibration workload took {ms[0]} in {a} and {ms[1]} "
                f"in {b} (medians of {self.counts[0]} and {self.counts[1]} {self.basis}), "
                f"ratio {b}/{a} {self.ratio:.3g}; times compared as measured, noise floor "
                f"±{self.floor:.1%} (the larger of the drift {abs(self.ratio - 1):.1%} and "
                f"the calibration's spread {self.spread:.1%}): a change is called only when "
                f"its whole interval lies beyond ±{self.tie:.1%}.")

    def as_dict(self) -> dict:
        return {"applied": self.applied, "ratio": self.ratio, "spread": self.spread,
                "floor": self.floor, "tie": self.tie, "why": self.why,
                "medians_s": list(self.medians), "samples": list(self.counts),
                "basis": self.basis}


def drift(a: dict | None, b: dict | None, names: tuple[str, str] = ("A", "B")) -> Drift:
    """The drift from run A to run B, from their stored calibrations (None: none stored)."""
    missing = [n for n, c in zip(names, (a, b)) if not c or not c.get("median_s")]
    if missing:
        return Drift(False, why=f"{' and '.join(missing)} hold{'s' if len(missing) == 1 else ''}"
                                " no calibration")
    if a.get("workload") != b.get("workload"):
        return Drift(False, why="the runs timed different calibration workloads")
    basis = "samples"
    if all((c.get("between") or {}).get("count", 0) >= BETWEEN_ENOUGH for c in (a, b)):
        a, b, basis = a["between"], b["between"], "samples taken between batches"
    elif all((c.get("quiet") or {}).get("count", 0) for c in (a, b)):
        a, b, basis = a["quiet"], b["quiet"], "samples at the start and end"
    ratio = b["median_s"] / a["median_s"]
    half = Z95 * math.sqrt(sum((c.get("spread") or 0.0) ** 2 / max(1, c.get("count") or 1)
                               for c in (a, b)))
    floor = math.exp(max(abs(math.log(ratio)), half)) - 1
    return Drift(True, ratio, math.expm1(half), floor, medians=(a["median_s"], b["median_s"]),
                 counts=(a.get("count", 0), b.get("count", 0)), basis=basis)


def series_line(ratios: list[float] = (), floors: list[float] = (), bare: list[str] = (),
                relative: bool = False) -> str:
    """How a series of steps took drift into account: the drift ratios and floors of the
    steps where it applied, and the runs whose steps had no calibration (``bare``)."""
    if relative:
        return ("Machine drift: not applied; the steps compare times relative to the "
                "baseline in the same run, which the machine's speed cancels out of.")
    said = []
    if ratios:
        said.append("Machine drift: in each step, times are compared as measured and a "
                    "change is called only beyond the noise floor: the larger of the ratio "
                    "of the two runs' calibrations (a fixed workload timed during each run; "
                    f"here {_range(ratios, '.3g')}) and the calibration's spread (here "
                    f"±{_range(floors, '.1%')}).")
    if bare:
        said.append(f"No drift correction for the step(s) to {', '.join(bare)}: a run holds "
                    "no calibration, so times are compared as measured, with the "
                    f"{TIE:.0%} tie band as the only noise floor.")
    return " ".join(said)


def _range(values: list[float], spec: str) -> str:
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low} to {high}"
