"""A FlatZinc file (``flatzinc.ast.FlatZinc``) as a model: one exact form per builtin.

Every integer and Boolean variable of the file is a model variable, in the
file's order (a Boolean is 0/1; a variable assigned another is that one; a
variable assigned a constant is fixed to it). Auxiliary variables come after
them: one fixed variable per constant a constraint names where a variable is
expected, and one counter per parity (``array_bool_xor``); each is a function
of the file's variables, so counts and the lexicographically first solution
are the file's. The builtins map to the model's kinds as docs/kinds.md lists.

What has no exact form (floats, sets, optimisation, a builtin outside the
vocabulary, a variable whose bounds cannot be found) leaves the model
``unsupported`` with one reason, and every engine answers n/a with it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from puzzles.formats.flatzinc import ast as fz
from puzzles.formats.minizinc.builtins import HANDLERS
from puzzles.model import (
    Linear,
    Model,
    Structure,
)

VERSION = "1"               # part of the cache key of a translated file
MAX_DOMAIN = 1_000_000      # values one variable may take
MAX_VALUES = 20_000_000     # values all domains hold together
BOUND_ROUNDS = 50           # passes that look for the bounds of unbounded variables


class Untranslatable(Exception):
    """Something of the file with no exact form here: the model's n/a reason."""


@dataclass
class Translation:
    """The model of a FlatZinc file and how to write an answer the MiniZinc way."""
    model: Model
    variables: tuple[str, ...]        # the file's variables, in model order (then auxiliaries)
    own: int                          # how many model variables are the file's own
    outputs: tuple = ()               # ("var", name, index) or ("array", name, dims, items)
    booleans: frozenset = field(default_factory=frozenset)   # model indices of bool vars

    def format_answer(self, values) -> str:
        """``name = value;`` per output variable, ``name = arrayNd(...);`` per array."""
        lines = []
        for out in self.outputs:
            if out[0] == "var":
                lines.append(f"{out[1]} = {self._shown(out[2], values)};")
                continue
            _, name, dims, items = out
            ranges = ", ".join(f"{d.low}..{d.high}" for d in dims)
            shown = ", ".join(self._shown(i, values) if isinstance(i, int) and not
                              isinstance(i, bool) and i >= 0 else _constant(i)
                              for i in items)
            lines.append(f"{name} = array{len(dims)}d({ranges}, [{shown}]);")
        return "\n".join(lines)

    def _shown(self, index: int, values) -> str:
        value = values[index]
        return ("true" if value else "false") if index in self.booleans else str(value)


def _domain_of(var: fz.Variable):
    """A declared domain as a range or a sorted tuple; None for ``var int``."""
    if var.type == fz.BOOL:
        return range(0, 2)
    if isinstance(var.domain, fz.IntRange):
        return var.domain.values()
    if isinstance(var.domain, tuple):
        return tuple(sorted(set(var.domain)))
    return None


def _constant(item) -> str:
    kind, value = item
    return ("true" if value else "false") if kind == "bool" else str(value)


def translate(flat: fz.FlatZinc, name: str = "", key: str | None = None) -> Translation:
    """The model of ``flat``; never raises for an untranslatable file (see the module).

    ``key`` names the model's structure, on which engines key their caches: it must
    differ between files (the file's digest does); ``name`` by default."""
    builder = _Builder(flat)
    key = f"minizinc/{key or name}"
    try:
        builder.build()
    except Untranslatable as why:
        return builder.refused(str(why), name, key)
    return builder.translation(name, key)


