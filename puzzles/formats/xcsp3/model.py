"""XCSP3 constraints in the model's kinds, exactly or not at all.

Each form is translated directly (``sum`` to Linear, ``supports`` to Table,
``allDifferent`` to AllDifferent, ``allDifferent`` over lists to
AllDifferentList, linear intension to Linear or NotEqualOffset,
``instantiation`` to givens) or decomposed exactly; the table in
docs/xcsp3.md lists them. Decompositions add auxiliary variables
after the instance's own, and every auxiliary variable is a function of the
instance's variables (an expression's value, a prefix flag, an automaton
state), so solution counts and the lexicographically first solution are
those of the instance. Tables are enumerated from the domains (numpy, all
rows at once) when their size is within ``limits.MAX_ROWS``.

A form without an exact translation within the limits makes the whole
instance n/a for every engine: ``Structure.unsupported`` holds a one-line
reason naming the form. Nothing is approximated.

The forms are here, but for those read along a sequence (lex, precedence,
regular) and the starred tables, which become automata or literals per row
(``automata``); the
model under construction and its expressions are in ``builder``, the
expression trees in ``terms``, the limits in ``limits``.
"""
from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from puzzles.formats.xcsp3 import limits
from puzzles.formats.xcsp3.automata import Automata
from puzzles.formats.xcsp3.reader import STAR, Instance
from puzzles.formats.xcsp3.terms import (
    FLIP,
    Untranslatable,
    comparison,
    grid,
    holds,
    linear_form,
    pairs,
    product,
)
from puzzles.model import AllDifferent, AllDifferentList, Element, Model, Structure, Table

__all__ = ["Untranslatable", "translate"]


def translate(instance: Instance) -> Model:
    """The instance as a model: its own variables first, then auxiliary ones."""
    builder = _Builder(instance)
    try:
        for con in instance.constraints:    # the quick refusals first, before any work
            builder.precheck(con)
        for con in instance.constraints:
            builder.add(con)
    except Untranslatable as why:
        key = f"xcsp3/{instance.name}/{instance.digest}"
        return Model(Structure(key, instance.variables, instance.domains, (), str(why)),
                     (), instance.name)
    return builder.model()


