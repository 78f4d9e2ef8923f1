"""The two searches of the general path, for models that are not made of
AllDifferent alone (those keep the big-int path of ``..fast``).

A domain is an int whose bit ``k`` stands for ``values[k]`` (see ``..shape``),
so the lowest bit is the least value and AllDifferent groups compare domains
with plain bit operations.

``fast`` propagates after every assignment, one module per constraint kind
(``alldifferent``, ``not_equal_offset``, ``linear``, ``table``, and through
``forward`` ``reified``, ``element`` and ``arith``). Every
constraint is revised after any change to one of its variables (except by
itself: each reviser runs to its own fixpoint), so when every variable is
fixed every constraint has been checked on the final values, and the search
branches on one variable's values: exhaustive and exclusive, hence exact
counts. ``first`` and ``count`` branch on the least domain size over weight
(dom/wdeg, Boussemart et al. 2004, with a weight per variable: each failure
adds one to every variable of the constraint that failed, or to the two
variables of an AllDifferent or NotEqualOffset clash; ties to the variable in
most constraints, then the lowest index); ``lexfirst`` on the
lowest open variable, values ascending, and because propagation only removes
values in no solution the first solution reached is the least.

``seed`` is the no-propagation baseline generalised from the BOJ 2239
reference: variables in order, values ascending, and a value is kept when
every constraint is still satisfiable *given the assigned variables alone*,
the unassigned ones keeping their whole domains (AllDifferent and
NotEqualOffset: no clash with an assigned variable; Linear: the assigned
part plus the unassigned terms' base bounds can still meet the operator;
Table: some tuple agrees with every assigned position; ReifiedLinear, Clause,
Element and Arith: their test passes once their last variable is placed). Nothing is ever
removed from a domain ahead of its turn, so on a Sudoku ``pairwise`` model it
makes the reference's choices; on ``onehot`` it is as hopeless as the
reference is on hard grids, which is what a baseline is for.

Both searches use explicit stacks (15625 one-hot variables do not recurse)
and check the deadline every few hundred nodes. Each is built once per
shape (``Shape.derived``); a puzzle only brings its start domains.
"""
from __future__ import annotations

from engines.backtracking.python.general import (
    alldifferent,
    forward,
    linear,
    not_equal_offset,
    table,
)
from engines.backtracking.python.general.compile import Compiled
from engines.backtracking.python.general.forward import Relation
from engines.backtracking.python.general.linear import feasible
from engines.backtracking.report import Goal, Report
from engines.backtracking.shape import is_permutation, union_of
from puzzles.model import Linear, NotEqualOffset, Table

CHECK_EVERY = 256          # nodes between deadline checks (a power of two)


class _GeneralSearch:
    """What both variants share: the compilation, the givens and decoding."""

    def __init__(self, shape):
        self.shape = shape
        self.compiled = shape.derived(Compiled)
        self.unsat = self.compiled.unsat
        self.base = shape.domain_bits

    def start(self, givens) -> "list[int] | str":
        """The start domains under the givens, or why the givens cannot hold."""
        doms, vidx = list(self.base), self.shape.vidx
        for var, value in givens:
            k = vidx.get(value)
            doms[var] &= 0 if k is None else 1 << k
            if not doms[var]:
                return f"given {value} for {self.shape.structure.variables[var]} " \
                       "is outside its domain or contradicts another given"
        return doms

    def run(self, doms: list[int], goal: Goal,
            deadline: float | None) -> tuple[Report, list[tuple]]:
        report = self.search(doms, goal.lex, goal.limit, goal.keep, deadline)
        values = self.shape.values
        return report, [tuple(values[k] for k in sol) for sol in report.solutions]

    def search(self, doms: list[int], lex: bool, limit: int, keep: int,
               deadline: float | None) -> Report:
        raise NotImplementedError


