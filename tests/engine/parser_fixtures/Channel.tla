------------------------------ MODULE Channel ------------------------------
(* A FIFO channel of data items, with a fold over the queue. *)
EXTENDS Naturals
CONSTANTS Data, Reduce(_, _)
VARIABLE queue

LOCAL Seqs == INSTANCE Sequences

RECURSIVE Fold(_, _)
Fold(s, acc) == IF s = <<>> THEN acc ELSE Fold(Seqs!Tail(s), Reduce(acc, Seqs!Head(s)))

sum[i \in 0..10] == IF i = 0 THEN 0 ELSE i + sum[i - 1]

Init == queue = <<>>
Send(d) == queue' = Seqs!Append(queue, d)
Rcv == /\ queue /= <<>>
       /\ queue' = Seqs!Tail(queue)
Next == (\E d \in Data : Send(d)) \/ Rcv
Total == Fold(queue, 0)
ASSUME \A a, b \in Data : Reduce(a, b) \in Nat
=============================================================================
