---- MODULE UnchangedParts ----
\* UNCHANGED of a tuple that holds expressions besides variables: each item in turn (TLC's
\* processUnchanged): a variable is assigned, another expression compared in both states.
EXTENDS Naturals
VARIABLES y, z
c == 1
I == INSTANCE UnchangedPartsInner WITH x <- c + 1
Next == y < 2 /\ y' = y + 1 /\ UNCHANGED <<c, z>> /\ I!Keep
Moving == y < 2 /\ y' = y + 1 /\ UNCHANGED <<y * 0 + y, z>>
Init == y = 0 /\ z = 0
====
