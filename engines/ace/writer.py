"""A model (``puzzles.model``) written as an XCSP3 instance, every constraint kind exactly.

Variable ``i`` of the model is ``x{i}``, declared in model order with its base
domain (a range when the values are consecutive, else the values); the givens
are one ``<instantiation>``. Each kind is written so that the instance has
exactly the model's solutions (docs/kinds.md, "Constraint kinds of the model"):

* ``AllDifferent``: ``<allDifferent>``;
* ``AllDifferentList``: per pair of lists of one length,
  ``<intension> or(ne(a1,b1),ne(a2,b2),...)`` (ACE 2.6 refuses a variable
  twice in the lists of ``<allDifferent>`` and fails on other overlaps; a
  list named twice fails);
* ``Linear``: ``<sum>`` with ``<coeffs>`` and ``<condition>`` (a variable named
  twice has its coefficients added up; a sum of no variable is decided here);
* ``NotEqualOffset``: ``<intension> ne(x,add(y,c))``;
* ``Table``: ``<extension><supports>`` (a variable named twice keeps the rows
  that agree on it);
* ``ReifiedLinear``: ``<intension> iff(eq(b,1),le(add(mul(2,x),y),3))``,
  ``imp`` when implied, with the literal kept to 0/1 by a unary table;
* ``Clause``: ``<intension> or(eq(x,1),eq(y,0))`` with every variable kept to 0/1;
* ``Element``: ``<element>`` with ``<list>``, ``<index>`` and ``<value>``. The
  list starts at 0 (XCSP3-core, which pycsp3's parser reads, has no other
  ``startIndex``) and ACE refuses an index whose domain goes past the list,
  so unless the index's domain is exactly the positions ``0..k-1`` the list
  is indexed by an auxiliary variable ``a{j} = index - base`` whose domain is
  the positions: an index out of range fails, as in the model. Auxiliary
  variables are declared after the model's and fixed by it, so counts and
  the least solution stay the model's. A list naming a variable twice (which
  ACE refuses too) is written as a unary table of the positions and one
  ``or(ne(i,p),eq(v,x))`` per position ``p``;
* ``Arith``: ``times``, ``abs``, ``min``, ``max`` as ``<intension> eq(r,mul(x,y))``
  and the like; ``div``, ``mod`` and ``pow`` as the table of their allowed
  tuples, computed by ``engines.support.arith.arith_value`` (the evaluator
  the engines share), because solvers disagree on XCSP3's ``div`` and ``mod``
  over negative or zero operands (ACE 2.6 refuses them). Past ``TABLE_CAP``
  combinations of the arguments' domains they are written as guarded intensions
  (``and(ne(y,0),eq(r,div(x,y)))``, ``and(ge(e,0),eq(r,pow(x,abs(e))))``),
  exact by XCSP3's definition.

A constraint that holds or fails whatever the values (a sum of nothing, a
table with no row inside its domains) becomes nothing, or one constraint that
always fails: every value of ``x0`` in conflict. Tables keep only the rows
inside their variables' domains (ACE refuses a table left with no support).
"""
from __future__ import annotations

import itertools
from xml.sax.saxutils import escape

from engines.support.arith import arith_value
from puzzles.model import (
    AllDifferent,
    AllDifferentList,
    Arith,
    Clause,
    Element,
    Linear,
    Model,
    NotEqualOffset,
    ReifiedLinear,
    Table,
)

CONDITION = {"==": "eq", "!=": "ne", "<=": "le", ">=": "ge"}
TABLE_CAP = 100_000            # argument combinations a div/mod/pow table may enumerate
FALSE = "false"                # marker: the constraint never holds


def name(var: int) -> str:
    return f"x{var}"


def domain_text(values) -> str:
    values = sorted(set(values))
    if len(values) > 1 and values[-1] - values[0] + 1 == len(values):
        return f"{values[0]}..{values[-1]}"
    return " ".join(map(str, values))


def _merged(coeffs, vars_) -> list[tuple[int, int]]:
    """``(coeff, var)`` with a repeated variable's coefficients added, zeros dropped."""
    total: dict[int, int] = {}
    for c, v in zip(coeffs, vars_):
        total[v] = total.get(v, 0) + c
    return [(c, v) for v, c in total.items() if c]


def _holds(total: int, op: str, rhs: int) -> bool:
    return {"==": total == rhs, "!=": total != rhs, "<=": total <= rhs,
            ">=": total >= rhs}[op]


def _sum_expr(terms) -> str:
    parts = [name(v) if c == 1 else f"mul({c},{name(v)})" for c, v in terms]
    if not parts:
        return "0"
    return parts[0] if len(parts) == 1 else f"add({','.join(parts)})"


class _Never(Exception):
    """A table left with no row inside its variables' domains: the constraint fails."""


