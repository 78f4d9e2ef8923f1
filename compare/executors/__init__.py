"""Where a run's tasks run: one factory for every kind of executor.

``executor_for(kind, ...)`` makes the executor a run asks for, by name, and
is the one place that knows the kinds: a new kind is a folder here and one
line in ``KINDS``. The executors are imported when one is made, so that a
worker process that imports this package pays for none of them.
"""
from __future__ import annotations

import os

from compare.errors import ClusterError
from compare.executors.base import Executor

KINDS = ("local", "dask")          # what ``--executor`` accepts
DEFAULT_KIND = "local"


def start_ahead(kind: str | None = None) -> None:
    """Start what an executor of ``kind`` forks its workers from (the local one's
    forkserver) now, before the run is planned: it imports the harness's modules in
    its own process while the caller imports the rest, so the first worker starts
    from a ready server. Nothing for the other kinds."""
    if (kind or DEFAULT_KIND) == "local":
        from compare.executors.local.processes import start_forkserver
        start_forkserver()


def executor_for(kind: str | None = None, *, workers: int | None = None,
                 plugins: str | list[str] | None = None, scheduler: str | None = None,
                 cluster=None,
                 chunk: int | None = None) -> Executor:
    """A new, unbound executor of ``kind`` (``None``: local, or Dask when a Dask option
    is given); ``bind`` gives it the run's setup.

    ``workers`` is the local executor's worker count (default: one per core;
    the plan caps it with ``fit``) and a local Dask cluster's size;
    ``plugins`` the plugin modules its workers import (default: as this
    process has them). ``scheduler``, ``cluster`` and ``chunk`` go with Dask
    (see ``compare.executors.dask.executor``); with neither a scheduler (nor
    ``DASK_SCHEDULER_ADDRESS``) nor a cluster, Dask runs a local cluster of
    ``workers`` processes. An unknown kind, or Dask options given to another
    kind, is a ``ClusterError`` in one line.
    """
    dask_options = scheduler is not None or cluster is not None or chunk is not None
    if kind not in (None, *KINDS):
        raise ClusterError(f"executor {kind!r}: choose {' or '.join(KINDS)}")
    if kind is None:
        kind = "dask" if dask_options else DEFAULT_KIND
    if kind != "dask" and dask_options:
        raise ClusterError("--scheduler, --cluster and --chunk go with --executor dask")
    if kind == "local":
        from compare.executors.local.executor import LocalExecutor
        return LocalExecutor(workers, plugins=plugins)
    from compare.executors.dask.executor import DaskExecutor
    if scheduler is None and cluster is None:
        scheduler = os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    return DaskExecutor(scheduler=scheduler, cluster=cluster, chunk=chunk, workers=workers,
                        plugins=plugins)
