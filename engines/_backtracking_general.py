"""The search for models that are not made of AllDifferent alone.

AllDifferent-only models (every Sudoku ``alldiff`` grid) keep their big-int
fast path; anything with a Linear, NotEqualOffset or Table constraint comes
here. A domain is an int whose bit ``k`` stands for ``values[k]``, the sorted
union of all base domains, so any integers work (0, negatives, gaps), the
lowest bit is the least value, and AllDifferent groups compare domains with
plain bit operations.

``fast`` propagates after every assignment, one rule per kind:

* AllDifferent: a fixed value leaves every other member of the group. In a
  *permutation* group (as many values as members) a value with one place
  left goes there and a value with none is a conflict (hidden singles), as in
  the Sudoku fast path. In looser groups a value may be absent, so they get
  the elimination only.
* NotEqualOffset ``x != y + c``: forward checking, ``y + c`` leaves ``x``
  once ``y`` is fixed and ``x - c`` leaves ``y`` once ``x`` is.
* Linear: bounds propagation for ``==``, ``<=``, ``>=`` (each term kept
  within what the others' bounds leave), to a fixpoint within the
  constraint; ``!=`` removes the one value it forbids when a single variable
  is left. Sums of 0/1 variables with unit coefficients (the one-hot exact
  cover) are counted instead: enough ones fixes the rest to 0, too few
  places left fixes them to 1. A two-variable Linear over small domains is
  compiled to a Table of its allowed pairs, so it gets arc consistency (holes
  in one domain reach the other) rather than bounds alone.
* Table: generalised arc consistency by support filtering over the allowed
  tuples, with the tuples as bits of an int per (position, value) so one
  AND per position finds the tuples still alive.

One-variable Linear and Table constraints filter the base domains once.
Every constraint is revised after any change to one of its variables (except
by itself: each reviser runs to its own fixpoint), so when every variable is
fixed every constraint has been checked on the final values, and the search
branches on one variable's values: exhaustive and exclusive, hence exact
counts. ``first`` and ``count`` branch on the smallest domain (ties to the
variable in most constraints, then the lowest index); ``lexfirst`` on the
lowest open variable, values ascending, and because propagation only removes
values in no solution the first solution reached is the least.

``seed`` is the no-propagation baseline generalised from the BOJ 2239
reference: variables in order, values ascending, and a value is kept when
every constraint is still satisfiable *given the assigned variables alone*,
the unassigned ones keeping their whole domains (AllDifferent and
NotEqualOffset: no clash with an assigned variable; Linear: the assigned
part plus the unassigned terms' base bounds can still meet the operator;
Table: some tuple agrees with every assigned position). Nothing is ever
removed from a domain ahead of its turn, so on a Sudoku ``pairwise`` model it
makes the reference's choices; on ``onehot`` it is as hopeless as the
reference is on hard grids, which is what a baseline is for.

Both searches use explicit stacks (15625 one-hot variables do not recurse)
and check the deadline every few hundred nodes. Everything that depends only
on the structure is compiled once per ``structure.key``.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import cached_property

from puzzles.model import (LINEAR_OPS, AllDifferent, Linear, Model, ModelError,
                           NotEqualOffset, Structure, Table, merged_terms)

from ._backtracking_fast import Report
from ._structure_cache import StructureCache
from .base import timed_out

CHECK_EVERY = 256          # nodes between deadline checks (a power of two)
PAIR_TABLE_MAX = 4096      # a binary Linear becomes a Table up to this many pairs
CACHE_SIZE = 16


# ----- normalising: one reading of every corner case -----------------------------
def normalise(structure: Structure) -> tuple[list, str]:
    """Constraints with distinct variables and no dead terms, or why none can hold.

    A repeated variable in an AllDifferent can never differ from itself; in a
    Linear its coefficients add up; in a Table the rows where its positions
    disagree go. Constraints over no variable are decided here.
    """
    kept = []
    for con in structure.constraints:
        if isinstance(con, AllDifferent):
            if len(set(con.vars)) < len(con.vars):
                return [], f"AllDifferent{tuple(con.vars)} names a variable twice"
            if len(con.vars) >= 2:
                kept.append(AllDifferent(tuple(con.vars)))
        elif isinstance(con, NotEqualOffset):
            if con.x != con.y:
                kept.append(con)
            elif con.c == 0:
                return [], f"{structure.variables[con.x]} != itself"
        elif isinstance(con, Linear):
            lin = merged_terms(con)
            if lin.vars:
                kept.append(lin)
            elif not _compare(0, lin.op, lin.rhs):
                return [], f"Linear with no variable left: 0 {lin.op} {lin.rhs} is false"
        else:
            table = _distinct_positions(con)
            if table.vars:
                kept.append(table)
            elif not table.tuples:
                return [], f"Table over {tuple(con.vars)} allows no tuple"
    return kept, ""



def _distinct_positions(con: Table) -> Table:
    first: dict[int, int] = {}
    for pos, v in enumerate(con.vars):
        first.setdefault(v, pos)
    keep = sorted(first.values())
    rows = []
    for row in con.tuples:
        if len(row) == len(con.vars) and all(row[p] == row[first[v]] for p, v in enumerate(con.vars)):
            rows.append(tuple(row[p] for p in keep))
    return Table(tuple(con.vars[p] for p in keep), tuple(dict.fromkeys(rows)))


def _compare(total: int, op: str, rhs: int) -> bool:
    if op == "==":
        return total == rhs
    if op == "!=":
        return total != rhs
    return total <= rhs if op == "<=" else total >= rhs


# ----- the compiled structure -------------------------------------------------------
class Compiled:
    """What both variants need of one structure, built once per shape."""

    def __init__(self, structure: Structure):
        self.structure = structure
        self.n = structure.size
        self.values = tuple(sorted({v for dom in structure.domains for v in dom}))
        self.vidx = {v: k for k, v in enumerate(self.values)}
        self.base = [sum(1 << self.vidx[v] for v in set(dom)) for dom in structure.domains]
        self.constraints, self.unsat = normalise(structure)
        if not self.unsat:
            empty = [v for v, d in enumerate(self.base) if not d]
            if empty:
                self.unsat = f"variable {structure.variables[empty[0]]} has an empty domain"

    def mask(self, var: int, allowed) -> int:
        """The bits of ``var``'s base domain whose values pass ``allowed``."""
        d, m = self.base[var], 0
        while d:
            b = d & -d
            d ^= b
            if allowed(self.values[b.bit_length() - 1]):
                m |= b
        return m

    def table_bits(self, vars_, tuples) -> tuple[int, list[list[int]]]:
        """Rows inside the base domains, as bits per (position, value index)."""
        rows = [t for t in tuples
                if all(self.vidx.get(x) is not None and self.base[v] >> self.vidx[x] & 1
                       for v, x in zip(vars_, t))]
        bits = [[0] * len(self.values) for _ in vars_]
        for r, row in enumerate(rows):
            for pos, x in enumerate(row):
                bits[pos][self.vidx[x]] |= 1 << r
        return (1 << len(rows)) - 1, bits

    @cached_property
    def fast(self) -> "Propagation":
        return Propagation(self)

    @cached_property
    def seed(self) -> "SeedChecks":
        return SeedChecks(self)