def _unary(var: int, values, domains) -> str:
    kept = sorted(set(values) & set(domains[var]))
    if not kept:
        raise _Never
    return (f"<extension> <list> {name(var)} </list> <supports> "
            f"{' '.join(map(str, kept))} </supports> </extension>")


def _extension(vars_, rows, domains) -> str:
    """A table of ``rows`` over distinct ``vars_``, kept to the rows inside the domains
    (ACE refuses a table left with no support)."""
    if len(vars_) == 1:
        return _unary(vars_[0], [r[0] for r in rows], domains)
    inside = [set(domains[v]) for v in vars_]
    kept = sorted({r for r in rows if all(x in d for x, d in zip(r, inside))})
    if not kept:
        raise _Never
    body = "".join(f"({','.join(map(str, r))})" for r in kept)
    return (f"<extension> <list> {' '.join(map(name, vars_))} </list> "
            f"<supports> {body} </supports> </extension>")


def never_line(domains) -> str:
    """A constraint no assignment satisfies: every value of ``x0`` in conflict (ACE
    refuses a table with no support)."""
    values = " ".join(map(str, sorted(domains[0]))) or "0"
    return f"<extension> <list> {name(0)} </list> <conflicts> {values} </conflicts> </extension>"


def _table(vars_, tuples, domains) -> list[str] | str:
    distinct = list(dict.fromkeys(vars_))
    if not distinct:
        return [] if () in tuples else FALSE
    first = {v: vars_.index(v) for v in distinct}
    rows = [tuple(row[first[v]] for v in distinct) for row in tuples
            if len(row) == len(vars_)
            and all(row[i] == row[first[v]] for i, v in enumerate(vars_))]
    return [_extension(distinct, rows, domains)]


def _boolean(vars_, domains) -> list[str]:
    """0/1 restrictions for the variables whose domain goes beyond 0/1."""
    return [_unary(v, [0, 1], domains) for v in dict.fromkeys(vars_)
            if not set(domains[v]) <= {0, 1}]


def constraint_lines(con, domains, aux: list | None = None) -> list[str] | str:
    """The XCSP3 constraints of one model constraint, or ``FALSE``; auxiliary variables
    it needs are declared in ``aux`` (None: none may be added)."""
    try:
        return _lines(con, domains, aux)
    except _Never:
        return FALSE


def _lines(con, domains, aux: list | None) -> list[str] | str:
    if isinstance(con, AllDifferent):
        if len(set(con.vars)) < len(con.vars):
            return FALSE
        return [f"<allDifferent> {' '.join(map(name, con.vars))} </allDifferent>"] \
            if len(con.vars) > 1 else []
    if isinstance(con, AllDifferentList):
        return _all_different_lists(con)
    if isinstance(con, Linear):
        if con.op not in CONDITION:
            raise ValueError(f"Linear with unknown operator {con.op!r}")
        terms = _merged(con.coeffs, con.vars)
        if not terms:
            return [] if _holds(0, con.op, con.rhs) else FALSE
        return [f"<sum> <list> {' '.join(name(v) for _, v in terms)} </list> "
                f"<coeffs> {' '.join(str(c) for c, _ in terms)} </coeffs> "
                f"<condition> ({CONDITION[con.op]},{con.rhs}) </condition> </sum>"]
    if isinstance(con, NotEqualOffset):
        if con.x == con.y:
            return FALSE if con.c == 0 else []
        right = name(con.y) if con.c == 0 else f"add({name(con.y)},{con.c})"
        return [f"<intension> ne({name(con.x)},{right}) </intension>"]
    if isinstance(con, Table):
        return _table(con.vars, con.tuples, domains)
    if isinstance(con, ReifiedLinear):
        return _reified(con, domains)
    if isinstance(con, Clause):
        literals = list(dict.fromkeys([f"eq({name(v)},1)" for v in con.positive]
                                      + [f"eq({name(v)},0)" for v in con.negative]))
        if not literals:
            return FALSE
        lines = _boolean((*con.positive, *con.negative), domains)
        if set(con.positive) & set(con.negative):       # x = 1 or x = 0: only 0/1 left
            return lines
        body = literals[0] if len(literals) == 1 else f"or({','.join(literals)})"
        return [*lines, f"<intension> {body} </intension>"]
    if isinstance(con, Element):
        return _element(con, domains, aux)
    if isinstance(con, Arith):
        return _arith(con, domains)
    raise ValueError(f"no XCSP3 form for constraint kind {type(con).__name__}")


def _all_different_lists(con: AllDifferentList) -> list[str] | str:
    """Per pair of lists of one length, ``or(ne(a1,b1),ne(a2,b2),...)`` (positions holding
    one variable dropped): ACE 2.6 refuses a variable twice in ``<allDifferent>``'s lists
    and fails on other overlaps."""
    lines = []
    for a, b in itertools.combinations([tuple(row) for row in con.lists], 2):
        if len(a) != len(b):                        # lists of two lengths differ
            continue
        terms = list(dict.fromkeys(f"ne({name(x)},{name(y)})" for x, y in zip(a, b) if x != y))
        if not terms:                               # one list twice: never different
            return FALSE
        body = terms[0] if len(terms) == 1 else f"or({','.join(terms)})"
        lines.append(f"<intension> {body} </intension>")
    return lines


