"""XCSP3 constraints in the model's four kinds, exactly or not at all.

Each form is translated directly (``sum`` to Linear, ``supports`` to Table,
``allDifferent`` to AllDifferent, linear intension to Linear or
NotEqualOffset, ``instantiation`` to givens) or decomposed exactly; the
table in docs/xcsp3.md lists them. Decompositions add auxiliary variables
after the instance's own, and every auxiliary variable is a function of the
instance's variables (an expression's value, a prefix flag, an automaton
state), so solution counts and the lexicographically first solution are
those of the instance. Tables are enumerated from the domains (numpy, all
rows at once) when their size is within ``MAX_ROWS``.

A form without an exact translation within the limits makes the whole
instance n/a for every engine: ``Structure.unsupported`` holds a one-line
reason naming the form. Nothing is approximated.
"""
from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from .model import AllDifferent, Linear, Model, NotEqualOffset, Structure, Table
from .xcsp3_reader import STAR, Instance

MAX_ROWS = 200_000            # rows an enumerated or expanded table may hold
MAX_AUX_VALUES = 100_000      # values an auxiliary variable's domain may hold
MAX_EXPANDED = 10_000         # rows a starred table may expand to; past it, an automaton
MAX_STARRED_ROWS = 1_000      # starred rows a table may have to be read as an automaton
MAX_AUX_VARIABLES = 250_000   # auxiliary variables one instance may add
SPLIT_ROWS = 256              # a disjunction over more combinations is split per comparison
SMALL_TABLE = 1_000           # a comparison over more combinations is reified by inequalities

_FLIP = {"lt": "gt", "le": "ge", "ge": "le", "gt": "lt", "eq": "eq", "ne": "ne"}


class Untranslatable(Exception):
    """A form with no exact translation here; the message names it."""


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


