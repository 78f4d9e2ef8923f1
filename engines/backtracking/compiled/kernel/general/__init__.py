"""The compiled propagation core for general models (``kernel=numba`` on every
model that is not AllDifferent-only).

One layout, flat int64 arrays (``layout``): domains as bitsets over each
variable's own sorted values with their size and bounds, every reversible
word in one state array ``S`` saved on a trail at most once per search level
(a stamp per word), a queue of propagators with watch lists per variable.
``domain`` holds the reversible operations, ``propagators`` the rule of each
kind, ``table`` Compact-Table, ``fixpoint`` the queue, ``search`` the binary
branching with dom/wdeg, last-conflict, restarts and nogoods. ``pack`` (plain
Python) reads a model into the layout; ``run`` is the Python entry.
"""
