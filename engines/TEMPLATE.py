"""The skeleton of an engine adapter: every hook an engine may fill, in one place.

Copy this file, rename the class, fill the two required hooks (``translate``
and ``search``) and keep or delete the optional ones: each optional hook below
does what ``Engine`` does when it is left out, so a copy that fills only the
required two already runs. Then register the class (``engines.register``) in
the module that defines it; engines from outside the repository are imported
through ``COMPARE_PLUGINS`` or ``--plugins``.

Who calls what, and where:

* in the parent process, before any task runs: ``available``, ``version``,
  ``label``, ``preparation`` (and ``default_variants`` when no engines are
  named; ``details`` for the ``engines`` command);
* in a process of its own, once per name ``preparation`` gave: ``prepare``;
* in a worker, once per task: ``unsupported_reason``, ``translate`` (timed as
  ``build_s``), ``search`` (timed as ``solve_s``), through ``Engine.solve``,
  which is the template itself and is not overridden;
* wherever a spec is read (``get_engine``): ``__init__``, which checks the
  options through ``coerce_option`` and ``validate_options``.

The answer's vocabulary (``Outcome``, ``Status``, ``Unsupported``,
``KEEP_SOLUTIONS``, ``timed_out``) is ``engines.contract``'s. A test builds an
engine from this class and checks that it names every hook ``Engine`` has, so
the skeleton and the base class cannot drift apart.
"""
from __future__ import annotations

from typing import Any

from engines.base import Engine
from engines.contract import MODES, Outcome
from engines.spec import EngineSpec
from puzzles.model import AllDifferent, Model


