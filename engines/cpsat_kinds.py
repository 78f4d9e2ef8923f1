"""CP-SAT's translation of the model's ReifiedLinear, Clause, Element, Arith and
AllDifferentList kinds.

Each adder takes the CP-SAT model, the model's variables, the constraint and
the narrowed domains. Auxiliary variables (a Boolean tied to a literal whose
domain is wider than 0/1, a divisor without 0, a quotient and product for
``mod``, a "differs here" flag per position of two lists) are created after every model variable and are functions of the
model's variables, so enumeration counts the model's solutions once each and
``CpTask.restrict`` still finds the model's variables first in the proto.
"""
from __future__ import annotations

from engines.contract import Unsupported
from engines.support.arith import NEGATED, POW_TOO_LARGE, pow_table
from puzzles.model import (
    OPERATORS,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    ReifiedLinear,
    merged_terms,
)

try:
    from ortools.sat.python import cp_model
except ImportError:  # engines.cpsat reports the engine unavailable
    cp_model = None

# CP-SAT refuses a model whose products leave ±(2^63 - 1) / 2.
_LARGEST = (1 << 62) - 1


def _flat(values) -> list[int]:
    flat: list[int] = []
    for v in sorted(set(values)):
        if flat and v == flat[-1] + 1:
            flat[-1] = v
        else:
            flat += [v, v]
    return flat


def _int_var(cp, values):
    return cp.new_int_var_from_domain(cp_model.Domain.from_flat_intervals(_flat(values)), "")


def _literal(cp, xs, var: int, domains):
    """The variable as a CP-SAT literal: itself when its domain is within 0/1 (an
    integer variable over 0..1 is a Boolean to CP-SAT), else a Boolean equal to it,
    which also keeps the variable to 0/1 as the kind demands."""
    if set(domains[var]) <= {0, 1}:
        return xs[var]
    lit = cp.new_bool_var("")
    cp.add(xs[var] == lit)
    return lit


def _fail(cp) -> None:
    cp.add_bool_or([])


def add_reified_linear(cp, xs, con: ReifiedLinear, domains) -> None:
    """``lit => sum op rhs`` and, unless implied, ``not lit => sum negated-op rhs'``."""
    lit = _literal(cp, xs, con.literal, domains)
    merged = merged_terms(Linear(con.coeffs, con.vars, con.op, con.rhs))
    if not merged.vars:
        holds = OPERATORS[con.op](0, con.rhs)
        if not holds:
            cp.add_bool_or([lit.Not()])
        elif not con.implied:
            cp.add_bool_or([lit])
        return
    total = cp_model.LinearExpr.weighted_sum([xs[v] for v in merged.vars],
                                             list(merged.coeffs))
    cp.add(OPERATORS[con.op](total, con.rhs)).only_enforce_if(lit)
    if not con.implied:
        op, rhs = NEGATED[con.op](con.rhs)
        cp.add(OPERATORS[op](total, rhs)).only_enforce_if(lit.Not())


def add_clause(cp, xs, con: Clause, domains) -> None:
    cp.add_bool_or([_literal(cp, xs, v, domains) for v in con.positive]
                   + [_literal(cp, xs, v, domains).Not() for v in con.negative])


def add_element(cp, xs, con: Element, domains) -> None:
    """CP-SAT's element keeps the index within the array, as the kind does."""
    if not con.vars:
        _fail(cp)
        return
    index = xs[con.index] - con.base if con.base else xs[con.index]
    cp.add_element(index, [xs[v] for v in con.vars], xs[con.value])


def _divisor(cp, xs, var: int, domains):
    """The divisor without 0 (CP-SAT refuses a divisor domain holding 0; the kind fails
    there), or None when 0 is all it has."""
    if 0 not in domains[var]:
        return xs[var]
    rest = [v for v in domains[var] if v]
    if not rest:
        return None
    divisor = _int_var(cp, rest)
    cp.add(divisor == xs[var])
    return divisor


def _largest(domains, var: int) -> int:
    return max(abs(min(domains[var])), abs(max(domains[var])))


def _add_times(cp, xs, con: Arith, domains) -> None:
    a, b = con.args
    if _largest(domains, a) * _largest(domains, b) > _LARGEST:
        raise Unsupported("cpsat: a product beyond CP-SAT's range, ±(2^63 - 1) / 2")
    cp.add_multiplication_equality(xs[con.result], [xs[a], xs[b]])


def _add_div_mod(cp, xs, con: Arith, domains) -> None:
    """div: CP-SAT's division truncates toward zero, as the kind does. mod: CP-SAT's
    modulo (the dividend's sign) takes a positive modulus only, so a divisor that
    may be negative goes through ``a - b * (a div b)`` instead."""
    a, b = con.args
    divisor = _divisor(cp, xs, b, domains)
    if divisor is None:
        _fail(cp)
    elif con.op == "div":
        cp.add_division_equality(xs[con.result], xs[a], divisor)
    elif min(domains[b]) > 0:
        cp.add_modulo_equality(xs[con.result], xs[a], divisor)
    else:
        span = _largest(domains, a)
        if span * _largest(domains, b) > _LARGEST:
            raise Unsupported("cpsat: mod of values whose product leaves CP-SAT's range")
        quotient = cp.new_int_var(-span, span, "")
        cp.add_division_equality(quotient, xs[a], divisor)
        times = cp.new_int_var(-span, span, "")     # |b * (a div b)| <= |a|
        cp.add_multiplication_equality(times, [divisor, quotient])
        cp.add(xs[con.result] == xs[a] - times)


def _add_pow(cp, xs, con: Arith, domains) -> None:
    table = pow_table(con, domains)
    if table is None:
        raise Unsupported(f"cpsat: {POW_TOO_LARGE}")
    scope, rows = table
    if not rows:
        _fail(cp)
        return
    cp.add_allowed_assignments([xs[v] for v in scope], [list(r) for r in rows])


def add_arith(cp, xs, con: Arith, domains) -> None:
    args = [xs[v] for v in con.args]
    if con.op == "times":
        _add_times(cp, xs, con, domains)
    elif con.op in ("div", "mod"):
        _add_div_mod(cp, xs, con, domains)
    elif con.op == "pow":
        _add_pow(cp, xs, con, domains)
    elif con.op == "abs":
        cp.add_abs_equality(xs[con.result], args[0])
    elif con.op == "min":
        cp.add_min_equality(xs[con.result], args)
    elif con.op == "max":
        cp.add_max_equality(xs[con.result], args)
    else:
        raise Unsupported(f"cpsat: Arith operation {con.op!r}")


def add_all_different_list(cp, xs, con: AllDifferentList, domains) -> None:
    """Per pair of lists, one of its "differs at i" flags is true; each flag is
    equivalent to ``a_i != b_i`` (so a function of the model's variables). A position
    holding one variable twice never differs, one of disjoint domains always does
    (the pair then needs no constraint)."""
    lists = con.lists
    for j, b in enumerate(lists):
        for a in lists[:j]:
            flags = []
            for x, y in zip(a, b):
                if x == y:
                    continue
                if not set(domains[x]) & set(domains[y]):
                    break
                d = cp.new_bool_var("")
                cp.add(xs[x] != xs[y]).only_enforce_if(d)
                cp.add(xs[x] == xs[y]).only_enforce_if(d.Not())
                flags.append(d)
            else:
                cp.add_bool_or(flags)


# The kinds this module adds, each adder taking (cp, xs, con, domains).
ADD_KINDS = {ReifiedLinear: add_reified_linear, Clause: add_clause, Element: add_element,
             Arith: add_arith, AllDifferentList: add_all_different_list}
