"""Typed abstract syntax of the TLA+ fragment the engine executes.

The parser (``parser.py``) builds these nodes from tree-sitter-tlaplus parse trees;
the compiler (``compiler.py``) turns them into Python closures. Every node carries a
``Loc`` so that any later error can name ``file:line:col``.

Conventions
-----------
* Operator symbols are normalised to one canonical spelling (see ``CANONICAL``):
  ``\\union`` becomes ``\\cup``, ``#`` becomes ``/=``, ``\\leq`` and ``=<`` become ``<=``,
  and so on. Built-in and user-defined operators alike are applied with ``OpApp``; the
  compiler resolves a name to a user definition first, then to a standard-module one.
* Unary minus is the operator ``-.`` (as in TLA+'s own definition syntax ``-. a``).
* Bulleted junction lists and infix ``/\\`` / ``\\/`` both become flat ``And`` / ``Or``.
* Parentheses and labels (``l :: e``) are dropped; ``Prime`` and ``Unchanged`` stay
  explicit because action evaluation treats them specially.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Loc:
    """A source position: file path, 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_LOC = Loc("<builtin>", 0, 0)

# Canonical spellings of operator symbols; keys are alternative spellings.
CANONICAL: dict[str, str] = {
    "\\union": "\\cup",
    "\\intersect": "\\cap",
    "#": "/=",
    "\\neq": "/=",
    "=<": "<=",
    "\\leq": "<=",
    "\\geq": ">=",
    "\\land": "/\\",
    "\\lor": "\\/",
    "\\lnot": "~",
    "\\neg": "~",
    "\\equiv": "<=>",
    "\\notin": "\\notin",
    "\\setminus": "\\",
    "\\o": "\\o",
    "\\circ": "\\o",
    "\\X": "\\times",
    # SANY's synonyms of the circled operators (Bags writes (+) and \oplus for one operator).
    "(+)": "\\oplus",
    "(-)": "\\ominus",
    "(.)": "\\odot",
    "(/)": "\\oslash",
    "(\\X)": "\\otimes",
}


def canonical(symbol: str) -> str:
    """The canonical spelling of an operator symbol."""
    return CANONICAL.get(symbol, symbol)


# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expr:
    loc: Loc


@dataclass(frozen=True, slots=True)
class Num(Expr):
    value: int


@dataclass(frozen=True, slots=True)
class Str(Expr):
    value: str