class _Builder:
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
    def aux(self, prefix: str, values) -> int:
        values = tuple(sorted(set(int(v) for v in values)))
        if len(self.names) - len(self.instance.variables) >= MAX_AUX_VARIABLES:
            raise Untranslatable(f"the decomposition needs more than {MAX_AUX_VARIABLES:,} "
                                 f"auxiliary variables (at {prefix})")
        if len(values) > MAX_AUX_VALUES:
            raise Untranslatable(f"{prefix}: an auxiliary variable would need {len(values):,} "
                                 f"values (at most {MAX_AUX_VALUES:,})")
        self.names.append(f"_{prefix}{len(self.names) - len(self.instance.variables)}")
        self.domains.append(values)
        return len(self.names) - 1

    def values(self, term) -> tuple[int, ...]:
        return (term,) if isinstance(term, int) else self.domains[term[1]]

    def table(self, scope: list, rows) -> None:
        """A Table over ``scope`` (variables and constants mixed) from full rows.

        Rows given as an array (an enumeration of the domains) hold no repeats
        unless constants are projected away; lists go through a set.
        """
        keep = [k for k, t in enumerate(scope) if not isinstance(t, int)]
        variables = tuple(scope[k][1] for k in keep)
        if isinstance(rows, np.ndarray):
            if len(keep) < len(scope):
                rows = np.unique(rows[:, keep], axis=0) if len(rows) else rows[:, keep]
            tuples = tuple(map(tuple, rows.tolist()))
        elif len(keep) < len(scope):
            tuples = tuple(sorted({tuple(row[k] for k in keep) for row in rows}))
        else:
            tuples = tuple(sorted(set(map(tuple, rows))))
        if not variables:
            if not tuples:
                self.constraints.append(Table((0,), ()))
            return
        self.constraints.append(Table(variables, tuples))

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
            if not _compare(0, op, rhs):
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
        if op in _FLIP:
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
        if high - low + 1 > MAX_AUX_VALUES:
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
        """A 0/1 variable equal to ``(sum(terms) + const) op 0``, by two big-M
        inequalities per direction: exact on integers, no table."""
        neg = {v: -a for v, a in terms.items()}
        if op == "lt":
            return self.at_least_zero(neg, -const - 1)
        if op == "le":
            return self.at_least_zero(neg, -const)
        if op == "gt":
            return self.at_least_zero(terms, const - 1)
        if op == "ge":
            return self.at_least_zero(terms, const)
        above = self.at_least_zero(terms, const - 1)      # lin >= 1
        below = self.at_least_zero(neg, -const - 1)        # lin <= -1
        b = self.aux(op, (0, 1))
        if op == "eq":
            self.linear({b: 1, above: 1, below: 1}, 0, "eq", 1)
        else:
            self.linear({b: 1, above: -1, below: -1}, 0, "eq", 0)
        return b

    def at_least_zero(self, terms: dict, const: int) -> int:
        low, high = self.bounds(terms, const)
        b = self.aux("ge", (0, 1) if low < 0 <= high else ((1,) if low >= 0 else (0,)))
        if low < 0 <= high:
            # b = 1 -> lin >= 0; b = 0 -> lin <= -1
            self.linear({**terms, b: low}, const, "ge", low)
            self.linear({**terms, b: -(high + 1)}, const, "le", -1)
        return b

    def as_linear(self, tree) -> tuple[dict, int]:
        """``tree`` as ``(terms, const)``; non-linear parts become auxiliary variables."""
        found = _linear(tree)
        if found is not None:
            return found
        term = self.expression(tree)
        return _linear(term)

    # ----- expressions ----------------------------------------------------------------
    def expression(self, tree):
        """A term (constant or variable) holding ``tree``'s value."""
        if isinstance(tree, int) or tree[0] == "var":
            return tree
        if tree in self.cache:
            return self.cache[tree]
        found = _linear(tree)
        compared = _compared(tree)
        if found is not None:
            term = self.linear_var(*found)
        elif compared is not None and _rows(self, _scope(tree)) > SMALL_TABLE:
            term = ("var", self.reified(*compared))
        elif tree[0] == "dist":           # |a - b|: the difference is linear, its size small
            term = self.expression(("abs", ("sub", tree[1], tree[2])))
        else:
            scope = _scope(tree)
            simpler = tree
            if _rows(self, scope) > min(SMALL_TABLE, MAX_ROWS):
                simpler = (tree[0], *(self.expression(c) for c in tree[1:]))
            if simpler != tree:
                term = self.expression(simpler)
            elif _rows(self, scope) > MAX_ROWS:
                raise Untranslatable(f"intension {_show(tree)}: {_rows(self, scope):,} "
                                     f"combinations, more than {MAX_ROWS:,}")
            else:
                cols, value, ok = _evaluate_all(self, tree, scope)
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
        if op in _FLIP and len(tree) == 3:
            left, right = _linear(tree[1]), _linear(tree[2])
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
        scope = _scope(tree)
        if op == "or" and _rows(self, scope) > SPLIT_ROWS and all(
                not isinstance(c, int) and c[0] in _FLIP for c in tree[1:]):
            # a disjunction of comparisons: one shared 0/1 variable per comparison
            # (cached, so a comparison met again costs nothing), at least one true
            flags: dict[int, int] = {}
            const = 0
            for child in tree[1:]:
                found, k = _linear(self.expression(child))
                const += k
                for v, a in found.items():
                    flags[v] = flags.get(v, 0) + a
            self.linear(flags, const, "ge", 1)
            return
        simpler = tree
        if _rows(self, scope) > min(SMALL_TABLE, MAX_ROWS):
            simpler = (op, *(self.expression(c) for c in tree[1:]))
        if simpler != tree:
            self.predicate(simpler)
            return
        if _rows(self, scope) > MAX_ROWS:
            raise Untranslatable(f"intension {_show(tree)}: {_rows(self, scope):,} "
                                 f"combinations, more than {MAX_ROWS:,}")
        cols, value, ok = _evaluate_all(self, tree, scope)
        keep = ok & (value != 0)
        self.table([("var", v) for v in scope], np.column_stack(cols)[keep])

    # ----- the forms ------------------------------------------------------------------
    def precheck(self, con: tuple) -> None:
        """Refuse at once what ``add`` would refuse only after its earlier work."""
        if not hasattr(self, "form_" + con[0]):
            self.add(con)
        elif con[0] == "allDifferentLists" and not con[2]:
            lists = con[1]
            needed = len(lists) * (len(lists) - 1) // 2 * max(map(len, lists), default=0)
            if needed > MAX_AUX_VARIABLES:
                self.form_allDifferentLists(lists, ())
        elif con[0] == "extension" and con[3] and len(con[2]) > MAX_STARRED_ROWS:
            domains = [len(self.values(t)) for t in con[1]]
            expanded = sum(math.prod(d for d, v in zip(domains, row) if v is STAR)
                           for row in con[2] if STAR in row)
            if expanded > MAX_EXPANDED:
                self.starred(con[1], con[2])

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
            expanded = set()
            for row in rows:
                choices = [doms[k] if v is STAR else ((v,) if v in doms[k] else ())
                           for k, v in enumerate(row)]
                size = math.prod(len(c) for c in choices)
                if len(expanded) + size > MAX_EXPANDED:
                    self.starred(scope, rows)
                    return
                if size == 1:
                    expanded.add(tuple(next(iter(c)) for c in choices))
                elif size:
                    expanded.update(_product(choices))
            self.table(scope, expanded)
            return
        vars_ = [t[1] for t in scope]
        if _rows(self, vars_) > MAX_ROWS:
            raise Untranslatable(f"extension (conflicts) over {len(scope)} variables: its "
                                 f"complement has {_rows(self, vars_):,} rows, more than "
                                 f"{MAX_ROWS:,}")
        domains = [self.domains[v] for v in vars_]
        cols = _grid(domains)
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
            for a, b in _pairs(terms):
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
        """Each two lists differ somewhere: per pair, a sum of ``a_k != b_k`` flags >= 1."""
        if excepting:
            raise Untranslatable("XCSP3 form allDifferent over lists with excepting tuples "
                                 "has no exact translation into the model")
        needed = len(lists) * (len(lists) - 1) // 2 * max((len(a) for a in lists), default=0)
        if len(self.names) - len(self.instance.variables) + needed > MAX_AUX_VARIABLES:
            raise Untranslatable(f"allDifferent over {len(lists)} lists: its decomposition needs "
                                 f"{needed:,} auxiliary variables, more than {MAX_AUX_VARIABLES:,}")
        for a, b in _pairs(list(lists)):
            flags: dict[int, int] = {}
            const = 0
            for x, y in zip(a, b):
                found, k = _linear(self.expression(("ne", x, y)))
                const += k
                for v, c in found.items():
                    flags[v] = flags.get(v, 0) + c
            self.linear(flags, const, "ge", 1)

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
            found, _ = _linear(self.expression(test))
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
        self.condition(*_linear(acc), cond)

    def form_minimum(self, terms, cond) -> None:
        self._extremum("min", terms, cond)

    def form_maximum(self, terms, cond) -> None:
        self._extremum("max", terms, cond)

    def form_element(self, terms, index, cond) -> None:
        op, operand = cond
        index = self.expression(index)
        valid = [j for j in self.values(index) if 0 <= j < len(terms)]
        if all(isinstance(terms[j], int) for j in valid):     # a list of constants: one Table
            values = self.values(operand) if not isinstance(operand[0], str) or \
                operand[0] == "var" else None
            if values is not None:
                allowed = set(values)
                rows = ([(j, terms[j]) for j in valid if terms[j] in allowed] if op == "eq"
                        else [(j, v) for j in valid for v in values
                              if _compare(terms[j], op, v)] if op in _FLIP else None)
                if rows is not None:
                    self.table([index, operand], rows)
                    return
        self.table([index], [(j,) for j in valid])
        for j in valid:
            self.predicate(("or", ("ne", index, j), _test(op, terms[j], operand)))

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
                                _test(op, matrix[a][b], operand)))

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
                found, const = _linear(term)
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

    def form_lex(self, lists, operator) -> None:
        for a, b in pairwise(lists):
            self._lex(a, b, operator)

    def form_lexMatrix(self, matrix, operator) -> None:
        self.form_lex(matrix, operator)
        self.form_lex(tuple(zip(*matrix)), operator)

    def _lex(self, a, b, operator: str) -> None:
        """``a <=lex b`` (or <, >=, >) with prefix flags: flag k = the first k pairs are equal."""
        if operator in ("DECREASING", "STRICTLY_DECREASING"):
            a, b = b, a
        strict = operator.startswith("STRICTLY")
        flag = 1                                  # the empty prefix is equal
        for k, (x, y) in enumerate(zip(a, b)):
            last = k == len(a) - 1
            if len(self.values(x)) * len(self.values(y)) > SMALL_TABLE:
                flag = self._lex_step_linear(flag, x, y, last and strict)
                if last:
                    return
                continue
            f, u, w = _grid([self.values(flag), self.values(x), self.values(y)])
            g = ((f != 0) & (u == w)).astype(np.int64)
            keep = ~((f != 0) & (u > w))
            if last and strict:
                keep &= g == 0
            rows = np.column_stack([f, u, w, g])[keep]
            kept = set(np.unique(g[keep]).tolist())
            if len(rows) > MAX_ROWS:
                raise Untranslatable(f"lex over domains of {len(self.values(x))} values has "
                                     f"no bounded table")
            if last:
                self.table([flag, x, y], rows[:, :3])
                return
            g = self.aux("lex", kept or (0,))
            self.table([flag, x, y, ("var", g)], rows)
            flag = ("var", g)
        if strict:                                # empty lists: never strictly ordered
            self.constraints.append(Table((0,), ()))

    def _lex_step_linear(self, flag, x, y, strict_end: bool):
        """One lex step over wide domains without a table: while the prefix is equal
        (``flag``), ``x <= y`` by a big-M inequality; the next flag is ``flag and x == y``."""
        diff, const = _linear(("sub", x, y))
        low, high = self.bounds(diff, const)
        if isinstance(flag, int):
            if flag:
                self.linear(diff, const, "le", 0)
        elif high > 0:             # flag = 1 -> x - y <= 0;  flag = 0 -> x - y <= high
            self.linear({**diff, flag[1]: high}, const, "le", high)
        same = self.expression(("eq", x, y))
        following = self.expression(("and", flag, same)) if not isinstance(flag, int) \
            else (same if flag else 0)
        if strict_end:
            self.linear(*_linear(following), "eq", 0)
        return following

    def form_precedence(self, terms, values, covered) -> None:
        if values is None:
            values = sorted({v for t in terms for v in self.values(t)})
        for s, t in pairwise(values):
            seen = 0
            for k, x in enumerate(terms):
                rows = []
                for f in self.values(seen):
                    for u in self.values(x):
                        if u == t and not f:
                            continue
                        rows.append((f, u, int(f or u == s)))
                if k == len(terms) - 1:
                    self.table([seen, x], [r[:2] for r in rows])
                    break
                nxt = self.aux("seen", {r[2] for r in rows} or {0})
                self.table([seen, x, ("var", nxt)], rows)
                seen = ("var", nxt)
        if covered and values:
            self.predicate(("or", *(("eq", x, values[-1]) for x in terms)))

    def form_regular(self, terms, transitions, start, finals) -> None:
        step: dict[tuple[str, int], str] = {}
        for a, v, b in transitions:
            if step.setdefault((a, v), b) != b:
                raise Untranslatable("XCSP3 form regular with a nondeterministic automaton "
                                     "has no exact translation into the model")
        states = sorted({start, *finals, *(a for a, _, _ in transitions),
                         *(b for _, _, b in transitions)})
        number = {s: k for k, s in enumerate(states)}
        moves = {(number[a], v): number[b] for (a, v), b in step.items()}
        self.layered(terms, number[start], [moves] * len(terms),
                     {number[f] for f in finals})

    def layered(self, terms, start: int, moves: list[dict], accept: set) -> None:
        """A deterministic automaton read along ``terms``: one state variable per
        position (a function of the prefix), a Table per step, accepted at the end."""
        state = start
        if not terms:
            if start not in accept:
                self.constraints.append(Table((0,), ()))
            return
        for k, x in enumerate(terms):
            last = k == len(terms) - 1
            step = moves[k]
            rows = [(q, u, step[(q, u)]) for q in self.values(state) for u in self.values(x)
                    if (q, u) in step and (not last or step[(q, u)] in accept)]
            if len(rows) > MAX_ROWS:
                raise Untranslatable(f"an automaton step of {len(rows):,} rows, more than "
                                     f"{MAX_ROWS:,}")
            if last:
                self.table([state, x], [r[:2] for r in rows])
                return
            nxt = self.aux("state", {r[2] for r in rows} or {0})
            self.table([state, x, ("var", nxt)], rows)
            state = ("var", nxt)

    def starred(self, scope, rows) -> None:
        """A table with ``*`` rows, read as an automaton: the state after k positions
        is the set of rows still matching the prefix (numbered per position)."""
        if len(rows) > MAX_STARRED_ROWS:
            raise Untranslatable(f"extension over {len(scope)} variables: {len(rows):,} starred "
                                 f"rows, more than the {MAX_STARRED_ROWS:,} read as an automaton")
        star = np.array([[v is STAR for v in row] for row in rows], bool)
        values = np.array([[0 if v is STAR else v for v in row] for row in rows], np.int64)
        layer = {np.arange(len(rows)).tobytes(): 0}
        moves, edges = [], 0
        for k, x in enumerate(scope):
            step, following = {}, {}
            for members, q in layer.items():
                idx = np.frombuffer(members, np.int64)
                free = star[idx, k]
                for u in self.values(x):
                    kept = idx[free | (values[idx, k] == u)]
                    if len(kept):
                        step[(q, u)] = following.setdefault(kept.tobytes(), len(following))
                if edges + len(step) > MAX_ROWS:
                    raise Untranslatable(f"extension over {len(scope)} variables: its starred "
                                         f"rows make an automaton of more than {MAX_ROWS:,} "
                                         "steps")
            edges += len(step)
            moves.append(step)
            layer = following
        self.layered(list(scope), 0, moves, set(layer.values()))


