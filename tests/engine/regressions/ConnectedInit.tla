---- MODULE ConnectedInit ----
\* Init keeps the connected graphs on three nodes: those with two or three of the three
\* edges, 4 of the 8 edge sets. IsStronglyConnected is an equality (as in the community
\* module, whose components TLC computes in Java), so each graph is generated once.
EXTENDS Naturals, UndirectedGraphs
Nodes == 1..3
Edges == {{m, n} : m, n \in Nodes} \ {{n} : n \in Nodes}
VARIABLE nbrs
Init == \E e \in SUBSET Edges :
          /\ IsStronglyConnected([node |-> Nodes, edge |-> e])
          /\ nbrs = e
Next == UNCHANGED nbrs
====
