"""Shell completion of the values people type most: engine specs and formulations.

argcomplete completes option names by itself, but a value it knows nothing
of it completes as a file name, which ``--engines`` never is. Each completer
here is a plain function of the word typed so far (``prefix``), so it can be
tried without a shell. The word may be a comma list (``--engines
cpsat,back``): only its last item is completed, the items before it kept.
An engine's options (``cpsat:workers=``) are offered once the name is
chosen, importing that engine only; the names alone come from the registry
without importing any engine library.
"""
from __future__ import annotations

import argparse

import engines


class EngineSpecs:
    """Engine specs: the registered names, then ``name:option=`` (a closed option's
    every value); ``many`` for a comma list (``--engines``), else one spec."""

    def __init__(self, many: bool):
        self.many = many

    def __call__(self, prefix: str, **_) -> list[str]:
        head, item = _split(prefix, self.many)
        try:
            spec, typing = engines.EngineSpec.partial(item)
        except engines.EngineOptionError:
            return []
        if spec is None:
            matches = [n for n in engines.names() if n.startswith(typing)]
            found = matches + (_options(matches[0], matches[0], ()) if len(matches) == 1 else [])
        elif spec.name in engines.names():
            found = _options(spec.name, spec.label, {key for key, _ in spec.options})
        else:
            found = []
        return [head + c for c in found if c.startswith(item)]


class Formulations:
    """Formulation names from the kinds catalog, each once, in the catalog's order;
    ``many`` for a comma list (``--formulations``), else one name."""

    def __init__(self, many: bool):
        self.many = many

    def __call__(self, prefix: str, **_) -> list[str]:
        from puzzles.catalog import catalog
        head, item = _split(prefix, self.many)
        chosen = set(head.split(","))
        known = dict.fromkeys(f for kind in catalog() for f in kind.formulations)
        return [head + f for f in known if f.startswith(item) and f not in chosen]


# option string -> its completer, wherever the option appears (the comparison, solve, generate)
COMPLETERS = {"--engines": EngineSpecs(many=True), "--engine": EngineSpecs(many=False),
              "--formulations": Formulations(many=True),
              "--formulation": Formulations(many=False)}


def attach(parser: argparse.ArgumentParser) -> None:
    """Give every option of ``COMPLETERS`` its completer, in ``parser`` and its commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict.fromkeys(action.choices.values()):
                attach(command)
        for option in action.option_strings:
            if option in COMPLETERS:
                action.completer = COMPLETERS[option]


def _split(prefix: str, many: bool) -> tuple[str, str]:
    """The items already typed (with their comma) and the one being typed."""
    if not many:
        return "", prefix
    head, comma, item = prefix.rpartition(",")
    return head + comma, item


def _options(name: str, stem: str, used) -> list[str]:
    """``stem:key=`` for each option of engine ``name`` not in ``used`` (each value of a
    closed one); none when the engine cannot be imported here."""
    try:
        cls = engines.engine_class(name)
    except Exception:       # noqa: BLE001  (a plugin's import may fail any way; offer nothing)
        return []
    found = []
    for key in cls.option_defaults:
        if key in used:
            continue
        choices = cls.option_choices.get(key)
        found += [f"{stem}:{key}={value}" for value in choices] if choices else [f"{stem}:{key}="]
    return found
