"""Test-only engines for the Dask executor's fault paths, registered on import.

* ``fake-homebody`` : ``fake``, but installed only in a process nothing else
  started: the client has it, no worker process a nanny started does;
* ``fake-regicide`` : ``fake``, except on an empty grid, where it kills the
  Dask worker that runs it: its solver process's grandparent (the solver's
  parent is the worker's forkserver). It does so only where
  ``FAKE_REGICIDE_ARMED`` is set: tests set it for worker processes alone,
  never in their own process (a ``local:N`` cluster's workers live in the
  client's process, so there it would kill the client).
"""
from __future__ import annotations

import multiprocessing
import os
import signal

import psutil

import engines
from tests.fake_engines import FakeEngine


class HomebodyEngine(FakeEngine):
    name = "fake-homebody"

    @classmethod
    def available(cls) -> bool:
        return multiprocessing.parent_process() is None


class RegicideEngine(FakeEngine):
    name = "fake-regicide"

    def search(self, translated, mode, limit, deadline):
        model = translated[0]
        if os.environ.get("FAKE_REGICIDE_ARMED") and all(len(d) > 1 for d in model.domains()):
            worker = psutil.Process(os.getppid()).ppid()
            os.kill(worker, signal.SIGKILL)
        return super().search(translated, mode, limit, deadline)


for _cls in (HomebodyEngine, RegicideEngine):
    engines.register(_cls.name, _cls)
