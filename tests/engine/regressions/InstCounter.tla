---- MODULE InstCounter ----
EXTENDS Naturals
CONSTANT Limit
VARIABLE c
Inc == c < Limit /\ c' = c + 1
Ok == c <= Limit
====
