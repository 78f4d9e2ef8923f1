"""The XCSP3 translation's limits: past one, a form takes its next exact fallback
or the instance is n/a with the limit named.

Every module of the translation reads them here at call time (``limits.MAX_ROWS``),
so lowering one drives every form onto its fallback.
"""
from __future__ import annotations

MAX_ROWS = 200_000            # rows an enumerated or expanded table may hold
MAX_AUX_VALUES = 100_000      # values an auxiliary variable's domain may hold
MAX_EXPANDED = 10_000         # rows a starred table may expand to; past it, an automaton
MAX_STARRED_ROWS = 1_000      # starred rows read as an automaton; past it, literals per row
MAX_AUX_VARIABLES = 250_000   # auxiliary variables one instance may add
SPLIT_ROWS = 256              # a disjunction over more combinations is split per comparison
SMALL_TABLE = 1_000           # a comparison over more combinations is reified by inequalities
