"""Canonical sets (``conformance/symbolic/encoding.py``): the slot-by-slot equality of two
canonical sets is checked against mutual inclusion, the encoding's equality of any two
sets, by z3 itself: under the order that ``well_formed`` puts on fresh canonical sets, the
two formulas are equivalent (their difference is unsatisfiable) for sets of integers,
atoms, booleans, tuples and records, of equal and unequal widths, fresh, lifted from
concrete sets and built by ``ite``. The order loses no set: every set within the width
has a canonical form (including the smallest atom code, which an order that chained
absent slots to present ones would exclude). Seeded bugs that fail these tests: present
slots not forced first, a concrete set lifted unsorted, records ordered by another field
order in ``lift`` than in ``well_formed``, ``ite`` taking a slot of the wrong branch, a
canonical set aligned across a step."""

from __future__ import annotations

from itertools import combinations

import pytest
import z3

from conformance.symbolic import encoding as E
from conformance.symbolic.aligned import aligned_state
from conformance.symbolic.encoding import Shape, SSet, both, eq, fresh, lift, subseteq, well_formed
from conformance.symbolic.shapes import SymbolicState
from conformance.tla.syntax import Loc
from conformance.tla.values import Fn

LOC = Loc("test", 1, 1)
ATOMS = 4  # fresh atoms range over the codes 0..3

INT = Shape("int")
ATOM = Shape("atom")
BOOL = Shape("bool")
PAIR = Shape("tuple", elems=(INT, INT))
RECORD = Shape("fun", keys=("value", "epoch"), elems=(ATOM, INT))  # not in _fields order
ELEMENTS = {"int": INT, "atom": ATOM, "bool": BOOL, "pair": PAIR, "record": RECORD}


def canonical_set(elem: Shape, size: int, name: str, atoms: list[z3.ArithRef]) -> SSet:
    s = fresh(Shape("set", elems=(elem,), size=size), name, atoms, nested=True)
    assert isinstance(s, SSet) and s.canonical
    return s


def mutual_inclusion(a: SSet, b: SSet) -> z3.BoolRef:
    return both(subseteq(a, b), subseteq(b, a))


def valid(premises: list[z3.BoolRef], claim: z3.BoolRef, atoms: list[z3.ArithRef]) -> bool:
    solver = z3.Solver()
    solver.add(*premises, *[z3.And(t >= 0, t < ATOMS) for t in atoms], z3.Not(claim))
    return solver.check() == z3.unsat


@pytest.mark.parametrize("kind", sorted(ELEMENTS))
@pytest.mark.parametrize("widths", [(3, 3), (2, 4), (4, 1)])
def test_slot_by_slot_equality_is_mutual_inclusion(kind: str, widths: tuple[int, int]) -> None:
    atoms: list[z3.ArithRef] = []
    shape = Shape("set", elems=(ELEMENTS[kind],), size=widths[0])
    a = canonical_set(ELEMENTS[kind], widths[0], "a", atoms)
    b = canonical_set(ELEMENTS[kind], widths[1], "b", atoms)
    wf = [well_formed(a, shape), well_formed(b, Shape("set", elems=(ELEMENTS[kind],), size=widths[1]))]
    assert valid(wf, eq(a, b) == mutual_inclusion(a, b), atoms)
    assert not valid(wf, eq(a, b), atoms)  # not a vacuous claim: the sets may differ


@pytest.mark.parametrize("kind", ["int", "atom", "pair"])
def test_every_set_within_the_width_has_a_canonical_form(kind: str) -> None:
    universe = {"int": [z3.IntVal(v) for v in (-1, 0, 5)],
                "atom": [E.Atom(z3.IntVal(c)) for c in (0, 1, ATOMS - 1)],
                "pair": [E.SSeq(z3.IntVal(2), (z3.IntVal(x), z3.IntVal(y))) for x, y in ((0, 0), (0, 1), (-3, 9))]}[kind]
    atoms: list[z3.ArithRef] = []
    a = canonical_set(ELEMENTS[kind], 2, "a", atoms)
    wf = well_formed(a, Shape("set", elems=(ELEMENTS[kind],), size=2))
    for k in range(4):
        for chosen in combinations(universe, k):
            target = SSet(tuple((E.TRUE, x) for x in reversed(chosen)))  # not canonical: inclusion
            solver = z3.Solver()
            solver.add(wf, *[z3.And(t >= 0, t < ATOMS) for t in atoms], eq(a, target))
            assert solver.check() == (z3.sat if k <= 2 else z3.unsat), chosen


