------------------------------- MODULE Graphs -------------------------------
(* Directed graphs as records [node |-> N, edge |-> E], each edge an ordered pair <<m, n>>
   from m to n (the community module's names; definitions written here from their
   documented meaning). An element of G.edge that is not a pair of nodes joins nothing. *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets
LOCAL INSTANCE Relation

IsDirectedGraph(G) ==
    /\ G = [node |-> G.node, edge |-> G.edge]
    /\ \A e \in G.edge : e \in G.node \X G.node
DirectedSubgraph(G) ==
    UNION {{[node |-> N, edge |-> E] : E \in SUBSET (G.edge \cap (N \X N))} : N \in SUBSET G.node}
Transpose(G) == [node |-> G.node, edge |-> {<<e[2], e[1]>> : e \in G.edge}]
-----------------------------------------------------------------------------
IsUndirectedGraph(G) == IsDirectedGraph(G) /\ Transpose(G).edge \subseteq G.edge
UndirectedSubgraph(G) == {H \in DirectedSubgraph(G) : Transpose(H).edge = H.edge}
-----------------------------------------------------------------------------
(* Every non-empty sequence of nodes following edges: infinite as soon as G has a cycle,
   and in any case not enumerable (as for TLC); membership is decided. *)
Path(G) == {p \in Seq(G.node) : Len(p) > 0 /\ \A i \in 1..(Len(p) - 1) : <<p[i], p[i + 1]>> \in G.edge}

(* The paths without a repeated node, grown one node at a time. *)
SimplePath(G) ==
    LET Next(p) == {n \in G.node \ {p[i] : i \in DOMAIN p} : <<p[Len(p)], n>> \in G.edge}
        Long[k \in 1..Cardinality(G.node)] ==
            IF k = 1 THEN {<<n>> : n \in G.node}
            ELSE UNION {{Append(p, n) : n \in Next(p)} : p \in Long[k - 1]}
    IN UNION {Long[k] : k \in 1..Cardinality(G.node)}

LOCAL ReachableFrom(G, m) ==  \* m and the nodes reached from it following edges
    LET Within[k \in 0..Cardinality(G.node)] ==
            IF k = 0 THEN {m}
            ELSE LET W == Within[k - 1] IN W \cup {n \in G.node : \E x \in W : <<x, n>> \in G.edge}
    IN Within[Cardinality(G.node)]
AreConnectedIn(m, n, G) == m \in G.node /\ n \in G.node /\ n \in ReachableFrom(G, m)

LOCAL EdgeRelation(G) == [p \in G.node \X G.node |-> p \in G.edge]
(* Whether a path leads from m to n, for every pair of nodes (a node reaches itself). *)
ConnectionsIn(G) == ReflexiveTransitiveClosure(EdgeRelation(G), G.node)
IsStronglyConnected(G) == \A m \in G.node : ReachableFrom(G, m) = G.node
-----------------------------------------------------------------------------
(* Edges point from a child to its parent, towards the root r. *)
IsTreeWithRoot(G, r) ==
    /\ IsDirectedGraph(G)
    /\ \A e \in G.edge : e[1] # r /\ Cardinality({f \in G.edge : f[1] = e[1]}) = 1
    /\ \A n \in G.node : r \in ReachableFrom(G, n)
-----------------------------------------------------------------------------
GraphUnion(G, H) == [node |-> G.node \cup H.node, edge |-> G.edge \cup H.edge]
IsBipartiteWithPartitions(G, U, V) ==
    /\ U \cap V = {}
    /\ G.node \subseteq U \cup V
    /\ \A e \in G.edge : (e[1] \in U /\ e[2] \in V) \/ (e[1] \in V /\ e[2] \in U)
HasCycle(G) == \E n \in G.node : TransitiveClosure(EdgeRelation(G), G.node)[n, n]
IsDag(G) == IsDirectedGraph(G) /\ ~HasCycle(G)
Successors(G, n) == {m \in G.node : <<n, m>> \in G.edge}
AllSuccessors(G, S) == UNION {Successors(G, n) : n \in S}
Predecessors(G, n) == {m \in G.node : <<m, n>> \in G.edge}
AllPredecessors(G, S) == UNION {Predecessors(G, n) : n \in S}
Ancestors(G, n) ==  \* the nodes from which a path of one edge or more leads to n
    LET T == TransitiveClosure(EdgeRelation(G), G.node) IN {m \in G.node : T[m, n]}
Descendants(G, n) ==  \* the nodes a path of one edge or more leads to from n
    LET T == TransitiveClosure(EdgeRelation(G), G.node) IN {m \in G.node : T[n, m]}
InDegree(G, n) == Cardinality(Predecessors(G, n))
OutDegree(G, n) == Cardinality(Successors(G, n))
Roots(G) == {n \in G.node : Predecessors(G, n) = {}}
Leaves(G) == {n \in G.node : Successors(G, n) = {}}
-----------------------------------------------------------------------------
EmptyGraph == [node |-> {}, edge |-> {}]
Graphs(S) == [node : {S}, edge : SUBSET (S \X S)]
=============================================================================
