"""A model's structure read into the compiled general core's arrays, once per shape.

Every kind becomes one of seven propagators (``layout``): Linear, with
ReifiedLinear (its literal), Clause (``sum(positive) - sum(negative) >=
1 - len(negative)`` over 0/1 variables) and NotEqualOffset (``x - y != c``);
AllDifferent; Table (Compact-Table; over two variables, bitwise arc
consistency), with Arith over small domains (its allowed rows, at most
``ARITH_ROWS_MOST`` argument combinations); Element; Arith past that (forward
checking); AllDifferentList. A structure the core cannot hold exactly
(values or sums past 2^62, supports past ``SUPPORT_WORDS_MOST``) gets a
reason and keeps the Python search.
"""
from __future__ import annotations

from itertools import product

import numpy as np

from engines.backtracking.compiled.kernel.general import layout as L
from engines.backtracking.compiled.kernel.general.alldifferent import MATCHED, PERMUTATION
from engines.backtracking.compiled.kernel.general.regin import (
    GAC_MEMBERS_MOST,
    GAC_VALUES_MOST,
    scratch,
)
from engines.support.arith import arith_value
from puzzles.model import (
    OPERATORS,
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    NotEqualOffset,
    ReifiedLinear,
    Structure,
    Table,
    merged_terms,
)

ARITH_ROWS_MOST = 4096           # argument combinations an Arith is enumerated into rows
SUPPORT_WORDS_MOST = 1 << 26     # Compact-Table support words of one model (512 MB)
VALUE_MOST = 1 << 62             # |value| and |coefficient x value| sums the core takes
IDEMPOTENT = (1 << L.P_LINEAR) | (1 << L.P_ALLDIFF) | (1 << L.P_TABLE) | (1 << L.P_BINARY)


class Unfit(Exception):
    """The core cannot take this structure exactly: the reason."""


