"""Paired speed statistics: one engine against another, puzzle by puzzle.

A ratio of mean times lets the slowest puzzle decide: one 1.2 s outlier
outweighs fifty 5 ms puzzles, and two identical runs can disagree by a factor
of two. The headline figure is therefore paired and multiplicative:

    r_i   = (t_engine,i + shift) / (t_baseline,i + shift)        per puzzle i
    ratio = exp(mean_i log r_i)                                  (shifted geometric mean)

over the puzzles both engines attempted. ``t`` is the task's time when it
was solved, else its PAR2 value (twice the time limit), so an unsolved task
counts as a loss, not as a missing value. The shift keeps timer noise on
trivial puzzles from reading as a factor of two, and is chosen from the run
(``run_shift``): a tenth of the baseline's median time. A fixed shift cannot
fit every run: 1 ms suits tasks of milliseconds, but next to solves of 60 µs
it swamps the times, and an engine 3x faster on every puzzle read as 1.2x.
A tenth of the baseline's median moves a ratio r on a typical puzzle only to
(r + 0.1) / 1.1, while a puzzle a hundred times faster than that median gets
a ratio near 1 instead of noise. The 95 % confidence interval comes from
``scipy.stats.bootstrap`` (BCa) resampling puzzles with both engines' times
kept together, seeded, so the same results always give the same interval;
from ``NORMAL_FROM`` puzzles on, where the mean of the log ratios is as
normal as a bootstrap can tell, it is the normal interval of that mean.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

DEFAULT_SHIFT_S = 0.001     # 1 ms: where nothing is known of the run's times
SHIFT_FRACTION = 0.1        # the run's shift: this fraction of the baseline's median time
TIE = 0.05                  # a ratio within 5 % either way is a tie
SEED = 0
RESAMPLES = 9999
BCA_UP_TO = 2000            # BCa's jackknife grows with n^2; beyond this, percentile
NORMAL_FROM = 5000          # from here the normal interval of the mean: the bootstrap's
                            # matches it to 3 digits, and costs minutes on 50,000 puzzles
FLOOR_S = 1e-6              # below timer resolution: keeps log finite with shift 0


def run_shift(base_times) -> float:
    """The shift for a run: ``SHIFT_FRACTION`` of the baseline's median time (PAR2
    values included), never below the timer floor; 1 ms when there is no time."""
    times = np.asarray(base_times, dtype=float)
    times = times[np.isfinite(times)]
    if len(times) == 0:
        return DEFAULT_SHIFT_S
    return float(max(FLOOR_S, SHIFT_FRACTION * np.median(times)))


def log_times(times, shift_s: float) -> np.ndarray:
    return np.log(np.maximum(np.asarray(times, dtype=float), FLOOR_S) + shift_s)


def shifted_geomean(times, shift_s: float) -> float:
    """exp(mean log(t + shift)) - shift: a typical time that no outlier decides."""
    if len(times) == 0:
        return math.nan
    return float(np.exp(log_times(times, shift_s).mean()) - shift_s)


def compare(times, base, shift_s: float = DEFAULT_SHIFT_S, tie: float = TIE,
            seed: int = SEED) -> dict:
    """The paired figures of ``times`` against ``base`` (aligned arrays, one per puzzle).

    Wins are puzzles where ``times`` is faster by more than ``tie``, losses
    slower by more; the rest are ties.
    """
    a, b = log_times(times, shift_s), log_times(base, shift_s)
    diff = a - b
    n = len(diff)
    if n == 0:
        return {"pairs": 0, "ratio": math.nan, "ci_low": math.nan, "ci_high": math.nan,
                "median_ratio": math.nan, "wins": 0, "ties": 0, "losses": 0}
    band = math.log1p(tie)
    wins, losses = int((diff < -band).sum()), int((diff > band).sum())
    low, high = confidence(a, b, seed)
    return {"pairs": n, "ratio": float(np.exp(diff.mean())), "ci_low": low, "ci_high": high,
            "median_ratio": float(np.exp(np.median(diff))), "wins": wins,
            "ties": n - wins - losses, "losses": losses}


def _mean_difference(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def confidence(a: np.ndarray, b: np.ndarray, seed: int = SEED,
               level: float = 0.95) -> tuple[float, float]:
    """The bootstrap interval of exp(mean(a - b)), resampling pairs (a_i, b_i) together."""
    diff = a - b
    if len(diff) < 2:
        return math.nan, math.nan
    if np.ptp(diff) == 0:           # every pair says the same: nothing to resample
        value = float(np.exp(diff[0]))
        return value, value
    # scipy.stats is imported here, where an interval is computed: it costs most of a
    # second of start-up, which a run with one engine (no pairs) never needs.
    from scipy import stats
    if len(diff) >= NORMAL_FROM:
        half = stats.norm.ppf(0.5 + level / 2) * diff.std(ddof=1) / math.sqrt(len(diff))
        return float(np.exp(diff.mean() - half)), float(np.exp(diff.mean() + half))
    methods = ("BCa", "percentile") if len(diff) <= BCA_UP_TO else ("percentile",)
    for method in methods:                     # BCa can fail on very lopsided samples
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.bootstrap((a, b), _mean_difference, paired=True, vectorized=True,
                                     n_resamples=RESAMPLES, confidence_level=level,
                                     method=method, rng=np.random.default_rng(seed))
        low, high = result.confidence_interval
        if np.isfinite(low) and np.isfinite(high):
            return float(np.exp(low)), float(np.exp(high))
    return math.nan, math.nan


def verdict(low: float, high: float, tie: float = TIE) -> str:
    """'slower' / 'faster' only when the whole interval lies beyond the tie band."""
    if math.isnan(low) or math.isnan(high):
        return "too few tasks"
    if low > 1 + tie:
        return "slower"
    if high < 1 / (1 + tie):
        return "faster"
    return "no significant change"
