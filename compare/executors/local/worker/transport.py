"""How a local worker talks to its parent: the process's loop and the message protocol.

* ``worker_main``: the loop of a local worker process (a ``Session``),
  speaking the protocol below over a ``multiprocessing`` connection; it
  never outlives the process that started it (``processes.die_with_parent``).
* ``Reporter`` and ``send_results``: finished tasks go back together, packed
  when they can be (``PackedResults``); ``sendable`` makes any result
  crossable.

Message protocol (pickled tuples on the connection)::

    parent -> worker
      ("run", puzzles, tasks)   a chunk: ``tasks`` run in order; ``puzzles`` maps the
                                ids this worker has not been sent before to puzzles
      None                      stop once the current task is done
    worker -> parent
      ("unfit", why)            the plugins or engines cannot be loaded here; the worker ends
      ("warming", label)        start-up warm-up of one engine begins
      ("ready", info)           start-up done: {"pid", "rss_mb", "peak_method", "host",
                                "warmup_s": start-up warm-up seconds per engine}
      ("shaping", tid, shape)   task ``tid`` meets a new shape: warming it, untimed
      ("warmed", tid, engine, shape, seconds)   done; the timed task starts now
      ("done", [(tid, result), ...])   tasks finished, in order (``Result`` each; a
                                ``PackedResults`` gives the same pairs, packed):
                                reported together every ``REPORT_S`` or so, and
                                always before any other message and at a chunk's end
      ("retire", reason)        the worker exits after this (it ran out of memory);
                                the chunk's unstarted tasks go back to the queue

Tokens: with a chunk the parent writes one byte per task into the worker's
token pipe, and the worker takes a byte before it starts each task (the next
one before it reports the current one). A worker that finds no byte stops the
chunk there: the parent took the bytes back to give those tasks to a worker
that is idle now (see ``executor``). The kernel hands each byte to exactly one
reader, so a task is started by one side or the other, never both.
"""
from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import time
from array import array

from compare.executors.local.processes import adopt_orphans, apart_from_terminal, die_with_parent
from compare.executors.local.worker.session import Session, WorkerInit
from compare.plugins import PluginError
from engines import Result, Status, describe

_UNSAID = -1              # a search statistic the engine does not report (None), packed
REPORT_S = 0.005          # results of short tasks go to the parent together, this often:
                          # one message per result cost the parent a wake-up and a pipe
                          # read each, on a busy machine most of its time


def send_results(conn, done: list[tuple[int, Result]]) -> None:
    """``("done", done)``, packed where it can be (``PackedResults``); a result that
    cannot be pickled goes as ``sendable``."""
    try:
        conn.send(("done", PackedResults.of(done) or done))
    except (OSError, EOFError):
        raise
    except Exception:             # pickling failed: nothing was written
        conn.send(("done", [(tid, sendable(result)) for tid, result in done]))


class PackedResults:
    """Finished tasks as a few arrays: what ``("done", ...)`` carries when it can.

    A fast engine's worker reports thousands of results a second, nearly all
    alike: solved, one answer of small whole numbers, nothing said. Pickled
    one ``Result`` object at a time they cost the parent about 8 us each to
    read back, most of a 9x9 solve; here the strings common to all go once,
    the numbers as arrays and the answers as one ``bytes``. Iterating gives
    ``(tid, Result)`` pairs, as the plain list would, so the reader does not
    care which it got. Results of any other form go as a plain list.
    """

    __slots__ = ("common", "tids", "seconds", "counts", "answers", "width")

    def __init__(self, common, tids, seconds, counts, answers, width):
        self.common, self.tids, self.seconds = common, tids, seconds
        self.counts, self.answers, self.width = counts, answers, width

    @classmethod
    def of(cls, done: list[tuple[int, Result]]) -> "PackedResults | None":
        """The pack of ``done``, or None when any result is not of the common form."""
        first = done[0][1] if done else None
        if first is None or type(first) is not Result or len(first.solutions) != 1:
            return None
        common = (first.engine, first.library, first.version, first.mode, first.host)
        width = len(first.solutions[0])
        seconds, counts, answers = array("d"), array("q"), []
        try:
            for _, r in done:
                if (type(r) is not Result or r.status is not Status.SOLVED or r.stats
                        or r.count is not None or r.message or r.traceback
                        or len(r.solutions) != 1 or len(r.solutions[0]) != width
                        or r.cpu_s is None or r.peak_rss_mb is None or r.loading
                        or (r.engine, r.library, r.version, r.mode, r.host) != common):
                    return None
                answers.append(bytes(r.solutions[0]))     # ValueError past 0..255
                seconds.extend((r.build_s, r.solve_s, r.cpu_s, r.peak_rss_mb))
                counts.extend((r.nodes, r.backtracks))
                counts.extend([_UNSAID if n is None else n for n in
                               (r.failures, r.propagations, r.restarts, r.nogoods)])
        except (ValueError, TypeError, OverflowError):
            return None
        return cls(common, array("q", [tid for tid, _ in done]).tobytes(), seconds.tobytes(),
                   counts.tobytes(), b"".join(answers), width)

    def __reduce__(self):
        return PackedResults, (self.common, self.tids, self.seconds, self.counts,
                               self.answers, self.width)

    def __len__(self) -> int:
        return len(self.tids) // 8

    def __iter__(self):
        engine, library, version, mode, host = self.common
        seconds = array("d", self.seconds).tolist()
        counts = array("q", self.counts).tolist()
        answers, width, solved = self.answers, self.width, Status.SOLVED
        for index, tid in enumerate(array("q", self.tids).tolist()):
            s, c, at = 4 * index, 6 * index, width * index
            failures, propagations, restarts, nogoods = (
                None if n == _UNSAID else n for n in counts[c + 2:c + 6])
            yield tid, Result(engine, library, version, mode, solved,
                              [tuple(answers[at:at + width])], None, seconds[s],
                              seconds[s + 1], counts[c], counts[c + 1], {}, "", "",
                              seconds[s + 2], seconds[s + 3], host, failures=failures,
                              propagations=propagations, restarts=restarts,
                              nogoods=nogoods)


