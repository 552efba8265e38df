---- MODULE UnchangedPartsInner ----
VARIABLES x, z
Keep == UNCHANGED <<x, z>>
====
