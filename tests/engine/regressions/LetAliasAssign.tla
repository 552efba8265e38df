---- MODULE LetAliasAssign ----
\* Variables assigned through a LET alias of an operator parameter (TLC reads the left side
\* of an assignment through zero-arity definitions and arguments) and inside \A.
EXTENDS Naturals
VARIABLES x, y
Pick(a, b) == LET c == a IN c \in {1, 2} /\ b = 3
All(v, S) == \A w \in S : v = w
Bump(a, b) == x < 5 /\ LET c == a IN c = x + 2 /\ b = y
Init == Pick(x, y) \/ (All(x, {7}) /\ y = 3)
Next == Bump(x', y') \/ (All(x', {x}) /\ y' = y)
NotSix == x # 6
\* reads x (a parameter passed by value: only read) before x = 1 assigns it
Peek(a, b) == LET c == a IN b = c + 1
PeekInit == Peek(x, y) /\ x = 1
====
