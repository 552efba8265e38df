"""Temporal formulas of instances, lifted into the root module.

A SPECIFICATION or PROPERTY may name a temporal formula of an instance (``R!Spec`` with
``R == INSTANCE Reachable WITH pc <- pcBar``: a refinement check), or of a module brought in
by an unnamed ``INSTANCE``. The plan (``plan.py``) and the liveness checker read a formula's
temporal structure (``[]``, ``<>``, ``~>``, ``[A]_v``, ``WF``/``SF``, ``\\A`` over them) from
root-level syntax, and compile what lies under it in the root module. ``lift_reference``
rewrites such a reference into root-level syntax: the temporal structure is rebuilt, and each
expression under it (a state predicate, an action, a subscript, a quantifier's domain) becomes
a call of a definition added to the root module's names (``" lifted N"``, a name no module can
declare) whose body is that expression, read in the context where it was written (the
instance's, with its substitutions). The call passes, as arguments, the values of the names the
expression may read from the structure around it: the bound variables of the temporal
quantifiers (renamed, so that no root name is captured) and the parameters of the unfolded
definitions (their arguments, which are root-level expressions).
"""

from __future__ import annotations

from collections.abc import Mapping

from conformance.tla import syntax as S
from conformance.tla.astwalk import walk
from conformance.tla.semantics.scope import Alias, Ctx, DefEntry, InstEntry, Scope
from conformance.tla.syntax import Loc, UnsupportedError

_TEMPORAL = (S.Temporal, S.ActionBox, S.Fairness)
_CONNECTIVES = ("~", "=>", "<=>", "\\equiv")
_MAX_DEPTH = 50


def lift_reference(root: Ctx, e: S.Expr) -> S.Expr | None:
    """``e`` (a root-level expression) rewritten as above when it names a temporal formula
    written in an instance (``I!Spec``, ``I!Fair(p)``, or a definition an unnamed INSTANCE
    brought into the root module); None when it does not."""
    target = _target(root, root, e)
    if target is None or _in_root(root, target.ctx) or not _temporal(target.unit.body, target.ctx):
        return None
    return _Lifter(root).unfold(target, e, root, {}, 0)


def _in_root(root: Ctx, ctx: Ctx) -> bool:
    """Whether ``ctx`` is the root module's or one it EXTENDS (their names are the root's)."""
    builder = root.builder
    return ctx is root or (builder is not None and any(ctx is c for c in builder.root_contexts))


def _target(root: Ctx, ctx: Ctx, e: S.Expr) -> DefEntry | None:
    """The definition ``e`` applies, resolved in ``ctx`` (instances followed)."""
    if isinstance(e, (S.Name, S.OpApp)):
        entry = ctx.names.get(e.name)
        return entry if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) else None
    if isinstance(e, S.InstanceOpApp):
        written = ctx
        for k, name in enumerate(e.path):
            inst = ctx.names.get(name)
            if not isinstance(inst, InstEntry):
                return None
            args = e.path_args[k] if k < len(e.path_args) else ()
            if inst.unit.params or args:
                ctx = _parameterised_ctx(root, written, inst, args, name, e.loc)
                continue
            builder = inst.outer.builder
            assert builder is not None
            ctx = builder.named_instance_ctx(inst)
        entry = ctx.names.get(e.name) if e.name in ctx.exported else None
        return entry if isinstance(entry, DefEntry) and isinstance(entry.unit, S.OpDef) else None
    return None


def _parameterised_ctx(root: Ctx, written: Ctx, inst: InstEntry, args: tuple[S.Expr, ...], name: str,
                       loc: Loc) -> Ctx:
    """The context of ``name(args)`` (``P(1)!Spec``, ``I!P(1)!Spec``), a parameterised
    instance named in a reference written in ``written``, the root module: its parameters
    stand for the arguments, root-level expressions."""
    params = inst.unit.params
    if not _in_root(root, written):
        raise UnsupportedError(f"a temporal formula of the parameterised instance {name}, named "
                               f"inside another instance, is not supported", loc)
    if len(params) != len(args):
        raise S.EvalError(f"instance {name} takes {len(params)} argument(s), got {len(args)}", loc)
    builder = inst.outer.builder
    assert builder is not None
    at_root = Scope(root, 0)
    outer = Scope(inst.outer, 0, {p.name: Alias(a, at_root, primed=False)
                                  for p, a in zip(params, args, strict=True)})
    return builder.instance_ctx(inst.unit, outer)


def _temporal(e: S.Expr, ctx: Ctx) -> bool:
    """Whether ``e`` (read in ``ctx``) holds a temporal operator, through the definitions
    and instances it applies."""
    todo: list[tuple[S.Expr, Ctx]] = [(e, ctx)]
    seen: set[int] = set()
    while todo:
        expr, c = todo.pop()
        for n in walk(expr):
            if isinstance(n, _TEMPORAL) and not (isinstance(n, S.Temporal) and n.op == "ENABLED"):
                return True
            if isinstance(n, (S.Name, S.OpApp, S.InstanceOpApp)):
                try:
                    target = _target(c, c, n)
                except UnsupportedError:
                    continue
                if target is not None and id(target) not in seen:
                    seen.add(id(target))
                    todo.append((target.unit.body, target.ctx))
    return False


