"""The brute force the engines are held against agrees with the independent checker,
and the corpus has both satisfiable and unsatisfiable models of every kind."""
from __future__ import annotations

import itertools

from compare.judge.checker import check_model
from tests.kinds.random_models import KINDS, corpus, solutions


def test_the_brute_force_and_the_checker_agree_on_every_assignment():
    for kind, seed, model in corpus(12):
        every = set(itertools.product(*[sorted(d) for d in model.domains()]))
        found = set(solutions(model))
        for values in every:
            assert (check_model(model, values) is None) == (values in found), (kind, seed, values)


def test_the_corpus_has_answers_and_no_answers_of_every_kind():
    counts = {kind: [0, 0] for kind in KINDS}
    for kind, _, model in corpus():
        counts[kind][bool(solutions(model))] += 1
    assert all(unsat and sat for unsat, sat in counts.values()), counts
