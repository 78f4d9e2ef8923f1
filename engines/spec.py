"""An engine as a run names it: a registered name and its options, parsed once.

A spec's text (``cpsat:workers=8``, ``backtracking:variant=seed``) is read
here and nowhere else (``EngineSpec.parse``, ``EngineSpec.parse_list``): the
command line, the Python API and a benchmark file parse it where it enters,
and everything after (the plan, the executors, the workers, Dask) is handed
the object. Its label is derived from it, never split again.

An ``EngineSpec`` is a ``str`` whose text is its label, so everything keyed
by label (tasks, results, the store, the reports) takes one as it is; it
pickles as its name and options, and is immutable.
"""
from __future__ import annotations

from typing import Iterable


class EngineOptionError(ValueError):
    """An engine option the engine does not know, or a bad value for one."""


class EngineSpec(str):
    """``name`` and ``options`` (``(key, value)`` text pairs, in the order given)."""

    name: str
    options: tuple[tuple[str, str], ...]

    def __new__(cls, name: str, options: Iterable[tuple[str, object]] = ()) -> EngineSpec:
        pairs = tuple((str(key), str(value)) for key, value in options)
        self = super().__new__(cls, ":".join([name, *(f"{k}={v}" for k, v in pairs)]))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "options", pairs)
        return self

    def __setattr__(self, key, value):
        raise AttributeError(f"an EngineSpec is immutable (tried to set {key!r})")

    def __reduce__(self):
        return (EngineSpec, (self.name, self.options))

    def __repr__(self) -> str:
        return f"EngineSpec({self.label!r})"

    @property
    def label(self) -> str:
        """The name, then ``:key=value`` per option, as reports and the store show it."""
        return str.__str__(self)

    @property
    def option_dict(self) -> dict[str, str]:
        return dict(self.options)

    @classmethod
    def parse(cls, text: str) -> EngineSpec:
        """``"cpsat:workers=8:seed=3"`` -> ``EngineSpec("cpsat", (("workers", "8"),
        ("seed", "3")))``; the one reader of a spec's text."""
        name, *parts = text.strip().split(":")
        options = {}
        for part in parts:
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise EngineOptionError(f"engine spec {text!r}: option {part!r} is not key=value")
            options[key.strip()] = value.strip()
        return cls(name.strip(), options.items())

    @classmethod
    def partial(cls, text: str) -> tuple[EngineSpec | None, str]:
        """A half-typed spec, for shell completion: the spec before the last ``:``
        (``None`` while the name itself is typed) and the piece being typed."""
        done, sep, typing = text.rpartition(":")
        return (cls.parse(done) if sep else None), typing

    @classmethod
    def parse_list(cls, text: str) -> list[EngineSpec]:
        """Specs from a comma list; ``a:x=1,y=2`` keeps ``y=2`` as a's option."""
        specs: list[str] = []
        for part in (p.strip() for p in str(text).split(",")):
            if not part:
                continue
            if specs and "=" in part and ":" not in part:
                specs[-1] += ":" + part
            else:
                specs.append(part)
        return [cls.parse(spec) for spec in specs]

    @classmethod
    def of(cls, spec: str) -> EngineSpec:
        """``spec`` as it is when it is an ``EngineSpec`` already, else parsed: for the
        doors where Python callers may still hand over the text."""
        return spec if isinstance(spec, EngineSpec) else cls.parse(spec)
