---- MODULE RandomConst ----
\* Constant-level definitions that are impure: TLC evaluates each once, at start-up.
EXTENDS Naturals, TLC
VARIABLE v
G == RandomElement(1..1000)
D == Print("D evaluated", 1..3)
Init == v = G
Next == v' \in {G} \cup D /\ v' = G
Inv == v = G /\ G \in 1..1000
====
