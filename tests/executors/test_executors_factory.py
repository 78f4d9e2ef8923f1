"""One factory makes every kind of executor; the plan binds it once and the runner drives
every executor through the one interface (``skip`` and pauses included)."""
from __future__ import annotations

import pytest

from compare.executors import KINDS, executor_for
from compare.executors.base import Executor, WorkerSetup
from compare.executors.dask.cluster import ClusterError
from compare.executors.dask.executor import DaskExecutor
from compare.executors.local.executor import LocalExecutor
from compare.run import plan as plan_module
from compare.settings import RunSettings
from engines import Result, Status

EASY = "puzzles/data/gen-9x9-easy.txt"


def test_every_kind_is_made_by_the_factory_unbound():
    made = {kind: executor_for(kind, workers=3) for kind in KINDS}
    assert type(made["local"]) is LocalExecutor and type(made["dask"]) is DaskExecutor
    assert executor_for(None, workers=3).__class__ is LocalExecutor    # the default
    for executor in made.values():
        assert executor.setup is None and executor.workers == 3
        executor.close()
    assert made["dask"].local_workers == 3                  # a local cluster of 3


def test_dask_options_choose_dask_and_the_scheduler_variable_is_read(monkeypatch):
    assert isinstance(executor_for(None, cluster="local:2"), DaskExecutor)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.0.0.5:8786")
    assert executor_for("dask").scheduler == "tcp://10.0.0.5:8786"
    assert executor_for("local").__class__ is LocalExecutor


@pytest.mark.parametrize("kind, options, said", [
    ("slurm", {}, "executor 'slurm': choose local or dask"),
    ("local", {"chunk": 4}, "--scheduler, --cluster and --chunk go with --executor dask"),
])
def test_an_unknown_kind_or_a_misplaced_option_is_refused_in_one_line(kind, options, said):
    with pytest.raises(ClusterError) as err:
        executor_for(kind, **options)
    assert str(err.value) == said and "\n" not in str(err.value)


def test_no_executor_carries_a_capability_flag():
    for cls in (Executor, LocalExecutor, DaskExecutor):
        assert not hasattr(cls, "steerable")


def test_bind_gives_the_setup_once_and_an_own_setup_is_kept():
    setup = WorkerSetup(["fake"], "count", 5, ["alldiff"], memory_limit=300.0)
    local = LocalExecutor(2, warmup=False)
    local.bind(setup)
    assert local.setup == setup and local.engines == ["fake"]
    assert local.memory_limit == 300.0 and local.skip_warmup == {"fake"}
    own = DaskExecutor(["backtracking"], "first", cluster="local:1")
    own.bind(setup)        # made with its engines: keeps them, takes the memory limit
    assert own.setup.engines == ("backtracking",) and own.setup.mode == "first"
    assert own.setup.memory_limit == 300.0


def test_an_unbound_executor_does_not_start():
    with pytest.raises(RuntimeError, match="bound"):
        LocalExecutor(1).start()
    with pytest.raises(ClusterError, match="engines"):
        DaskExecutor(cluster="local:1").start()


class Recorded(Executor):
    """Every hook the plan and the runner call, recorded; answers every task solved."""

    def __init__(self):
        self.calls: list[str] = []
        self.asked: dict = {}

    def bind(self, setup):
        super().bind(setup)
        self.calls.append("bind")

    def start(self):
        self.calls.append("start")

    def fit(self, tasks):
        self.calls.append(f"fit {tasks}")

    def close(self):
        self.calls.append("close")

    def run(self, tasks, puzzles, skip=None, pauses=False):
        self.asked = {"skip": skip is not None, "pauses": pauses}
        for task in tasks:
            yield task, Result(task.engine, "", "", task.mode, Status.UNSUPPORTED)
            yield None


@pytest.mark.parametrize("early", [False, True])
def test_the_plan_binds_once_and_the_runner_steers_every_executor(monkeypatch, tmp_path,
                                                                  early):
    if early:      # big inputs: started before they are read, bound before that
        monkeypatch.setattr(plan_module, "EARLY_START_BYTES", 0)
    executor = Recorded()
    made = plan_module.make_plan(RunSettings.make(puzzles=[EASY], engines="backtracking",
                                                  sample=2, repeat=1),
                                 out=tmp_path / "run", workers=1, executor=executor)
    plan_module.run_plan(made, "test")
    # fit: the --workers count (on the estimate first, when started early), then the
    # tasks left; start again after an early one does nothing more
    expected = ["bind", "fit 1", "start", "fit 1", "start", "fit 2", "close"] if early \
        else ["bind", "fit 1", "start", "fit 2", "close"]
    assert executor.calls[:len(expected)] == expected
    assert set(executor.calls[len(expected):]) <= {"close"}
    assert executor.setup.engines == ("backtracking",)
    assert executor.asked == {"skip": True, "pauses": True}