# ----- fast: propagation ---------------------------------------------------------------
class FastSearch(_GeneralSearch):
    """Revisers per constraint, the variables they watch and the MRV order,
    built once per shape so a puzzle brings only its start domains."""

    def __init__(self, shape):
        super().__init__(shape)
        if self.unsat:
            return
        n, constraints = shape.nvars, self.compiled.constraints
        self.base = base = list(shape.domain_bits)
        self.neq = not_equal_offset.arcs(constraints, n)
        rest = [con for con in constraints if not isinstance(con, NotEqualOffset)]
        for con in rest:                        # one-variable ones narrow the base first
            if isinstance(con, Relation):
                for v, allowed in forward.narrowings(con):
                    base[v] &= shape.bits_where(v, allowed)
            elif len(con.vars) == 1:
                kind = linear if isinstance(con, Linear) else table
                base[con.vars[0]] &= kind.narrow(shape, con)
        self.unsat = next((f"variable {shape.structure.variables[v]} has no value its "
                           "one-variable constraints allow"
                           for v, d in enumerate(base) if not d), "")
        if self.unsat:
            return
        self.revisers: list = []
        self.scopes: list[tuple[int, ...]] = []       # per reviser, its variables
        self.watch: list[list[int]] = [[] for _ in range(n)]
        for con in rest:
            if len(con.vars) > 1:
                self._watch(con.vars, self._reviser(con, base))
        for group in shape.groups:
            if is_permutation(group, base):
                self._watch(group, alldifferent.hidden_singles(group, union_of(group, base)))
        self.peers = shape.peers
        self.weight = [1] * n                 # conflict counts, reset by each search
        self.kills: dict[int, tuple] = {}     # (var, value index) -> arcs, on first use
        degree = [len(self.watch[v]) + len(self.peers[v]) + len(self.neq[v])
                  for v in range(n)]
        self.order = sorted(range(n), key=lambda v: -degree[v])   # MRV ties: degree, index

    def _reviser(self, con, base):
        if isinstance(con, Relation):
            return forward.propagator(con, base, self.shape)
        if isinstance(con, Linear):
            return linear.propagator(con, base, self.shape)
        return table.propagator(con, self.shape)

    def _watch(self, vars_, reviser) -> None:
        c = len(self.revisers)
        self.revisers.append(reviser)
        self.scopes.append(tuple(vars_))
        for v in vars_:
            self.watch[v].append(c)

    def arcs(self, var: int, k: int) -> tuple:
        """``(other, keep mask)`` for what ``var = values[k]`` removes elsewhere,
        AllDifferent's and NotEqualOffset's removals merged into one pass."""
        shape = self.shape
        gone = alldifferent.removals(self.peers[var], k)
        not_equal_offset.add_removals(gone, self.neq[var], shape.values[k], shape.vidx,
                                      self.base)
        arcs = tuple((other, ~m) for other, m in gone.items())
        self.kills[var * len(shape.values) + k] = arcs
        return arcs

    # --- running ----------------------------------------------------------------
    def propagate(self, doms: list[int], vq: list[int]) -> bool:
        """Revise to a fixpoint after the variables in ``vq`` changed; False on a wipe-out."""
        watch, revisers = self.watch, self.revisers
        kills, arcs, nv = self.kills, self.arcs, len(self.shape.values)
        queued = bytearray(len(revisers))
        waiting = bytearray(len(doms))          # already in ``vq``
        pending: list[int] = []
        source = -1                     # the reviser whose own changes are in ``fresh``
        fresh: list[int] = []
        while True:
            while vq or fresh:
                if fresh:
                    v = fresh.pop()
                else:
                    v, source = vq.pop(), -1
                    waiting[v] = 0
                for c in watch[v]:
                    if not queued[c] and c != source:
                        queued[c] = 1
                        pending.append(c)
                d = doms[v]
                if d & (d - 1):
                    continue
                k = d.bit_length() - 1
                kill = kills.get(v * nv + k)
                if kill is None:
                    kill = arcs(v, k)
                for p, keep in kill:
                    od = doms[p]
                    nd = od & keep
                    if nd != od:
                        if not nd:
                            weight = self.weight     # dom/wdeg: the two in conflict
                            weight[p] += 1
                            weight[v] += 1
                            return False
                        doms[p] = nd
                        if not waiting[p]:
                            waiting[p] = 1
                            vq.append(p)
            if not pending:
                return True
            source = pending.pop()
            queued[source] = 0
            if not revisers[source](doms, fresh):
                weight = self.weight             # dom/wdeg: every variable of the failed one
                for u in self.scopes[source]:
                    weight[u] += 1
                return False

    def search(self, doms: list[int], lex: bool, limit: int, keep: int,
               deadline: float | None) -> Report:
        """Depth first: each frame holds a state, its branching variable and the values left."""
        report = Report()
        doms = list(doms)
        self.weight = [1] * len(doms)        # this search's conflict counts (dom/wdeg)
        propagate, choose = self.propagate, self.choose
        if not propagate(doms, list(range(len(doms)))):
            report.backtracks = 1
            return report
        nodes = backtracks = 0
        stack: list[list] = []
        mask = CHECK_EVERY - 1
        var = 0
        while not report.timed_out:
            var = choose(doms, lex, var)
            if var < 0:                        # every variable fixed: a solution
                if report.found(tuple(d.bit_length() - 1 for d in doms), keep) >= limit:
                    break
            else:
                stack.append([doms, var, doms[var]])
            while stack:                       # the next value to try
                top = stack[-1]
                rest = top[2]
                b = rest & -rest
                rest ^= b
                if rest:
                    top[2] = rest
                    doms = top[0][:]
                else:                          # the last value reuses the frame's state
                    stack.pop()
                    doms = top[0]
                var = top[1]
                doms[var] = b
                nodes += 1
                if not nodes & mask and report.out_of_time(deadline):
                    break
                if propagate(doms, [var]):
                    break
                backtracks += 1
            else:
                break
        return report.finish(nodes, backtracks)

    def choose(self, doms: list[int], lex: bool, start: int) -> int:
        """The variable to branch on, or -1 when all are fixed. ``lex``: the lowest
        open one (none before ``start``, the last branching variable, is open)."""
        if lex:
            n = len(doms)
            while start < n and not doms[start] & (doms[start] - 1):
                start += 1
            return start if start < n else -1
        best, fewest, heaviest, weight = -1, 1 << 30, 1, self.weight
        for v in self.order:           # least size / weight, compared cross-multiplied
            d = doms[v]
            if d & (d - 1):
                size = d.bit_count()
                if size * heaviest < fewest * weight[v]:
                    best, fewest, heaviest = v, size, weight[v]
        return best


