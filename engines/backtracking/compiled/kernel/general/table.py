"""Compact-Table (Demeulenaere et al., CP 2016) for the model's ``Table``.

The rows still allowed form a reversible sparse bitset: its words live in
``S`` (saved on the trail like every reversible word), ``CTI`` lists the
indexes of the words not yet zero with the first ``limit`` of them live
(``limit`` in ``S``: a word that turns zero is swapped past it, and a
backtrack restores it), so every scan skips dead words. ``CTS`` holds, per
position and value, the rows where that position takes that value (one bitset
each); ``RES`` the residue, a word index where a support was last seen.

Each call first intersects the live rows with the rows still supported at
every position whose domain changed since the last call (its size is kept in
``S``), then removes every value whose bitset meets no live row, checking the
residue first. Memory: positions x values x words, one int64 per 64 rows.
A position whose values have few rows each (a key column: a word variable of
100,000 values, one row each) lists each value's rows instead (a pointer per
value, then the rows; ``supports_at`` stored as ``-1 - at``): values + rows
words, where bitsets would take values x rows / 64 (105 million words for
each table of WordSquare-tab1-08). Its residue is the place in the value's
list of the row last seen alive.

Hot loops trade style for speed: arrays by slot, no objects.
"""
from __future__ import annotations

from engines.backtracking.compiled.kernel.common import ctz, njit
from engines.backtracking.compiled.kernel.general.domain import keep_words, put, remove
from engines.backtracking.compiled.kernel.general.layout import (
    CTI,
    CTS,
    DOFF,
    I_SZ,
    INFO,
    PDATA,
    RES,
    TMP,
    S,
)

# PDATA of a table: [arity, words, words_at, limit_at, last_at, cti_at,
#                    then per position: variable, supports_at, residues_at]
HEAD = 6


@njit(cache=True, _nrt=False)
def _mask_of(K, M, v, sup, nw, lim, cti, cti_at):
    """TMP over the live words: the rows whose value at this position is still in
    ``v``'s domain (``sup`` below zero: the position's supports are row lists)."""
    s, cts, tmp = M[S], K[CTS], M[TMP]
    for i in range(lim):
        tmp[cti[cti_at + i]] = 0
    at = -1 - sup
    d0 = K[DOFF][v]
    for wi in range(K[DOFF][v + 1] - d0):
        w = s[d0 + wi]
        while w:
            k = (wi << 6) + ctz(w)
            w &= w - 1
            if sup < 0:
                for j in range(at + cts[at + k], at + cts[at + k + 1]):
                    r = cts[j]
                    tmp[r >> 6] |= 1 << (r & 63)
                continue
            row = sup + k * nw
            for i in range(lim):
                off = cti[cti_at + i]
                tmp[off] |= cts[row + off]


@njit(cache=True, _nrt=False)
def _filter_rows(K, M, v, at, rat, words_at) -> bool:
    """Remove each value of ``v`` none of whose listed rows is alive (residue first)."""
    s, cts, res = M[S], K[CTS], M[RES]
    d0 = K[DOFF][v]
    for wi in range(K[DOFF][v + 1] - d0):
        w = s[d0 + wi]
        while w:
            k = (wi << 6) + ctz(w)
            w &= w - 1
            first, end = at + cts[at + k], at + cts[at + k + 1]
            j = first + res[rat + k]
            if j < end:
                r = cts[j]
                if s[words_at + (r >> 6)] & (1 << (r & 63)):
                    continue
            found = False
            for j in range(first, end):
                r = cts[j]
                if s[words_at + (r >> 6)] & (1 << (r & 63)):
                    res[rat + k] = j - first
                    found = True
                    break
            if not found and not remove(K, M, v, k):
                return False
    return True


