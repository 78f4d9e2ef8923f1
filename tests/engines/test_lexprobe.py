"""The probing loop behind python-constraint's and CP-SAT's ``lexfirst``, on its own."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.support.lexprobe import SearchTimeout, lexfirst_by_probes

DOMAIN = (1, 2, 3, 4)


@st.composite
def spaces(draw):
    """A random solution set over 1..5 variables, and one member to start from."""
    n = draw(st.integers(1, 5))
    tuples = st.tuples(*[st.sampled_from(DOMAIN)] * n)
    solutions = draw(st.sets(tuples, min_size=1, max_size=30))
    start = draw(st.sampled_from(sorted(solutions)))
    return solutions, start


def probe_for(solutions, calls=None):
    """A probe that, like a library, returns an arbitrary (here the largest) fit."""
    def probe(doms):
        if calls is not None:
            calls.append(doms)
        fits = [s for s in solutions if all(v in d for v, d in zip(s, doms))]
        return max(fits) if fits else None
    return probe


@given(spaces())
def test_finds_the_smallest_solution_from_any_start(space):
    solutions, start = space
    best, probes = lexfirst_by_probes(start, [DOMAIN] * len(start), probe_for(solutions))
    assert best == min(solutions)
    assert probes <= len(start) * len(DOMAIN)


@given(spaces())
def test_probes_keep_the_fixed_prefix(space):
    """Every probe fixes the variables before the one it narrows to the answer's
    values, narrows that one below the largest value, and leaves later ones free."""
    solutions, start = space
    calls = []
    best, _ = lexfirst_by_probes(start, [DOMAIN] * len(start), probe_for(solutions, calls))
    for doms in calls:
        narrowed = max(i for i, d in enumerate(doms) if d != DOMAIN)
        assert all(d == (best[j],) for j, d in enumerate(doms[:narrowed]))
        assert max(doms[narrowed]) < max(DOMAIN)


def test_no_probe_when_every_value_is_already_least():
    calls = []
    best, probes = lexfirst_by_probes((1, 1), [(1, 2), (1, 3)], probe_for({(1, 1)}, calls))
    assert (best, probes, calls) == ((1, 1), 0, [])


def test_spent_deadline_stops_before_probing():
    with pytest.raises(SearchTimeout):
        lexfirst_by_probes((2,), [(1, 2)], probe_for({(1,), (2,)}), deadline=0.0)
