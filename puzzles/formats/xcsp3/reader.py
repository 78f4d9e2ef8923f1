"""Reading XCSP3 files into plain data: the ``Instance`` both the model and the judge read.

pycsp3's XCSP3 parser (the one CPMpy's loader uses) reads the XML; a
recorder of its callbacks keeps each constraint as a tuple ``(FORM, ...)``
holding variable indices, integers and expression trees, in the file's order.

Trees: an int is a constant, ``("var", i)`` variable i, any other node
``(OPERATOR, child, ...)`` with XCSP3's operator names (``add``, ``eq``,
``if``, ``set`` ...). Conditions are ``(OPERATOR, OPERAND)`` with an int, a
variable, ``("range", lo, hi)`` or ``("set", v, ...)`` as the operand. Table
rows hold ``STAR`` (None) for a ``*``.

Caps, so that no file can ask for unbounded work: the decompressed XML at
most ``MAX_XML_BYTES``, ``MAX_VARIABLES`` variables, ``MAX_DOMAIN`` values per
domain, ``MAX_TUPLES`` table rows in all; the bytes and the variables are
screened before pycsp3 builds anything (``screen``). Each domain is built once
however many variables share it. Only satisfaction instances are read: a file
with an objective is refused (one line, bad input).
"""
from __future__ import annotations

import atexit
import hashlib
import io
import lzma
import os
import sys
from dataclasses import dataclass
from xml.etree.ElementTree import ParseError

from puzzles.errors import PuzzleInputError
from puzzles.formats.xcsp3.screen import MAX_DOMAIN, MAX_VARIABLES, Screen, screened_bytes
from puzzles.reading import MAX_INPUT_BYTES, read_capped

EXTENSIONS = (".xml", ".xml.lzma")
MAX_XML_BYTES = MAX_INPUT_BYTES
MAX_TUPLES = 20_000_000
STAR = None          # a ``*`` in a starred table row: any value


@dataclass(frozen=True, eq=False)
class Instance:
    """What the file states, as plain data: the judge's and the translation's input."""
    name: str
    variables: tuple[str, ...]
    domains: tuple[tuple[int, ...], ...]
    constraints: tuple[tuple, ...]
    digest: str = ""

    def forms(self) -> dict[str, int]:
        """How many constraints of each form, for the load note and the docs."""
        counts: dict[str, int] = {}
        for con in self.constraints:
            counts[con[0]] = counts.get(con[0], 0) + 1
        return counts


def family(name: str) -> str:
    """The family of an instance: its name up to the first ``-``."""
    return name.split("-", 1)[0]


def instance_name(path: str) -> str:
    base = os.path.basename(path)
    for ext in (".lzma", ".xml"):
        if base.endswith(ext):
            base = base[: -len(ext)]
    return base


def is_xcsp3_path(path: str) -> bool:
    return path.endswith(EXTENSIONS)


# ----- reading ---------------------------------------------------------------------------
def read_xml(path: str) -> bytes:
    """The XML bytes of a ``.xml`` or ``.xml.lzma`` file, capped; faults name the file."""
    try:
        with open(path, "rb") as handle:
            raw = read_capped(handle, path) if not path.endswith(".lzma") else handle.read()
    except OSError as exc:
        raise PuzzleInputError(path, None, f"cannot read: {exc.strerror or type(exc).__name__}") \
            from None
    if not path.endswith(".lzma"):
        return raw
    unpacker = lzma.LZMADecompressor()
    try:
        data = unpacker.decompress(raw, max_length=MAX_XML_BYTES + 1)
    except lzma.LZMAError as exc:
        raise PuzzleInputError(path, None, f"not an lzma file ({exc})") from None
    if len(data) > MAX_XML_BYTES:
        raise PuzzleInputError(path, None, f"more than {MAX_XML_BYTES >> 20} MiB of XML, "
                                           "the most one instance may hold")
    if not unpacker.eof:
        raise PuzzleInputError(path, None, "truncated: the lzma stream ends early")
    return data