class _Builder(Automata):
    """The builder with one method per XCSP3 form (``form_<name>``)."""

    # ----- the forms ------------------------------------------------------------------
    def precheck(self, con: tuple) -> None:
        """Refuse at once what ``add`` would refuse only after its earlier work."""
        if not hasattr(self, "form_" + con[0]):
            self.add(con)

    def add(self, con: tuple) -> None:
        handler = getattr(self, "form_" + con[0], None)
        if handler is None:
            form = con[1] if con[0] == "unsupported" else con[0]
            raise Untranslatable(f"XCSP3 form {form.removeprefix('ctr_')} has no exact "
                                 "translation into the model")
        handler(*con[1:])

    def form_intension(self, tree) -> None:
        self.predicate(tree)

    def form_extension(self, scope, rows, positive) -> None:
        scope = list(scope)
        doms = [set(self.values(t)) for t in scope]
        if positive:
            plain = np.array(rows) if 0 < len(rows) <= limits.MAX_ROWS else None
            if plain is not None and plain.dtype != object and plain.ndim == 2:
                # Star-free rows are already the table (an automaton would only be
                # larger): keep those inside the domains, without repeats.
                inside = np.ones(len(plain), bool)
                for k, d in enumerate(doms):
                    inside &= np.isin(plain[:, k], np.fromiter(d, np.int64, len(d)))
                kept = rows if inside.all() else [r for r, ok in zip(rows, inside.tolist()) if ok]
                self.table(scope, dict.fromkeys(map(tuple, kept)), in_order=True)
                return
            expanded = set()
            for row in rows:
                choices = [doms[k] if v is STAR else ((v,) if v in doms[k] else ())
                           for k, v in enumerate(row)]
                size = math.prod(len(c) for c in choices)
                if len(expanded) + size > limits.MAX_EXPANDED:
                    self.starred(scope, rows)
                    return
                if size == 1:
                    expanded.add(tuple(next(iter(c)) for c in choices))
                elif size:
                    expanded.update(product(choices))
            self.table(scope, expanded)
            return
        vars_ = [t[1] for t in scope]
        if self.rows(vars_) > limits.MAX_ROWS:       # too large to complement: row by row
            self.by_rows(scope, rows, positive=False)
            return
        domains = [self.domains[v] for v in vars_]
        cols = grid(domains)
        allowed = np.ones(len(cols[0]), bool)
        plain = [row for row in rows if STAR not in row]
        if plain:                     # rows as flat positions in the grid, all at once
            position = [{value: k for k, value in enumerate(d)} for d in domains]
            inside = [row for row in plain
                      if all(v in pos for v, pos in zip(row, position))]
            if inside:
                at = np.array([[pos[v] for v, pos in zip(row, position)] for row in inside])
                allowed[np.ravel_multi_index(at.T, [len(d) for d in domains])] = False
        for row in rows:
            if STAR in row:
                hit = np.ones(len(cols[0]), bool)
                for col, v in zip(cols, row):
                    if v is not STAR:
                        hit &= col == v
                allowed &= ~hit
        self.table(scope, np.column_stack(cols)[allowed])

    def form_allDifferent(self, terms, excepting) -> None:
        terms = [self.expression(t) for t in terms]
        if excepting:
            rest = ("set", *excepting)
            for a, b in pairs(terms):
                self.predicate(("or", ("ne", a, b), ("in", a, rest)))
            return
        consts = [t for t in terms if isinstance(t, int)]
        if len(consts) != len(set(consts)):
            self.constraints.append(Table((0,), ()))
        variables = tuple(t[1] for t in terms if not isinstance(t, int))
        for c in set(consts):
            for v in variables:
                self.linear({v: 1}, 0, "ne", c)
        if len(variables) > 1:
            self.constraints.append(AllDifferent(variables))

    def form_allDifferentMatrix(self, matrix, excepting) -> None:
        for row in matrix:
            self.form_allDifferent(row, excepting)
        for column in zip(*matrix):
            self.form_allDifferent(column, excepting)

    def form_allDifferentLists(self, lists, excepting) -> None:
        """AllDifferentList over the lists of each length (lists of two lengths always
        differ); a constant in a list becomes a variable of that one value."""
        if excepting:
            raise Untranslatable("XCSP3 form allDifferent over lists with excepting tuples "
                                 "has no exact translation into the model")
        by_length: dict[int, list] = {}
        for row in lists:
            by_length.setdefault(len(row), []).append(tuple(map(self.variable, row)))
        for group in by_length.values():
            if len(group) > 1:
                self.constraints.append(AllDifferentList(tuple(group)))

    def variable(self, term) -> int:
        """A variable holding ``term``: its own, or an auxiliary one of a single value."""
        term = self.expression(term)
        if not isinstance(term, int):
            return term[1]
        key = ("constant", term)
        if key not in self.cache:
            self.cache[key] = self.aux("const", (term,))
        return self.cache[key]

    def form_allEqual(self, terms, excepting) -> None:
        if excepting:
            raise Untranslatable("XCSP3 form allEqual with excepting values has no exact "
                                 "translation into the model")
        for a, b in pairwise(terms):
            self.predicate(("eq", a, b))

    def form_instantiation(self, terms, values) -> None:
        for term, value in zip(terms, values):
            var = term[1]
            if self.givens.get(var, value) != value:
                self.clash = True
            self.givens[var] = value

    def form_sum(self, terms, coeffs, cond) -> None:
        total: dict[int, int] = {}
        const = 0
        for k, term in enumerate(terms):
            c = 1 if coeffs is None else coeffs[k]
            if isinstance(c, int):        # a constant weight scales the term's linear form
                found, k0 = self.as_linear(term)
            else:
                found, k0 = self.as_linear(("mul", term, c))
                c = 1
            const += c * k0
            for v, a in found.items():
                total[v] = total.get(v, 0) + c * a
        self.condition(total, const, cond)

    def _counted(self, terms, values) -> dict:
        counted: dict[int, int] = {}
        for term in terms:
            if all(isinstance(v, int) for v in values):
                test = ("in", term, ("set", *values))
            else:
                test = ("or", *(("eq", term, v) for v in values))
            found, _ = linear_form(self.expression(test))
            for v, a in found.items():
                counted[v] = counted.get(v, 0) + a
        return counted

    def form_count(self, terms, values, cond) -> None:
        self.condition(self._counted(terms, values), 0, cond)

    def form_cardinality(self, terms, values, occurs, closed) -> None:
        for value, occ in zip(values, occurs):
            counted = self._counted(terms, (value,))
            if isinstance(occ, tuple) and occ[0] == "range":
                self.condition(counted, 0, ("in", occ))
            else:
                self.condition(counted, 0, ("eq", occ))
        if closed:
            for term in terms:
                self.predicate(("or", *(("eq", term, v) for v in values)))

    def _extremum(self, op: str, terms, cond) -> None:
        acc = self.expression(terms[0])
        for term in terms[1:]:
            acc = self.expression((op, acc, self.expression(term)))
        self.condition(*linear_form(acc), cond)

    def form_minimum(self, terms, cond) -> None:
        self._extremum("min", terms, cond)

    def form_maximum(self, terms, cond) -> None:
        self._extremum("max", terms, cond)

    def form_element(self, terms, index, cond) -> None:
        op, operand = cond
        index = self.expression(index)
        valid = [j for j in self.values(index) if 0 <= j < len(terms)]
        plain = set(map(type, terms)) == {int}
        if plain or all(isinstance(terms[j], int) for j in valid):   # constants: one Table
            values = self.values(operand) if not isinstance(operand[0], str) or \
                operand[0] == "var" else None
            if values is not None and plain and op == "eq":
                # numpy, as a word list's index runs over 60,000 values
                def rows() -> np.ndarray:
                    at = np.array(valid, np.int64)
                    found = np.array(terms, np.int64)[at]
                    keep = np.isin(found, np.fromiter(values, np.int64, len(values)))
                    return np.column_stack((at[keep], found[keep]))
                self.table([index, operand], rows,
                           same_as=("element", terms, tuple(valid), values))
                return
            if values is not None:
                allowed = set(values)
                rows = ([(j, terms[j]) for j in valid if terms[j] in allowed] if op == "eq"
                        else [(j, v) for j in valid for v in values
                              if holds(terms[j], op, v)] if op in FLIP else None)
                if rows is not None:
                    self.table([index, operand], rows)
                    return
        if op == "eq":      # variables picked by a variable: one Element (its index in range)
            array = tuple(self.variable(t) for t in terms)
            self.constraints.append(Element(self.variable(index), array,
                                            self.variable(operand), base=0))
            return
        self.table([index], [(j,) for j in valid])
        for j in valid:
            self.predicate(("or", ("ne", index, j), comparison(op, terms[j], operand)))

    def form_elementMatrix(self, matrix, i, j, cond) -> None:
        op, operand = cond
        i, j = self.expression(i), self.expression(j)
        rows = [a for a in self.values(i) if 0 <= a < len(matrix)]
        cols = [b for b in self.values(j) if 0 <= b < len(matrix[0])]
        self.table([i], [(a,) for a in rows])
        self.table([j], [(b,) for b in cols])
        for a in rows:
            for b in cols:
                self.predicate(("or", ("ne", i, a), ("ne", j, b),
                                comparison(op, matrix[a][b], operand)))

    def form_channel(self, first, second) -> None:
        """Lists of one length: 0/1 variables ``b_ij`` (``x_i == j``), one per row and per
        column, ``x_i = sum_j j b_ij`` and ``y_j = sum_i i b_ij`` (Linear only). Lists of
        different lengths: per i, j, a 0/1 indicator of ``x_i == j`` with ``y_j == i``
        implied, by a small Table."""
        second = first if second is None else second
        if len(first) == len(second):
            self._channel_one_hot(first, second)
            return
        for i, x in enumerate(first):
            self.predicate(("in", x, ("range", 0, len(second) - 1)))
            for j, y in enumerate(second):
                flag = self.indicator(x, j)
                rows = [(v, f) for v in self.values(y) for f in self.values(flag)
                        if not f or v == i]
                self.table([y, flag], rows)

    def _channel_one_hot(self, first, second) -> None:
        flags = {}
        for i, x in enumerate(first):
            for j, y in enumerate(second):
                if j in self.values(x) and i in self.values(y):
                    flags[i, j] = self.aux("channel", (0, 1))
        for side, index in ((first, 0), (second, 1)):
            groups: list[list] = [[] for _ in side]
            for pair, b in flags.items():
                groups[pair[index]].append((pair, b))
            for k, term in enumerate(side):
                mine = groups[k]
                self.linear({b: 1 for _, b in mine}, 0, "eq", 1)
                found, const = linear_form(term)
                weights = {b: pair[1 - index] for pair, b in mine}
                for v, a in found.items():
                    weights[v] = weights.get(v, 0) - a
                self.linear(weights, -const, "eq", 0)

    def indicator(self, term, value: int):
        """A term equal to 1 where ``term == value``, else 0."""
        key = ("eq", term, value)
        if key not in self.cache:
            if isinstance(term, int):
                self.cache[key] = int(term == value)
            else:
                flags = {int(v == value) for v in self.values(term)}
                flag = self.aux("eq", flags)
                self.table([term, ("var", flag)],
                           [(v, int(v == value)) for v in self.values(term)])
                self.cache[key] = ("var", flag)
        return self.cache[key]

    def form_channelValue(self, terms, value) -> None:
        self.predicate(("in", value, ("range", 0, len(terms) - 1)))
        for i, x in enumerate(terms):
            self.predicate(("iff", ("eq", x, 1), ("eq", value, i)))

    def form_ordered(self, terms, operator, lengths) -> None:
        op = {"INCREASING": "le", "STRICTLY_INCREASING": "lt", "DECREASING": "ge",
              "STRICTLY_DECREASING": "gt"}[operator]
        for k, (a, b) in enumerate(pairwise(terms)):
            gap = 0 if lengths is None else lengths[k]
            self.predicate((op, ("add", a, gap), b))