class Packed:
    """The static arrays ``K``, the start state, and why the model is UNSAT or unfit."""

    def __init__(self, structure: Structure):
        self.structure = structure
        self.unsat = ""
        self.unfit = ""
        try:
            self._pack(structure)
        except Unfit as why:
            self.unfit = str(why)

    # --- reading --------------------------------------------------------------
    def _pack(self, st: Structure) -> None:
        n = st.size
        self.n = n
        # Variables sharing one domain object share its sorted values and index (a
        # word list of 100,000 values may be the domain of dozens of variables).
        shared: dict[int, tuple[list, dict]] = {}
        for d in st.domains:
            if id(d) not in shared:
                vals = sorted(set(d))
                shared[id(d)] = (vals, {x: k for k, x in enumerate(vals)})
        self.values = [shared[id(d)][0] for d in st.domains]
        self.index = [shared[id(d)][1] for d in st.domains]
        self._rows: dict[tuple, tuple] = {}       # a table's rows, per (rows, domains)
        for v, vals in enumerate(self.values):
            if not vals:
                self.unsat = f"variable {st.variables[v]} has an empty domain"
                return
            if max(abs(vals[0]), abs(vals[-1])) >= VALUE_MOST:
                raise Unfit("the compiled search takes values below 2^62")
        self.props: list[tuple[int, list[int], list[int]]] = []  # kind, data, scope
        self.tables: list[tuple] = []           # (scope, rows as indexes, sharing key)
        for con in st.constraints:
            why = self._read(con)
            if why:
                self.unsat = why
                return
        self._lay_out()

    def _linear(self, coeffs, vars_, op, rhs, lit=-1, implied=False) -> str:
        lin = merged_terms(Linear(tuple(coeffs), tuple(vars_), op, rhs))
        if not lin.vars and lit < 0:
            return "" if OPERATORS[lin.op](0, lin.rhs) else \
                f"Linear with no variable left: 0 {lin.op} {lin.rhs} is false"
        reach = sum(abs(a) * max(abs(self.values[v][0]), abs(self.values[v][-1]))
                    for a, v in zip(lin.coeffs, lin.vars))
        if reach + abs(lin.rhs) >= VALUE_MOST:
            raise Unfit("the compiled search takes linear sums below 2^62")
        data = [lit, int(implied), L.OPS[lin.op], lin.rhs, len(lin.vars)]
        for a, v in zip(lin.coeffs, lin.vars):
            data += [a, v]
        scope = list(dict.fromkeys(([lit] if lit >= 0 else []) + list(lin.vars)))
        self.props.append((L.P_LINEAR, data, scope))
        return ""

    def _read(self, con) -> str:
        if isinstance(con, AllDifferent):
            if len(set(con.vars)) < len(con.vars):
                return f"AllDifferent{tuple(con.vars)} names a variable twice"
            if len(con.vars) > 1:
                self.props.append((L.P_ALLDIFF, [len(con.vars), *con.vars], list(con.vars)))
        elif isinstance(con, Linear):
            return self._linear(con.coeffs, con.vars, con.op, con.rhs)
        elif isinstance(con, NotEqualOffset):
            if con.x == con.y:
                return f"{self.structure.variables[con.x]} != itself" if con.c == 0 else ""
            return self._linear((1, -1), (con.x, con.y), "!=", con.c)
        elif isinstance(con, ReifiedLinear):
            return self._linear(con.coeffs, con.vars, con.op, con.rhs, con.literal, con.implied)
        elif isinstance(con, Clause):
            coeffs = [1] * len(con.positive) + [-1] * len(con.negative)
            return self._linear(coeffs, (*con.positive, *con.negative), ">=",
                                1 - len(con.negative))
        elif isinstance(con, Table):
            return self._table(con.vars, con.tuples)
        elif isinstance(con, Element):
            self.props.append((L.P_ELEMENT, [con.index, con.value, con.base, len(con.vars),
                                             *con.vars],
                               list(dict.fromkeys((con.index, con.value, *con.vars)))))
        elif isinstance(con, Arith):
            return self._arith(con)
        elif isinstance(con, AllDifferentList):
            lists = [tuple(x) for x in con.lists]
            if len(lists) > 1:
                flat = [v for x in lists for v in x]
                self.props.append((L.P_ADLIST, [len(lists), len(lists[0]), *flat],
                                   list(dict.fromkeys(flat))))
        else:
            raise Unfit(f"the compiled search has no rule for {type(con).__name__}")
        return ""

    def _arith(self, con: Arith) -> str:
        free = list(dict.fromkeys(con.args))
        combos = 1
        for v in free:
            combos *= len(self.values[v])
        if combos <= ARITH_ROWS_MOST:
            scope = list(dict.fromkeys((*free, con.result)))
            rows = []
            for vals in product(*(self.values[v] for v in free)):
                at = dict(zip(free, vals))
                r = arith_value(con.op, [at[v] for v in con.args])
                if r is None or (con.result in at and at[con.result] != r) \
                        or r not in self.index[con.result]:
                    continue
                at[con.result] = r
                rows.append(tuple(at[v] for v in scope))
            return self._table(tuple(scope), rows)
        data = [L.ARITH_OPS[con.op], len(con.args), con.result, *con.args]
        self.props.append((L.P_ARITH, data, list(dict.fromkeys((*con.args, con.result)))))
        return ""

    def _table(self, vars_, tuples) -> str:
        """A Table over distinct variables, its rows as value indexes (a row whose
        repeated variable disagrees, or with a value outside a domain, goes). Tables
        with the same rows object over the same domain objects share the reading,
        and the layout shares their supports."""
        first: dict[int, int] = {}
        for pos, v in enumerate(vars_):
            first.setdefault(v, pos)
        keep = sorted(first.values())
        scope = tuple(vars_[p] for p in keep)
        pattern = tuple(first[v] for v in vars_)
        key = (id(tuples), pattern, tuple(id(self.structure.domains[v]) for v in scope))
        known = self._rows.get(key)
        if known is None or known[0] is not tuples:
            index = [self.index[v] for v in scope]
            rows = []
            for row in tuples:
                if len(row) != len(vars_) or any(row[p] != row[q]
                                                 for p, q in enumerate(pattern)):
                    continue
                picked = tuple(row[p] for p in keep)
                if all(x in ix for x, ix in zip(picked, index)):
                    rows.append(tuple(ix[x] for x, ix in zip(picked, index)))
            rows = list(dict.fromkeys(rows))
            table = np.array(rows, np.int64).reshape(len(rows), len(scope))
            known = self._rows[key] = (tuples, table, key)
        if not len(known[1]):
            return f"Table over {tuple(vars_)} allows no tuple in the domains"
        self.tables.append((scope, known[1], known[2]))
        kind = L.P_BINARY if len(scope) == 2 else L.P_TABLE
        self.props.append((kind, [len(self.tables) - 1], list(scope)))
        return ""

    # --- laying out -------------------------------------------------------------
    def _lay_out(self) -> None:
        n, values = self.n, self.values
        sizes = np.array([len(v) for v in values], np.int64)
        voff = np.zeros(n + 1, np.int64)
        np.cumsum(sizes, out=voff[1:])
        vals = np.array([x for v in values for x in v], np.int64)
        words = (sizes + 63) // 64
        doff = np.zeros(n + 1, np.int64)
        np.cumsum(words, out=doff[1:])
        dom_words = int(doff[-1])
        sz, mn, mx = dom_words, dom_words + n, dom_words + 2 * n
        slen = dom_words + 3 * n
        s0 = [np.zeros(slen, np.int64)]
        for v in range(n):                              # full domains
            m = int(sizes[v])
            full, rest = divmod(m, 64)
            s0[0][doff[v]:doff[v] + full] = -1
            if rest:
                s0[0][doff[v] + full] = (1 << rest) - 1 if rest < 63 else np.int64(2**63 - 1)
        s0[0][sz:sz + n] = sizes
        s0[0][mx:mx + n] = sizes - 1
        pdata: list[int] = []
        pptr, kinds = [], []
        cts_parts: list[np.ndarray] = []
        cts_len = cti_len = res_len = tmp_len = 0
        cti_parts, res_total = [], 0
        blocks: dict[tuple, int] = {}          # supports already laid out, by table and position
        for kind, data, _scope in self.props:
            pptr.append(len(pdata))
            kinds.append(kind)
            if kind == L.P_ALLDIFF:   # see alldifferent.alldifferent for the layout
                members = data[1:]
                union = sorted({x for v in members for x in values[v]})
                nu = flags = 0
                map_at = union_at = cts_len
                permutation = len(union) == len(members)
                matched = not permutation and len(union) <= GAC_VALUES_MOST \
                    and len(members) <= GAC_MEMBERS_MOST
                if matched or permutation:          # else no union map is needed
                    nu = len(union)
                    flags = MATCHED if matched else PERMUTATION
                    where = {x: i for i, x in enumerate(union)}
                    block = np.array([where[x] for v in members for x in values[v]] + union,
                                     np.int64)
                    union_at = map_at + block.size - nu
                    cts_parts.append(block)
                    cts_len += block.size
                    tmp_len = max(tmp_len, 2 * nu, scratch(len(members), nu) if matched else 0)
                pdata += [data[0], slen, cti_len, nu, map_at, flags, union_at, res_len, *members]
                res_len += len(members)
                tmp_len = max(tmp_len, 3 * len(members))       # Hall intervals' scratch
                s0.append(np.zeros(1, np.int64))
                slen += 1
                cti_parts.append(np.arange(data[0], dtype=np.int64))
                cti_len += data[0]
                continue
            if kind == L.P_BINARY:
                scope, table, key = self.tables[data[0]]
                wide = 0 if words[scope[0]] >= words[scope[1]] else 1
                a, b = scope[wide], scope[1 - wide]
                nwa = int(words[a])
                got = blocks.get((key, wide))
                if got is None:
                    block = np.zeros(int(sizes[b]) * nwa, np.uint64)
                    col_a, col_b = table[:, wide], table[:, 1 - wide]
                    np.bitwise_or.at(block, col_b * nwa + (col_a >> 6),
                                     np.uint64(1) << (col_a & 63).astype(np.uint64))
                    got = blocks[(key, wide)] = self._support(cts_parts, cts_len, block)
                    cts_len += block.size
                s0.append(np.full(2, -1, np.int64))
                pdata += [a, b, got, nwa, res_len, slen, slen + 1]
                slen += 2
                res_len += int(sizes[b])
                tmp_len = max(tmp_len, nwa)
                continue
            if kind != L.P_TABLE:
                pdata += data
                continue
            scope, table, key = self.tables[data[0]]
            nt = len(table)
            nw = (nt + 63) // 64
            words_at, limit_at, last_at = slen, slen + nw, slen + nw + 1
            tw = np.full(nw, -1, np.int64)
            if nt % 64:
                tw[-1] = (1 << (nt % 64)) - 1 if nt % 64 < 63 else np.int64(2**63 - 1)
            s0.append(tw)
            s0.append(np.array([nw], np.int64))
            s0.append(np.full(len(scope), -1, np.int64))
            slen += nw + 1 + len(scope)
            pdata += [len(scope), nw, words_at, limit_at, last_at, cti_len]
            cti_parts.append(np.arange(nw, dtype=np.int64))
            cti_len += nw
            tmp_len = max(tmp_len, nw)
            row_word = np.arange(nt) >> 6
            row_bit = (np.uint64(1) << (np.arange(nt) & 63).astype(np.uint64))
            for p, v in enumerate(scope):
                m = int(sizes[v])
                got = blocks.get((key, p))
                if got is None:
                    if m * nw > 2 * (m + 1 + nt):      # few rows a value: its rows listed
                        col = table[:, p]
                        ptr = np.zeros(m + 1, np.int64)
                        np.cumsum(np.bincount(col, minlength=m), out=ptr[1:])
                        block = np.concatenate([ptr + (m + 1),
                                                np.argsort(col, kind="stable").astype(np.int64)])
                        got = -1 - self._support(cts_parts, cts_len, block)
                    else:
                        block = np.zeros(m * nw, np.uint64)
                        np.bitwise_or.at(block, table[:, p] * nw + row_word, row_bit)
                        got = self._support(cts_parts, cts_len, block)
                    blocks[(key, p)] = got
                    cts_len += block.size
                pdata += [v, got, res_len]
                res_len += m
        res_total = res_len
        open_at = slen                 # per propagator, its variables not fixed yet
        s0.append(_int64s([sum(1 for v in scope if sizes[v] > 1) for _k, _d, scope in self.props]))
        slen += len(self.props)
        wlists: list[list[int]] = [[] for _ in range(n)]
        sptr, scope_flat = [0], []
        for c, (_k, _d, scope) in enumerate(self.props):
            for v in scope:
                wlists[v].append(c)
            scope_flat += scope
            sptr.append(len(scope_flat))
        wptr = np.zeros(n + 1, np.int64)
        np.cumsum([len(w) for w in wlists], out=wptr[1:])
        info = np.zeros(9, np.int64)
        info[[L.I_N, L.I_NPROPS, L.I_SLEN, L.I_SZ, L.I_MN, L.I_MX, L.I_TMP, L.I_IDEMP,
              L.I_OPEN]] = (n, len(self.props), slen, sz, mn, mx, tmp_len, IDEMPOTENT, open_at)
        self.K = (voff, vals, doff, wptr, _int64s([c for w in wlists for c in w]), _int64s(kinds),
                  _int64s(pptr), _int64s(pdata), _int64s(sptr), _int64s(scope_flat),
                  np.concatenate(cts_parts) if cts_parts else np.zeros(1, np.int64), info)
        self.S0 = np.concatenate(s0)
        self.CTI0 = np.concatenate(cti_parts) if cti_parts else np.zeros(1, np.int64)
        self.nres = max(res_total, 1)
        self.ntmp = max([tmp_len, 1] + [d[1] for k, d, _ in self.props if k == L.P_ARITH])

    @staticmethod
    def _support(parts: list, at: int, block: np.ndarray) -> int:
        """Append a block of support words; where it starts."""
        if at + block.size > SUPPORT_WORDS_MOST:
            raise Unfit(f"the tables' supports take more than {SUPPORT_WORDS_MOST} words")
        parts.append(block.view(np.int64))
        return at

    def workspace(self) -> tuple:
        """The mutable arrays ``M`` of one solve."""
        slen = self.S0.size
        nprops = max(len(self.props), 1)
        return (self.S0.copy(), np.zeros(slen, np.int64), np.empty(2 * slen + 64, np.int64),
                np.empty(2 * slen + 64, np.int64), np.zeros(L.R_SIZE, np.int64),
                np.zeros(nprops, np.int64), np.zeros(nprops, np.int64), self.CTI0.copy(),
                np.zeros(self.nres, np.int64), np.zeros(self.ntmp, np.int64))


def _int64s(xs) -> np.ndarray:
    return np.array(xs, np.int64)
