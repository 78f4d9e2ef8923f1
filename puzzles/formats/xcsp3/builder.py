"""The model an XCSP3 instance becomes, under construction: auxiliary variables,
tables, linear constraints, and expressions as terms (a constant or a variable).

Each expression is translated exactly or not at all (``Untranslatable``);
``puzzles.formats.xcsp3.model`` adds the XCSP3 forms on top.
"""
from __future__ import annotations

import math

import numpy as np

from puzzles.formats.xcsp3 import limits
from puzzles.formats.xcsp3.reader import Instance
from puzzles.formats.xcsp3.terms import (
    FLIP,
    Untranslatable,
    compared_sides,
    evaluate_all,
    holds,
    linear_form,
    scope_of,
    shown,
)
from puzzles.model import (
    Clause,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Structure,
    Table,
)


class Builder:
    """The instance's variables, then auxiliary ones, and the constraints so far."""

    def __init__(self, instance: Instance):
        self.instance = instance
        self.names = list(instance.variables)
        self.domains = list(instance.domains)
        self.constraints: list = []
        self.givens: dict[int, int] = {}
        self.clash = False
        self.cache: dict = {}          # expression tree -> the auxiliary variable holding it

    def model(self) -> Model:
        inst = self.instance
        key = f"xcsp3/{inst.name}/{inst.digest}"
        givens = tuple(sorted(self.givens.items()))
        if self.clash:      # one variable instantiated to two values: no solution
            self.constraints.append(Table((0,), ()))
        structure = Structure(key, tuple(self.names), tuple(self.domains),
                              tuple(self.constraints))
        return Model(structure, givens, inst.name)

    # ----- helpers --------------------------------------------------------------------
    def rows(self, scope) -> int:
        """How many combinations of values the variables of ``scope`` take."""
        return math.prod(len(self.domains[v]) for v in scope)

    def aux(self, prefix: str, values) -> int:
        values = tuple(sorted(set(int(v) for v in values)))
        if len(self.names) - len(self.instance.variables) >= limits.MAX_AUX_VARIABLES:
            raise Untranslatable(f"the decomposition needs more than {limits.MAX_AUX_VARIABLES:,} "
                                 f"auxiliary variables (at {prefix})")
        if len(values) > limits.MAX_AUX_VALUES:
            raise Untranslatable(f"{prefix}: an auxiliary variable would need {len(values):,} "
                                 f"values (at most {limits.MAX_AUX_VALUES:,})")
        self.names.append(f"_{prefix}{len(self.names) - len(self.instance.variables)}")
        self.domains.append(values)
        return len(self.names) - 1

    def values(self, term) -> tuple[int, ...]:
        return (term,) if isinstance(term, int) else self.domains[term[1]]

    def table(self, scope: list, rows, in_order: bool = False, same_as=None) -> None:
        """A Table over ``scope`` (variables and constants mixed) from full rows.

        Rows given as an array (an enumeration of the domains) hold no repeats
        unless constants are projected away; lists go through a set, and are
        sorted unless ``in_order`` (rows already unique, kept in the file's order:
        sorting a 100,000-row table would cost more than reading it).
        ``same_as``: a key that determines the rows; tables with one key share
        one tuple of rows (the 98 element constraints of a word square over
        60,000 words hold 7 distinct row sets: made once, pickled once), and
        ``rows`` may then be a function that makes them, called only for the
        first table of its key.
        """
        keep = [k for k, t in enumerate(scope) if not isinstance(t, int)]
        variables = tuple(scope[k][1] for k in keep)
        shared = None if same_as is None else ("rows", same_as, tuple(keep))
        if shared in self.cache:
            tuples = self.cache[shared]
        else:
            tuples = _unique_rows(rows() if callable(rows) else rows, keep, len(scope),
                                  in_order)
        if shared is not None:
            self.cache[shared] = tuples
        if not variables:
            if not tuples:
                self.constraints.append(Table((0,), ()))
            return
        self.constraints.append(Table(variables, tuples))

    def value_literal(self, var: int, value: int):
        """A term equal to 1 exactly when ``var == value``: a constant where the domain
        decides it, else a 0/1 variable tied to it by a ReifiedLinear (one per pair,
        shared by every constraint that asks)."""
        dom = self.domains[var]
        if value not in dom or dom == (value,):
            return int(value in dom)
        key = ("is", var, value)
        if key not in self.cache:
            e = self.aux("is", (0, 1))
            self.constraints.append(ReifiedLinear((1,), (var,), "==", value, e))
            self.cache[key] = ("var", e)
        return self.cache[key]

    def conjunction(self, literals: tuple[int, ...]):
        """A term equal to 1 exactly when every 0/1 variable of ``literals`` is 1:
        the variable itself for one, else a 0/1 variable tied to them by clauses
        (``b -> l`` for each, ``l1 and ... -> b``), one per set of literals."""
        if len(literals) == 1:
            return ("var", literals[0])
        key = ("all", literals)
        if key not in self.cache:
            b = self.aux("row", (0, 1))
            for lit in literals:
                self.constraints.append(Clause((lit,), (b,)))
            self.constraints.append(Clause((b,), literals))
            self.cache[key] = ("var", b)
        return self.cache[key]

    def linear(self, terms: dict, const: int, op: str, rhs) -> None:
        """``sum(terms) + const  op  rhs``; rhs an int or a variable term."""
        terms = dict(terms)
        if not isinstance(rhs, int):
            terms[rhs[1]] = terms.get(rhs[1], 0) - 1
            rhs = 0
        rhs -= const
        terms = {v: a for v, a in terms.items() if a}
        if op == "lt":
            op, rhs = "le", rhs - 1
        elif op == "gt":
            op, rhs = "ge", rhs + 1
        symbol = {"eq": "==", "ne": "!=", "le": "<=", "ge": ">="}[op]
        if not terms:
            if not holds(0, op, rhs):
                self.constraints.append(Table((0,), ()))
            return
        if symbol == "!=" and len(terms) == 2 and sorted(terms.values()) == [-1, 1]:
            x = next(v for v, a in terms.items() if a == 1)
            y = next(v for v, a in terms.items() if a == -1)
            self.constraints.append(NotEqualOffset(x, y, rhs))
            return
        self.constraints.append(Linear(tuple(terms.values()), tuple(terms), symbol, rhs))

    def condition(self, terms: dict, const: int, cond) -> None:
        """``sum(terms) + const`` satisfies an XCSP3 condition."""
        op, operand = cond
        if op in FLIP:
            self.linear(terms, const, op, operand)
            return
        kind, *spec = operand
        if op == "in" and kind == "range":
            self.linear(terms, const, "ge", spec[0])
            self.linear(terms, const, "le", spec[1])
            return
        allowed = (range(spec[0], spec[1] + 1) if kind == "range" else set(spec))
        total = self.linear_var(terms, const)
        keep = [(v,) for v in self.values(total) if (v in allowed) == (op == "in")]
        self.table([total], keep)

    def linear_var(self, terms: dict, const: int):
        """A term equal to ``sum(terms) + const`` (a new variable unless it is one)."""
        if not terms:
            return const
        if len(terms) == 1 and const == 0 and next(iter(terms.values())) == 1:
            return ("var", next(iter(terms)))
        low, high = self.bounds(terms, const)
        if high - low + 1 > limits.MAX_AUX_VALUES:
            raise Untranslatable(f"a sum spanning {high - low + 1:,} values has no bounded "
                                 "auxiliary variable")
        x = self.aux("sum", range(low, high + 1))
        self.linear({**terms, x: terms.get(x, 0) - 1}, const, "eq", 0)
        return ("var", x)

    def bounds(self, terms: dict, const: int) -> tuple[int, int]:
        low = high = const
        for v, a in terms.items():
            dom = self.domains[v]
            low += min(a * dom[0], a * dom[-1])
            high += max(a * dom[0], a * dom[-1])
        return low, high

    def reified(self, op: str, terms: dict, const: int) -> int:
        """A 0/1 variable equal to ``(sum(terms) + const) op 0``: one ReifiedLinear, no
        table (a variable of one value where the bounds decide the comparison)."""
        terms = {v: a for v, a in terms.items() if a}
        low, high = self.bounds(terms, const)
        if op in ("eq", "ne"):
            equal, unequal = low <= 0 <= high, not low == high == 0
            truths = {int(op == "eq")} if equal else set()
            truths |= {int(op == "ne")} if unequal else set()
        else:                      # monotone: the bounds give both truth values
            truths = {int(holds(low, op, 0)), int(holds(high, op, 0))}
        b = self.aux(op, truths)
        if len(truths) == 2:
            symbol, rhs = {"lt": ("<=", -const - 1), "le": ("<=", -const),
                           "gt": (">=", -const + 1), "ge": (">=", -const),
                           "eq": ("==", -const), "ne": ("!=", -const)}[op]
            self.constraints.append(ReifiedLinear(tuple(terms.values()), tuple(terms), symbol,
                                                  rhs, b))
        return b

    def as_linear(self, tree) -> tuple[dict, int]:
        """``tree`` as ``(terms, const)``; non-linear parts become auxiliary variables."""
        found = linear_form(tree)
        if found is not None:
            return found
        term = self.expression(tree)
        return linear_form(term)

    # ----- expressions ----------------------------------------------------------------
    def expression(self, tree):
        """A term (constant or variable) holding ``tree``'s value."""
        if isinstance(tree, int) or tree[0] == "var":
            return tree
        if tree in self.cache:
            return self.cache[tree]
        found = linear_form(tree)
        compared = compared_sides(tree)
        if found is not None:
            term = self.linear_var(*found)
        elif compared is not None and self.rows(scope_of(tree)) > limits.SMALL_TABLE:
            term = ("var", self.reified(*compared))
        elif tree[0] == "dist":           # |a - b|: the difference is linear, its size small
            term = self.expression(("abs", ("sub", tree[1], tree[2])))
        else:
            scope = scope_of(tree)
            simpler = tree
            if self.rows(scope) > min(limits.SMALL_TABLE, limits.MAX_ROWS):
                simpler = (tree[0], *(self.expression(c) for c in tree[1:]))
            if simpler != tree:
                term = self.expression(simpler)
            elif self.rows(scope) > limits.MAX_ROWS:
                raise Untranslatable(f"intension {shown(tree)}: {self.rows(scope):,} "
                                     f"combinations, more than {limits.MAX_ROWS:,}")
            else:
                cols, value, ok = evaluate_all(self.domains, tree, scope)
                x = self.aux(tree[0], value[ok])
                rows = np.column_stack([*cols, value])[ok]
                self.table([("var", v) for v in scope] + [("var", x)], rows)
                term = ("var", x)
        self.cache[tree] = term
        return term

    def predicate(self, tree) -> None:
        """``tree`` must be true."""
        if isinstance(tree, int):
            if not tree:
                self.constraints.append(Table((0,), ()))
            return
        op = tree[0]
        if op in FLIP and len(tree) == 3:
            left, right = linear_form(tree[1]), linear_form(tree[2])
            if left is not None and right is not None:
                terms = dict(left[0])
                for v, a in right[0].items():
                    terms[v] = terms.get(v, 0) - a
                self.linear(terms, left[1] - right[1], op, 0)
                return
        if op == "and":
            for child in tree[1:]:
                self.predicate(child)
            return
        scope = scope_of(tree)
        if op == "or" and self.rows(scope) > limits.SPLIT_ROWS and all(
                not isinstance(c, int) and c[0] in FLIP for c in tree[1:]):
            # a disjunction of comparisons: one shared 0/1 variable per comparison
            # (cached, so a comparison met again costs nothing), at least one true
            flags: dict[int, int] = {}
            const = 0
            for child in tree[1:]:
                found, k = linear_form(self.expression(child))
                const += k
                for v, a in found.items():
                    flags[v] = flags.get(v, 0) + a
            self.linear(flags, const, "ge", 1)
            return
        simpler = tree
        if self.rows(scope) > min(limits.SMALL_TABLE, limits.MAX_ROWS):
            simpler = (op, *(self.expression(c) for c in tree[1:]))
        if simpler != tree:
            self.predicate(simpler)
            return
        if self.rows(scope) > limits.MAX_ROWS:
            raise Untranslatable(f"intension {shown(tree)}: {self.rows(scope):,} "
                                 f"combinations, more than {limits.MAX_ROWS:,}")
        cols, value, ok = evaluate_all(self.domains, tree, scope)
        keep = ok & (value != 0)
        self.table([("var", v) for v in scope], np.column_stack(cols)[keep])


def _unique_rows(rows, keep: list[int], width: int, in_order: bool) -> tuple:
    """The rows projected on ``keep``, each once (see ``Builder.table``)."""
    if isinstance(rows, np.ndarray):
        if len(keep) < width:
            rows = np.unique(rows[:, keep], axis=0) if len(rows) else rows[:, keep]
        return tuple(map(tuple, rows.tolist()))
    if len(keep) < width:
        return tuple(sorted({tuple(row[k] for k in keep) for row in rows}))
    if in_order:
        return tuple(rows)
    return tuple(sorted(set(map(tuple, rows))))
