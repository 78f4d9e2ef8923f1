"""Slots of the compiled general core's arrays: one definition for the packer
and the kernels.

``K`` is a tuple of static int64 arrays (written once by ``pack``), ``M`` a
tuple of mutable int64 arrays (one per solve). ``R`` (in ``M``) holds the
scalars a kernel updates: trail length, the current stamp, the queue's ends,
the running propagator, counters.
"""
from __future__ import annotations

# K: static arrays.
(VOFF, VALS, DOFF, WPTR, WIDX, PKIND, PPTR, PDATA, SPTR, SCOPE, CTS, INFO) = range(12)
# INFO slots.
I_N, I_NPROPS, I_SLEN, I_SZ, I_MN, I_MX, I_TMP, I_IDEMP, I_OPEN = range(9)
# I_OPEN: where S holds, per propagator, how many of its variables are open
# M: mutable arrays.
(S, STAMP, TADDR, TOLD, R, Q, INQ, CTI, RES, TMP) = range(10)
# R slots.
(R_TLEN, R_STAMP, R_QHEAD, R_QTAIL, R_QLEN, R_CUR, R_PROPS, R_FAILC, R_TIMEOUT,
 R_NGLITS) = range(10)
R_SIZE = 16

# Propagator kinds.
P_LINEAR, P_ALLDIFF, P_TABLE, P_ELEMENT, P_ARITH, P_ADLIST, P_BINARY = range(7)
# Linear operators.
OP_EQ, OP_NE, OP_LE, OP_GE = range(4)
OPS = {"==": OP_EQ, "!=": OP_NE, "<=": OP_LE, ">=": OP_GE}
# Arith operations.
A_TIMES, A_DIV, A_MOD, A_POW, A_ABS, A_MIN, A_MAX = range(7)
ARITH_OPS = {"times": A_TIMES, "div": A_DIV, "mod": A_MOD, "pow": A_POW, "abs": A_ABS,
             "min": A_MIN, "max": A_MAX}

# Search status codes.
UNSAT, SOLVED, TIMEOUT = 0, 1, 2
# Stats slots.
ST_NODES, ST_FAILURES, ST_PROPS, ST_RESTARTS, ST_NOGOODS = range(5)
# Search options.
H_DOMWDEG, H_CACD = 0, 1
RS_GEOMETRIC, RS_LUBY, RS_NONE = 0, 1, 2
