---------------------------- MODULE FiniteSetsExt ----------------------------
(* More operators on finite sets (the community module's names; definitions written
   here from their documented meaning). *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE Folds

FoldSet(op(_, _), base, S) == MapThenFoldSet(op, base, LAMBDA x : x, LAMBDA s : CHOOSE x \in s : TRUE, S)
ReduceSet(op(_, _), S, base) == FoldSet(op, base, S)
SumSet(S) == FoldSet(LAMBDA a, b : a + b, 0, S)
ProductSet(S) == FoldSet(LAMBDA a, b : a * b, 1, S)
Quantify(S, P(_)) == Cardinality({s \in S : P(s)})
kSubset(k, S) == {s \in SUBSET S : Cardinality(s) = k}
Max(S) == CHOOSE x \in S : \A y \in S : x >= y
Min(S) == CHOOSE x \in S : \A y \in S : x <= y
SymDiff(A, B) == (A \ B) \cup (B \ A)
ChooseUnique(S, P(_)) == CHOOSE x \in S : P(x) /\ \A y \in S : P(y) => y = x
=============================================================================
