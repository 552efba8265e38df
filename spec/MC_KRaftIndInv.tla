---------------------------- MODULE MC_KRaftIndInv ----------------------------
(***************************************************************************)
(* Apalache-only harness of the inductive-invariant check (it extends       *)
(* Apalache's own module for Gen).  IndInit describes every state of        *)
(* bounded size that satisfies IndInv, symbolically:                        *)
(*   apalache-mc check --cinit=ConstInitSmall --init=Init    --inv=IndInv --length=0 MC_KRaftIndInv.tla *)
(*   apalache-mc check --cinit=ConstInitSmall --init=IndInit --inv=IndInv --length=1 MC_KRaftIndInv.tla *)
(*   apalache-mc check --cinit=ConstInitSmall --init=IndInit --inv=Safety --length=0 MC_KRaftIndInv.tla *)
(* or `kraftcheck apalache inductive spec/MC_KRaftIndInv.tla --cinit ConstInitSmall`. *)
(***************************************************************************)
EXTENDS MC_KRaft, Apalache

\* Arbitrary values of the annotated types, of bounded size, restricted to the
\* model's bounds and to IndInv.
IndInit ==
    /\ currentEpoch = Gen(3)
    /\ votedId = Gen(3)
    /\ leaderId = Gen(3)
    /\ log = Gen(3)
    /\ role = Gen(3)
    /\ highWatermark = Gen(3)
    /\ votesGranted = Gen(3)
    /\ endorsers = Gen(3)
    /\ replicaEndOffset = Gen(3)
    /\ dirId = Gen(3)
    /\ replicaDirectoryId = Gen(3)
    /\ pendingVoterChange = Gen(3)
    /\ messages = Gen(6)
    /\ elections = Gen(3)
    /\ votes = Gen(6)
    /\ committed = Gen(3)
    /\ restarts = Gen(1)
    /\ unflushed = Gen(3)
    /\ StateBounds
    /\ IndInv

=============================================================================
