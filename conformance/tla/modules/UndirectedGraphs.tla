--------------------------- MODULE UndirectedGraphs ---------------------------
(* Undirected graphs as records [node |-> N, edge |-> E], each edge a set {a, b} of one or
   two nodes ({a} is a loop at a): the community module's names and meaning, definitions
   written here. TLC replaces SimplePath, AreConnectedIn and ConnectedComponents by Java
   code, which its search evaluates as values, never walking into them for successors; so
   the definitions below that stand for them are values and set memberships too, and
   IsStronglyConnected is an equality, as in the community module: an Init or an action
   that calls them generates the states TLC generates, one per choice of the spec's own. *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets

IsUndirectedGraph(G) ==
    /\ G = [node |-> G.node, edge |-> G.edge]
    /\ \A e \in G.edge : \E a, b \in G.node : e = {a, b}
IsLoopFreeUndirectedGraph(G) ==
    /\ G = [node |-> G.node, edge |-> G.edge]
    /\ \A e \in G.edge : \E a, b \in G.node : a # b /\ e = {a, b}
UndirectedSubgraph(G) ==
    {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsUndirectedGraph(H)}
-----------------------------------------------------------------------------
(* Every non-empty sequence of nodes following edges: infinite as soon as G has an edge
   (not enumerable, as for TLC); membership is decided. *)
Path(G) == {p \in Seq(G.node) : Len(p) > 0 /\ \A i \in 1..(Len(p) - 1) : {p[i], p[i + 1]} \in G.edge}

(* The paths without a repeated node, grown one node at a time. *)
SimplePath(G) ==
    LET Next(p) == {n \in G.node \ {p[i] : i \in DOMAIN p} : {p[Len(p)], n} \in G.edge}
        Long[k \in 1..Cardinality(G.node)] ==
            IF k = 1 THEN {<<n>> : n \in G.node}
            ELSE UNION {{Append(p, n) : n \in Next(p)} : p \in Long[k - 1]}
    IN UNION {Long[k] : k \in 1..Cardinality(G.node)}

LOCAL Reach(G, m) ==  \* the nodes a path from m reaches: {} when m is not a node
    LET Within[k \in 0..Cardinality(G.node)] ==
            IF k = 0 THEN {m} \cap G.node
            ELSE LET W == Within[k - 1] IN W \cup {n \in G.node : \E x \in W : {x, n} \in G.edge}
    IN Within[Cardinality(G.node)]
AreConnectedIn(m, n, G) == n \in Reach(G, m)

(* The maximal sets of nodes connected to each other: one per node, the nodes it reaches. *)
ConnectedComponents(G) == {Reach(G, m) : m \in G.node}
IsStronglyConnected(G) == ConnectedComponents(G) = {G.node}
-----------------------------------------------------------------------------
(* Every undirected graph on the nodes S, loops included. *)
UndirectedGraphs(S) == [node : {S}, edge : SUBSET {{s, t} : <<s, t>> \in S \X S}]
=============================================================================
