"""``python run_compare.py``: run engines on puzzles, check every answer, report.

Exit codes (``compare.cli.common.Exit``): 0 every answer verified and the
engines agree (timeouts are not disagreements); 1 a wrong answer or a
disagreement; 2 bad usage or input; 3 no worker could start; 4 tasks errored,
crashed or ran out of memory (unless ``--allow-errors``); 6 storage fault;
130 interrupted.
Everything is validated before the output folder is touched, so a bad
command line never overwrites anything.
"""
from __future__ import annotations

import sys

from compare.api import Interrupted, run_comparison
from compare.cli.common import Exit, command_line, report_exit, say, seconds_of_ms
from compare.cli.run_args import build_parser
from compare.errors import FAULTS, StorageError, exit_code
from compare.reporting.plots import Plotter
from compare.reporting.report import build_report
from compare.run.plan import WorkersFailed
from compare.settings import NAMES
from compare.store.folder import default_out
from puzzles.formats import instance_cache


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    instance_cache.configure(args.cache, not args.no_cache, args.cache_size)
    plotter = Plotter()     # forked now: it imports matplotlib while the run goes on
    try:
        return _run(args, argv, plotter)
    finally:
        plotter.close()


def _run(args, argv: list[str], plotter: Plotter) -> int:
    given = {k: getattr(args, k) for k in NAMES}
    try:
        comparison = run_comparison(
            given["puzzles"], given["engines"], **_settings(given),
            out=args.out or default_out(args.resume),
            resume=args.resume, workers=args.workers, baseline=args.baseline,
            executor=args.executor, scheduler=args.scheduler, cluster=args.cluster,
            chunk=args.chunk, progress=not args.quiet, announce=not args.quiet,
            command=command_line("python run_compare.py", argv))
    except Interrupted as stop:
        say(f"interrupted: finished results are kept; continue with "
            f"--out {stop.folder} --resume")
        return Exit.INTERRUPTED
    except WorkersFailed as err:
        done = (f"{err.ran} task(s) ran and are stored, the rest did not run: continue with "
                f"--out {args.out or 'reports/latest'} --resume once workers can start"
                if err.ran else "nothing was run")
        say(f"error: {err}; {done}")
        return err.exit_code
    except StorageError as err:
        say(f"error: {err}; every result stored before is kept")
        return err.exit_code
    except FAULTS as err:        # bad settings, input, plugin or cluster; a damaged store
        say(f"error: {err}")
        return exit_code(err)
    try:
        with comparison.run as run:
            report = build_report(run, comparison.baseline, args.quiet,
                                  seconds_of_ms(args.shift_ms), plotter)
    except StorageError as err:
        say(f"error: {err}; every result is kept in {comparison.run.results_file}")
        return err.exit_code
    except KeyboardInterrupt:
        say(f"interrupted while writing the report: every result is kept; rebuild it with "
            f"run_compare.py report --out {comparison.folder}")
        return Exit.INTERRUPTED
    return report_exit(report, args.allow_errors, args.fail_on)


def _settings(given: dict) -> dict:
    """The flags the user gave; on --resume the stored run fills in the rest."""
    return {k: v for k, v in given.items() if k not in ("puzzles", "engines") and v is not None}