_COMPILED: StructureCache[Compiled] = StructureCache(Compiled, CACHE_SIZE)


def compiled_for(structure: Structure) -> Compiled:
    """The cached compilation for ``structure``: built once per shape, not per puzzle."""
    return _COMPILED.get(structure)


@dataclass
class Prepared:
    """A model ready for the general search (``unsat`` as the engine expects it)."""
    variant: str
    comp: Compiled
    doms: list[int] = field(default_factory=list)
    unsat: str = ""


def prepare(model: Model, variant: str) -> Prepared:
    comp = compiled_for(model.structure)
    done = Prepared(variant, comp)
    for var, _ in model.givens:
        if not 0 <= var < comp.n:
            raise ModelError(f"given for unknown variable {var}")
    done.unsat = comp.unsat or (comp.fast.unsat if variant == "fast" else "")
    if done.unsat:
        return done
    doms = list(comp.fast.base if variant == "fast" else comp.base)
    for var, value in model.givens:
        k = comp.vidx.get(value)
        doms[var] &= 0 if k is None else 1 << k
        if not doms[var]:
            done.unsat = f"given {value} for {model.structure.variables[var]} " \
                         "is outside its domain or contradicts another given"
            return done
    done.doms = doms
    return done


def search(prep: Prepared, lex: bool, limit: int, keep: int,
           deadline: float | None) -> tuple[Report, list[tuple[int, ...]]]:
    """Run the variant; solutions decoded to values in variable order."""
    comp = prep.comp
    if prep.variant == "seed":
        report = comp.seed.search(prep.doms, limit, keep, deadline)
    else:
        report = comp.fast.search(prep.doms, lex, limit, keep, deadline)
    values = comp.values
    return report, [tuple(values[k] for k in sol) for sol in report.solutions]


