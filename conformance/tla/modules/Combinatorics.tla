---------------------------- MODULE Combinatorics ----------------------------
(* The community module's names and meaning, definitions written here: n! as a function
   of the naturals, and the binomial coefficient (k <= n; TLC's Java version also
   computes these, failing beyond its 32-bit integers, where the engine's do not). *)
EXTENDS Naturals

factorial[n \in Nat] == IF n = 0 THEN 1 ELSE n * factorial[n - 1]

choose(n, k) == factorial[n] \div (factorial[k] * factorial[n - k])
=============================================================================
