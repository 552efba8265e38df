"""TLA+ semantics: the compiler of the engine's AST into Python closures, split by what it
compiles (one module per construct class) over the shared pieces (compiled nodes, name
tables and scopes, memoisation, source templates).

Construct modules, each a class extending the previous one:
``operators`` (names, definitions, operator application, by-name parameters) ->
``builtins`` (=, \\in, set algebra, booleans, arithmetic) -> ``control`` (/\\ \\/ lists,
IF, CASE, LET) -> ``quantifiers`` (\\A, \\E, CHOOSE, bounds) -> ``sets`` -> ``functions``
(incl. EXCEPT) -> ``records`` (records, tuples, LAMBDA) -> ``primes`` (e', UNCHANGED,
[A]_v, temporal) -> ``instances`` (I!Op). ``conformance.tla.compiler.Compiler`` is the
last of them.
"""
