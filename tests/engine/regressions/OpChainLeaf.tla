---- MODULE OpChainLeaf ----
CONSTANT Pick(_)
Step(r) == Pick(r)
====