def _element(con: Element, domains, aux: list | None) -> list[str] | str:
    k, base = len(con.vars), con.base
    positions = [i for i in domains[con.index] if base <= i < base + k]
    if not positions:
        return FALSE
    index, value = name(con.index), name(con.value)
    exact = len(positions) == len(domains[con.index])
    if len(set(con.vars)) < k or (aux is None and (base or not exact)):
        return [_unary(con.index, positions, domains)] + [           # one implication per position
            f"<intension> or(ne({index},{i}),eq({value},{name(con.vars[i - base])})) "
            "</intension>" for i in positions]
    lines = []
    if base or not exact:           # an index over the list's positions from 0 exactly
        shifted = f"a{len(aux)}"
        aux.append(f'<var id="{shifted}"> {domain_text([i - base for i in positions])} </var>')
        lines.append(f"<intension> eq({shifted},{f'sub({index},{base})' if base else index}) "
                     "</intension>")
        index = shifted
    return lines + [f"<element> <list> {' '.join(map(name, con.vars))} </list> <index> {index} "
                    f"</index> <value> {value} </value> </element>"]


def _reified(con: ReifiedLinear, domains) -> list[str] | str:
    if con.op not in CONDITION:
        raise ValueError(f"ReifiedLinear with unknown operator {con.op!r}")
    lit = con.literal
    terms = _merged(con.coeffs, con.vars)
    if not terms:                       # the Linear is a constant: the literal follows
        truth = _holds(0, con.op, con.rhs)
        return [_unary(lit, [0, 1] if con.implied and truth else [1] if truth else [0], domains)]
    inner = f"{CONDITION[con.op]}({_sum_expr(terms)},{con.rhs})"
    arrow = "imp" if con.implied else "iff"
    return [*_boolean((lit,), domains),
            f"<intension> {arrow}(eq({name(lit)},1),{inner}) </intension>"]


def _arith(con: Arith, domains) -> list[str] | str:
    arith_value(con.op, (1,) * len(con.args))        # an unknown operation raises here
    scope = list(dict.fromkeys((*con.args, con.result)))
    combos = 1
    for v in scope:
        combos *= max(1, len(domains[v]))
    if con.op in ("div", "mod", "pow") and combos <= TABLE_CAP:
        rows = []
        for values in itertools.product(*(sorted(domains[v]) for v in scope)):
            at = dict(zip(scope, values))
            if arith_value(con.op, [at[a] for a in con.args]) == at[con.result]:
                rows.append(values)
        return [_extension(scope, rows, domains)]
    args = [name(a) for a in con.args]
    result = name(con.result)
    if con.op in ("min", "max") and len(args) == 1:
        expr = args[0]
    else:
        op = {"times": "mul"}.get(con.op, con.op)
        expr = f"{op}({','.join(args)})"
    body = f"eq({result},{expr})"
    if con.op in ("div", "mod"):
        body = f"and(ne({args[1]},0),{body})"
    elif con.op == "pow":           # abs: no evaluator meets a negative exponent
        body = f"and(ge({args[1]},0),eq({result},pow({args[0]},abs({args[1]}))))"
    return [f"<intension> {body} </intension>"]


def write(model: Model) -> str:
    """The whole XCSP3 instance of ``model``: variables in model order, the givens as
    one instantiation, then the constraints in model order."""
    structure = model.structure
    domains = structure.domains
    lines = ['<instance format="XCSP3" type="CSP">',
             f"  <!-- {escape(model.name or structure.key)}: {structure.size} variables -->",
             "  <variables>"]
    never = False
    for i, dom in enumerate(domains):
        never |= not dom
        lines.append(f'    <var id="{name(i)}"> {domain_text(dom) if dom else "0"} </var>')
    lines += ["  </variables>", "  <constraints>"]
    givens: dict[int, int] = {}
    for var, value in model.givens:
        never |= value not in domains[var] or givens.setdefault(var, value) != value
    if givens:
        lines.append(f"    <instantiation> <list> {' '.join(map(name, givens))} </list> "
                     f"<values> {' '.join(map(str, givens.values()))} </values> "
                     "</instantiation>")
    aux: list[str] = []
    for con in structure.constraints:
        written = constraint_lines(con, domains, aux)
        if written == FALSE:
            never = True
            continue
        lines += [f"    {line}" for line in written]
    if never and structure.size:                    # an empty domain or a failing constraint
        lines.append(f"    {never_line(domains)}")
    lines += ["  </constraints>", "</instance>"]
    if aux:
        at = lines.index("  </variables>")
        lines[at:at] = [f"    {line}" for line in aux]
    return "\n".join(lines) + "\n"
