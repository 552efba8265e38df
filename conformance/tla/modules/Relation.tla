------------------------------ MODULE Relation ------------------------------
(* Binary relations over a set S, each a Boolean function R with R[x, y] meaning that x is
   related to y (the community module's names; definitions written here from their
   documented meaning). Each property also comes as ...Under(op(_, _), S), the relation
   being op itself: op is applied only to the pairs the property consults. *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets

IsReflexive(R, S) == \A x \in S : R[x, x]
IsReflexiveUnder(op(_, _), S) == \A x \in S : op(x, x)

IsIrreflexive(R, S) == \A x \in S : ~R[x, x]
IsIrreflexiveUnder(op(_, _), S) == \A x \in S : ~op(x, x)

IsSymmetric(R, S) == \A x, y \in S : R[x, y] => R[y, x]
IsSymmetricUnder(op(_, _), S) == \A x, y \in S : op(x, y) => op(y, x)

IsAntiSymmetric(R, S) == \A x, y \in S : (R[x, y] /\ R[y, x]) => (x = y)
IsAntiSymmetricUnder(op(_, _), S) == \A x, y \in S : (op(x, y) /\ op(y, x)) => (x = y)

IsAsymmetric(R, S) == \A x, y \in S : R[x, y] => ~R[y, x]
IsAsymmetricUnder(op(_, _), S) == \A x, y \in S : op(x, y) => ~op(y, x)

IsTransitive(R, S) == \A x, y, z \in S : (R[x, y] /\ R[y, z]) => R[x, z]
IsTransitiveUnder(op(_, _), S) == \A x, y, z \in S : (op(x, y) /\ op(y, z)) => op(x, z)

IsStrictlyPartiallyOrdered(R, S) ==
    IsIrreflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsStrictlyPartiallyOrderedUnder(op(_, _), S) ==
    IsIrreflexiveUnder(op, S) /\ IsAntiSymmetricUnder(op, S) /\ IsTransitiveUnder(op, S)

IsPartiallyOrdered(R, S) ==
    IsReflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsPartiallyOrderedUnder(op(_, _), S) ==
    IsReflexiveUnder(op, S) /\ IsAntiSymmetricUnder(op, S) /\ IsTransitiveUnder(op, S)

IsStrictlyTotallyOrdered(R, S) ==
    IsStrictlyPartiallyOrdered(R, S) /\ \A x, y \in S : (x # y) => (R[x, y] \/ R[y, x])
IsStrictlyTotallyOrderedUnder(op(_, _), S) ==
    IsStrictlyPartiallyOrderedUnder(op, S) /\ \A x, y \in S : (x # y) => (op(x, y) \/ op(y, x))

IsTotallyOrdered(R, S) ==
    IsPartiallyOrdered(R, S) /\ \A x, y \in S : R[x, y] \/ R[y, x]
IsTotallyOrderedUnder(op(_, _), S) ==
    IsPartiallyOrderedUnder(op, S) /\ \A x, y \in S : op(x, y) \/ op(y, x)

(* Closure by squaring: after k rounds, x reaches y through a chain of at most 2^k steps of
   R, so Cardinality(S) rounds cover every chain. *)
TransitiveClosure(R, S) ==
    LET Round[k \in 0..Cardinality(S)] ==
            IF k = 0 THEN [p \in S \X S |-> R[p[1], p[2]]]
            ELSE LET P == Round[k - 1]
                 IN [p \in S \X S |-> P[p] \/ \E z \in S : P[p[1], z] /\ P[z, p[2]]]
    IN Round[Cardinality(S)]
ReflexiveTransitiveClosure(R, S) ==
    LET T == TransitiveClosure(R, S)
    IN [p \in S \X S |-> p[1] = p[2] \/ T[p]]
IsConnected(R, S) ==
    LET T == ReflexiveTransitiveClosure(R, S)
    IN \A x, y \in S : T[x, y]
=============================================================================