# ----- expressions, vectorised ------------------------------------------------------------
def _test(op: str, left, right):
    if op in _FLIP:
        return (op, left, right)
    return (op, left, right)      # in / notin with a range or set operand


def _pairs(terms):
    return [(a, b) for i, a in enumerate(terms) for b in terms[i + 1:]]


def _product(choices):
    grid = _grid([sorted(c) for c in choices])
    return map(tuple, np.column_stack(grid).tolist())


def _scope(tree) -> list[int]:
    found: dict[int, None] = {}

    def walk(node):
        if isinstance(node, int):
            return
        if node[0] == "var":
            found[node[1]] = None
            return
        for child in node[1:]:
            walk(child)
    walk(tree)
    return list(found)


def _rows(builder: _Builder, scope) -> int:
    return math.prod(len(builder.domains[v]) for v in scope)


def _grid(domains) -> list[np.ndarray]:
    arrays = np.meshgrid(*[np.asarray(d, np.int64) for d in domains], indexing="ij")
    return [a.ravel() for a in arrays]


def _evaluate_all(builder: _Builder, tree, scope):
    """Every combination of the scope's values, the tree's value on each, and where
    it is defined (no division by zero)."""
    cols = _grid([builder.domains[v] for v in scope])
    size = len(cols[0]) if cols else 1
    env = dict(zip(scope, cols))
    ok = np.ones(size, bool)
    value = np.broadcast_to(_vector(tree, env, ok), (size,)).astype(np.int64)
    return cols, value, ok


