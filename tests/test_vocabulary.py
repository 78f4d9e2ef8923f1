"""Each status and verdict word is spelled once: statuses in ``engines.Status``, the
judge's words in ``compare.judge.verdict``; every other module names them.

The check reads the code (an AST walk), so a word typed again where it is compared,
tested for membership, used as a dict key or value, listed with other words or
written inline in SQL fails here, wherever it is. Some columns and settings carry a
status's name (the tasks' boolean ``solved`` column, the ``timeout`` setting): those
may be read, keyed and listed as names, never compared against a status column.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from compare.judge import verdict
from engines import Status

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("compare", "engines")
STATUS_WORDS = frozenset(str(s) for s in Status)
VERDICT_WORDS = frozenset((verdict.VERIFIED, verdict.WRONG, verdict.WRONG_ANSWER, verdict.UNANSWERED,
                           verdict.DISAGREEMENT))
WORDS = STATUS_WORDS | VERDICT_WORDS
# Where each word is defined: the module, and the class holding it (None: module level).
DEFINED = {**{w: ("engines/contract.py", "Status") for w in STATUS_WORDS},
           **{w: ("compare/judge/verdict.py", None) for w in VERDICT_WORDS}}
# Columns and settings named like a word: ``frame["solved"]``, ``{"timeout": 10.0}``,
# ``settings.get("timeout")`` and lists of column names are names, not the word.
COLUMN_WORDS = frozenset({"solved", "timeout", "wrong", "verified"})
# Other keys that happen to equal a word: (file, word) -> what the key names there.
ALLOWED_KEYS = {
    ("compare/reporting/summary.py", "crashed"): "a column of the per-engine table",
    ("compare/reporting/summary.py", "memout"): "a column of the per-engine table",
    ("compare/executors/dask/worker.py", "crashed"): "an entry of the worker plugin's state",
    ("compare/executors/dask/executor.py", "crashed"): "an entry of the worker plugin's state",
    ("engines/__init__.py", "error"): "an engine's import error in the engines table",
    ("compare/cli/engines.py", "error"): "an engine's import error in the engines table",
    ("compare/judge/rules/xcsp3.py", "unsupported"): "the XCSP3 reader's mark of a "
                                                     "constraint it does not know",
}
COMPARING = {"eq", "ne", "isin", "where", "mask", "replace", "fillna", "index"}
SQL_WORD = re.compile(r"'(%s)'" % "|".join(sorted(map(re.escape, WORDS))))


def _context(node: ast.AST, parents: dict) -> str:
    """What a string constant does where it stands: names a key, is compared, is a
    value, or stands among other words."""
    parent = parents.get(node)
    if isinstance(parent, ast.Compare):
        return "compared"
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return "key"
    if isinstance(parent, ast.Dict):
        return "key" if node in parent.keys else "value"
    if isinstance(parent, ast.Call) and node in parent.args:
        method = getattr(parent.func, "attr", None)
        if method in COMPARING:
            return "compared"
        return "key" if method == "get" and parent.args[0] is node else "value"
    if isinstance(parent, (ast.Tuple, ast.List, ast.Set)):
        holder = parents.get(parent)
        if isinstance(holder, ast.Assign) and isinstance(holder.targets[0], ast.Tuple):
            return "value"                       # A, B = "a", "b": each one named
        if isinstance(holder, ast.Compare) or (isinstance(holder, ast.Call) and getattr(
                holder.func, "attr", None) in COMPARING):
            return "compared"
        others = [e for e in parent.elts if e is not node]
        if any(isinstance(e, ast.Starred) or (isinstance(e, ast.Constant) and e.value in WORDS
                                               and e.value not in COLUMN_WORDS)
               for e in others):
            return "among words"
        return "listed"
    return "value"


def _is_definition(node: ast.AST, parents: dict, path: str, word: str) -> bool:
    module, holder = DEFINED[word]
    if path != module:
        return False
    target = parents.get(node)
    while isinstance(target, ast.Tuple):       # A, B = "a", "b"
        target = parents.get(target)
    if not isinstance(target, (ast.Assign, ast.AnnAssign)):
        return False
    scope = parents.get(target)
    if holder is None:
        return isinstance(scope, ast.Module)
    return isinstance(scope, ast.ClassDef) and scope.name == holder


def literal_uses(root: Path) -> list[str]:
    """Each place under ``root`` that spells a status or verdict word instead of
    naming its definition: ``file:line: 'word' (context)``."""
    found = []
    for folder in FOLDERS:
        for file in sorted((root / folder).rglob("*.py")):
            path = file.relative_to(root).as_posix()
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=path)
            parents = {child: node for node in ast.walk(tree)
                       for child in ast.iter_child_nodes(node)}
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                    continue
                where = f"{path}:{node.lineno}"
                if SQL_WORD.search(node.value) and re.search(
                        r"\b(SELECT|UPDATE|WHERE|DELETE)\b", node.value):
                    found.append(f"{where}: {SQL_WORD.search(node.value).group(0)} (in SQL)")
                word = node.value
                if word not in WORDS or _is_definition(node, parents, path, word):
                    continue
                context = _context(node, parents)
                if word in COLUMN_WORDS and context in ("key", "listed"):
                    continue
                if context == "key" and (path, word) in ALLOWED_KEYS:
                    continue
                found.append(f"{where}: {word!r} ({context})")
    return found


def test_status_and_verdict_words_are_named_not_spelled():
    found = literal_uses(ROOT)
    assert not found, ("spelled where the definition should be named (engines.Status, "
                       "engines.FAILED_WORDS, compare.judge.verdict):\n" + "\n".join(found))


def test_every_allowed_exception_is_still_there():
    """An entry of the allow-list that no longer matches anything is dropped, so the
    list stays the few names that really collide."""
    for (path, word), _ in ALLOWED_KEYS.items():
        assert re.search(rf"[\"']{word}[\"']", (ROOT / path).read_text(encoding="utf-8")), \
            (path, word)


@pytest.mark.parametrize("line, caught", [
    ('if result.status == "timeout": pass', True),
    ('ok = frame["status"].isin(("error", "crashed"))', True),
    ('tasks["status"].eq("memout")', True),
    ('ORDER = ("wrong", "error", "timeout")', True),
    ('ORDER = (*ANSWERED_WORDS, "timeout")', True),
    ('LABELS = {"crashed": "Crash"}', True),
    ('COUNTS = {"timeouts": "timeout"}', True),
    ('db.execute("SELECT * FROM results WHERE status = \'solved\'")', True),
    ('kind = "wrong answer"', True),
    ('VERIFIED, WRONG = "verified", "wrong"', True),
    ('failed = int((status == "crashed").sum())', True),
    ('column = frame["solved"]', False),
    ('settings = {"timeout": 10.0, "mode": "first"}', False),
    ('limit = config.get("timeout")', False),
    ('USED = ["status", "solved", "total_s", "timeout"]', False),
    ('if result.status == Status.TIMEOUT: pass', False),
    ('db.execute("SELECT * FROM results WHERE status = ?", (Status.SOLVED.value,))', False),
])
def test_the_check_catches_a_word_typed_again(tmp_path, line, caught):
    (tmp_path / "compare").mkdir()
    (tmp_path / "engines").mkdir()
    (tmp_path / "compare" / "planted.py").write_text(line + "\n", encoding="utf-8")
    assert bool(literal_uses(tmp_path)) is caught, literal_uses(tmp_path)