# ----- fast: propagation ---------------------------------------------------------------
class Propagation:
    """Revisers per constraint, the variables they watch, and the MRV order."""

    def __init__(self, comp: Compiled):
        self.comp = comp
        n = comp.n
        self.base = list(comp.base)
        groups, neq, rest = [], [[] for _ in range(n)], []
        for con in comp.constraints:
            if isinstance(con, AllDifferent):
                groups.append(con.vars)
            elif isinstance(con, NotEqualOffset):   # x = a forbids y = a - c, and back
                neq[con.x].append((con.y, -con.c))
                neq[con.y].append((con.x, con.c))
            else:
                rest.append(con)
        self.neq = [tuple(arcs) for arcs in neq]
        self.revisers: list = []
        self.watch: list[list[int]] = [[] for _ in range(n)]
        for con in rest:                        # unary ones narrow the base first
            if len(con.vars) == 1:
                self._narrow(con)
        self.unsat = next((f"variable {comp.structure.variables[v]} has no value its "
                           "one-variable constraints allow"
                           for v, d in enumerate(self.base) if not d), "")
        for con in rest:
            if len(con.vars) > 1:
                self._add(con)
        peers: list[set[int]] = [set() for _ in range(n)]
        for group in groups:
            for v in group:
                peers[v].update(group)
            if self._permutation(group):
                self._watch(group, _group_reviser(group, self._union(group)))
        self.peers = [tuple(sorted(p - {v})) for v, p in enumerate(peers)]
        self.kills: dict[int, tuple] = {}     # (var, value index) -> arcs, on first use
        degree = [len(self.watch[v]) + len(self.peers[v]) + len(self.neq[v])
                  for v in range(n)]
        self.order = sorted(range(n), key=lambda v: -degree[v])   # MRV ties: degree, index

    # --- building --------------------------------------------------------------
    def _narrow(self, con) -> None:
        v = con.vars[0]
        if isinstance(con, Linear):
            a, op, rhs = con.coeffs[0], con.op, con.rhs
            self.base[v] &= self.comp.mask(v, lambda x: _compare(a * x, op, rhs))
        else:
            allowed = {row[0] for row in con.tuples}
            self.base[v] &= self.comp.mask(v, allowed.__contains__)

    def _add(self, con) -> None:
        comp = self.comp
        if isinstance(con, Linear):
            reviser = self._linear_rule(con)
            if reviser is not None:
                self._watch(con.vars, reviser)
                return
            con = self._pairs(con)
        if len(con.vars) == 2:
            self._watch(con.vars, _pair_reviser(con, comp.vidx, len(comp.values)))
        else:
            every, bits = comp.table_bits(con.vars, con.tuples)
            self._watch(con.vars, _table_reviser(con.vars, every, bits))

    def _linear_rule(self, con: Linear):
        """The reviser for a Linear, or None when a table of its pairs does better."""
        values = self.comp.values
        shift = _shift(con, values)
        if shift is not None:
            return _shift_reviser(*con.vars, shift)
        if len(con.vars) == 2 and \
                self.base[con.vars[0]].bit_count() * self.base[con.vars[1]].bit_count() \
                <= PAIR_TABLE_MAX:
            return None
        if _is_count(con, values, self.base):
            return _count_reviser(con, self.comp.vidx)
        return _linear_reviser(con, values)

    def _pairs(self, con: Linear) -> Table:
        (x, y), (a, b) = con.vars, con.coeffs
        values = self.comp.values
        xs = [values[k] for k in _indices(self.base[x])]
        ys = [values[k] for k in _indices(self.base[y])]
        rows = tuple((p, q) for p in xs for q in ys if _compare(a * p + b * q, con.op, con.rhs))
        return Table((x, y), rows)

    def _watch(self, vars_, reviser) -> None:
        c = len(self.revisers)
        self.revisers.append(reviser)
        for v in vars_:
            self.watch[v].append(c)

    def _union(self, group) -> int:
        union = 0
        for v in group:
            union |= self.base[v]
        return union

    def _permutation(self, group) -> bool:
        return self._union(group).bit_count() == len(group)

    def arcs(self, var: int, k: int) -> tuple:
        """``(other, keep mask)`` for what ``var = values[k]`` removes elsewhere: the
        value from its AllDifferent peers, ``value + delta`` from its NotEqualOffset ones."""
        value, vidx = self.comp.values[k], self.comp.vidx
        gone = dict.fromkeys(self.peers[var], 1 << k)
        for other, delta in self.neq[var]:
            j = vidx.get(value + delta)
            if j is not None and self.base[other] >> j & 1:
                gone[other] = gone.get(other, 0) | 1 << j
        arcs = tuple((other, ~m) for other, m in gone.items())
        self.kills[var * len(self.comp.values) + k] = arcs
        return arcs

    # --- running ----------------------------------------------------------------
    def propagate(self, doms: list[int], vq: list[int]) -> bool:
        """Revise to a fixpoint after the variables in ``vq`` changed; False on a wipe-out."""
        watch, revisers = self.watch, self.revisers
        kills, arcs, nv = self.kills, self.arcs, len(self.comp.values)
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
                return False

    def search(self, doms: list[int], lex: bool, limit: int, keep: int,
               deadline: float | None) -> Report:
        """Depth first: each frame holds a state, its branching variable and the values left."""
        report = Report()
        doms = list(doms)
        propagate, choose = self.propagate, self.choose
        if not propagate(doms, list(range(self.comp.n))):
            report.backtracks = 1
            return report
        nodes = backtracks = 0
        stack: list[list] = []
        mask = CHECK_EVERY - 1
        var = 0
        while not report.timed_out:
            var = choose(doms, lex, var)
            if var < 0:                        # every variable fixed: a solution
                report.count += 1
                if len(report.solutions) < keep:
                    report.solutions.append(tuple(d.bit_length() - 1 for d in doms))
                if report.count >= limit:
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
                if not nodes & mask and timed_out(deadline):
                    report.timed_out = True
                    break
                if propagate(doms, [var]):
                    break
                backtracks += 1
            else:
                break
        report.nodes, report.backtracks = nodes, backtracks
        return report

    def choose(self, doms: list[int], lex: bool, start: int) -> int:
        """The variable to branch on, or -1 when all are fixed. ``lex``: the lowest
        open one (none before ``start``, the last branching variable, is open)."""
        if lex:
            n = len(doms)
            while start < n and not doms[start] & (doms[start] - 1):
                start += 1
            return start if start < n else -1
        best, fewest = -1, 1 << 30
        for v in self.order:
            d = doms[v]
            if d & (d - 1):
                size = d.bit_count()
                if size < fewest:
                    best, fewest = v, size
                    if size == 2:
                        break
        return best