class _Lifter:
    def __init__(self, root: Ctx) -> None:
        self.root = root
        self.fresh = 0

    def unfold(self, target: DefEntry, call: S.Expr, ctx: Ctx, env: Mapping[str, S.Expr],
               depth: int) -> S.Expr:
        """The body of ``target`` applied at ``call`` (written in ``ctx``, read with ``env``)."""
        unit, loc = target.unit, call.loc
        assert isinstance(unit, S.OpDef)
        args = call.args if isinstance(call, (S.OpApp, S.InstanceOpApp)) else ()
        if len(args) != len(unit.params):
            raise S.EvalError(f"{unit.name} takes {len(unit.params)} argument(s), got {len(args)}", loc)
        inner: dict[str, S.Expr] = {}
        for p, a in zip(unit.params, args, strict=True):
            if p.arity:
                raise UnsupportedError(
                    f"a temporal formula with the operator parameter {p.name} ({unit.name}) is not supported", loc)
            inner[p.name] = a if ctx is self.root and not env else self.leaf(a, ctx, env, a.loc)
        return self.lift(unit.body, target.ctx, inner, depth + 1)

    def lift(self, e: S.Expr, ctx: Ctx, env: Mapping[str, S.Expr], depth: int) -> S.Expr:
        """``e`` (read in ``ctx``, the names of ``env`` standing for root-level expressions)
        as a root-level expression."""
        if depth > _MAX_DEPTH:
            raise S.TlaError("definitions nest too deeply while reading a temporal formula", e.loc)
        if not _temporal(e, ctx):
            return self.leaf(e, ctx, env, e.loc)
        if isinstance(e, S.And):
            return S.And(e.loc, tuple(self.lift(x, ctx, env, depth + 1) for x in e.items), e.bullet)
        if isinstance(e, S.Or):
            return S.Or(e.loc, tuple(self.lift(x, ctx, env, depth + 1) for x in e.items), e.bullet)
        if isinstance(e, S.Temporal):
            return S.Temporal(e.loc, e.op, tuple(self.lift(x, ctx, env, depth + 1) for x in e.args))
        if isinstance(e, S.ActionBox):
            return S.ActionBox(e.loc, self.leaf(e.action, ctx, env, e.action.loc),
                               self.leaf(e.sub, ctx, env, e.sub.loc), e.box)
        if isinstance(e, S.Fairness):
            return S.Fairness(e.loc, e.kind, self.leaf(e.sub, ctx, env, e.sub.loc),
                              self.leaf(e.action, ctx, env, e.action.loc))
        if isinstance(e, S.Quant):
            inner = dict(env)
            bounds = []
            for b in e.bounds:
                domain = self.leaf(b.domain, ctx, env, b.domain.loc)
                names = []
                for n in b.names:
                    self.fresh += 1
                    fresh = f" {n}#{self.fresh}"
                    inner[n] = S.Name(b.loc, fresh)
                    names.append(fresh)
                bounds.append(S.Bound(tuple(names), b.tuple_pattern, domain, b.loc))
            return S.Quant(e.loc, e.kind, tuple(bounds), self.lift(e.body, ctx, inner, depth + 1))
        if isinstance(e, S.OpApp) and e.name in _CONNECTIVES and ctx.names.get(e.name) is None:
            return S.OpApp(e.loc, e.name, tuple(self.lift(x, ctx, env, depth + 1) for x in e.args))
        if isinstance(e, (S.Name, S.OpApp)) and e.name in env:
            return env[e.name]
        if isinstance(e, (S.Name, S.OpApp, S.InstanceOpApp)):
            target = _target(self.root, ctx, e)
            if target is not None:
                return self.unfold(target, e, ctx, env, depth)
        raise UnsupportedError("this temporal formula of an instance cannot be read at the root module "
                               "(its temporal operators stand under an expression other than /\\, \\/, ~, "
                               "=>, \\A, \\E and the operators it applies)", e.loc)

    def leaf(self, e: S.Expr, ctx: Ctx, env: Mapping[str, S.Expr], loc: Loc) -> S.Expr:
        """A call of a new root definition whose body is ``e`` read in ``ctx``, with a
        parameter for each name of ``env``."""
        names = sorted(env)
        self.fresh += 1
        name = f" lifted {self.fresh}"
        unit = S.OpDef(loc, name, tuple(S.Param(n, 0) for n in names), e, False, None)
        self.root.names[name] = DefEntry(unit, ctx)
        return S.OpApp(loc, name, tuple(env[n] for n in names))


__all__ = ["lift_reference"]
