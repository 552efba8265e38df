-------------------------------- MODULE Folds --------------------------------
(* The general fold over a set: map each element with f, combine with op, taking
   the elements in the order choose picks them. *)
RECURSIVE MapThenFoldSet(_, _, _, _, _)
MapThenFoldSet(op(_, _), base, f(_), choose(_), S) ==
    IF S = {} THEN base
    ELSE LET x == choose(S)
         IN op(f(x), MapThenFoldSet(op, base, f, choose, S \ {x}))
=============================================================================
