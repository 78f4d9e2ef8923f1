"""The XCSP3 forms read along a sequence, decomposed into a chain of state variables.

``lex`` keeps one flag per prefix (the prefixes so far are equal),
``precedence`` one "seen" flag per position, ``regular`` one automaton state
per position, and a table with ``*`` rows too many to expand becomes an
automaton whose state is the set of rows still matching the prefix. Each
state is a function of the instance's variables before it, so solution
counts and the lexicographically first solution are those of the instance;
each step is a Table within ``limits.MAX_ROWS``, or the form is refused
(``Untranslatable``).

A starred table of more than ``limits.MAX_STARRED_ROWS`` rows, or whose
automaton would pass ``limits.MAX_ROWS`` steps, is read row by row instead
(``by_rows``): a literal per (variable, value) a row names, equivalent to
``x == v`` (ReifiedLinear), a literal per row equivalent to the conjunction
of its literals (Clauses), and one Clause over the rows. A table of
conflicts too large to complement forbids each row by a Clause the same way.
"""
from __future__ import annotations

from itertools import pairwise

import numpy as np

from puzzles.formats.xcsp3 import limits
from puzzles.formats.xcsp3.builder import Builder
from puzzles.formats.xcsp3.reader import STAR
from puzzles.formats.xcsp3.terms import Untranslatable, grid, linear_form
from puzzles.model import Clause, Table


class Automata(Builder):
    """The builder with the forms over sequences (``form_<name>``) and the automata
    they and the starred tables become."""

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
            if len(self.values(x)) * len(self.values(y)) > limits.SMALL_TABLE:
                flag = self._lex_step_linear(flag, x, y, last and strict)
                if last:
                    return
                continue
            f, u, w = grid([self.values(flag), self.values(x), self.values(y)])
            g = ((f != 0) & (u == w)).astype(np.int64)
            keep = ~((f != 0) & (u > w))
            if last and strict:
                keep &= g == 0
            rows = np.column_stack([f, u, w, g])[keep]
            kept = set(np.unique(g[keep]).tolist())
            if len(rows) > limits.MAX_ROWS:
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
        diff, const = linear_form(("sub", x, y))
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
            self.linear(*linear_form(following), "eq", 0)
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
            if len(rows) > limits.MAX_ROWS:
                raise Untranslatable(f"an automaton step of {len(rows):,} rows, more than "
                                     f"{limits.MAX_ROWS:,}")
            if last:
                self.table([state, x], [r[:2] for r in rows])
                return
            nxt = self.aux("state", {r[2] for r in rows} or {0})
            self.table([state, x, ("var", nxt)], rows)
            state = ("var", nxt)

    def starred(self, scope, rows) -> None:
        """A table with ``*`` rows, read as an automaton: the state after k positions
        is the set of rows still matching the prefix (numbered per position). Past
        the limits, the rows are read one by one (``by_rows``)."""
        if len(rows) > limits.MAX_STARRED_ROWS:
            self.by_rows(scope, rows, positive=True)
            return
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
                if edges + len(step) > limits.MAX_ROWS:    # nothing added yet
                    self.by_rows(scope, rows, positive=True)
                    return
            edges += len(step)
            moves.append(step)
            layer = following
        self.layered(list(scope), 0, moves, set(layer.values()))

    def by_rows(self, scope, rows, positive: bool) -> None:
        """A table (``*`` allowed) as literals: without ``positive``, no row matches (a
        Clause per row over its ``x == v`` literals); with it, some row matches.

        The rows that agree but on one variable ``y`` (the one that merges most rows)
        are one group: a literal equivalent to "y takes one of their values" (a Table
        over ``y`` and it), a literal per group equivalent to the conjunction of that
        and the rest (Clauses), and a Clause over the groups. Each literal is a
        function of the instance's variables, so counts stay exact."""
        vars_ = [t[1] for t in scope]
        matches: dict[tuple, None] = {}          # each row as sorted (variable, value)s
        for row in rows:
            named: dict[int, int] = {}
            for v, value in zip(vars_, row):
                if value is STAR or self.domains[v] == (value,):
                    continue
                if value not in self.domains[v] or named.setdefault(v, value) != value:
                    break                        # the row never matches
            else:
                matches[tuple(sorted(named.items()))] = None
        if () in matches:                        # a row every assignment matches
            if not positive:
                self.constraints.append(Table((0,), ()))
            return
        if not positive:
            for pairs_ in matches:
                lits = {self.value_literal(v, value)[1] for v, value in pairs_}
                self.constraints.append(Clause((), tuple(sorted(lits))))
            return
        if not matches:
            self.constraints.append(Table((0,), ()))
            return
        groups = _grouped(list(matches))
        terms = []
        for (y, rest), values in groups.items():
            lits = {self.value_literal(v, value)[1] for v, value in rest}
            if y is not None:
                within = self.membership(y, values)
                if within == 0:
                    continue
                if within != 1:
                    lits.add(within[1])
            if not lits:                         # a group every assignment matches
                return
            terms.append(self.conjunction(tuple(sorted(lits)))[1])
        self.constraints.append(Clause(tuple(dict.fromkeys(terms))))

    def membership(self, var: int, values):
        """A term equal to 1 exactly when ``var`` takes one of ``values``: a Table over
        the variable and a 0/1 variable, one per set of values."""
        dom = self.domains[var]
        inside = frozenset(values) & frozenset(dom)
        if len(inside) in (0, len(dom)):
            return int(bool(inside))
        if len(inside) == 1:
            return self.value_literal(var, next(iter(inside)))
        key = ("in", var, inside)
        if key not in self.cache:
            flag = self.aux("in", (0, 1))
            self.table([("var", var), ("var", flag)], [(u, int(u in inside)) for u in dom])
            self.cache[key] = ("var", flag)
        return self.cache[key]


def _grouped(matches: list[tuple]) -> dict:
    """The rows grouped by all but one variable's value: ``(y, the rest) -> y's values``,
    with the ``y`` that makes the fewest groups (``y`` None: a row without it)."""
    rests: dict[int, set] = {}        # per variable, the distinct rests of the rows naming it
    naming: dict[int, int] = {}       # per variable, how many rows name it
    for row in matches:
        for i, (v, _) in enumerate(row):
            rests.setdefault(v, set()).add(row[:i] + row[i + 1:])
            naming[v] = naming.get(v, 0) + 1
    y = min(sorted(rests), key=lambda v: len(rests[v]) + len(matches) - naming[v])
    groups: dict = {}
    for row in matches:
        at = next((i for i, (v, _) in enumerate(row) if v == y), None)
        if at is None:
            groups.setdefault((None, row), []).append(None)
        else:
            groups.setdefault((y, row[:at] + row[at + 1:]), []).append(row[at][1])
    return groups