@njit(cache=True, _nrt=False)
def compact_table(K, M, base):
    pd = K[PDATA]
    s, cts, res, cti, tmp = M[S], K[CTS], M[RES], M[CTI], M[TMP]
    sz = K[INFO][I_SZ]
    arity, nw, words_at, limit_at, last_at, cti_at = (pd[base], pd[base + 1], pd[base + 2],
                                                      pd[base + 3], pd[base + 4], pd[base + 5])
    lim = s[limit_at]
    for p in range(arity):
        v = pd[base + HEAD + 3 * p]
        if s[sz + v] == s[last_at + p]:
            continue
        _mask_of(K, M, v, pd[base + HEAD + 3 * p + 1], nw, lim, cti, cti_at)
        i = lim - 1
        while i >= 0:
            off = cti[cti_at + i]
            w = s[words_at + off]
            nwv = w & tmp[off]
            if nwv != w:
                put(M, words_at + off, nwv)
                if nwv == 0:
                    cti[cti_at + i] = cti[cti_at + lim - 1]
                    cti[cti_at + lim - 1] = off
                    lim -= 1
            i -= 1
        if lim == 0:
            put(M, limit_at, 0)
            return False
    put(M, limit_at, lim)
    for p in range(arity):
        v = pd[base + HEAD + 3 * p]
        sup = pd[base + HEAD + 3 * p + 1]
        rat = pd[base + HEAD + 3 * p + 2]
        if sup < 0:
            if s[sz + v] > 1 and not _filter_rows(K, M, v, -1 - sup, rat, words_at):
                return False
        elif s[sz + v] > 1:
            d0 = K[DOFF][v]
            for wi in range(K[DOFF][v + 1] - d0):
                w = s[d0 + wi]
                while w:
                    k = (wi << 6) + ctz(w)
                    w &= w - 1
                    row = sup + k * nw
                    r = res[rat + k]
                    if s[words_at + r] & cts[row + r]:
                        continue
                    found = False
                    for i in range(lim):
                        off = cti[cti_at + i]
                        if s[words_at + off] & cts[row + off]:
                            res[rat + k] = off
                            found = True
                            break
                    if not found and not remove(K, M, v, k):
                        return False
        put(M, last_at + p, s[sz + v])
    return True


# PDATA of a binary table: [wide, narrow, supports_at, words of wide, residues_at,
#                           wide's size seen, narrow's size seen (S offsets)]
@njit(cache=True, _nrt=False)
def binary_table(K, M, base):
    """A two-variable table, arc consistent: each value of the narrow variable (the
    one with fewer domain words) has a bitset of its supports over the wide one's
    values (``CTS``). The wide variable keeps the union of its narrow values'
    bitsets (word by word); a narrow value stays while its bitset meets the wide
    domain (residue first). Supports take narrow values x wide words, shared by
    every table with the same rows over the same domains."""
    pd, s, cts, res, tmp = K[PDATA], M[S], K[CTS], M[RES], M[TMP]
    sz = K[INFO][I_SZ]
    a, b, sup, nwa, rat, seen_a, seen_b = (pd[base], pd[base + 1], pd[base + 2], pd[base + 3],
                                           pd[base + 4], pd[base + 5], pd[base + 6])
    db = K[DOFF][b]
    if s[sz + b] != s[seen_b]:
        for wi in range(nwa):
            tmp[wi] = 0
        for wi in range(K[DOFF][b + 1] - db):
            w = s[db + wi]
            while w:
                k = (wi << 6) + ctz(w)
                w &= w - 1
                row = sup + k * nwa
                for j in range(nwa):
                    tmp[j] |= cts[row + j]
        if not keep_words(K, M, a, tmp):
            return False
    if s[sz + a] != s[seen_a]:
        da = K[DOFF][a]
        for wi in range(K[DOFF][b + 1] - db):
            w = s[db + wi]
            while w:
                k = (wi << 6) + ctz(w)
                w &= w - 1
                row = sup + k * nwa
                r = res[rat + k]
                if s[da + r] & cts[row + r]:
                    continue
                found = False
                for j in range(nwa):
                    if s[da + j] & cts[row + j]:
                        res[rat + k] = j
                        found = True
                        break
                if not found and not remove(K, M, b, k):
                    return False
    put(M, seen_a, s[sz + a])
    put(M, seen_b, s[sz + b])
    return True
