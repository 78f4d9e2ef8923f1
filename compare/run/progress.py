"""A run's progress as it goes: a bar on a terminal, a line now and then in a log.

``progress_bar`` gives either, or None when no progress is wanted; both take
``update(n)`` as results are stored, ``write`` for a line of their own (a
wrong answer shouted) and ``close``.
"""
from __future__ import annotations

import sys
import time

ETA_EVERY_S = 10.0     # progress lines this far apart when stderr is no terminal


def progress_bar(total: int, wanted: bool):
    """A tqdm bar on a terminal; elsewhere (a log file, CI) a plain line now and then."""
    if not wanted or total == 0:
        return None
    if not sys.stderr.isatty():
        return EtaLines(total)
    from tqdm import tqdm
    return tqdm(total=total, unit="task", smoothing=0.05, dynamic_ncols=True)


class EtaLines:
    """Progress for a log: one line every ``every_s`` seconds, done/total and time left.

    The estimate is the elapsed time per finished task times the tasks left;
    it is as rough as the tasks are unequal, and said as "about".
    """

    def __init__(self, total: int, every_s: float = ETA_EVERY_S):
        self.total, self.every_s, self.done = total, every_s, 0
        self.start = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every_s and self.done < self.total:
            self.last = now
            print(self.line(now - self.start), file=sys.stderr, flush=True)

    def line(self, elapsed: float) -> str:
        left = elapsed / self.done * (self.total - self.done) if self.done else None
        return (f"progress: {self.done}/{self.total} tasks ({self.done / self.total:.0%}), "
                f"{_clock(elapsed)} elapsed, "
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
