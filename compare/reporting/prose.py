"""The page's prose: settings, environment and definitions as a reader reads them.

summary.md and meta.json keep these in their own forms (markdown with
backticks, JSON lists, ``null`` for a default); a page that showed those
forms would show ``False``, raw lists and blanks. Here each setting is
worded (a default named, a list as a comma list, a switch as yes or no),
inline code becomes ``<code>``, and the definitions become a definition
list. The table of contents is made from the page's own section headings,
so it can never point at a section the page lacks.

Names (puzzle ids, file and folder names, engine labels and their messages)
are data, never markup or formulas, whatever they hold; each output has its
own writer here (docs/reporting.md): ``script_json`` for the JSON inside the
page's ``<script>``, ``plot_text`` for every text plotly draws (it reads a
few HTML tags in text), ``spreadsheet_safe`` for the cells of every CSV, and
``one_line`` / ``controls_shown`` for summary.md and other markdown.
"""
from __future__ import annotations

import html
import json
import re

# What a setting left at its default (None in meta.json) means, as the command line says it.
DEFAULTS = {"sample": "none (every puzzle)", "formulations": "each puzzle's first",
            "memory_limit": "none", "baseline": "none"}
UNITS = {"timeout": "s", "memory_limit": "MB"}
CODE = re.compile(r"``(.+?)``|`([^`]+)`")
HEADING = re.compile(r'<h2 id="([^"]+)">(.*?)</h2>', re.S)
# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Control characters: C0 and C1, and the invisible ones that reorder or split text
# (bidi embeddings, overrides and isolates, marks, line and paragraph separators).
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
SHOWN = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def script_json(value) -> str:
    """``value`` as JSON to be written inside a ``<script>`` element: ``<``, ``>`` and
    ``&`` as ``\\u003c``, ``\\u003e``, ``\\u0026``, so no name can open a comment,
    close the element or start another one; ``JSON.parse`` reads the same strings."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def plot_text(value) -> str:
    """A name as plotly text: plotly renders ``<b>``, ``<br>``, ``<a href>`` and a
    few more tags in every text it draws, and decodes entities, so ``<``, ``>``
    and ``&`` go as entities and show as themselves."""
    return html.escape("" if value is None else str(value), quote=False)


def spreadsheet_cell(value):
    """A text cell that a spreadsheet would take for a formula, prefixed with ``'``
    so it shows as the text it is; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def spreadsheet_safe(frame):
    """A copy of ``frame`` whose text columns hold no cell that starts a formula;
    numeric columns are untouched, so a negative number stays a number."""
    frame = frame.copy()
    for column in frame.columns:
        values = frame[column]
        if values.dtype.kind in "biufcmM":
            continue
        if str(values.dtype) in ("str", "string"):   # text only: tested at once, not
            starts = values.str.startswith(FORMULA_START).fillna(False).astype(bool)
            if starts.any():                          # cell by cell (a run's 35 columns)
                frame[column] = values.where(~starts, "'" + values)
        else:                                         # text and numbers: cell by cell
            frame[column] = values.map(spreadsheet_cell, na_action="ignore")
    return frame


def _shown(found: re.Match) -> str:
    char = found.group()
    return SHOWN.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                               else f"\\u{ord(char):04x}")


def controls_shown(text: str, keep_newlines: bool = True) -> str:
    """``text`` with its control characters written as escapes (``\\t``, ``\\x1b``,
    ``\\u202e``), so none can reorder or hide what a reader sees; its newlines kept."""
    if keep_newlines:
        return "\n".join(CONTROLS.sub(_shown, part) for part in text.split("\n"))
    return CONTROLS.sub(_shown, text)


def one_line(value) -> str:
    """A name in a markdown line: every control character escaped, newlines too,
    so it cannot end the line or the table row it is in."""
    return controls_shown("" if value is None else str(value), keep_newlines=False)


def table_cell(value) -> str:
    """A markdown table cell: on one line, its ``|`` escaped so it stays one cell."""
    return one_line(value).replace("|", "\\|")


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def inline(text: str) -> str:
    """``text`` as HTML, its backticked spans (single or double) as ``<code>``."""
    out, at = [], 0
    for found in CODE.finditer(text):
        out += [esc(text[at:found.start()]),
                f"<code>{esc(found.group(1) or found.group(2))}</code>"]
        at = found.end()
    return "".join(out) + esc(text[at:])


def setting_text(name: str, value, settings: dict, puzzles: int) -> str:
    """One setting as words: defaults named, lists comma-separated, switches yes or no."""
    if value is None:
        if name == "puzzles":
            return f"the embedded default set ({puzzles} puzzles)"
        if name == "engines":
            ran = settings.get("engines run") or []
            return "the default set" + (f" ({words(ran)})" if ran else "")
        return DEFAULTS.get(name, "default")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and name in UNITS:
        return f"{value:g} {UNITS[name]}"
    if name in UNITS and isinstance(value, int):
        return f"{value} {UNITS[name]}"
    return words(value)


def words(value) -> str:
    """A list as a comma list, a mapping as ``key=value`` pairs, anything else as text."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(words(v) for v in value) or "none"
    return str(value)


def settings_html(settings: dict, puzzles: int) -> list[str]:
    """The settings as ``<dt>``/``<dd>`` pairs (names spaced as the options read)."""
    return [f"<dt>{esc(name.replace('_', ' '))}</dt>"
            f"<dd>{esc(setting_text(name, value, settings, puzzles))}</dd>"
            for name, value in settings.items()]


def environment_html(lines: list[str]) -> list[str]:
    """The environment lines (``key: value``, markdown code spans) as ``<dt>``/``<dd>``."""
    parts = []
    for line in lines:
        key, _, value = line.partition(": ")
        if not value:
            key, value = "", line
        parts.append(f"<dt>{esc(key)}</dt><dd>{inline(value)}</dd>")
    return parts


def definitions_html(text: str) -> str:
    """The definitions (``* term: what it means``, continued on indented lines) as a
    definition list, every backticked name as ``<code>``."""
    items, current = [], []
    for line in text.strip().splitlines():
        if line.startswith("* ") and current:
            items.append(" ".join(current))
            current = []
        current.append(line.removeprefix("* ").strip())
    if current:
        items.append(" ".join(current))
    parts = ['<dl class="definitions">']
    for item in items:
        term, _, meaning = item.partition(": ")
        if not meaning:
            term, meaning = "", item
        parts.append(f"<dt>{inline(term)}</dt><dd>{inline(meaning)}</dd>")
    return "".join(parts + ["</dl>"])


def contents(parts: list[str]) -> str:
    """A table of contents: a link to every section heading (``<h2 id=...>``) in ``parts``."""
    links = [f'<li><a href="#{ident}">{title}</a></li>'
             for ident, title in HEADING.findall("\n".join(parts))]
    if len(links) < 2:
        return ""
    return ('<nav class="contents" id="contents" aria-label="Contents"><ol>'
            + "".join(links) + "</ol></nav>")
