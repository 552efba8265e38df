---- MODULE ScopedLib ----
Max == 3
Lim == Max
====
