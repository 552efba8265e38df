"""References into instances: I!Op, I(p)!Op."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.tla import syntax as S
from conformance.tla.semantics.compiled import (
    C,
)
from conformance.tla.semantics.primes import (
    PrimeCompiler,
)
from conformance.tla.semantics.scope import (
    Alias,
    ConstEntry,
    Ctx,
    DefEntry,
    Entry,
    InstEntry,
    Scope,
    SubstEntry,
)
from conformance.tla.standard_modules import STANDARD
from conformance.tla.syntax import EvalError, Loc, UnsupportedError


class InstanceCompiler(PrimeCompiler):
    """References into instances: I!Op, I(p)!Op."""

    # instances ---------------------------------------------------------------------------------

    def instance_target(self, path: Sequence[str], name: str, loc: Loc, scope: Scope,
                        path_args: Sequence[Sequence[S.Expr]] = ()) -> tuple[Entry, Scope]:
        """The entry ``name`` of the instance reached by ``path`` from ``scope``.

        A parameterised instance ``I(a)`` gets a context of its own for this reference:
        its parameters stand for the arguments (compiled in ``scope``) and its definitions
        start from the caller's environment (their base is ``scope.depth``)."""
        ctx = scope.ctx
        for k, inst_name in enumerate(path):
            entry = ctx.names.get(inst_name)
            if isinstance(entry, DefEntry) and inst_name not in scope.names:  # Op!1, Op!lbl
                if any(path_args[k + 1:]):
                    raise UnsupportedError(
                        f"subexpression reference {'!'.join([*path, name])} with arguments "
                        f"after the operator name is not supported", loc)
                head_args = path_args[k] if k < len(path_args) else ()
                return self._subexpression(entry, (*path[k + 1:], name), loc, head_args, scope)
            if not isinstance(entry, InstEntry):
                raise EvalError(f"{inst_name} is not an instance in module {ctx.module}", loc)
            iargs = path_args[k] if k < len(path_args) else ()
            if entry.unit.params or iargs:
                if len(entry.unit.params) != len(iargs):
                    raise EvalError(f"instance {inst_name} takes {len(entry.unit.params)} "
                                    f"argument(s), got {len(iargs)}", loc)
                builder = entry.outer.builder
                assert builder is not None
                outer = Scope(entry.outer, scope.depth,
                              {p.name: Alias(a, scope, primed=False)
                               for p, a in zip(entry.unit.params, iargs, strict=True)})
                ctx = builder.instance_ctx(entry.unit, outer)
                continue
            builder = entry.outer.builder
            assert builder is not None
            ctx = builder.named_instance_ctx(entry)
        target = ctx.names.get(name) if name in ctx.exported else None
        if target is None:
            for module in sorted(ctx.std):
                if name in STANDARD[module]:
                    return ConstEntry("__std__" + name, 0, loc), Scope(ctx, ctx.base)
            raise EvalError(f"{'!'.join(path)}!{name}: no such definition in module "
                            f"{ctx.module}", loc)
        return target, Scope(ctx, ctx.base)

    def _subexpression(self, entry: DefEntry, selectors: Sequence[str], loc: Loc,
                       head_args: Sequence[S.Expr] = (), scope: Scope | None = None
                       ) -> tuple[Entry, Scope]:
        """``Op!sel!...``: a definition with ``Op``'s parameters whose body is the selected
        part of ``Op``'s body (one entry per reference, compiled once). ``Op(a)!sel``: a
        definition without parameters, in a context where ``Op``'s parameters stand for
        the arguments (compiled in the caller's ``scope``)."""
        unit = entry.unit
        if head_args:
            assert scope is not None
            if not isinstance(unit, S.OpDef) or len(unit.params) != len(head_args):
                arity = len(unit.params) if isinstance(unit, S.OpDef) else 0
                raise EvalError(f"{unit.name} takes {arity} argument(s), got {len(head_args)}",
                                loc)
            if any(p.arity for p in unit.params):
                raise UnsupportedError(f"subexpression of {unit.name}, which has operator "
                                       f"parameters, is not supported", loc)
            body = select_subexpression(unit, selectors, loc)
            names: dict[str, Entry] = dict(entry.ctx.names)
            for p, a in zip(unit.params, head_args, strict=True):
                names[p.name] = SubstEntry(p.name, a, scope)
            ctx = Ctx(entry.ctx.module, names, entry.ctx.std, scope.depth, entry.ctx.builder,
                      frozenset(names))
            sub = S.OpDef(body.loc, "!".join([unit.name, *selectors]), (), body, unit.local, None)
            return DefEntry(sub, ctx), Scope(ctx, ctx.base)
        key = (id(entry), tuple(selectors))
        hit = self._subexpr_cache.get(key)
        if hit is None or hit[0] is not entry:
            unit = entry.unit
            if not isinstance(unit, S.OpDef):
                raise UnsupportedError(f"subexpression of the function definition {unit.name}",
                                       loc)
            body = select_subexpression(unit, selectors, loc)
            sub = S.OpDef(body.loc, "!".join([unit.name, *selectors]), unit.params, body,
                          unit.local, None)
            hit = self._subexpr_cache[key] = (entry, DefEntry(sub, entry.ctx))
        target = hit[1]
        return target, Scope(target.ctx, target.ctx.base)

    def _c_InstanceOpApp(self, node: S.InstanceOpApp, scope: Scope) -> C:
        target, iscope = self.instance_target(node.path, node.name, node.loc, scope,
                                              node.path_args)
        if isinstance(target, ConstEntry) and target.name.startswith("__std__"):
            op = next(STANDARD[m][node.name] for m in sorted(iscope.ctx.std)
                      if node.name in STANDARD[m])
            return self.std_call(op, node.name, node.args, node.loc, scope)
        if isinstance(target, DefEntry):
            return self._call_def(target.unit, self.def_body(target), target.ctx.base,
                                  node.args, node.loc, scope, Scope(target.ctx, target.ctx.base))
        return self.apply_target(target, node.name, node.args, node.loc, iscope)


