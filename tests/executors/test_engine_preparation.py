"""An engine's one-off preparation (a first compile) runs once per run, before its workers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tests.fake_engines  # noqa: F401  (registers the fake engines here, for the parent)
from compare.executors.local import preparation
from compare.executors.local.executor import LocalExecutor
from compare.executors.local.preparation import Preparations, preparation_of
from compare.executors.tasks import Task
from compare.reporting.headline import verdict_of
from compare.reporting.report import warmup_table
from puzzles.loader import load_puzzles
from tests.reporting.test_verdict_line import timeouts_frame

REPO = Path(__file__).resolve().parents[2]
EASY = "puzzles/data/gen-9x9-easy.txt"


def puzzles(count: int = 6) -> dict:
    return {e.id: e.puzzle for e in load_puzzles(EASY)[:count]}


def tasks_for(engines: list[str], found: dict) -> list[Task]:
    return [Task(i * len(engines) + k, pid, "alldiff", engine, "first", 2, 10.0, 0)
            for i, pid in enumerate(found) for k, engine in enumerate(engines)]


def log_of(cache: Path) -> list[tuple[str, int]]:
    if not (cache / "log").exists():
        return []
    return [(what, int(pid)) for what, pid in
            (line.split() for line in (cache / "log").read_text().splitlines())]


class Counted(LocalExecutor):
    """Records, after every hand-out, the cores in use: workers and preparations."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cores: list[int] = []
        self.started_while_preparing: list[str] = []

    def _start(self, engine):
        if self.preparing is not None and self.preparing.holds(engine):
            self.started_while_preparing.append(engine)
        return super()._start(engine)

    def _dispatch(self, *args):
        super()._dispatch(*args)
        self.cores.append(sum(w.busy for w in self.pool) + self.preparing.busy)


def test_two_workers_share_one_preparation_and_never_compile(tmp_path):
    """Two workers per engine, two labels of one engine naming the same preparation:
    it runs once, in a process of its own, and no worker compiles."""
    cache = tmp_path / "cache"
    cache.mkdir()
    labels = [f"fake-compile:nap=1:cache={cache}", f"fake-compile:nap=1.5:cache={cache}", "fake"]
    found = puzzles()
    tasks = tasks_for(labels, found)
    with Counted(2, labels) as ex:
        done = list(ex.run(tasks, found))
        facts = ex.facts()
        workers = {info["pid"] for info in ex.ready_infos}
    assert sorted(t.tid for t, _ in done) == [t.tid for t in tasks]
    assert {str(r.status) for _, r in done} == {"solved"}
    log = log_of(cache)
    assert [what for what, _ in log] == ["prepare"], log     # once, and no worker compiled
    assert log[0][1] not in workers                          # in a process of its own
    assert ex.started_while_preparing == []
    assert ex.cores and max(ex.cores) <= 2                   # it held a core as a worker would
    (record,) = facts["warmup"]["prepared"]
    assert record["preparation"] == "compiling fake-compile"
    assert record["engines"] == labels[:2] and record["outcome"] == "done"
    assert record["seconds"] >= 1.0
    assert {"fake-compile:nap=1:cache=" + str(cache), "fake"} <= set(ex.started)


def test_a_warm_cache_asks_for_nothing(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    label = f"fake-compile:cache={cache}"
    assert preparation_of(label) == "compiling fake-compile"
    (cache / "compiled").touch()
    assert preparation_of(label) is None
    assert preparation_of("fake") is None                   # no hook: nothing built
    assert preparation_of("no-such-engine") is None         # asking never fails a run
    assert Preparations(None, [label, "fake"], lambda e: ()).waiting == {}


def run_with_a_bad_preparation(cache, options: str) -> tuple[list, dict]:
    """A one-worker run of ``fake-compile`` on two puzzles: its results and its facts."""
    cache.mkdir()
    label = f"fake-compile:{options}:cache={cache}"
    found = puzzles(2)
    with LocalExecutor(1, [label]) as ex:
        done = list(ex.run(tasks_for([label], found), found))
        return done, ex.facts()


@pytest.mark.parametrize("options, limit, outcome", [
    ("nap=3", 0.5, "killed at the limit of 0.5 s"),
    ("nap=0.5:broken=1", None, "failed: OSError: no room left on the device"),
])
def test_a_preparation_killed_at_its_limit_or_failing_costs_only_its_time(
        tmp_path, monkeypatch, options, limit, outcome):
    """Either way the run is solved, and the workers compile as they would without it."""
    if limit is not None:
        monkeypatch.setattr(preparation, "PREPARE_LIMIT_S", limit)
    cache = tmp_path / "cache"
    done, facts = run_with_a_bad_preparation(cache, options)
    assert {str(r.status) for _, r in done} == {"solved"}
    (record,) = facts["warmup"]["prepared"]
    assert record["outcome"] == outcome
    assert [what for what, _ in log_of(cache)][:2] == ["prepare", "compile"]


def test_the_verdict_line_and_the_warm_up_table_name_the_preparation():
    runs = [{"warmup": {"start-up": [{"engine": "a", "workers": 2, "total_s": 1.0,
                                      "max_s": 0.5}],
                        "prepared": [{"engines": ["a", "a:x=1"], "seconds": 30.0,
                                      "preparation": "compiling the numba kernel (fast)",
                                      "outcome": "done"}]}}]
    line = verdict_of(timeouts_frame(), runs=runs).line()
    assert line.endswith("warm-up 31.0 s untimed (30.0 s of it compiling the numba kernel "
                         "(fast), once before the workers)")
    table = warmup_table(runs).set_index("what")
    assert table.loc["compiling the numba kernel (fast)", "engine"] == "a, a:x=1"
    assert table.loc["compiling the numba kernel (fast)", "total"] == "30.0 s"
    runs[0]["warmup"]["prepared"][0]["outcome"] = "killed at the limit of 600 s"
    assert "30.0 s of it compiling the numba kernel (fast) (killed at the limit of 600 s)" \
        in verdict_of(timeouts_frame(), runs=runs).line()


# ----- the numba kernel ------------------------------------------------------------------
ASK = """
import json, sys
from engines import get_engine
from engines.backtracking.compiled.kernel import seed
engine = get_engine("backtracking:variant=seed:kernel=numba")
asked = engine.preparation()
if sys.argv[1] == "prepare":
    engine.prepare()
print(json.dumps({"asked": asked, "misses": sum(seed.search.stats.cache_misses.values()),
                  "hits": sum(seed.search.stats.cache_hits.values())}))
"""


def ask(cache: Path, what: str) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))
    env.pop("NUMBA_DISABLE_JIT", None)
    return subprocess.Popen([sys.executable, "-c", ASK, what], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def answer(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_the_numba_kernel_is_prepared_once_on_an_empty_cache(tmp_path):
    """Two processes preparing an empty cache at once: one compiles, the other loads
    what it wrote; afterwards the engine asks for nothing."""
    pytest.importorskip("numba")
    cache = tmp_path / "numba"
    first, second = answer(ask(cache, "prepare")), None
    assert first["asked"] == "compiling the numba kernel (seed)" and first["misses"] >= 1
    assert answer(ask(cache, "ask"))["asked"] is None
    fresh = tmp_path / "fresh"
    together = [ask(fresh, "prepare"), ask(fresh, "prepare")]
    first, second = (answer(p) for p in together)
    assert sorted((first["misses"] > 0, second["misses"] > 0)) == [False, True]
    assert (first["hits"] if not first["misses"] else second["hits"]) >= 1