def _vector(node, env, ok):
    """The tree's value on arrays; Booleans are 0/1; ``ok`` is cleared where undefined."""
    if isinstance(node, int):
        return np.int64(node)
    op = node[0]
    if op == "var":
        return env[node[1]]
    if op in ("in", "notin"):
        x = _vector(node[1], env, ok)
        kind, *spec = node[2]
        if kind == "range":
            hit = (x >= spec[0]) & (x <= spec[1])
        else:
            hit = np.isin(x, [s for s in spec])
        return (hit if op == "in" else ~hit).astype(np.int64)
    args = [_vector(c, env, ok) for c in node[1:]]
    if op in _UNARY:
        return _UNARY[op](args[0])
    if op in ("div", "mod"):
        a, b = args
        zero = b == 0
        ok &= ~np.broadcast_to(zero, ok.shape)
        safe = np.where(zero, 1, b)
        q = np.trunc(a / safe).astype(np.int64)     # truncation toward zero
        return q if op == "div" else a - q * safe
    if op == "if":
        return np.where(args[0] != 0, args[1], args[2])
    if op in _CHAINS:
        out = np.int64(1)
        for a, b in pairwise(args):
            out = out & _CHAINS[op](a, b)
        return np.asarray(out).astype(np.int64)
    if op in _FOLDS:
        out = args[0]
        for a in args[1:]:
            out = _FOLDS[op](out, a)
        return np.asarray(out).astype(np.int64)
    raise Untranslatable(f"intension operator {op!r} has no exact translation into the model")


