-------------------- MODULE BagsTheorems --------------------
(* A proof library: its theorems and proofs are skipped by the model checker, as TLC
   skips them, so only the module it builds on is provided. *)
EXTENDS Bags
============================================================
