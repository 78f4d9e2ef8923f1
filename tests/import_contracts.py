"""An import-linter contract type of the project's own: private names stay private.

A name that starts with one underscore belongs to its module. Another module
that imports it (``from compare.executors.local.executor import _x``) or reaches it
through the module (``executor._x``) depends on what the owner may change
at will: the owner should make it public, or the caller should not need it.
The check reads each module's source (import-linter's graph knows which
modules import which, not the names), so it sees what is spelled out:
``from M import _x`` and ``M._x`` where ``M`` is a module imported by name.
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from importlinter import Contract, ContractCheck, fields, output


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


class PrivateNamesContract(Contract):
    """No module imports or reaches a private name of another module of ``containers``."""

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose: bool) -> ContractCheck:
        found = []
        for module in sorted(graph.modules):
            if self._ours(module):
                found += self._private_uses(module, graph.modules)
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["found"]:
            output.print_error(line)
            output.new_line()

    def _ours(self, module: str) -> bool:
        return any(module == c or module.startswith(c + ".") for c in self.containers)

    def _private_uses(self, module: str, modules: set[str]) -> list[str]:
        path = _source(module)
        if path is None:
            return []
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found, aliases = [], {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node, package)
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:       # a module imported by name
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif private(alias.name) and self._ours(source) and source != module:
                        found.append(f"{module}:{node.lineno} imports {alias.name} from "
                                     f"{source}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or (alias.name if "." not in alias.name else None)
                    if bound and alias.name in modules:
                        aliases[bound] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and private(node.attr)
                    and self._ours(aliases[node.value.id])
                    and aliases[node.value.id] != module):
                found.append(f"{module}:{node.lineno} reaches {node.attr} of "
                             f"{aliases[node.value.id]}")
        return found


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _source(module: str) -> Path | None:
    """The module's file, found from its top package without importing anything."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        return Path(spec.origin) if spec and spec.origin else None
    folder = Path(next(iter(spec.submodule_search_locations)))
    for candidate in (folder.joinpath(*rest, "__init__.py"),
                      folder.joinpath(*rest).with_suffix(".py") if rest else None):
        if candidate is not None and candidate.is_file():
            return candidate
    return None
