"""Symbolic checking with z3: the spec text, translated, decided by an SMT solver.

For auditors: ``kraftcheck prove`` discharges the three obligations of an inductive
invariant (``Init => IndInv``, ``IndInv /\\ Next => IndInv'`` per disjunct of ``Next``,
``IndInv => Safety``), and ``kraftcheck check --symbolic --length K`` runs bounded model
checking from ``Init``, each counterexample replayed on the explicit engine before it is
shown.

Layers (each a module with one job): ``encoding`` (the sorts of values and their z3
encoding), ``translate`` (expressions and actions of the engine's parsed AST, primed
variables included), ``split`` (the disjuncts of ``Next``), ``shapes`` (fresh states of
bounded size for the cfg's constants), ``prove`` (the obligations, in parallel), ``bmc``
(incremental bounded model checking), ``counterexample`` (z3 models back to the engine's
values, TLA+ text and ITF), ``replay`` (the explicit engine re-runs a symbolic trace) and
``cli`` (the ``prove`` subcommand). Nothing here restates a protocol: every formula comes
from the .tla text; a construct outside the supported fragment is a located error.
"""
