"""References into instances: I!Op, I(p)!Op."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.tla import stdlib as L
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
    DefEntry,
    Entry,
    InstEntry,
    Scope,
)
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
            if not isinstance(entry, InstEntry):
                raise EvalError(f"{inst_name} is not an instance in module {ctx.module}", loc)
            iargs = path_args[k] if k < len(path_args) else ()
            if entry.unit.params or iargs:
                if len(entry.unit.params) != len(iargs):
                    raise EvalError(f"instance {inst_name} takes {len(entry.unit.params)} "
                                    f"argument(s), got {len(iargs)}", loc)
                if any(p.arity for p in entry.unit.params):
                    raise UnsupportedError(
                        f"instance {inst_name} with operator parameters is not supported", loc)
                if k > 0:
                    raise UnsupportedError(
                        f"parameterised instance {inst_name} inside another instance is not "
                        f"supported", loc)
                builder = entry.outer.builder
                assert builder is not None
                outer = Scope(entry.outer, scope.depth,
                              {p.name: Alias(a, scope, primed=False)
                               for p, a in zip(entry.unit.params, iargs, strict=True)})
                ctx = builder.instance_ctx(entry.unit, outer)
                continue
            if entry.ctx is None:
                builder = entry.outer.builder
                assert builder is not None
                entry.ctx = builder.instance_ctx(entry.unit, Scope(entry.outer, entry.outer.base))
            ctx = entry.ctx
        target = ctx.names.get(name) if name in ctx.exported else None
        if target is None:
            for module in sorted(ctx.std):
                if name in L.STANDARD[module]:
                    return ConstEntry("__std__" + name, 0, loc), Scope(ctx, ctx.base)
            raise EvalError(f"{'!'.join(path)}!{name}: no such definition in module "
                            f"{ctx.module}", loc)
        return target, Scope(ctx, ctx.base)

    def _c_InstanceOpApp(self, node: S.InstanceOpApp, scope: Scope) -> C:
        target, iscope = self.instance_target(node.path, node.name, node.loc, scope,
                                              node.path_args)
        if isinstance(target, ConstEntry) and target.name.startswith("__std__"):
            op = next(L.STANDARD[m][node.name] for m in sorted(iscope.ctx.std)
                      if node.name in L.STANDARD[m])
            return self.std_call(op, node.name, node.args, node.loc, scope)
        if isinstance(target, DefEntry):
            return self._call_def(target.unit, self.def_body(target), target.ctx.base,
                                  node.args, node.loc, scope)
        return self.apply_target(target, node.name, node.args, node.loc, iscope)
