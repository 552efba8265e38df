--------------------------- MODULE UndirectedGraphs ---------------------------
(* Undirected graphs as records [node |-> N, edge |-> E], each edge a two-element set
   of nodes (the community module's names; definitions written here from their
   documented meaning). *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets

IsUndirectedGraph(G) ==
    /\ G = [node |-> G.node, edge |-> G.edge]
    /\ \A e \in G.edge : Cardinality(e) = 2 /\ e \subseteq G.node
UndirectedSubgraph(G) ==
    {H \in [node : SUBSET G.node, edge : SUBSET G.edge] :
        \A e \in H.edge : e \subseteq H.node}
LOCAL ShortPath(G) ==  \* paths of at most |G.node| nodes: enough for connectivity
    {p \in UNION {[1..n -> G.node] : n \in 1..Cardinality(G.node)} :
        \A i \in 1..(Cardinality(DOMAIN p) - 1) : {p[i], p[i + 1]} \in G.edge}
AreConnectedIn(m, n, G) == \E p \in ShortPath(G) : p[1] = m /\ p[Cardinality(DOMAIN p)] = n
IsStronglyConnected(G) == \A m, n \in G.node : AreConnectedIn(m, n, G)
ConnectedComponents(G) ==
    {{n \in G.node : AreConnectedIn(m, n, G)} : m \in G.node}
=============================================================================