class Reporter:
    """Finished tasks on their way to the parent, sent together every ``REPORT_S``.

    Any other message (``say``) first sends what is held, so the parent always
    reads results in task order before it hears of the next task's shape.
    """

    def __init__(self, conn):
        self.conn = conn
        self.held: list[tuple[int, Result]] = []
        self.since = time.perf_counter()

    def add(self, tid: int, result: Result, last: bool) -> None:
        self.held.append((tid, result))
        if last or time.perf_counter() - self.since >= REPORT_S:
            self.flush()

    def flush(self) -> None:
        if self.held:
            send_results(self.conn, self.held)
            self.held = []
        self.since = time.perf_counter()

    def say(self, message) -> None:
        self.flush()
        self.conn.send(message)


def sendable(result: Result) -> Result:
    """The result with its stats made JSON-safe, or an error result if even that fails.

    A plugin engine may put anything in ``stats``; an object that cannot cross
    the pipe must not cost the answer.
    """
    try:
        safe = json.loads(json.dumps(result.stats, default=repr))
    except Exception as exc:
        safe = {"unsendable_stats": describe(exc)}
    result.stats = safe
    try:
        pickle.dumps(result)
        return result
    except Exception as exc:
        return Result(result.engine, result.library, result.version, result.mode,
                      Status.ERROR, message=f"result could not be sent: {describe(exc)}",
                      build_s=result.build_s, solve_s=result.solve_s, cpu_s=result.cpu_s,
                      peak_rss_mb=result.peak_rss_mb, host=result.host,
                      loading=result.loading)


# ----- the process ----------------------------------------------------------------------
def worker_main(conn, init: WorkerInit, tokens=None, lifeline=None) -> None:
    """A local worker: start-up warm-up, then chunks of tasks until told to stop.

    ``tokens`` is the read end of the token pipe (a ``Connection``) and
    ``lifeline`` a pipe end whose other end only the parent holds. Ctrl-C is
    the parent's to handle: the worker is out of the terminal's reach
    (``apart_from_terminal``), ignores SIGINT besides, and is stopped by the parent.
    Whatever happens to the parent, the worker exits without a word.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    apart_from_terminal()
    adopt_orphans()
    die_with_parent(lifeline)
    try:
        _serve(conn, init, tokens)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass                       # the parent is gone: nobody to tell
    except BaseException as exc:   # an unforeseen fault: one line, the parent records a crash
        _last_words(f"worker {os.getpid()}: {describe(exc)}")
        os._exit(70)
    os._exit(0)


def _serve(conn, init: WorkerInit, tokens) -> None:
    reporter = Reporter(conn)
    try:
        session = Session(init, reporter.say)
    except Exception as exc:     # a plugin or an engine that will not load: no worker can
        conn.send(("unfit", str(exc) if isinstance(exc, PluginError) else describe(exc)))
        return
    session.start_up()
    conn.send(("ready", session.info()))
    token_fd = tokens.fileno() if tokens is not None else None
    puzzles: dict = {}
    while True:
        message = conn.recv()
        if message is None:
            return
        _, new, chunk = message
        puzzles.update(new)
        go = _take_token(token_fd)
        for index, task in enumerate(chunk):
            if not go:
                break
            result = session.run(task, puzzles[task.puzzle_id])
            go = (index + 1 < len(chunk) and session.retire is None
                  and _take_token(token_fd))
            reporter.add(task.tid, result, last=not go)
            if session.retire is not None:
                reporter.say(("retire", session.retire))
                return


def _take_token(fd: int | None) -> bool:
    """Leave to start the next task of the chunk; False once the parent took it back."""
    if fd is None:
        return True
    try:
        return os.read(fd, 1) == b"\x01"
    except BlockingIOError:
        return False


def _last_words(text: str) -> None:
    try:
        print(" ".join(text.split()), file=sys.stderr, flush=True)
    except Exception:
        pass