def select_subexpression(unit: S.OpDef, selectors: Sequence[str], loc: Loc) -> S.Expr:
    """The part of ``unit``'s body named by ``selectors`` (``"1"``, ``":"``, a label).

    Positions follow TLA+'s subexpression names: the n-th item of a bulleted list or of a
    binary ``/\\`` / ``\\/``, the n-th operand of an operator application, the condition,
    THEN and ELSE of an IF. ``!:`` names the body itself. Anything whose meaning would need
    bound variables (labels under a quantifier, operands of binders) is refused."""
    where = unit.name
    e = unit.body
    opened: dict[int, int] = {}  # one-item lists already entered, by the id of their item
    for k, sel in enumerate(selectors):
        where = f"{where}!{sel}"
        if sel == ":":
            continue
        if not sel.isdigit():
            if k > 0:
                raise UnsupportedError(f"{where}: a label after another selector is not supported",
                                       loc)
            labels = dict(unit.labels)
            if sel not in labels:
                raise EvalError(f"{where}: {unit.name} has no label {sel}", loc)
            found = labels[sel]
            if found is None:
                raise UnsupportedError(f"{where}: the label {sel} stands under a bound "
                                       f"variable; such references are not supported", loc)
            e = found
            continue
        e = _operand(e, int(sel), unit, where, loc, opened)
    return e


def _operand(e: S.Expr, n: int, unit: S.OpDef, where: str, loc: Loc,
             opened: dict[int, int]) -> S.Expr:
    """The ``n``-th operand of ``e`` (1-based) as TLA+'s ``!n`` selects it. A one-item
    list (a single bullet) parses as its item itself: ``opened`` counts the list layers
    around ``e`` already entered, so ``!1`` enters each layer once before selecting in ``e``."""
    items: tuple[S.Expr, ...] | None = None
    layers = sum(1 for x in unit.single_items if x is e)
    if opened.get(id(e), 0) < layers:
        opened[id(e)] = opened.get(id(e), 0) + 1
        items = (e,)
    elif isinstance(e, (S.And, S.Or)):
        if e.bullet or len(e.items) == 2:
            items = e.items
        else:  # a chain a /\ b /\ c: its grouping is not kept
            raise UnsupportedError(f"{where}: selecting in an unparenthesised chain of three or "
                                   f"more operands is not supported", loc)
    elif isinstance(e, S.If):
        items = (e.cond, e.then, e.else_)
    elif isinstance(e, S.OpApp) and e.args:
        if any(isinstance(a, S.Lambda) for a in e.args):
            raise UnsupportedError(f"{where}: selecting in an application with LAMBDA "
                                   f"arguments is not supported", loc)
        items = e.args
    if items is None:
        raise UnsupportedError(f"{where}: positional selection in this kind of expression "
                               f"is not supported", loc)
    if not 1 <= n <= len(items):
        raise EvalError(f"{where}: the expression has {len(items)} operand(s)", loc)
    return items[n - 1]
