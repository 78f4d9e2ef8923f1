"""The handwritten backtracking engine (builtin, no library).

Two variants, chosen with ``backtracking:variant=seed|fast``:

* ``seed``: the BOJ 2239 reference algorithm (variables in order, values
  ascending, used-value bitmasks per AllDifferent group, no propagation). It
  is the baseline the reports compare against, kept faithful even where it is
  hopelessly slow. See ``seed``.
* ``fast`` (default): the whole candidate state in one Python int, naked and
  hidden singles for the entire model in a few big-int operations per sweep,
  branching on the field with the fewest candidates. See ``layout`` and
  ``fast``; big shapes add failed-literal probing (``probing``).

The engine knows models, not Sudoku: it reads AllDifferent groups and domains
from the structure and derives peers and permutation units itself
(``shape``), once per ``structure.key``. ``lexfirst`` needs no extra
machinery: ``seed`` finds the least solution first by construction, and
``fast`` gets it by branching in variable order with values ascending while
its (sound) propagation prunes.

Models with any other constraint kind (Linear, NotEqualOffset, Table) take
the ``general`` path in both variants: ``fast`` propagates each kind,
``seed`` only checks the assigned variables. AllDifferent-only models never
go there, so the Sudoku searches above pay nothing for the other kinds.
"""
from engines.backtracking.engine import VARIANTS, BacktrackingEngine, Translated

__all__ = ["VARIANTS", "BacktrackingEngine", "Translated"]
