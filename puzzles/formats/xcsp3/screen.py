"""What an XCSP3 file must pass before pycsp3's parser builds anything from it.

pycsp3 trusts its input: it allocates an array's every variable before
anything counts them (``size="[100000][100000]"`` is a ``MemoryError``),
builds each variable's domain piece by piece (a domain written as a million
pieces, or ten wide ranges, costs minutes and gigabytes before the reader's
cap on values sees it), asserts on an empty range, and lets expat expand
entities. So the bytes and the ``<variables>`` section are screened first, in
time linear in what is written, and every refusal is one line saying what is
wrong:

* a UTF-8 byte-order mark is dropped (it is valid XML); a DOCTYPE (a DTD,
  entities) is refused, since no XCSP3 file needs one and entity expansion
  is how an XML file asks for unbounded work;
* array sizes are multiplied out before any variable exists: at most
  ``MAX_VARIABLES`` in all;
* each domain is read as written (``1 3 5``, ``1..2 4..5``): not empty, no
  empty range ``5..1``, no value twice, whole numbers only, at most
  ``MAX_DOMAIN`` values and ``MAX_PIECES`` pieces; the pieces every variable
  carries count together (at most ``MAX_PIECES_IN_ALL``), as do the values of
  all the distinct domains (at most ``MAX_VALUES_IN_ALL``).
"""
from __future__ import annotations

import codecs
import math
import re

from puzzles.errors import PuzzleInputError

MAX_VARIABLES = 200_000
MAX_DOMAIN = 1_000_000          # values one domain may hold
MAX_PIECES = 100_000            # separate pieces (values, ranges) one domain may be written in
MAX_PIECES_IN_ALL = 1_000_000   # pieces over every variable (pycsp3 builds each one's domain)
MAX_VALUES_IN_ALL = 5_000_000   # values over the instance's distinct domains

_PROLOG = re.compile(rb"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*)*", re.DOTALL)
_SIZE = re.compile(r"\[([^\]]*)\]")


def screened_bytes(data: bytes, path: str) -> bytes:
    """The XML without a byte-order mark; no DOCTYPE, and starting with '<'."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    if not data[:4096].lstrip().startswith(b"<"):
        raise PuzzleInputError(path, None, "not XML (it does not start with '<')")
    prolog = _PROLOG.match(data, 0, 1 << 20)
    if data.startswith(b"<!DOCTYPE", prolog.end()) or b"<!ENTITY" in data:
        raise PuzzleInputError(path, None, "has a DOCTYPE: entities/DTD are not allowed "
                                           "in an XCSP3 file")
    return data


class Screen:
    """The running totals over one file's ``<variables>``; ``element`` checks each."""

    def __init__(self, path: str, find_alias):
        self.path = path
        self.find_alias = find_alias        # id -> the element an ``as`` names
        self.variables = 0
        self.pieces = 0
        self.values = 0
        self.seen: dict[str, tuple[int, int]] = {}   # domain text -> (pieces, values)

    def fail(self, message: str):
        raise PuzzleInputError(self.path, None, message)

    def element(self, elt) -> None:
        """One ``<var>`` or ``<array>``: its size and its domains."""
        name = elt.attrib.get("id", "?")[:60]
        count = self.size(elt, name) if elt.tag == "array" else 1
        self.variables += count
        if self.variables > MAX_VARIABLES:
            self.fail(f"more than {MAX_VARIABLES:,} variables, the most an instance may "
                      f"have ({'array ' if elt.tag == 'array' else 'variable '}{name} "
                      f"brings the count to {self.variables:,})")
        if elt.attrib.get("type", "integer").lower() != "integer":
            return                         # symbolic: the reader refuses it by name
        source = elt
        if "as" in elt.attrib:
            source = self.alias(elt.attrib["as"])
            if source is None:
                self.fail(f"{name} is declared 'as' {elt.attrib['as'][:60]!r}, "
                          "which no variable is")
        children = [] if source.tag == "var" else source.findall("domain")
        if not children:
            self.pieces += count * self.domain(source.text or "", name)
        for child in children:
            if "as" in child.attrib:
                child = self.alias(child.attrib["as"]) or child
            self.pieces += self.domain(child.text or "", name)
        if self.pieces > MAX_PIECES_IN_ALL:
            self.fail(f"the domains are written in more than {MAX_PIECES_IN_ALL:,} pieces "
                      "over all variables, the most an instance may have")

    def alias(self, id_: str):
        if "'" in id_ or "]" in id_:
            self.fail(f"the id {id_[:60]!r} cannot be named by 'as'")
        return self.find_alias(id_)

    def size(self, elt, name: str) -> int:
        text = elt.attrib.get("size", "")
        dims = _SIZE.findall(text)
        if not dims or _SIZE.sub("", text).strip() or not all(d.isdigit() for d in dims):
            self.fail(f"array {name} has size {text[:60]!r}; a size is written [n] or [n][m]...")
        if any(len(d) > 12 for d in dims):
            return MAX_VARIABLES + 1
        return math.prod(int(d) for d in dims)

    def domain(self, text: str, name: str) -> int:
        """The pieces ``text`` is written in, after checking it; each distinct text once."""
        key = " ".join(text.split())
        known = self.seen.get(key)
        if known is None:
            known = self.seen[key] = self.read(key, name)
            self.values += known[1]
            if self.values > MAX_VALUES_IN_ALL:
                self.fail(f"the distinct domains hold more than {MAX_VALUES_IN_ALL:,} values "
                          "in all, the most an instance may have")
        return known[0]

    def read(self, key: str, name: str) -> tuple[int, int]:
        """``(pieces, values)`` of one domain as written, in one pass and one sort."""
        if not key:
            self.fail(f"variable {name} has an empty domain")
        tokens = key.split(" ")
        if len(tokens) > MAX_PIECES:
            self.fail(f"variable {name} has a domain written in {len(tokens):,} pieces; a "
                      f"domain here is written in at most {MAX_PIECES:,}")
        spans, values = [], 0
        for token in tokens:
            lo, sep, hi = token.partition("..")
            try:
                low, high = int(lo), int(hi if sep else lo)
            except ValueError:
                self.fail(f"variable {name}: {token[:40]!r} in its domain is not a whole "
                          "number or a range lo..hi")
            if low > high:
                self.fail(f"variable {name}: the range {token[:40]} in its domain is empty "
                          f"({low} > {high})")
            values += high - low + 1
            if values > MAX_DOMAIN:
                self.fail(f"variable {name} has more than {MAX_DOMAIN:,} values; a domain "
                          f"here holds at most {MAX_DOMAIN:,}")
            spans.append((low, high))
        spans.sort()
        for (_, end), (start, _) in zip(spans, spans[1:]):
            if start <= end:
                self.fail(f"variable {name}: its domain holds {start} twice (its pieces "
                          "overlap)")
        return len(tokens), values
