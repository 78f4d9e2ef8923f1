"""FlatZinc text to ``ast.FlatZinc``: a recursive-descent parser over ``scanner``'s tokens.

The grammar is MiniZinc 2.6's FlatZinc: predicate, parameter and variable
declarations, constraints, and one solve item last. Declarations may come in
any order (MiniZinc interleaves them), and every name used in a value, a
constraint or the objective must be declared above its use. Every fault raises
``FlatZincError``, shown ``FILE:LINE:COL: what``.

Bounds keep hostile input cheap: nesting of arrays and annotations stops at
``MAX_DEPTH`` (the parser recurses only that deep), integers beyond
``MAX_INT`` in size are refused before Python converts them, and a file over
``MAX_BYTES`` is refused before it is read.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from puzzles.errors import PuzzleInputError
from puzzles.formats.flatzinc import ast as fz
from puzzles.formats.flatzinc.scanner import Cursor, FlatZincError, describe, quote

MAX_DEPTH = 100
MAX_INT = 2 ** 62
MAX_BYTES = 512 << 20

_BASES = {"int": fz.INT, "bool": fz.BOOL, "float": fz.FLOAT}
# The elements and ']' of an array of plain integers and names: one match for what is
# most of a large file.
_WORD = r"(?:[+-]?[0-9]+|[A-Za-z_][A-Za-z0-9_]*)"
_PLAIN_ARRAY = re.compile(rf"({_WORD}(?:[ \t\r\n]*,[ \t\r\n]*{_WORD})*)[ \t\r\n]*\]")
_DIGITS = frozenset("+-0123456789")


def read(path: str | Path) -> fz.FlatZinc:
    """The FlatZinc file at ``path``, parsed."""
    name = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            raise PuzzleInputError(name, None, f"{size:,} bytes; a FlatZinc file here has at "
                                               f"most {MAX_BYTES:,}")
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PuzzleInputError(name, None, f"cannot read: {exc.strerror or type(exc).__name__}") \
            from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FlatZincError(name, line, column, "not UTF-8 text") from None
    return parse(text, name)


def parse(text: str, source: str = "<string>") -> fz.FlatZinc:
    """``text`` as FlatZinc; ``source`` names it in errors."""
    return _Parser(text, source).model()


class _Parser(Cursor):
    def __init__(self, text: str, source: str):
        super().__init__(text, source)
        self.names: dict[str, tuple[str, int]] = {}     # name -> (what it is, line)
        self.refs: dict[str, fz.Ref] = {}                # name -> its one Ref

    # --- items ----------------------------------------------------------------

    def model(self) -> fz.FlatZinc:
        predicates, parameters, variables, arrays, constraints = [], [], [], [], []
        solve = None
        while self.tok[0] != "end":
            kind, text, pos = self.tok
            if solve is not None:
                self.fail(f"expected the end of the file after the solve item, found "
                          f"{describe(self.tok)}")
            line = self.line_of(pos)
            if kind == "id" and text == "constraint":
                constraints.append(self.constraint(line))
            elif kind == "id" and text == "solve":
                solve = self.solve(line)
            elif kind == "id" and text == "predicate":
                predicates.append(self.predicate(line))
            else:
                item = self.declaration(line)
                if isinstance(item, fz.Parameter):
                    parameters.append(item)
                elif isinstance(item, fz.Variable):
                    variables.append(item)
                else:
                    arrays.append(item)
        if solve is None:
            self.fail("no solve item: a FlatZinc file ends with 'solve satisfy;', "
                      "'solve minimize X;' or 'solve maximize X;'")
        return fz.FlatZinc(tuple(predicates), tuple(parameters), tuple(variables),
                           tuple(arrays), tuple(constraints), solve)

    def predicate(self, line: int) -> fz.Predicate:
        self.advance()
        name = self.ident("after 'predicate'")
        self.expect("(", f"after the predicate's name {quote(name)}")
        params = []
        if not self.accept(")"):
            while True:
                ptype = self.type(predicate=True)
                self.expect(":", "after a predicate parameter's type")
                params.append((self.ident("for a predicate parameter"), ptype))
                if self.accept(")"):
                    break
                self.expect(",", "between predicate parameters")
        self.expect(";", "after the predicate")
        return fz.Predicate(name, tuple(params), line)

    def declaration(self, line: int):
        if self.tok[0] != "id":
            self.fail(f"expected an item (a declaration, 'constraint', 'solve' or "
                      f"'predicate'), found {describe(self.tok)}")
        dtype = self.type()
        self.expect(":", "after the type")
        name_pos = self.tok[2]
        name = self.ident("after the type's ':'")
        if name in self.names:
            self.fail(f"{quote(name)} is declared twice (first on line {self.names[name][1]})",
                      name_pos)
        annotations = self.annotations()
        value = None
        if self.accept("="):
            value_pos = self.tok[2]
            value = self.expr(0, False)
            self.check_value(dtype, value, value_pos)
        elif not dtype.is_var or dtype.array:
            what = "an array" if dtype.array else "a parameter"
            self.fail(f"{what} needs a value: expected '=' after {quote(name)}, found "
                      f"{describe(self.tok)}")
        self.expect(";", f"after the declaration of {quote(name)}")
        self.names[name] = ("array" if dtype.array else "var" if dtype.is_var else "par", line)
        self.refs[name] = fz.Ref(name)
        if dtype.array:
            return fz.ArrayDecl(name, dtype.base, dtype.is_var, dtype.domain, value,
                                annotations, line)
        if dtype.is_var:
            return fz.Variable(name, dtype.base, dtype.domain, value, annotations, line)
        return fz.Parameter(name, dtype.base, value, line)

    def check_value(self, dtype: fz.Type, value, pos: int) -> None:
        if dtype.array:
            if not isinstance(value, tuple):
                self.fail(f"expected an array literal '[...]' for an array, found "
                          f"{_show(value)}", pos)
            if len(value) != dtype.size:
                self.fail(f"the array is declared with {dtype.size} elements and given "
                          f"{len(value)}", pos)
            items = value
        else:
            items = (value,)
        accepted = _ACCEPTS[dtype.base] + ((fz.Ref, fz.Index) if dtype.is_var else (fz.Ref,))
        for item in items:
            if not isinstance(item, accepted) or (dtype.base == fz.INT and type(item) is bool):
                what = "variable" if dtype.is_var else "parameter"
                self.fail(f"{'an' if dtype.base == fz.INT else 'a'} {dtype.base} {what} "
                          f"cannot take {_show(item)}", pos)

    def constraint(self, line: int) -> fz.Constraint:
        self.advance()
        name = self.ident("after 'constraint'")
        self.expect("(", f"after the constraint's name {quote(name)}")
        args = []
        if not self.accept(")"):
            while True:
                args.append(self.expr(0, False))
                if self.accept(")"):
                    break
                self.expect(",", f"between the arguments of {quote(name)}")
        annotations = self.annotations()
        self.expect(";", "after the constraint")
        return fz.Constraint(name, tuple(args), annotations, line)

    def solve(self, line: int) -> fz.Solve:
        self.advance()
        annotations = self.annotations()
        kind, text, _ = self.tok
        if kind != "id" or text not in (fz.SATISFY, fz.MINIMIZE, fz.MAXIMIZE):
            self.fail(f"expected 'satisfy', 'minimize' or 'maximize' after 'solve', found "
                      f"{describe(self.tok)}")
        self.advance()
        objective = None
        if text != fz.SATISFY:
            pos = self.tok[2]
            objective = self.expr(0, False)
            if not isinstance(objective, (fz.Ref, fz.Index, int, float)) \
                    or isinstance(objective, bool):
                self.fail(f"expected a variable or a number to {text}, found "
                          f"{_show(objective)}", pos)
        self.expect(";", "after the solve item")
        return fz.Solve(text, objective, annotations, line)

    # --- types ----------------------------------------------------------------

    def type(self, predicate: bool = False) -> fz.Type:
        if not self.accept("array"):
            return self.basic_type(predicate)
        self.expect("[", "after 'array'")
        size = None
        if predicate and self.accept("int"):
            while self.accept(","):           # array [int, int]: a table's rows
                self.expect("int", "in a predicate's array index")
        else:
            pos = self.tok[2]
            index = self.expr(0, False)
            if not isinstance(index, fz.IntRange) or index.low != 1 or index.high < 0:
                self.fail(f"expected an index set '1..N' after 'array [', found {_show(index)}",
                          pos)
            size = index.high
        self.expect("]", "after the array's index set")
        self.expect("of", "after 'array [...]'")
        base = self.basic_type(predicate)
        return fz.Type(base.base, base.is_var, base.domain, True, size)

    def basic_type(self, predicate: bool) -> fz.Type:
        is_var = self.accept("var")
        kind, text, _ = self.tok
        if kind == "id" and text in _BASES:
            self.advance()
            return fz.Type(_BASES[text], is_var)
        if kind == "id" and text == "set":
            self.advance()
            self.expect("of", "after 'set'")
            if self.accept("int"):
                return fz.Type(fz.SET, is_var)
            pos = self.tok[2]
            universe = self.domain()
            if _is_float(universe):
                self.fail("a set's elements are integers", pos)
            return fz.Type(fz.SET, is_var, universe)
        if (is_var or predicate) and (kind in ("int", "float") or text == "{"):
            domain = self.domain()
            return fz.Type(fz.FLOAT if _is_float(domain) else fz.INT, is_var, domain)
        self.fail(f"expected a type (bool, int, float, set of int, var ..., array ...), "
                  f"found {describe(self.tok)}")

    def domain(self) -> fz.Domain:
        pos = self.tok[2]
        value = self.expr(0, False)
        if isinstance(value, (fz.IntRange, fz.FloatRange)):
            return value
        if isinstance(value, fz.IntSet):
            return value.values
        self.fail(f"expected a domain ('1..9', '{{1,3,5}}' or '0.0..1.0'), found "
                  f"{_show(value)}", pos)

    # --- expressions ----------------------------------------------------------

    def annotations(self) -> tuple:
        found = []
        while self.accept("::"):
            pos = self.tok[2]
            ann = self.expr(0, True)
            if not isinstance(ann, (fz.Annotation, fz.Ref)):
                self.fail(f"expected an annotation after '::', found {_show(ann)}", pos)
            found.append(ann if isinstance(ann, fz.Annotation) else fz.Annotation(ann.name))
        return tuple(found)

    def expr(self, depth: int, annotation: bool):
        """One expression; inside an annotation (``annotation``) strings and calls are
        allowed and an undeclared name is an annotation atom."""
        kind, text, pos = self.advance()
        if kind == "int":
            low = self.integer(text, pos)
            if self.accept(".."):
                return fz.IntRange(low, self.integer(*self.number("int", "'..'")))
            return low
        if kind == "float":
            low = self.real(text, pos)
            if self.accept(".."):
                return fz.FloatRange(low, self.real(*self.number("float", "'..'")))
            return low
        if kind == "id":
            if text == "true" or text == "false":
                return text == "true"
            if self.tok[1] == "(" and annotation:
                self.advance()
                return fz.Annotation(text, self.sequence(")", depth, annotation))
            if self.tok[1] == "[":
                self.advance()
                index = self.integer(*self.number("int", "'['"))
                self.expect("]", "after the index")
                self.known(text, pos, annotation)
                return fz.Index(text, index)
            if self.known(text, pos, annotation):
                return self.refs[text]
            return fz.Annotation(text)
        if kind == "punct":
            if text == "[":
                return self.sequence("]", depth, annotation)
            if text == "{":
                return self.set_literal(pos)
        if kind == "str" and annotation:
            return _unescape(text)
        self.fail(f"expected a value, found {describe((kind, text, pos))}", pos)

    def known(self, name: str, pos: int, annotation: bool) -> bool:
        if name in self.names:
            return True
        if not annotation:
            self.fail(f"unknown name {quote(name)}: not declared above", pos)
        return False

    def sequence(self, close: str, depth: int, annotation: bool) -> tuple:
        if depth >= MAX_DEPTH:
            self.fail(f"arrays and annotations nested more than {MAX_DEPTH} deep")
        if close == "]" and not annotation:
            plain = self.plain_array()
            if plain is not None:
                return plain
        items = []
        if self.accept(close):
            return ()
        while True:
            items.append(self.expr(depth + 1, annotation))
            if self.accept(close):
                return tuple(items)
            self.expect(",", f"or {close!r} between elements")

    def plain_array(self) -> tuple | None:
        """The rest of an array of plain integers and declared names, read in one
        match (most of a large file); None, and nothing read, for anything else."""
        m = _PLAIN_ARRAY.match(self.text, self.tok[2])
        if m is None:
            return None
        items, refs = [], self.refs
        for word in m.group(1).split(","):
            word = word.strip()
            if word in refs:
                items.append(refs[word])
            elif word[0] in _DIGITS and len(word) < 20 and abs(int(word)) <= MAX_INT:
                items.append(int(word))
            elif word in ("true", "false"):
                items.append(word == "true")
            else:
                return None                 # read again token by token, to say what is wrong
        self.skip_to(m.end())
        return tuple(items)

    def set_literal(self, pos: int) -> fz.IntSet:
        values = []
        if not self.accept("}"):
            kind = self.tok[0] if self.tok[0] in ("int", "float") else "int"
            while True:
                text, at = self.number(kind, "'{' or ','")
                values.append(self.integer(text, at) if kind == "int" else self.real(text, at))
                if self.accept("}"):
                    break
                self.expect(",", "or '}' between set elements")
        return fz.IntSet(tuple(sorted(set(values))))

    def number(self, kind: str, after: str) -> tuple[str, int]:
        tok = self.advance()
        if tok[0] != kind:
            what = "an integer" if kind == "int" else "a float"
            self.fail(f"expected {what} after {after}, found {describe(tok)}", tok[2])
        return tok[1], tok[2]

    def integer(self, text: str, pos: int) -> int:
        digits = text.lstrip("+-")
        if len(digits) > 24:
            self.fail(f"integer {text[:12]}... is outside -2**62..2**62", pos)
        value = int(text, 0) if digits[:2] in ("0x", "0o") else int(text)
        if abs(value) > MAX_INT:
            self.fail(f"integer {text} is outside -2**62..2**62", pos)
        return value

    def real(self, text: str, pos: int) -> float:
        value = float(text)
        if not math.isfinite(value):
            self.fail(f"float {text[:24]} is beyond the range of a double", pos)
        return value


_ACCEPTS = {fz.INT: (int,), fz.BOOL: (bool,), fz.FLOAT: (float, int),
            fz.SET: (fz.IntRange, fz.IntSet)}
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _is_float(domain: fz.Domain) -> bool:
    return isinstance(domain, fz.FloatRange) or (
        isinstance(domain, tuple) and bool(domain) and isinstance(domain[0], float))


def _show(value) -> str:
    if isinstance(value, (fz.Ref, fz.Index, fz.Annotation)):
        return quote(value.name)
    if isinstance(value, tuple):
        return "an array"
    if isinstance(value, (fz.IntRange, fz.FloatRange)):
        return f"{value.low}..{value.high}"
    if isinstance(value, fz.IntSet):
        return "a set"
    if isinstance(value, str):
        return "a string"
    return repr(value).lower() if isinstance(value, bool) else repr(value)


def _unescape(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
