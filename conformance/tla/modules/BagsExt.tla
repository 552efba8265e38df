------------------------------- MODULE BagsExt -------------------------------
(* More operators on bags (functions from elements to positive counts): the community
   module's names and meaning, definitions written here. FoldBag folds as TLC's Java
   version does: the elements in TLC's order of values (CHOOSE's first), each as many
   times as the bag holds it, op(accumulated, element). *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Folds

BagAdd(B, x) ==
    IF x \in DOMAIN B
    THEN [e \in DOMAIN B |-> IF e = x THEN B[e] + 1 ELSE B[e]]
    ELSE [e \in DOMAIN B \cup {x} |-> IF e = x THEN 1 ELSE B[e]]

BagRemove(B, x) ==
    IF x \notin DOMAIN B THEN B
    ELSE IF B[x] = 1 THEN [e \in DOMAIN B \ {x} |-> B[e]]
    ELSE [e \in DOMAIN B |-> IF e = x THEN B[e] - 1 ELSE B[e]]

BagRemoveAll(B, x) == [e \in DOMAIN B \ {x} |-> B[e]]

RECURSIVE FoldBagFrom(_, _, _, _)
LOCAL FoldBagFrom(op(_, _), acc, B, S) ==  \* S: the elements not folded yet
    IF S = {} THEN acc
    ELSE LET x == CHOOSE y \in S : TRUE
             Times[n \in 0..B[x]] == IF n = 0 THEN acc ELSE op(Times[n - 1], x)
         IN FoldBagFrom(op, Times[B[x]], B, S \ {x})

FoldBag(op(_, _), base, B) == FoldBagFrom(op, base, B, DOMAIN B)

(* op over the images through f of the bag's elements, each element's copies combined
   first (op(...op(base, f(x))..., f(x))), then the elements folded as Folds'
   MapThenFoldSet does, taking them in CHOOSE's order (as the community module's text
   does, whatever choose is given). *)
MapThenFoldBag(op(_, _), base, f(_), choose(_), B) ==
    LET Copies(x) ==
            LET P[n \in 1..B[x]] == op(IF n = 1 THEN base ELSE P[n - 1], f(x))
            IN P[B[x]]
    IN MapThenFoldSet(op, base, Copies, LAMBDA S : CHOOSE x \in S : TRUE, DOMAIN B)

SumBag(B) == FoldBag(LAMBDA a, b : a + b, 0, B)
ProductBag(B) == FoldBag(LAMBDA a, b : a * b, 1, B)
=============================================================================