def _indices(d: int) -> list[int]:
    out = []
    while d:
        b = d & -d
        out.append(b.bit_length() - 1)
        d ^= b
    return out


def _group_reviser(group: tuple[int, ...], full: int):
    """Hidden singles in a permutation group: every value needs a place."""
    def revise(doms, changed) -> bool:
        while True:
            once = twice = fixed = 0
            for v in group:
                d = doms[v]
                twice |= once & d
                once |= d
                if not d & (d - 1):
                    fixed |= d
            if once != full:
                return False
            singles = once & ~twice & ~fixed
            moved = False
            if singles:
                for v in group:
                    d = doms[v]
                    s = d & singles
                    if s and s != d:
                        if s & (s - 1):
                            return False       # the only place of two values
                        doms[v] = s
                        changed.append(v)
                        moved = True
            if not moved:
                return True
    return revise


def _is_count(con: Linear, values, base) -> bool:
    """A sum of 0/1 variables with one coefficient of +-1 (one-hot rows and columns)."""
    if con.op == "!=" or len(set(con.coeffs)) != 1 or abs(con.coeffs[0]) != 1:
        return False
    binary = {k for k, x in enumerate(values) if x in (0, 1)}
    return all(not set(_indices(base[v])) - binary for v in con.vars)


def _count_reviser(con: Linear, vidx):
    """``#ones op r`` over 0/1 variables: fix the undecided ones when the count is tight."""
    sign = con.coeffs[0]
    r, op, vars_ = con.rhs * sign, con.op, con.vars
    if sign < 0 and op != "==":
        op = "<=" if op == ">=" else ">="
    zero = 1 << vidx[0] if 0 in vidx else 0
    one = 1 << vidx[1] if 1 in vidx else 0
    low_ok, high_ok = op in ("==", ">="), op in ("==", "<=")

    def revise(doms, changed) -> bool:
        ones = 0
        free = []
        for v in vars_:
            d = doms[v]
            if d == one:
                ones += 1
            elif d != zero:
                free.append(v)
        if high_ok and ones > r or low_ok and ones + len(free) < r:
            return False
        if free:
            if high_ok and ones == r:
                fill = zero
            elif low_ok and ones + len(free) == r:
                fill = one
            else:
                return True
            for v in free:
                doms[v] = fill
            changed.extend(free)
        return True
    return revise


