"""The compiled searches behind ``backtracking:kernel=numba``, one room each.

``packer`` turns a ``Shape`` into the tables the searches read; ``seed`` is
the reference search; ``fast`` (with ``propagate`` and ``probe``) the search
with singles, locked candidates and probing; ``lean`` the ``fast`` search
for shapes that do not probe; ``common`` what they share. The public entry
points are in ``engines.backtracking.compiled.entry``.
"""