def _parser_module():
    """pycsp3's parser, imported without pycsp3's own start-up behaviour.

    Imported as a script, pycsp3 reads ``sys.argv`` and registers an exit hook
    that compiles an (empty) model of its own; neither may happen here.
    """
    saved = sys.argv
    sys.argv = []
    try:
        import pycsp3
        from pycsp3.parser import xparser
    except ImportError:
        raise ImportError("reading XCSP3 needs pycsp3: pip install -e '.[xcsp3]'") from None
    finally:
        sys.argv = saved
    atexit.unregister(pycsp3.end)
    return xparser


def parse_instance(data: bytes, path: str) -> Instance:
    """The instance a file's XML states; every fault is one ``PuzzleInputError``."""
    data = screened_bytes(data, path)
    try:
        xparser = _parser_module()
    except ImportError as exc:
        raise PuzzleInputError(path, None, str(exc)) from None
    from pycsp3.classes.nodes import Node
    try:
        parser = _screening_parser(xparser, path)(io.BytesIO(data))
    except PuzzleInputError:
        Node.all_nodes.clear()
        raise
    except ParseError as exc:
        line, column = getattr(exc, "position", (None, None))
        raise PuzzleInputError(path, line, f"not well-formed XML (column {column}); a "
                                           "truncated file ends like this too") from None
    except Exception as exc:     # pycsp3 asserts on content it cannot read
        Node.all_nodes.clear()
        raise PuzzleInputError(path, None, f"not a valid XCSP3 instance ({_why(exc)})") from None
    root = parser.tree.getroot()
    if root.tag != "instance":
        Node.all_nodes.clear()
        raise PuzzleInputError(path, None, f"not an XCSP3 instance: the root element is "
                                           f"<{root.tag[:40]}>, not <instance>")
    if parser.oEntries:
        Node.all_nodes.clear()
        raise PuzzleInputError(path, None, "has an objective; only satisfaction (CSP) "
                                           "instances are read here")
    recorder = _recorder(path)
    try:
        _sharing_loader(xparser)(parser, recorder).load_instance()
    except PuzzleInputError:
        raise
    except Exception as exc:
        raise PuzzleInputError(path, None, f"not a valid XCSP3 instance ({_why(exc)})") from None
    finally:
        Node.all_nodes.clear()      # pycsp3 keeps every node it ever made in this list
    if not recorder.names:
        raise PuzzleInputError(path, None, "no variable: not an XCSP3 instance to solve")
    return Instance(instance_name(path), tuple(recorder.names), tuple(recorder.domains),
                    tuple(recorder.constraints), hashlib.sha256(data).hexdigest()[:24])


def _screening_parser(xparser, path: str):
    """pycsp3's parser, with the variables screened before it builds any (``screen``)."""
    class ScreeningParser(xparser.ParserXCSP3):
        def parse_variables(self, elements):
            screen = Screen(path, lambda id_: self.tree.find(f".//*[@id='{id_}']"))
            for elt in elements:
                screen.element(elt)
            super().parse_variables(elements)
    return ScreeningParser


def _sharing_loader(xparser):
    """pycsp3's loader, handing each variable's domain as its pieces: pycsp3's own
    ``load_var`` lists every value again for every variable of a shared domain."""
    from pycsp3.classes.auxiliary.enums import TypeVar

    class SharingLoader(xparser.CallbackerXCSP3):
        def load_var(self, x):
            self.cb.load_var(x)
            if not self.cb.discard_variables_of_degree_0 or x.degree is not None:
                if x.type == TypeVar.SYMBOLIC:
                    self.cb.var_symbolic(x, x.domain)
                else:
                    self.cb.var_pieces(x, x.domain)
    return SharingLoader


def _why(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:120] if text and text[0] else type(exc).__name__)


# ----- the recorder of pycsp3's callbacks ------------------------------------------------
def _recorder(path: str):
    """A recorder of pycsp3's callbacks (its base class is pycsp3's, imported late)."""
    from pycsp3.parser.callbacks import Callbacks
    recorder = type("Recorder", (_Recording, Callbacks), {})
    return recorder(path)


