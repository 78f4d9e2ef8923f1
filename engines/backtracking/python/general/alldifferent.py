"""AllDifferent in the general path.

The groups, peers and permutation test come from the shape (``..shape``),
the same ones the AllDifferent-only path uses. Two rules act on them:

* elimination: a fixed value leaves every peer. It runs through the
  search's kill arcs (``removals``), merged with NotEqualOffset's, so a fixed
  variable costs one pass over its neighbours whatever the constraints;
* hidden singles, in *permutation* groups only (as many values as members,
  checked against the domains after one-variable constraints narrowed
  them): a value with one place left goes there, a value with none is a
  conflict. In looser groups a value may be absent, so they get the
  elimination alone.
"""
from __future__ import annotations


def removals(peers: tuple[int, ...], k: int) -> dict[int, int]:
    """What ``var = values[k]`` takes from the other variables: ``k`` from each peer."""
    return dict.fromkeys(peers, 1 << k)


def hidden_singles(group: tuple[int, ...], full: int):
    """The reviser of a permutation group whose members may take the values ``full``."""
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