@dataclass(frozen=True, slots=True)
class Bool(Expr):
    value: bool


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A bare identifier: variable, constant, bound variable or nullary operator.

    Built-in constant sets (``BOOLEAN``, ``STRING``, ``Nat``, ``Int``) are names too.
    """

    name: str


@dataclass(frozen=True, slots=True)
class OpApp(Expr):
    """Application of a named operator (user-defined or built-in) to arguments.

    Prefix, infix and postfix operators other than prime use this node with their
    canonical symbol as ``name``: ``a \\cup b`` is ``OpApp("\\cup", (a, b))``,
    ``SUBSET S`` is ``OpApp("SUBSET", (S,))``, ``DOMAIN f`` is ``OpApp("DOMAIN", (f,))``.
    An argument may be a ``Lambda`` or a ``Name`` of an operator (higher-order use).
    """

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class InstanceOpApp(Expr):
    """``I!Op(args)``: an operator of a named instance (nested ``I!J!Op`` keeps the path)."""

    path: tuple[str, ...]  # instance names, outermost first
    name: str
    args: tuple[Expr, ...]
    # the arguments of each instance of ``path`` (``I(a)!Op``: a parameterised instance);
    # empty when no instance of the path takes parameters
    path_args: tuple[tuple[Expr, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class And(Expr):
    items: tuple[Expr, ...]
    bullet: bool = False  # written as a bulleted list (``/\ a /\ b``), not ``a /\ b``


@dataclass(frozen=True, slots=True)
class Or(Expr):
    items: tuple[Expr, ...]
    bullet: bool = False  # written as a bulleted list


@dataclass(frozen=True, slots=True)
class If(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass(frozen=True, slots=True)
class CaseArm:
    cond: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class Case(Expr):
    arms: tuple[CaseArm, ...]
    other: Expr | None


@dataclass(frozen=True, slots=True)
class Let(Expr):
    defs: tuple[Unit, ...]  # OpDef, FnDef or Recursive
    body: Expr


@dataclass(frozen=True, slots=True)
class Bound:
    """``x \\in S``, ``x, y \\in S`` or ``<<x, y>> \\in S`` in a quantifier or constructor.

    ``names`` lists the bound identifiers; ``tuple_pattern`` is True for ``<<x, y>> \\in S``
    (one element of S destructured), False for ``x, y \\in S`` (each name ranges over S).
    """

    names: tuple[str, ...]
    tuple_pattern: bool
    domain: Expr
    loc: Loc


@dataclass(frozen=True, slots=True)
class Quant(Expr):
    """Bounded ``\\A`` (kind "A") or ``\\E`` (kind "E")."""

    kind: str
    bounds: tuple[Bound, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class UnboundedQuant(Expr):
    """``\\A x : P`` / ``\\E x : P`` (and temporal ``\\AA``/``\\EE`` with kind "AA"/"EE")."""

    kind: str
    names: tuple[str, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class Choose(Expr):
    """``CHOOSE x \\in S : P``; ``domain`` is None for the unbounded form."""

    names: tuple[str, ...]
    tuple_pattern: bool
    domain: Expr | None
    body: Expr


@dataclass(frozen=True, slots=True)
class SetEnum(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class SetFilter(Expr):
    """``{x \\in S : P}``."""

    bound: Bound
    pred: Expr


@dataclass(frozen=True, slots=True)
class SetMap(Expr):
    """``{e : x \\in S, y \\in T}``."""

    expr: Expr
    bounds: tuple[Bound, ...]


@dataclass(frozen=True, slots=True)
class FnConstruct(Expr):
    """``[x \\in S, y \\in T |-> e]``."""

    bounds: tuple[Bound, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class FnSet(Expr):
    """``[S -> T]``."""

    domain: Expr
    range: Expr


@dataclass(frozen=True, slots=True)
class FnApp(Expr):
    """``f[a]`` or ``f[a, b]`` (the latter applies f to the tuple ``<<a, b>>``)."""

    fn: Expr
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ExceptPath:
    """One step of an EXCEPT path: ``.field`` (field is set) or ``[e1, ...]`` (index set)."""

    field: str | None
    index: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ExceptUpdate:
    path: tuple[ExceptPath, ...]
    value: Expr  # may contain At()


@dataclass(frozen=True, slots=True)
class Except(Expr):
    fn: Expr
    updates: tuple[ExceptUpdate, ...]


@dataclass(frozen=True, slots=True)
class At(Expr):
    """``@`` inside an EXCEPT update: the old value at the updated path."""


@dataclass(frozen=True, slots=True)
class RecordConstruct(Expr):
    """``[a |-> e1, b |-> e2]``."""

    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class RecordSet(Expr):
    """``[a : S1, b : S2]``."""

    fields: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, slots=True)
class FieldAccess(Expr):
    record: Expr
    field: str


@dataclass(frozen=True, slots=True)
class Tuple(Expr):
    """``<<a, b, c>>`` (also a sequence)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Lambda(Expr):
    params: tuple[str, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class Prime(Expr):
    """``e'``."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class Unchanged(Expr):
    """``UNCHANGED e``."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class ActionBox(Expr):
    """``[A]_v`` (box=True) or ``<<A>>_v`` (box=False)."""

    action: Expr
    sub: Expr
    box: bool


@dataclass(frozen=True, slots=True)
class Temporal(Expr):
    """``[]e`` (op "[]"), ``<>e`` (op "<>"), ``P ~> Q`` (op "~>", two args), ``ENABLED e``
    (op "ENABLED"), ``A \\cdot B`` (op "\\cdot")."""

    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Fairness(Expr):
    """``WF_v(A)`` (kind "WF") or ``SF_v(A)`` (kind "SF")."""

    kind: str
    sub: Expr
    action: Expr


# ---------------------------------------------------------------------------
# Module units
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    loc: Loc


@dataclass(frozen=True, slots=True)
class Param:
    """An operator parameter: ``x`` (arity 0) or ``F(_, _)`` (arity 2)."""

    name: str
    arity: int


@dataclass(frozen=True, slots=True)
class ConstantDecl(Unit):
    """One declared constant; ``arity`` > 0 for ``CONSTANT F(_, _)``.

    ``annotation`` is the text of the comments directly above the declaration
    (or, for a comma-separated list, above the keyword), kept verbatim so that
    Apalache ``@type:`` annotations can be read.
    """

    name: str
    arity: int
    annotation: str | None


@dataclass(frozen=True, slots=True)
class VariableDecl(Unit):
    name: str
    annotation: str | None


@dataclass(frozen=True, slots=True)
class OpDef(Unit):
    """``Op(p1, p2) == body``; infix/prefix/postfix definitions use the symbol as name."""

    name: str
    params: tuple[Param, ...]
    body: Expr
    local: bool
    annotation: str | None
    # ``lbl :: e`` in the body, for ``Op!lbl``: the labelled expression, or None when the
    # label stands under a bound variable (such references are refused)
    labels: tuple[tuple[str, Expr | None], ...] = ()
    # the items of one-item bulleted lists (``/\ e`` parses as ``e``; ``Op!1`` selects ``e``)
    single_items: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class FnDef(Unit):
    """``f[x \\in S] == body`` (may be recursive)."""

    name: str
    bounds: tuple[Bound, ...]
    body: Expr
    local: bool
    annotation: str | None


@dataclass(frozen=True, slots=True)
class Recursive(Unit):
    """``RECURSIVE F(_), G`` forward declarations."""

    names: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Instance(Unit):
    """``INSTANCE M WITH a <- e`` or, when ``name`` is set, ``N(p) == INSTANCE M WITH ...``."""

    module: str
    substitutions: tuple[tuple[str, Expr], ...]
    local: bool
    name: str | None
    params: tuple[Param, ...]


@dataclass(frozen=True, slots=True)
class Assume(Unit):
    expr: Expr
    # ``ASSUME A == e``: the name, and the definition ``A == e`` it makes (TLC evaluates
    # ``A`` and ``A!:`` as ``e``)
    name: str | None = None
    definition: OpDef | None = None


@dataclass(frozen=True, slots=True)
class Theorem(Unit):
    """Theorems are kept (for listing) but never checked; a named one's statement is a
    definition (``definition``: ``THEOREM T == e`` makes ``T == e``, its proof left out)."""

    name: str | None
    expr: Expr | None
    definition: OpDef | None = None


@dataclass(frozen=True, slots=True)
class Comment:
    loc: Loc
    text: str


@dataclass(frozen=True, slots=True)
class Module:
    """A parsed module. ``extends`` holds module names, standard or not.

    ``comments`` lists every comment of the module in source order, so that
    ``@typeAlias:`` annotations and the like can be found wherever they stand.
    """

    name: str
    file: str
    extends: tuple[str, ...]
    units: tuple[Unit, ...]
    comments: tuple[Comment, ...] = field(default=())
    loc: Loc = NO_LOC


STANDARD_MODULES = frozenset(
    {"Naturals", "Integers", "Sequences", "FiniteSets", "TLC", "Bags", "TLCExt", "Bitwise",
     "Randomization", "Json", "CSV", "IOUtils", "Statistics"}
)
"""Modules the engine provides natively (never read from disk)."""


class TlaError(Exception):
    """Any error about a TLA+ module or its evaluation, located in the source."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc is not None else message)


class ParseError(TlaError):
    """The module text is not valid TLA+ (or not of the fragment we read)."""


class UnsupportedError(TlaError):
    """The construct is valid TLA+ but the engine does not execute it."""


class EvalError(TlaError):
    """Evaluation failed: a type mismatch, an application outside a domain, and so on."""
