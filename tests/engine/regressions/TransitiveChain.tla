---- MODULE TransitiveChain ----
\* Relation.tla's TransitiveClosure (as the public Echo spec uses it) of a chain: trcl[n]
\* applies trcl[n - 1] at each point of a function constructor.
EXTENDS Naturals, FiniteSets
CONSTANT N
S == 1..N
R == [x, y \in S |-> y = x + 1]
TransitiveClosure(Rel, Set) ==
  LET trcl[n \in Nat] ==
          [x, y \in Set |-> IF n = 0 THEN Rel[x, y]
                            ELSE \/ trcl[n - 1][x, y]
                                 \/ \E z \in Set : trcl[n - 1][x, z] /\ trcl[n - 1][z, y]]
  IN  trcl[Cardinality(Set)]
VARIABLE tc
Init == tc = TransitiveClosure(R, S)
Next == UNCHANGED tc
Inv == \A x, y \in S : tc[x, y] = (x < y)
====
