"""A puzzle given by reference to its file: loaded where it is used, through the cache.

A file-per-instance input (an XCSP3 file, a MiniZinc pair) reaches a run as a
reference: what names the file and a digest of its bytes. The process that
runs a task loads it (``load_input``, untimed, before the solve) through the
on-disk instance cache (``puzzles.formats.instance_cache``), as two entries:
the input as read (the part the judge checks answers against) and its model,
so that a process that only judges reads back the first alone (``instance``).
A process holds the last ``HELD`` inputs it loaded, and one read for judging;
``release_held`` lets go of them all (a worker moving to another instance, so
that the next task's memory is its own).

``ByReference`` is that behaviour once, for the formats' puzzle classes (frozen
dataclasses with a ``digest`` field); each format says how a file is read and
translated (``load_fresh``) and names its cache entries.
"""
from __future__ import annotations

import time

from puzzles.base import Puzzle
from puzzles.formats import instance_cache

HELD = 2          # loaded inputs a process keeps in memory (tasks come per instance)
_HELD: list["ByReference"] = []
_READ: list["ByReference"] = []     # the one input read without its model (the judge's)


class ByReference(Puzzle):
    """A file's puzzle by reference; subclasses are frozen dataclasses with ``digest``."""

    rules_judge_alone = True      # the judge reads the input as stated, never the model
    shape_per_puzzle = True       # a file is a shape: its translation is its task's build
    cache_kind = ""               # the cache keys' first part (the format)
    instance_part = "instance"    # the cache entry of the input as read

    def translator_version(self) -> str:
        """A digest of the code that reads and translates: part of every cache key."""
        raise NotImplementedError

    def load_fresh(self) -> tuple:
        """Read and translate the file: ``(input, model part, read s, translate s)``."""
        raise NotImplementedError

    def __getstate__(self) -> dict:
        """A reference travels without what it loaded, unless it was loaded at once."""
        state = dict(self.__dict__)
        if not state.get("_eager"):
            state.pop("_loaded", None)
        state.pop("_instance", None)
        state["_cache"] = state.get("_cache") or instance_cache.settings()
        return state

    @property
    def load_times(self) -> tuple[float, float]:
        """Seconds to read and to translate, as the last load measured them (zeros before
        a load; a model read back from the cache has no translation time)."""
        return self.__dict__.get("_times", (0.0, 0.0))

    @property
    def input_loaded(self) -> bool:
        return "_loaded" in self.__dict__

    @property
    def instance(self):
        """The input as read; where nothing is loaded, read alone from the cache."""
        if not self.input_loaded:
            read = self.__dict__.get("_instance")
            if read is not None:
                return read
            cache = instance_cache.current(self.__dict__.get("_cache"))
            read = cache.get(self.cache_key(self.instance_part)) if cache is not None else None
            if read is not None:
                object.__setattr__(self, "_instance", read)
                _READ.append(self)
                while len(_READ) > 1:
                    _READ.pop(0).__dict__.pop("_instance", None)
                return read
        return self.loaded()[0]

    def loaded(self) -> tuple:
        """``(input, model part)``, loaded here first if need be."""
        if not self.input_loaded:
            self.load_input()
        return self.__dict__["_loaded"]

    def load_input(self) -> tuple[float, float, str]:
        """Read and translate here, through the cache: ``(read s, translate s, from)``,
        ``from`` being ``memory`` (held already), ``cache`` or ``file``."""
        if self.input_loaded:
            return 0.0, 0.0, "memory"
        cache = instance_cache.current(self.__dict__.get("_cache"))
        start = time.perf_counter()
        read = model = None
        if cache is not None:
            model = cache.get(self.cache_key("model"))
            read = cache.get(self.cache_key(self.instance_part)) if model is not None else None
        if read is not None:
            read_s, translate_s, source = time.perf_counter() - start, 0.0, "cache"
        else:
            read, model, read_s, translate_s = self.load_fresh()
            source = "file"
            if cache is not None:     # the input first: a model entry means both are there
                cache.put(self.cache_key(self.instance_part), read) and cache.put(
                    self.cache_key("model"), model)
        self.__dict__.pop("_instance", None)
        object.__setattr__(self, "_times", (read_s, translate_s))
        self.hold((read, model))
        return read_s, translate_s, source

    def cache_key(self, part: str) -> str:
        """The cache's key of this file's ``part``."""
        return f"{self.cache_kind}/{self.digest}/{self.translator_version()}/default/{part}"

    def hold(self, loaded: tuple) -> None:
        """Keep ``loaded``; past ``HELD`` inputs the oldest is let go (an input loaded at
        once, outside a run, is kept)."""
        object.__setattr__(self, "_loaded", loaded)
        if self.__dict__.get("_eager"):
            return
        _HELD.append(self)
        while len(_HELD) > HELD:
            _HELD.pop(0).__dict__.pop("_loaded", None)


def release_held() -> None:
    """Let go of every input this process holds (loaded or read for judging)."""
    for held in (_HELD, _READ):
        while held:
            puzzle = held.pop().__dict__
            puzzle.pop("_loaded", None)
            puzzle.pop("_instance", None)
