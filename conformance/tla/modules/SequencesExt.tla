---------------------------- MODULE SequencesExt ----------------------------
(* More operators on sequences (the community module's names; definitions written
   here from their documented meaning). *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE Functions

ToSet(s) == {s[i] : i \in DOMAIN s}
Indices(s) == 1..Len(s)
SetToSeq(S) == CHOOSE f \in [1..Cardinality(S) -> S] : IsInjective(f)
SetToSortSeq(S, lt(_, _)) ==
    CHOOSE f \in [1..Cardinality(S) -> S] :
        IsInjective(f) /\ \A i \in 1..Cardinality(S) - 1 : lt(f[i], f[i + 1])
TupleOf(S, n) == [1..n -> S]
SeqOf(S, n) == UNION {[1..m -> S] : m \in 0..n}
BoundedSeq(S, n) == SeqOf(S, n)
Contains(s, e) == \E i \in 1..Len(s) : s[i] = e
Reverse(s) == [i \in 1..Len(s) |-> s[Len(s) - i + 1]]
Remove(s, e) == SelectSeq(s, LAMBDA t : t # e)
ReplaceAll(s, old, new) == [i \in 1..Len(s) |-> IF s[i] = old THEN new ELSE s[i]]
InsertAt(s, i, e) == SubSeq(s, 1, i - 1) \o <<e>> \o SubSeq(s, i, Len(s))
ReplaceAt(s, i, e) == [s EXCEPT ![i] = e]
RemoveAt(s, i) == SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))
Cons(e, s) == <<e>> \o s
Front(s) == SubSeq(s, 1, Len(s) - 1)
Last(s) == s[Len(s)]
IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, 1, Len(s)) = s
IsStrictPrefix(s, t) == IsPrefix(s, t) /\ s # t
IsSuffix(s, t) == IsPrefix(Reverse(s), Reverse(t))
IsStrictSuffix(s, t) == IsSuffix(s, t) /\ s # t

RECURSIVE FoldLeft(_, _, _)
FoldLeft(op(_, _), base, s) ==
    IF s = <<>> THEN base ELSE FoldLeft(op, op(base, Head(s)), Tail(s))
RECURSIVE FoldRight(_, _, _)
FoldRight(op(_, _), s, base) ==
    IF s = <<>> THEN base ELSE op(Head(s), FoldRight(op, Tail(s), base))
FlattenSeq(ss) == FoldLeft(LAMBDA a, b : a \o b, <<>>, ss)
Zip(s, t) == [i \in 1..Len(s) |-> <<s[i], t[i]>>]
SelectInSeq(s, Test(_)) ==
    LET I == {i \in 1..Len(s) : Test(s[i])}
    IN IF I = {} THEN 0 ELSE CHOOSE i \in I : \A j \in I : i <= j
SelectLastInSeq(s, Test(_)) ==
    LET I == {i \in 1..Len(s) : Test(s[i])}
    IN IF I = {} THEN 0 ELSE CHOOSE i \in I : \A j \in I : i >= j
=============================================================================
