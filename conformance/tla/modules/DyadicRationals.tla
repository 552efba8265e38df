--------------------------- MODULE DyadicRationals ---------------------------
(* Dyadic rationals (a denominator that is a power of two) as records
   [num |-> n, den |-> d]: the community module's names and meaning, definitions written
   here. Add and Half reduce their result (numerator and denominator divided by their
   greatest common divisor), as TLC's Java Reduce does; Add(Zero, q) is q as given. *)
LOCAL INSTANCE Integers
LOCAL INSTANCE TLC

RECURSIVE Gcd(_, _)
LOCAL Gcd(a, b) ==  \* Euclid's algorithm, on naturals
    IF b = 0 THEN a ELSE Gcd(b, a % b)
LOCAL Abs(n) == IF n < 0 THEN -n ELSE n
LOCAL Reduce(p) ==
    LET d == Gcd(Abs(p.num), Abs(p.den))
    IN IF d = 1 THEN p ELSE [num |-> p.num \div d, den |-> p.den \div d]

IsDyadicRational(r) == \E i \in 0..r.den : 2^i = r.den

Zero == [num |-> 0, den |-> 1]
One == [num |-> 1, den |-> 1]

(* The sum over the larger denominator (the other divides it: both are powers of two). *)
Add(p, q) ==
    IF p = Zero THEN q
    ELSE LET d == IF p.den >= q.den THEN p.den ELSE q.den
         IN Reduce([num |-> q.num * (d \div q.den) + p.num * (d \div p.den), den |-> d])

Half(p) == Reduce([num |-> p.num, den |-> p.den * 2])

PrettyPrint(p) ==
    IF p = Zero THEN "0"
    ELSE IF p = One THEN "1"
    ELSE ToString(p.num) \o "/" \o ToString(p.den)
=============================================================================