class _Recording:
    """pycsp3 callbacks that keep each constraint as plain data.

    pycsp3's own recognisers (primitives, logic, sums in intension) are off:
    an intension constraint arrives as its tree, as the file states it, and
    the translation does its own recognising. A form this recorder does not
    know is kept as ``("unsupported", NAME)`` so the instance is n/a with that
    reason rather than refused.
    """

    def __init__(self, path: str):
        from pycsp3.classes.nodes import TypeNode
        super().__init__()
        for key in list(vars(self)):
            if key.startswith("recognize"):
                setattr(self, key, False)
        self.print_general_methods = self.print_specific_methods = False
        self.path = path
        self.names: list[str] = []
        self.domains: list[tuple[int, ...]] = []
        self.shared: dict[tuple, tuple[int, ...]] = {}
        self.index: dict[str, int] = {}
        self.constraints: list[tuple] = []
        self.tuples = 0
        self.VAR, self.INT = TypeNode.VAR, TypeNode.INT

    def _unimplemented(self, *args, general_method=False):
        if not general_method:
            self.constraints.append(("unsupported", sys._getframe(1).f_code.co_name))

    def fail(self, message: str):
        raise PuzzleInputError(self.path, None, message)

    # variables
    def _variable(self, x, values):
        if len(self.names) >= MAX_VARIABLES:
            self.fail(f"more than {MAX_VARIABLES:,} variables, the most an instance may have")
        self.index[x.id] = len(self.names)
        self.names.append(x.id)
        self.domains.append(values)

    def var_pieces(self, x, pieces):
        """A domain as written (ints and ranges): built once, shared by every variable
        written with the same pieces."""
        key = tuple(pieces)
        values = self.shared.get(key)
        if values is None:
            size = sum(len(p) if isinstance(p, range) else 1 for p in pieces)
            if size > MAX_DOMAIN:
                self.fail(f"variable {x.id} has {size:,} values; a domain here holds at "
                          f"most {MAX_DOMAIN:,}")
            if len(pieces) == 1 and isinstance(pieces[0], range):
                values = tuple(pieces[0])
            else:
                values = tuple(sorted({v for p in pieces
                                       for v in (p if isinstance(p, range) else (p,))}))
            self.shared[key] = values
        self._variable(x, values)

    def var_integer_range(self, x, min_value, max_value):
        self.var_pieces(x, [range(min_value, max_value + 1)])

    def var_integer(self, x, values):
        self.var_pieces(x, values)

    def var_symbolic(self, x, values):
        self.fail(f"variable {x.id} is symbolic; only integer variables are read here")

    # plain data from pycsp3's objects
    def term(self, t):
        """A variable, constant or expression as a tree."""
        if isinstance(t, int):
            return t
        node_type = getattr(t, "type", None)
        if node_type is None or not hasattr(t, "cnt"):    # a Variable
            return ("var", self.index[t.id])
        if node_type is self.VAR:
            return ("var", self.index[t.cnt.id])
        if node_type is self.INT:
            return t.cnt
        return (str(node_type), *(self.term(c) for c in t.cnt))

    def terms(self, seq):
        return tuple(self.term(t) for t in seq)

    def operand(self, value):
        if isinstance(value, range):
            return ("range", value.start, value.stop - 1)
        if isinstance(value, (list, tuple)):
            return ("set", *(int(v) for v in value))
        return self.term(value)

    def condition(self, cond):
        op = cond.operator.name.lower()
        if hasattr(cond, "min") and hasattr(cond, "max"):
            return (op, ("range", cond.min, cond.max))
        if hasattr(cond, "t"):
            return (op, ("set", *cond.t))
        if hasattr(cond, "variable"):
            return (op, self.term(cond.variable))
        return (op, cond.value)

    def add(self, *con):
        self.constraints.append(con)

    # constraints
    def ctr_true(self, scope):
        pass

    def ctr_false(self, scope):
        self.add("extension", self.terms(scope), (), True)

    def ctr_intension(self, scope, tree):
        self.add("intension", self.term(tree))

    def ctr_extension_unary(self, x, values, positive, flags):
        rows = []
        for v in values:
            if isinstance(v, range):
                rows.extend((w,) for w in v)
            else:
                rows.append((int(v),))
        self._table((self.term(x),), rows, positive)

    def ctr_extension(self, scope, tuples, positive, flags):
        rows = [tuple(STAR if not isinstance(v, int) else v for v in row) for row in tuples]
        self._table(self.terms(scope), rows, positive)

    def _table(self, scope, rows, positive):
        self.tuples += len(rows)
        if self.tuples > MAX_TUPLES:
            self.fail(f"more than {MAX_TUPLES:,} table rows, the most an instance may hold")
        self.add("extension", scope, tuple(rows), positive)

    def ctr_regular(self, scope, transitions, start_state, final_states):
        self.add("regular", self.terms(scope), tuple((str(a), int(v), str(b))
                                                     for a, v, b in transitions),
                 str(start_state), tuple(map(str, final_states)))

    def ctr_mdd(self, scope, transitions):
        self.add("mdd", self.terms(scope), tuple((str(a), int(v), str(b))
                                                 for a, v, b in transitions))

    def ctr_all_different(self, scope, excepting):
        self.add("allDifferent", self.terms(scope), tuple(excepting or ()))

    def ctr_all_different_lists(self, lists, excepting):
        self.add("allDifferentLists", tuple(self.terms(row) for row in lists),
                 tuple(tuple(e) for e in excepting or ()))

    def ctr_all_different_matrix(self, matrix, excepting):
        self.add("allDifferentMatrix", tuple(self.terms(row) for row in matrix),
                 tuple(excepting or ()))

    def ctr_all_equal(self, scope, excepting):
        self.add("allEqual", self.terms(scope), tuple(excepting or ()))

    def ctr_ordered(self, lst, operator, lengths):
        self.add("ordered", self.terms(lst), operator.name,
                 None if lengths is None else self.terms(lengths))

    def ctr_lex(self, lists, operator):
        self.add("lex", tuple(self.terms(row) for row in lists), operator.name)

    def ctr_lex_limit(self, lst, limit, operator):
        self.add("lex", (self.terms(lst), tuple(int(v) for v in limit)), operator.name)

    def ctr_lex_matrix(self, matrix, operator):
        self.add("lexMatrix", tuple(self.terms(row) for row in matrix), operator.name)

    def ctr_precedence(self, lst, values, covered):
        self.add("precedence", self.terms(lst),
                 None if values is None else tuple(int(v) for v in values), bool(covered))

    def ctr_sum(self, lst, coefficients, condition):
        coeffs = None if coefficients is None else self.terms(coefficients)
        self.add("sum", self.terms(lst), coeffs, self.condition(condition))

    def ctr_count(self, lst, values, condition):
        self.add("count", self.terms(lst), self.terms(values), self.condition(condition))

    def ctr_nvalues(self, lst, excepting, condition):
        self.add("nValues", self.terms(lst), tuple(excepting or ()), self.condition(condition))

    def ctr_cardinality(self, lst, values, occurs, closed):
        self.add("cardinality", self.terms(lst), self.terms(values),
                 tuple(self.operand(o) for o in occurs), bool(closed))

    def ctr_minimum(self, lst, condition):
        self.add("minimum", self.terms(lst), self.condition(condition))

    def ctr_maximum(self, lst, condition):
        self.add("maximum", self.terms(lst), self.condition(condition))

    def ctr_element(self, lst, i, condition):
        self.add("element", self.terms(lst), self.term(i), self.condition(condition))

    def ctr_element_matrix(self, matrix, i, j, condition):
        self.add("elementMatrix", tuple(self.terms(row) for row in matrix), self.term(i),
                 self.term(j), self.condition(condition))

    def ctr_channel(self, lst1, lst2):
        self.add("channel", self.terms(lst1), None if lst2 is None else self.terms(lst2))

    def ctr_channel_value(self, lst, value):
        self.add("channelValue", self.terms(lst), self.term(value))

    def ctr_instantiation(self, lst, values):
        self.add("instantiation", self.terms(lst), tuple(int(v) for v in values))