class _Builder:
    def __init__(self, flat: fz.FlatZinc):
        self.flat = flat
        self.index: dict[str, int] = {}        # variable name -> model index
        self.names: list[str] = []
        self.domains: list = []                # a range, a sorted tuple, or None (unbounded)
        self.booleans: set[int] = set()
        self.arrays = {a.name: a for a in flat.arrays}
        self.params = {p.name: p.value for p in flat.parameters}
        self.constants: dict[int, int] = {}
        self.constraints: list = []
        self.own = 0
        self.implied = False                   # the builtin at hand is an ``_imp`` form

    # ----- variables -------------------------------------------------------------------
    def build(self) -> None:
        solve = self.flat.solve
        if solve is not None and solve.kind != fz.SATISFY:
            raise Untranslatable("optimisation is not supported")
        for var in self.flat.variables:
            if var.type not in (fz.INT, fz.BOOL):
                raise Untranslatable(f"{var.type} variable {var.name} (line {var.line}): only "
                                     "integer and Boolean variables are supported")
        aliases = []
        for var in self.flat.variables:
            if isinstance(var.value, (fz.Ref, fz.Index)):
                aliases.append(var)            # resolved once every target is declared
            else:
                self._declare(var)
        for var in aliases:
            target = self.index[var.name] = self.var(var.value)
            own = _domain_of(var)
            if own is not None:
                self._narrow(target, own)
        self.own = len(self.names)
        for con in self.flat.constraints:     # constant sets narrow domains first
            if con.name == "set_in":
                self._narrow(self.var(con.args[0]), self.set_(con.args[1]))
        self._find_bounds()
        for con in self.flat.constraints:
            if con.name != "set_in":
                self._constraint(con)
        self._check_sizes()

    def _declare(self, var: fz.Variable) -> None:
        index = len(self.names)
        self.index[var.name] = index
        self.names.append(var.name)
        if var.type == fz.BOOL:
            self.booleans.add(index)
        domain = _domain_of(var)
        if var.value is not None:              # assigned a constant
            value = int(var.value)
            domain = (value,) if domain is None or value in domain else ()
        self.domains.append(domain)

    def var(self, item) -> int:
        """The model variable of an argument: a name, an array element or a constant."""
        if isinstance(item, fz.Ref):
            if item.name in self.index:
                return self.index[item.name]
            if item.name in self.params:
                return self.var(self.params[item.name])
            raise Untranslatable(f"{item.name} is not a variable")
        if isinstance(item, fz.Index):
            array = self.arrays.get(item.name)
            if array is None or not 1 <= item.index <= len(array.items):
                raise Untranslatable(f"{item.name}[{item.index}] names no array element")
            return self.var(array.items[item.index - 1])
        if isinstance(item, (bool, int)):
            return self._constant(int(item))
        raise Untranslatable(f"{item!r} where a variable is expected")

    def _constant(self, value: int) -> int:
        found = self.constants.get(value)
        if found is None:
            found = self.constants[value] = self._auxiliary(f"_const_{value}", (value,))
        return found

    def _auxiliary(self, name: str, domain: tuple) -> int:
        self.names.append(name)
        self.domains.append(domain)
        return len(self.names) - 1

    def _array(self, arg) -> tuple:
        if isinstance(arg, fz.Ref):
            if arg.name in self.arrays:
                return self.arrays[arg.name].items
            if arg.name in self.params and isinstance(self.params[arg.name], tuple):
                return self.params[arg.name]
        if isinstance(arg, tuple):
            return arg
        raise Untranslatable(f"{arg!r} where an array is expected")

    def vars(self, arg) -> tuple[int, ...]:
        return tuple(self.var(item) for item in self._array(arg))

    def int_(self, item) -> int:
        if isinstance(item, fz.Ref) and item.name in self.params:
            return self.int_(self.params[item.name])
        if isinstance(item, fz.Index):
            return self.int_(self._array(fz.Ref(item.name))[item.index - 1])
        if isinstance(item, (bool, int)):
            return int(item)
        raise Untranslatable(f"{item!r} where a constant is expected")

    def ints(self, arg) -> tuple[int, ...]:
        return tuple(self.int_(item) for item in self._array(arg))

    def set_(self, arg):
        """A constant set: a range, or a sorted tuple."""
        if isinstance(arg, fz.Ref) and arg.name in self.params:
            return self.set_(self.params[arg.name])
        if isinstance(arg, fz.IntRange):
            return arg.values()
        if isinstance(arg, fz.IntSet):
            return tuple(arg.values)
        raise Untranslatable(f"{arg!r} where a constant set is expected")

    # ----- domains ---------------------------------------------------------------------
    def _bounds(self, v: int) -> tuple[int, int] | None:
        domain = self.domains[v]
        if domain is None:
            return None
        if not domain:
            return (0, -1)
        return (domain[0], domain[-1])          # ranges and tuples are both sorted

    def _narrow(self, v: int, allowed) -> None:
        """Keep only the values of ``allowed`` (a range or a tuple) in ``v``'s domain."""
        domain = self.domains[v]
        if domain is None:
            self.domains[v] = allowed
        elif isinstance(domain, range) and isinstance(allowed, range):
            self.domains[v] = range(max(domain.start, allowed.start),
                                    max(min(domain.stop, allowed.stop),
                                        max(domain.start, allowed.start)))
        else:
            keep = set(allowed)
            self.domains[v] = tuple(x for x in self.values(v) if x in keep)

    def values(self, v: int) -> tuple:
        domain = self.domains[v]
        if domain is None:
            raise Untranslatable(f"variable {self.names[v]} has no finite domain")
        if isinstance(domain, range):
            if len(domain) > MAX_DOMAIN:
                raise Untranslatable(f"variable {self.names[v]} has {len(domain):,} values; "
                                     f"at most {MAX_DOMAIN:,} are supported")
            return tuple(domain)
        return domain

    def _find_bounds(self) -> None:
        """Bounds of unbounded variables from the constraints that define them."""
        open_ = {i for i, d in enumerate(self.domains) if d is None}
        for _ in range(BOUND_ROUNDS):
            if not open_:
                return
            found = False
            for con in self.flat.constraints:
                target, bounds = self._implied(con)
                if target in open_ and bounds is not None:
                    self.domains[target] = range(bounds[0], max(bounds[0], bounds[1] + 1))
                    open_.discard(target)
                    found = True
            if not found:
                break
        if open_:
            first = min(open_)
            raise Untranslatable(f"variable {self.names[first]} has no finite domain "
                                 f"(and none of its constraints bounds it)")

    def _implied(self, con: fz.Constraint) -> tuple[int | None, tuple | None]:
        """The one variable ``con`` bounds, with the bounds, if the others are bounded."""
        try:
            if con.name in ("int_lin_eq", "bool_lin_eq"):
                coeffs, xs, rhs = self.ints(con.args[0]), self.vars(con.args[1]), \
                    self.int_(con.args[2])
                unknown = [i for i, x in enumerate(xs) if self._bounds(x) is None]
                if len(unknown) != 1:
                    return None, None
                k = unknown[0]
                low = high = rhs
                for i, (a, x) in enumerate(zip(coeffs, xs)):
                    if i != k:
                        lo, hi = self._bounds(x)
                        low, high = low - max(a * lo, a * hi), high - min(a * lo, a * hi)
                a = coeffs[k]
                if a == 0:
                    return None, None
                if a < 0:                      # a * x in [low, high]: x's whole range
                    a, low, high = -a, -high, -low
                return xs[k], (-(-low // a), high // a)
            if con.name in ("int_times", "int_min", "int_max", "int_plus"):
                a, b, c = (self.var(x) for x in con.args[:3])
                ba, bb = self._bounds(a), self._bounds(b)
                if ba is None or bb is None:
                    return c, None
                if con.name == "int_times":
                    ends = [x * y for x in ba for y in bb]
                elif con.name == "int_plus":
                    ends = [ba[0] + bb[0], ba[1] + bb[1]]
                else:
                    ends = [min(ba[0], bb[0]), max(ba[1], bb[1])]
                return c, (min(ends), max(ends))
            if con.name == "int_abs":
                a, b = self.var(con.args[0]), self.var(con.args[1])
                ba = self._bounds(a)
                return b, None if ba is None else (0, max(abs(ba[0]), abs(ba[1])))
            if con.name in ("array_int_element", "array_bool_element"):
                values = self.ints(con.args[1])
                return self.var(con.args[2]), (min(values), max(values))
            if con.name in ("array_var_int_element", "array_int_minimum", "array_int_maximum"):
                items = self.vars(con.args[1] if con.name.endswith("element") else con.args[1])
                target = self.var(con.args[2] if con.name.endswith("element") else con.args[0])
                bounds = [self._bounds(x) for x in items]
                if not bounds or any(b is None for b in bounds):
                    return target, None
                return target, (min(b[0] for b in bounds), max(b[1] for b in bounds))
            if con.name in ("int_eq", "bool2int"):
                a, b = self.var(con.args[0]), self.var(con.args[1])
                if self._bounds(a) is None:
                    return a, self._bounds(b)
                return b, self._bounds(a)
        except (Untranslatable, IndexError, TypeError):
            return None, None
        return None, None

    def _check_sizes(self) -> None:
        total = 0
        for v in range(len(self.domains)):
            self.domains[v] = self.values(v)
            total += len(self.domains[v])
            if total > MAX_VALUES:
                raise Untranslatable(f"the domains hold more than {MAX_VALUES:,} values")

    # ----- constraints -----------------------------------------------------------------
    def _constraint(self, con: fz.Constraint) -> None:
        handler = HANDLERS.get(con.name)
        self.implied = con.name.endswith("_imp")
        if handler is None:
            raise Untranslatable(f"constraint {con.name} (line {con.line}) is outside the "
                                 "model's vocabulary")
        try:
            handler(self, con.args)
        except (IndexError, TypeError, ValueError) as exc:
            raise Untranslatable(f"constraint {con.name} (line {con.line}): bad arguments "
                                 f"({exc})") from None

    def add(self, constraint) -> None:
        self.constraints.append(constraint)

    def parity(self, xs: tuple[int, ...]) -> None:
        """The sum of the Booleans ``xs`` is odd: ``sum - 2k == 1`` with ``k`` a counter."""
        k = self._auxiliary(f"_parity_{len(self.names)}", tuple(range(len(xs) // 2 + 1)))
        self.add(Linear((*([1] * len(xs)), -2), (*xs, k), "==", 1))

    # ----- results ---------------------------------------------------------------------
    def translation(self, name: str, key: str) -> Translation:
        structure = Structure(key, tuple(self.names),
                              tuple(self.domains), tuple(self.constraints))
        return Translation(Model(structure, name=name), tuple(self.names), self.own,
                           self._outputs(), frozenset(self.booleans))

    def refused(self, why: str, name: str, key: str) -> Translation:
        structure = Structure(key, (), (), (), unsupported=why)
        return Translation(Model(structure, name=name), (), 0)

    def _outputs(self) -> tuple:
        outputs = []
        for var in self.flat.variables:
            if var.output:
                outputs.append(("var", var.name, self.index[var.name]))
        for array in self.flat.arrays:
            dims = array.output_dims
            if dims is None:
                continue
            items = []
            for item in array.items:
                if isinstance(item, (fz.Ref, fz.Index)):
                    items.append(self.var(item))
                else:
                    items.append(("bool" if isinstance(item, bool) else "int", item))
            outputs.append(("array", array.name, dims, tuple(items)))
        return tuple(outputs)