# ----- seed: consistency of the assigned variables only ------------------------------------
class SeedSearch(_GeneralSearch):
    """Per variable, what to check and update when it takes a value, indexed
    once per shape so a node touches only the constraints of its variable."""

    def __init__(self, shape):
        super().__init__(shape)
        n, constraints = shape.nvars, self.compiled.constraints
        self.ngroups, self.group_of = len(shape.groups), shape.groups_of
        self.neq = not_equal_offset.arcs(constraints, n)
        self.linears = [c for c in constraints if isinstance(c, Linear)]
        self.lin_of = [[] for _ in range(n)]
        for c, lin in enumerate(self.linears):
            for v, a in zip(lin.vars, lin.coeffs):
                self.lin_of[v].append((c, a))
        self.tab_of = [[] for _ in range(n)]
        self.table_bits = []
        for t, tab in enumerate(c for c in constraints if isinstance(c, Table)):
            self.table_bits.append(table.table_bits(shape, tab.vars, tab.tuples))
            for pos, v in enumerate(tab.vars):
                self.tab_of[v].append((t, self.table_bits[t][1][pos]))
        self.relations = [c for c in constraints if isinstance(c, Relation)]
        self.rel_of = [[] for _ in range(n)]
        for r, rel in enumerate(self.relations):
            for v in rel.vars:
                self.rel_of[v].append(r)

    def search(self, doms: list[int], lex: bool, limit: int, keep: int,
               deadline: float | None) -> Report:
        """Variables in order, values ascending; givens (singletons) placed first.
        ``lex`` changes nothing: the first solution is the least anyway.

        The walk is the reference's (``..seed.search``, which runs it on
        AllDifferent-only models with its checks inlined, for speed): the same
        moves, so a change to one is a change to both.
        """
        values, n = self.shape.values, len(doms)
        report = Report()
        lo, hi = [0] * len(self.linears), [0] * len(self.linears)
        terms_of = [[] for _ in range(n)]   # (linear, coefficient, term's base bounds)
        for v, d in enumerate(doms):
            low, high = values[(d & -d).bit_length() - 1], values[d.bit_length() - 1]
            for c, a in self.lin_of[v]:
                t0, t1 = sorted((a * low, a * high))
                terms_of[v].append((c, a, t0, t1))
                lo[c] += t0
                hi[c] += t1
        for c, lin in enumerate(self.linears):
            if not feasible(lin.op, lin.rhs, lo[c], hi[c]):
                return report
        used = [0] * self.ngroups
        alive = [every for every, _ in self.table_bits]
        assigned: list = [None] * n
        left = [len(rel.vars) for rel in self.relations]    # each relation's open variables
        state = (assigned, used, lo, hi, alive, terms_of, left)
        for v, d in enumerate(doms):   # givens: checked against each other, then fixed
            if not d & (d - 1):
                if not self._fits(v, d.bit_length() - 1, state):
                    return report
                self._place(v, d.bit_length() - 1, state)
        order = [v for v, d in enumerate(doms) if d & (d - 1)]
        depth_max = len(order)
        remaining = [0] * (depth_max + 1)
        saved: list = [None] * (depth_max + 1)
        nodes = backtracks = 0
        mask = CHECK_EVERY - 1
        depth, entering = 0, True
        while depth >= 0:
            if depth < depth_max:
                var = order[depth]
                if entering:
                    remaining[depth] = doms[var]
                else:
                    self._unplace(var, assigned[var], saved[depth], state)
                k = self._least_fitting(var, remaining, depth, state)
                if k >= 0:                     # placed: one level down
                    saved[depth] = self._place(var, k, state)
                    nodes, depth, entering = nodes + 1, depth + 1, True
                    if not nodes & mask and report.out_of_time(deadline):
                        break
                    continue
                backtracks += 1
            elif report.found(tuple(assigned), keep) >= limit:
                break                          # every variable placed: a solution
            depth -= 1                         # back up: the next value one level up
            entering = False
        return report.finish(nodes, backtracks)

    def _least_fitting(self, var: int, remaining: list[int], depth: int, state) -> int:
        """The least value index left at ``depth`` that fits (taken off what remains
        there), or -1 when none does."""
        free = remaining[depth]
        while free:
            b = free & -free
            free ^= b
            k = b.bit_length() - 1
            if self._fits(var, k, state):
                remaining[depth] = free
                return k
        return -1

    def _fits(self, var: int, k: int, state) -> bool:
        assigned, used, lo, hi, alive, terms_of, left = state
        bit, x = 1 << k, self.shape.values[k]
        for g in self.group_of[var]:
            if used[g] & bit:
                return False
        for other, delta in self.neq[var]:
            y = assigned[other]
            if y is not None and self.shape.values[y] == x + delta:
                return False
        for c, a, t0, t1 in terms_of[var]:
            lin = self.linears[c]
            if not feasible(lin.op, lin.rhs, lo[c] + a * x - t0, hi[c] + a * x - t1):
                return False
        for t, row in self.tab_of[var]:
            if not alive[t] & row[k]:
                return False
        for r in self.rel_of[var]:
            if left[r] == 1:                   # ``var`` is the relation's last one
                rel, values = self.relations[r], self.shape.values
                if not rel.holds([x if u == var else values[assigned[u]] for u in rel.vars]):
                    return False
        return True

    def _place(self, var: int, k: int, state) -> list[int]:
        """Fix ``var`` to value index ``k``; the tables' alive rows before, for undoing."""
        assigned, used, lo, hi, alive, terms_of, left = state
        assigned[var] = k
        bit, x = 1 << k, self.shape.values[k]
        for g in self.group_of[var]:
            used[g] |= bit
        for c, a, t0, t1 in terms_of[var]:
            lo[c] += a * x - t0
            hi[c] += a * x - t1
        for r in self.rel_of[var]:
            left[r] -= 1
        before = []
        for t, row in self.tab_of[var]:
            before.append(alive[t])
            alive[t] &= row[k]
        return before

    def _unplace(self, var: int, k: int, before: list[int], state) -> None:
        assigned, used, lo, hi, alive, terms_of, left = state
        assigned[var] = None
        for r in self.rel_of[var]:
            left[r] += 1
        bit, x = 1 << k, self.shape.values[k]
        for g in self.group_of[var]:
            used[g] ^= bit
        for c, a, t0, t1 in terms_of[var]:
            lo[c] -= a * x - t0
            hi[c] -= a * x - t1
        for (t, _), was in zip(self.tab_of[var], before):
            alive[t] = was
