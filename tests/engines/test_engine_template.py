"""``engines/TEMPLATE.py``: an engine built from it runs, and it names every hook of
``Engine``, so the skeleton and the base class cannot drift apart."""
from __future__ import annotations

import itertools

import pytest

import engines
from engines.base import Engine, EngineOptionError
from engines.contract import Outcome, Status, timed_out
from engines.TEMPLATE import TemplateEngine
from puzzles.model import AllDifferent, Model, Structure, Table

# What ``Engine`` has that an adapter does not fill: the template method itself, the
# option parser that calls the option hooks, and the tools ``validate_options`` uses.
MACHINERY = {"solve", "parse_options", "require_ints", "require_ranges"}


def hooks_of(cls: type) -> set[str]:
    """Public names and ``__init__`` defined on ``cls`` itself (not inherited)."""
    return {name for name in vars(cls)
            if not name.startswith("_") or name == "__init__"}


class Latin(TemplateEngine):
    """The template filled with a brute force over AllDifferent models."""
    name = "template-latin"
    option_defaults = {"order": "ascending"}
    option_choices = {"order": ("ascending", "descending")}

    def translate(self, model):
        groups = [con.vars for con in model.structure.constraints]
        return model.domains(), groups

    def search(self, translated, mode, limit, deadline):
        domains, groups = translated
        if self.options["order"] == "descending":
            domains = [tuple(reversed(d)) for d in domains]
        found = []
        for values in itertools.product(*domains):
            if timed_out(deadline):
                return Outcome(Status.TIMEOUT, found, len(found) if mode == "count" else None)
            if all(len({values[v] for v in g}) == len(g) for g in groups):
                found.append(values)
                if mode != "count" or len(found) >= limit:
                    break
        if mode == "lexfirst":
            found = sorted(found)[:1]
        return Outcome(Status.SOLVED if found else Status.UNSAT, found,
                       len(found) if mode == "count" else None)


def latin(n: int, givens=()) -> Model:
    cells = [(r, c) for r in range(n) for c in range(n)]
    rows = [AllDifferent(tuple(r * n + c for c in range(n))) for r in range(n)]
    cols = [AllDifferent(tuple(r * n + c for r in range(n))) for c in range(n)]
    structure = Structure(f"latin{n}", tuple(f"r{r}c{c}" for r, c in cells),
                          tuple(tuple(range(1, n + 1)) for _ in cells), tuple(rows + cols))
    return Model(structure, tuple(givens))


@pytest.fixture()
def registered():
    engines.register(Latin.name, Latin)
    yield Latin.name
    engines._REGISTRY.pop(Latin.name, None)       # the test's own entry, no other


def test_the_template_names_every_hook_of_the_base_class():
    missing = hooks_of(Engine) - MACHINERY - hooks_of(TemplateEngine)
    assert not missing, f"TEMPLATE.py lacks {sorted(missing)}"
    unknown = hooks_of(TemplateEngine) - hooks_of(Engine)
    assert not unknown, f"TEMPLATE.py declares {sorted(unknown)}, which Engine does not have"
    assert not MACHINERY & hooks_of(TemplateEngine), "the template overrides the machinery"


def test_the_template_alone_answers_error_for_its_two_required_hooks():
    result = TemplateEngine().solve(latin(2), "first")
    assert result.status is Status.ERROR and "does not fill translate" in result.message


def test_an_engine_built_from_the_template_registers_and_solves(registered):
    engine = engines.get_engine(f"{registered}:order=descending")
    assert engine.label == "template-latin:order=descending"
    assert engine.available() and engine.version() == "builtin"
    assert engine.preparation() is None and engine.default_variants() == [""]
    first = engine.solve(latin(3, ((0, 2),)), "first")
    assert first.status is Status.SOLVED and first.solution[0] == 2
    assert first.solution[1] == 3                      # descending: its own order of values
    least = engines.get_engine(registered).solve(latin(3), "lexfirst")
    assert least.solution == (1, 2, 3, 2, 3, 1, 3, 1, 2)
    count = engine.solve(latin(3), "count", limit=100)
    assert (count.status, count.count) == (Status.SOLVED, 12)
    clash = engine.solve(latin(2, ((0, 1), (1, 1))), "first")
    assert clash.status is Status.UNSAT


def test_what_the_template_inherits_still_guards_the_engine(registered):
    with pytest.raises(EngineOptionError, match="not one of"):
        engines.get_engine(f"{registered}:order=sideways")
    table = Model(Structure("t", ("x",), ((1, 2),), (Table((0,), ((1,),)),)))
    assert "Table" in engines.get_engine(registered).solve(table).message
    assert engines.get_engine(registered).solve(latin(3), "count", limit=5,
                                                timeout=0.0).status is Status.TIMEOUT