def test_a_lifted_concrete_set_is_canonical_and_compares_by_slots() -> None:
    table = E.Atoms()
    for name in ("voters", "leaderChange", "kraft"):  # codes not in the strings' order
        table.of(name)
    values = [frozenset({3, -2, 7}), frozenset({(2, 1), (1, 5), (1, 2)}), frozenset({"kraft", "voters"}),
              frozenset({Fn({"epoch": 2, "value": "voters"}), Fn({"epoch": 2, "value": "kraft"}),
                         Fn({"epoch": 1, "value": "leaderChange"})}),
              frozenset({Fn({2: 0, 10: 5}), Fn({2: 1, 10: 0})})]  # keys compared as ``_fields`` orders them
    shapes = [INT, PAIR, ATOM, RECORD, Shape("fun", keys=(2, 10), elems=(INT, INT))]
    for v, elem in zip(values, shapes, strict=True):
        lifted = lift(v, table)
        assert isinstance(lifted, SSet) and lifted.canonical
        atoms: list[z3.ArithRef] = []
        a = canonical_set(elem, 3, "a", atoms)
        wf = [well_formed(a, Shape("set", elems=(elem,), size=3)),
              *[z3.And(t >= 0, t < 3) for t in atoms]]
        assert valid(wf, eq(a, lifted) == mutual_inclusion(a, lifted), atoms), v
        solver = z3.Solver()  # the fresh set can be the lifted one
        solver.add(*wf, eq(a, lifted))
        assert solver.check() == z3.sat
    mixed = lift(frozenset({1, "kraft"}), table)  # no common order: compared by inclusion
    assert isinstance(mixed, SSet) and not mixed.canonical


def test_ite_of_canonical_sets_is_canonical_and_picks_the_branch() -> None:
    atoms: list[z3.ArithRef] = []
    c = z3.Bool("c")
    a, b, other = (canonical_set(PAIR, n, name, atoms) for n, name in ((3, "a"), (2, "b"), (3, "o")))
    wf = [well_formed(x, Shape("set", elems=(PAIR,), size=len(x.slots))) for x in (a, b, other)]
    picked = E.ite(c, a, b, LOC)
    assert isinstance(picked, SSet) and picked.canonical and len(picked.slots) == 3
    assert valid(wf, z3.And(z3.Implies(c, mutual_inclusion(picked, a)),
                            z3.Implies(z3.Not(c), mutual_inclusion(picked, b))), atoms)
    assert valid(wf, eq(picked, other) == mutual_inclusion(picked, other), atoms)
    plain = fresh(Shape("set", elems=(PAIR,), size=2), "p", atoms)  # a state variable's set
    assert isinstance(plain, SSet) and not plain.canonical
    mixed = E.ite(c, a, plain, LOC)
    assert isinstance(mixed, SSet) and not mixed.canonical and len(mixed.slots) == 5


def test_which_fresh_sets_are_canonical() -> None:
    atoms: list[z3.ArithRef] = []
    entry = Shape("fun", keys=("epoch", "voters"), elems=(INT, Shape("set", elems=(PAIR,), size=2)))
    log = fresh(Shape("seq", elems=(entry,), size=2), "log", atoms)
    assert isinstance(log, E.SSeq)
    voters = [item.vals[1] for item in log.items if isinstance(item, E.SFun)]
    assert len(voters) == 2 and all(isinstance(v, SSet) and v.canonical for v in voters)
    top = fresh(Shape("set", elems=(INT,), size=2), "top", atoms)  # aligned across a step instead
    assert isinstance(top, SSet) and not top.canonical
    of_sets = fresh(Shape("set", elems=(Shape("set", elems=(INT,), size=2),), size=2), "s", atoms, nested=True)
    assert isinstance(of_sets, SSet) and not of_sets.canonical  # sets are not ordered values
    assert all(isinstance(x, SSet) and x.canonical for _, x in of_sets.slots)


def test_a_canonical_set_is_not_aligned() -> None:
    """Aligned, a set's fresh part would be its last slots, whose order chains them to the
    dropped first ones: with the first state's set empty, the second could not hold the
    two smallest atom codes. Left canonical, it can."""
    atoms: list[z3.ArithRef] = []
    old = canonical_set(ATOM, 2, "old", atoms)
    new = canonical_set(ATOM, 4, "new", atoms)
    wf = well_formed(new, Shape("set", elems=(ATOM,), size=4))
    t = aligned_state(SymbolicState({"v": old}, E.TRUE), SymbolicState({"v": new}, wf), ["v"])
    two = SSet(((E.TRUE, E.Atom(z3.IntVal(0))), (E.TRUE, E.Atom(z3.IntVal(1)))))
    solver = z3.Solver()
    solver.add(t.wellformed, *[z3.And(x >= 0, x < ATOMS) for x in atoms], *[z3.Not(g) for g, _ in old.slots],
               eq(t.values["v"], two))
    assert solver.check() == z3.sat
