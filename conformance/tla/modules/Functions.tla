------------------------------ MODULE Functions ------------------------------
(* Operators on functions (the community module's names; definitions written here
   from their documented meaning). *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets

Restrict(f, S) == [x \in S |-> f[x]]
RestrictDomain(f, Test(_)) == [x \in {y \in DOMAIN f : Test(y)} |-> f[x]]
RestrictValues(f, Test(_)) == LET D == {x \in DOMAIN f : Test(f[x])} IN [x \in D |-> f[x]]
IsRestriction(f, g) == DOMAIN f \subseteq DOMAIN g /\ \A x \in DOMAIN f : f[x] = g[x]
Range(f) == {f[x] : x \in DOMAIN f}
Inverse(f, S, T) == [t \in T |-> CHOOSE s \in S : t \in Range(f) => f[s] = t]
AntiFunction(f) == [y \in Range(f) |-> CHOOSE x \in DOMAIN f : f[x] = y]
IsInjective(f) == \A a, b \in DOMAIN f : f[a] = f[b] => a = b
IsSurjective(f, S, T) == \A t \in T : \E s \in S : f[s] = t
IsBijection(f, S, T) == IsInjective(f) /\ IsSurjective(f, S, T)
Injection(S, T) == {f \in [S -> T] : IsInjective(f)}
Surjection(S, T) == {f \in [S -> T] : IsSurjective(f, S, T)}
Bijection(S, T) == Injection(S, T) \cap Surjection(S, T)
ExistsInjection(S, T) == Injection(S, T) # {}
ExistsSurjection(S, T) == Surjection(S, T) # {}
ExistsBijection(S, T) == Bijection(S, T) # {}

RECURSIVE FoldFunctionOnSet(_, _, _, _)
FoldFunctionOnSet(op(_, _), base, f, S) ==
    IF S = {} THEN base
    ELSE LET x == CHOOSE y \in S : TRUE
         IN op(f[x], FoldFunctionOnSet(op, base, f, S \ {x}))
FoldFunction(op(_, _), base, f) == FoldFunctionOnSet(op, base, f, DOMAIN f)
=============================================================================
