"""A run's progress as it goes: a bar on a terminal, a line now and then in a log.

``progress_bar`` gives either, or None when no progress is wanted; both take
``update(n)`` as results are stored, ``tick()`` while none come (so a log
still hears how long is left while long tasks run), ``write`` for a line of
their own (a wrong answer shouted) and ``close``.
"""
from __future__ import annotations

import sys
import time

ETA_EVERY_S = 10.0     # progress lines this far apart when stderr is no terminal
# The share of the elapsed time the estimate's rate is measured over: the
# recent work, since tasks come in order (repeats outermost, puzzles as
# given) and the later ones are often the bigger ones.
RECENT_SHARE = 1 / 3
# At most this many (time, done) points kept for it; past that every other
# one is dropped, so a run of a million tasks holds a few hundred.
POINTS_KEPT = 256


def counted(tasks: int, repeats: int = 1) -> str:
    """Tasks as every line counts them: a task is a puzzle x formulation x engine,
    its repeats said apart ("280 tasks x 3 repeats"), so the run's header and its
    verdict give the same number."""
    return f"{tasks} task{'' if tasks == 1 else 's'}" + (
        f" x {repeats} repeats" if repeats > 1 else "")


def progress_bar(total: int, wanted: bool, unit: str = "tasks"):
    """A tqdm bar on a terminal; elsewhere (a log file, CI) a plain line now and then.

    ``unit``: what is counted, "tasks", or "task runs" when tasks are repeated."""
    if not wanted or total == 0:
        return None
    if not sys.stderr.isatty():
        return EtaLines(total, unit=unit)
    from tqdm import tqdm
    bar = tqdm(total=total, unit=unit.rstrip("s"), smoothing=0.05, dynamic_ncols=True)
    bar.tick = lambda: None       # tqdm refreshes on its own clock
    return bar


class EtaLines:
    """Progress for a log: one line every ``every_s`` seconds, done/total and time left.

    The time left is the tasks left times the wall time per task of the recent
    work: from a point about ``RECENT_SHARE`` of the elapsed time back up to
    now. "Up to now", not to the last result: while long tasks run and none
    finishes, their time so far counts, so the estimate grows with it instead
    of standing still; when tasks finish faster, it shrinks. ``tick`` prints
    lines while no result comes. It is as rough as the tasks are unequal, and
    said as "about". ``clock`` is for tests.
    """

    def __init__(self, total: int, every_s: float = ETA_EVERY_S, unit: str = "tasks",
                 clock=time.monotonic):
        self.total, self.every_s, self.unit, self.clock, self.done = total, every_s, unit, \
            clock, 0
        self.start = self.last = clock()
        self.points: list[tuple[float, int]] = [(0.0, 0)]    # (elapsed, done) after updates
        self.since = self.points[0]      # a window's start, chosen at the last result

    def update(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        if n:
            self._note(now - self.start)
        self._maybe_print(now)

    def tick(self) -> None:
        """No result came in, but time passed: a line when one is due."""
        self._maybe_print(self.clock())

    def _maybe_print(self, now: float) -> None:
        if now - self.last >= self.every_s and self.done < self.total:
            self.last = now
            print(self.line(now - self.start), file=sys.stderr, flush=True)

    def _note(self, elapsed: float) -> None:
        """A result came in: the window's start chosen anew, and the point kept."""
        self.since = self._window_start(elapsed)
        self.points.append((elapsed, self.done))
        if len(self.points) > POINTS_KEPT:
            self.points = self.points[:-1:2] + self.points[-1:]

    def _window_start(self, elapsed: float) -> tuple[float, int]:
        """The newest point at least ``RECENT_SHARE`` of ``elapsed`` back with a
        result after it."""
        reach = elapsed * (1 - RECENT_SHARE)
        return next(((t, d) for t, d in reversed(self.points) if t <= reach and d < self.done),
                    self.points[0])

    def left(self, elapsed: float) -> float | None:
        """Seconds left, estimated at ``elapsed``; None before the first task is done.

        The time per task is the larger over two windows ending now: the one
        chosen at the last result (held while none comes, so the figure grows
        with every second of a stall) and the last third of the elapsed time
        (which, in a long stall, holds the stall alone)."""
        if not self.done:
            return None
        per_task = max((elapsed - t) / (self.done - d)
                       for t, d in (self.since, self._window_start(elapsed)))
        return per_task * (self.total - self.done)

    def line(self, elapsed: float) -> str:
        left = self.left(elapsed)
        return (f"progress: {self.done}/{self.total} {self.unit} "
                f"({self.done / self.total:.0%}), {_clock(elapsed)} elapsed, "
                + (f"about {_clock(left)} left" if left is not None else "time left unknown"))

    def write(self, message: str, file=None) -> None:
        print(message, file=file or sys.stderr)

    def close(self) -> None:
        pass


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes \
        else f"{secs}s"
