---- MODULE StdOverrideLib ----
\* Uses Seq and Nat from the standard modules, which the cfg of StdOverride replaces.
EXTENDS Naturals, Sequences, FiniteSets
Short(S) == {p \in Seq(S) : Len(p) <= 1}
Small == {n \in Nat : n < 5}
====