def _linear_reviser(con: Linear, values):
    """Bounds propagation; ``!=`` waits for its last open variable."""
    terms, op, rhs = tuple(zip(con.vars, con.coeffs)), con.op, con.rhs
    if op == "!=":
        return _not_equal_reviser(terms, rhs, values)
    use_low, use_high = op in ("==", "<="), op in ("==", ">=")

    def revise(doms, changed) -> bool:
        while True:
            lo = hi = span = 0
            ends = []
            for v, a in terms:
                d = doms[v]
                if a > 0:
                    t0, t1 = a * values[(d & -d).bit_length() - 1], a * values[d.bit_length() - 1]
                else:
                    t0, t1 = a * values[d.bit_length() - 1], a * values[(d & -d).bit_length() - 1]
                ends.append((t0, t1))
                lo += t0
                hi += t1
                if t1 - t0 > span:
                    span = t1 - t0
            room_up = rhs - lo if use_low else span      # how far a term may rise over its low end
            room_down = hi - rhs if use_high else span   # and sink under its high end
            if room_up < 0 or room_down < 0:
                return False
            if span <= room_up and span <= room_down:
                return True                  # every term fits anywhere in its bounds
            moved = False
            for (v, a), (t0, t1) in zip(terms, ends):
                top, bottom = t0 + room_up, t1 - room_down     # a*x stays within these
                if bottom <= t0 and top >= t1:
                    continue
                if a > 0:
                    xl, xu = -(-bottom // a), top // a
                else:
                    xl, xu = -(-top // a), bottom // a
                kl, ku = bisect_left(values, xl), bisect_right(values, xu)
                if ku <= kl:
                    return False               # no whole value between the bounds
                d = doms[v]
                nd = d & ((1 << ku) - (1 << kl))
                if nd != d:
                    if not nd:
                        return False
                    doms[v] = nd
                    changed.append(v)
                    moved = True
            if not moved:
                return True
    return revise


def _not_equal_reviser(terms, rhs: int, values):
    def revise(doms, changed) -> bool:
        total, open_ = 0, None
        for v, a in terms:
            d = doms[v]
            if d & (d - 1):
                if open_ is not None:
                    return True            # two open: nothing to say yet
                open_ = (v, a)
            else:
                total += a * values[d.bit_length() - 1]
        if open_ is None:
            return total != rhs
        v, a = open_
        x, rem = divmod(rhs - total, a)
        if rem:
            return True
        k = bisect_left(values, x)
        if k < len(values) and values[k] == x and doms[v] >> k & 1:
            doms[v] ^= 1 << k
            changed.append(v)              # never empties: the domain was open
        return True
    return revise


def _shift(con: Linear, values) -> int | None:
    """``c`` when ``con`` says ``x - y == c`` and the values are consecutive integers."""
    if con.op != "==" or len(con.vars) != 2 or sorted(con.coeffs) != [-1, 1]:
        return None
    if values[-1] - values[0] != len(values) - 1:
        return None
    return con.rhs if con.coeffs[0] == 1 else -con.rhs


def _shift_reviser(x: int, y: int, c: int):
    """``x == y + c`` over consecutive values: value index ``k`` of y is ``k + c`` of x."""
    def revise(doms, changed) -> bool:
        dx, dy = doms[x], doms[y]
        ny = dy & (dx >> c if c >= 0 else dx << -c)
        if not ny:
            return False
        return _store_pair(doms, changed, x, dx, dx & (ny << c if c >= 0 else ny >> -c), y, dy, ny)
    return revise


def _pair_reviser(con: Table, vidx, nv: int):
    """Arc consistency on two variables through each value's supports in the other."""
    x, y = con.vars
    sup_xy, sup_yx = [0] * nv, [0] * nv
    for p, q in con.tuples:
        i, j = vidx.get(p), vidx.get(q)
        if i is not None and j is not None:
            sup_xy[i] |= 1 << j
            sup_yx[j] |= 1 << i

    def revise(doms, changed) -> bool:
        dx, dy = doms[x], doms[y]
        m, rest = 0, dx
        while rest:
            b = rest & -rest
            m |= sup_xy[b.bit_length() - 1]
            rest ^= b
        ny = dy & m
        if not ny:
            return False
        m, rest = 0, ny
        while rest:
            b = rest & -rest
            m |= sup_yx[b.bit_length() - 1]
            rest ^= b
        return _store_pair(doms, changed, x, dx, dx & m, y, dy, ny)
    return revise


def _store_pair(doms, changed, x, dx, nx, y, dy, ny) -> bool:
    """Keep a binary reviser's new domains (``nx`` is never empty: ``ny`` values have support)."""
    if nx != dx:
        doms[x] = nx
        changed.append(x)
    if ny != dy:
        doms[y] = ny
        changed.append(y)
    return True


def _table_reviser(vars_, every: int, bits):
    """Support filtering: keep the values some still-allowed tuple uses."""
    positions = tuple(enumerate(vars_))

    def revise(doms, changed) -> bool:
        alive = every
        for pos, v in positions:
            d, row, m = doms[v], bits[pos], 0
            while d:
                b = d & -d
                m |= row[b.bit_length() - 1]
                d ^= b
            alive &= m
            if not alive:
                return False
        for pos, v in positions:
            d, row = doms[v], bits[pos]
            nd, rest = 0, d
            while rest:
                b = rest & -rest
                if alive & row[b.bit_length() - 1]:
                    nd |= b
                rest ^= b
            if nd != d:
                doms[v] = nd
                changed.append(v)
        return True
    return revise


# ----- seed: consistency of the assigned variables only ------------------------------------
class SeedChecks:
    """Per variable, what to check and update when it takes a value."""

    def __init__(self, comp: Compiled):
        self.comp = comp
        n = comp.n
        self.groups = [c.vars for c in comp.constraints if isinstance(c, AllDifferent)]
        self.linears = [c for c in comp.constraints if isinstance(c, Linear)]
        self.tables = [c for c in comp.constraints if isinstance(c, Table)]
        self.group_of = [[] for _ in range(n)]
        for g, group in enumerate(self.groups):
            for v in group:
                self.group_of[v].append(g)
        self.neq = [[] for _ in range(n)]
        for c in comp.constraints:
            if isinstance(c, NotEqualOffset):
                self.neq[c.x].append((c.y, -c.c))
                self.neq[c.y].append((c.x, c.c))
        self.lin_of = [[] for _ in range(n)]
        for c, lin in enumerate(self.linears):
            for v, a in zip(lin.vars, lin.coeffs):
                self.lin_of[v].append((c, a))
        self.tab_of = [[] for _ in range(n)]
        self.table_bits = []
        for t, tab in enumerate(self.tables):
            self.table_bits.append(comp.table_bits(tab.vars, tab.tuples))
            for pos, v in enumerate(tab.vars):
                self.tab_of[v].append((t, self.table_bits[t][1][pos]))

    def search(self, doms: list[int], limit: int, keep: int,
               deadline: float | None) -> Report:
        """Variables in order, values ascending; givens (singletons) placed first."""
        comp, values = self.comp, self.comp.values
        n = comp.n
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
            if not self._linear_ok(lin.op, lin.rhs, lo[c], hi[c]):
                return report
        used = [0] * len(self.groups)
        alive = [every for every, _ in self.table_bits]
        assigned: list = [None] * n
        state = (assigned, used, lo, hi, alive, terms_of)
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
            if depth == depth_max:
                report.count += 1
                if len(report.solutions) < keep:
                    report.solutions.append(tuple(assigned))
                if report.count >= limit:
                    break
                depth -= 1
                entering = False
                continue
            var = order[depth]
            if entering:
                remaining[depth] = doms[var]
            else:
                self._unplace(var, assigned[var], saved[depth], state)
            free = remaining[depth]
            while free:
                b = free & -free
                free ^= b
                k = b.bit_length() - 1
                if self._fits(var, k, state):
                    break
            else:
                backtracks += 1
                depth -= 1
                entering = False
                continue
            remaining[depth] = free
            saved[depth] = self._place(var, k, state)
            nodes += 1
            depth += 1
            entering = True
            if not nodes & mask and timed_out(deadline):
                report.timed_out = True
                break
        report.nodes, report.backtracks = nodes, backtracks
        return report

    @staticmethod
    def _linear_ok(op: str, rhs: int, lo: int, hi: int) -> bool:
        if op == "==":
            return lo <= rhs <= hi
        if op == "<=":
            return lo <= rhs
        if op == ">=":
            return hi >= rhs
        return not lo == hi == rhs

    def _fits(self, var: int, k: int, state) -> bool:
        assigned, used, lo, hi, alive, terms_of = state
        bit, x = 1 << k, self.comp.values[k]
        for g in self.group_of[var]:
            if used[g] & bit:
                return False
        for other, delta in self.neq[var]:
            y = assigned[other]
            if y is not None and self.comp.values[y] == x + delta:
                return False
        for c, a, t0, t1 in terms_of[var]:
            lin = self.linears[c]
            if not self._linear_ok(lin.op, lin.rhs, lo[c] + a * x - t0, hi[c] + a * x - t1):
                return False
        for t, row in self.tab_of[var]:
            if not alive[t] & row[k]:
                return False
        return True

    def _place(self, var: int, k: int, state) -> list[int]:
        """Fix ``var`` to value index ``k``; the tables' alive rows before, for undoing."""
        assigned, used, lo, hi, alive, terms_of = state
        assigned[var] = k
        bit, x = 1 << k, self.comp.values[k]
        for g in self.group_of[var]:
            used[g] |= bit
        for c, a, t0, t1 in terms_of[var]:
            lo[c] += a * x - t0
            hi[c] += a * x - t1
        before = []
        for t, row in self.tab_of[var]:
            before.append(alive[t])
            alive[t] &= row[k]
        return before

    def _unplace(self, var: int, k: int, before: list[int], state) -> None:
        assigned, used, lo, hi, alive, terms_of = state
        assigned[var] = None
        bit, x = 1 << k, self.comp.values[k]
        for g in self.group_of[var]:
            used[g] ^= bit
        for c, a, t0, t1 in terms_of[var]:
            lo[c] -= a * x - t0
            hi[c] -= a * x - t1
        for (t, _), was in zip(self.tab_of[var], before):
            alive[t] = was
