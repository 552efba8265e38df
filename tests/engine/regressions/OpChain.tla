---- MODULE OpChain ----
\* Pick is substituted (implicitly, by name) for OpChainMid's operator constant, which
\* OpChainMid passes on: to OpChainLeaf's operator constant by its own INSTANCE, and as
\* the argument of an operator parameter (Twice(Pick, v')).
EXTENDS Naturals
VARIABLES v, w
Pick(r) == (r * 3) % 5
INSTANCE OpChainMid
====
