---- MODULE StdOverride ----
\* The cfg replaces Seq by SeqUpTo2 and Nat by 0..2: Seq({"a", "b"}) is then the 7 sequences
\* of length at most 2, and x \in Nat picks 0, 1 or 2. The replacement holds in the
\* extended module too (Short, Small): TLC replaces the standard module's definition.
EXTENDS StdOverrideLib
VARIABLES x, p
SeqUpTo2(S) == {<<>>} \cup {<<s>> : s \in S} \cup {<<s, t>> : s, t \in S}
NatUpTo2 == 0 .. 2
Init == x \in Nat /\ p = <<>>
Next == \E q \in Seq({"a", "b"}) : p' = q /\ UNCHANGED x
Counts == Cardinality(Seq({"a", "b"})) = 7 /\ Cardinality(Short({"a"})) = 2
          /\ Small = 0 .. 2
====