_UNARY = {"neg": lambda a: -a, "abs": np.abs, "sqr": lambda a: a * a,
          "not": lambda a: (a == 0).astype(np.int64)}
_CHAINS = {"eq": np.equal, "lt": np.less, "le": np.less_equal, "ge": np.greater_equal,
           "gt": np.greater}
_FOLDS = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
          "sub": np.subtract, "pow": np.power,
          "dist": lambda a, b: np.abs(a - b),
          "and": lambda a, b: (a != 0) & (b != 0), "or": lambda a, b: (a != 0) | (b != 0),
          "xor": lambda a, b: (a != 0) ^ (b != 0),
          "iff": lambda a, b: (a != 0) == (b != 0),
          "imp": lambda a, b: (a == 0) | (b != 0),
          "ne": np.not_equal}


def _compare(a: int, op: str, b: int) -> bool:
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "ge": a >= b,
            "gt": a > b}[op]


def _linear(tree) -> tuple[dict, int] | None:
    """``(terms, const)`` when ``tree`` is linear in its variables, else None."""
    if isinstance(tree, int):
        return {}, tree
    op = tree[0]
    if op == "var":
        return {tree[1]: 1}, 0
    if op == "neg":
        inner = _linear(tree[1])
        return None if inner is None else ({v: -a for v, a in inner[0].items()}, -inner[1])
    if op in ("add", "sub"):
        parts = [_linear(c) for c in tree[1:]]
        if any(p is None for p in parts):
            return None
        terms, const = dict(parts[0][0]), parts[0][1]
        sign = -1 if op == "sub" else 1
        for found, k in parts[1:]:
            const += sign * k
            for v, a in found.items():
                terms[v] = terms.get(v, 0) + sign * a
        return terms, const
    if op == "mul":
        parts = [_linear(c) for c in tree[1:]]
        if any(p is None for p in parts) or sum(1 for p in parts if p[0]) > 1:
            return None
        factor = math.prod(p[1] for p in parts if not p[0])
        moving = [p for p in parts if p[0]]
        if not moving:
            return {}, factor
        found, k = moving[0]
        return {v: a * factor for v, a in found.items()}, k * factor
    return None


def _compared(tree) -> tuple[str, dict, int] | None:
    """``(op, terms, const)`` for a comparison of two linear sides: ``lin op 0``."""
    if isinstance(tree, int) or tree[0] not in _FLIP or len(tree) != 3:
        return None
    left, right = _linear(tree[1]), _linear(tree[2])
    if left is None or right is None:
        return None
    terms = dict(left[0])
    for v, a in right[0].items():
        terms[v] = terms.get(v, 0) - a
    return tree[0], {v: a for v, a in terms.items() if a}, left[1] - right[1]


def _show(tree, most: int = 60) -> str:
    def text(node):
        if isinstance(node, int):
            return str(node)
        if node[0] == "var":
            return f"x{node[1]}"
        return f"{node[0]}({','.join(text(c) for c in node[1:])})"
    shown = text(tree)
    return shown if len(shown) <= most else shown[:most] + "..."