class TemplateEngine(Engine):
    """An engine adapter: one class, its identity and options as class attributes."""

    # ----- identity: class attributes ------------------------------------------------
    # The registered name: what specs start with and labels begin with. Required.
    name = "template"
    # The PyPI distribution the engine wraps, "" for code of this repository: its
    # version goes on every result (``version``).
    library = ""
    # The modes it answers (a subset of ``MODES``); any other is n/a, never guessed.
    modes = frozenset(MODES)
    # The constraint kinds of ``puzzles.model`` it translates exactly; a model with
    # another kind is n/a for it, with the missing kinds named.
    constraint_kinds = frozenset({AllDifferent})
    # The values it takes, ``(bits, whose limit)``: a model with a value beyond
    # ±2^bits is n/a for it before translation, saying whose limit it is. The
    # default is the tool's (answers are 64-bit integers); a library with a
    # narrower range names its own (CP-SAT: 62 bits).
    value_range = (63, "the tool's range (answers are carried as 64-bit integers)")
    # Options, ``key=value`` in a spec: their defaults (whose types coerce the text)
    # and, for options with a closed set of values, the values allowed.
    option_defaults: dict[str, Any] = {}
    option_choices: dict[str, tuple] = {}
    # Whether a run with no engines named runs this engine (a gateway to many
    # solvers sets False and is named with the backend wanted).
    in_default_set = True
    # Whether a report with no baseline measures the others against this engine.
    baseline_preferred = False
    # Whether the engine compiles on its first use of a shape (a JIT): only then does
    # its warm-up get the long, untimed warm-up limit (60 s, doubled after a kill up to
    # 240 s); otherwise a warm-up runs under the task's limit plus grace, and a hang in
    # it is the task's timeout. A property may answer by the options.
    compiles_on_first_use = False

    # ----- building -------------------------------------------------------------------
    def __init__(self, **options: Any):
        """Optional. Called with a spec's options as text (or values from Python);
        ``super().__init__`` parses them into ``self.options``. Raise
        ``EngineOptionError`` for a bad option; set per-instance state after it."""
        super().__init__(**options)

    @classmethod
    def coerce_option(cls, key: str, raw: Any) -> Any:
        """Optional. One option's value from its text; the default converts to the
        type of ``option_defaults[key]`` (bool from 1/0, true/false, yes/no, on/off)."""
        return super().coerce_option(key, raw)

    @classmethod
    def validate_options(cls, options: dict[str, Any]) -> None:
        """Optional. All options coerced, before any solve: raise ``EngineOptionError``
        for a value the library would refuse (``require_ints``, ``require_ranges``
        help), so a bad spec fails when it is read, not at the first task."""

    # ----- identity: asked in the parent ------------------------------------------------
    @classmethod
    def available(cls) -> bool:
        """Optional. Whether the library imports here; False makes the engine's tasks
        n/a with its install hint, and ``engines`` lists it as missing. Cheap: no solve."""
        return super().available()

    @classmethod
    def unavailable_reason(cls) -> str:
        """Optional. One line on why ``available`` is False, shown by ``engines``; an
        engine running an executable answers ``engines.external.missing_reason(...)``."""
        return super().unavailable_reason()

    @classmethod
    def version(cls) -> str:
        """Optional. The version stored with every result; the default is the
        installed version of ``library`` ("builtin" for "")."""
        return super().version()

    @classmethod
    def default_variants(cls) -> list[str]:
        """Optional. The option strings (``"key=value:..."``, "" for the defaults) a run
        with no engines named runs this engine with, one run each."""
        return super().default_variants()

    @classmethod
    def details(cls) -> dict[str, Any]:
        """Optional. Extra facts for the ``engines`` command (CPMpy lists its backends);
        keys the common table already has are not replaced."""
        return super().details()

    @property
    def spec(self) -> EngineSpec:
        """Optional. This engine as a spec (``engines.spec.EngineSpec``): ``name`` plus
        the options that differ from their defaults. Parsed again it must build the
        same engine; override it to always name an option (CPMpy names its backend)."""
        return super().spec

    @property
    def label(self) -> str:
        """Optional. The engine as results and reports name it: the text of ``spec``.
        Override ``spec`` rather than this, so the two never disagree."""
        return super().label

    # ----- one-off preparation ------------------------------------------------------------
    def preparation(self) -> str | None:
        """Optional. Asked in the parent before the engine's workers start: what
        ``prepare`` would do now, in a few words, or None when there is nothing to do
        (a warm cache). Cheap: look, do not compile."""
        return super().preparation()

    def prepare(self) -> None:
        """Optional. The work ``preparation`` named, run once per name in a process of
        its own, untimed; it may run in several processes at once (take a lock)."""

    # ----- per task, in a worker ---------------------------------------------------------
    def unsupported_reason(self, model: Model, mode: str) -> str | None:
        """Optional. Why this engine will not answer ``model`` in ``mode`` (the task is
        n/a with this text), or None. The default checks ``modes``,
        ``constraint_kinds`` and what the model itself cannot offer."""
        return super().unsupported_reason(model, mode)

    def translate(self, model: Model) -> Any:
        """Required. ``model`` (variables, domains, constraints, givens) in the
        engine's own form, handed to ``search`` as it is; its time is ``build_s``.
        Raise ``Unsupported`` for something it cannot translate exactly."""
        raise NotImplementedError(f"{type(self).__name__} does not fill translate")

    def search(self, translated: Any, mode: str, limit: int,
               deadline: float | None) -> Outcome:
        """Required. Solve ``translated``; its time is ``solve_s``. Return an
        ``Outcome`` by the contract of ``Engine.search``: in ``first`` one solution
        or UNSAT; in ``lexfirst`` the least solution in variable order; in
        ``count`` ``count = min(#solutions, limit)`` with the first solutions kept;
        TIMEOUT once ``deadline`` (``time.perf_counter`` scale, None: no limit) has
        passed, checked where the library lets it (``timed_out``). An exception is
        stored as an ``error`` result, a ``MemoryError`` as ``memout``."""
        raise NotImplementedError(f"{type(self).__name__} does not fill search")

