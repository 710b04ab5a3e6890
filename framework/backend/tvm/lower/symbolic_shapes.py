"""Symbolic dimensions (:mod:`framework.ir.symbolic`) as Relax and TIR see them.

One ``tirx.Var`` (int64) per symbol of the compiled function (``n``; ``n`` and ``t``); a
dimension ``a * n + b`` (``k * n * t``) of the IR is that expression in the Relax types of the function's inputs, so
TVM propagates it through every op and the kernels take it as a loop extent. Lowerings get
Specs whose symbolic dimensions are TIR expressions (ints elsewhere); one that needs an int
(``int(d)``, a hand schedule sized by it) fails, and :meth:`SymbolicShapes.lowering` turns
the failure into :class:`NotSymbolic` naming the primitive (the function then compiles per
size). A constant ``k * n`` or ``k / n`` (a mean's count; ``n`` the product of its
symbols) is computed from the symbols at run time.

Control-flow regions: a Relax symbolic variable belongs to one function, so every function
lowered from a region (an If's branches, a loop body, a loop's tree of calls) has its own
variables for the symbols (:meth:`SymbolicShapes.scope`; ``n`` below stands for all of
them, e.g. ``n`` and ``t``), defined by parameters whose dimensions are the symbols
themselves, else by a trailing ``R.Shape([n, ...])`` parameter
(:meth:`SymbolicShapes.needs_shape`); a loop's opaque state carries that shape first, and
its values are re-typed in the reading function's symbols (:meth:`SymbolicShapes.localize`). A loop body using ``n`` is inlined as
any (:mod:`.inlining`) but takes its inputs by rank and casts them (``match_cast``) to their
symbolic shapes first: TVM's inliner renames the symbolic variables, which only such casts
define again in the caller.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
from tvm import relax, te, tirx
from tvm.sym import Analyzer

from ....ir import Graph
from ....ir.symbolic import AFFINE_ATTRIBUTES, Affine, NotSymbolic, Template
from ....primitive import Spec


def _dtype(v: Any) -> str:
    return "bool" if v.dtype == np.bool_ else str(v.dtype)


def _affine_in(d: Any, free: list[Any], outer: dict[str, Any] | None) -> Affine | None:
    """``d`` (whose variables are ``free``) as ``a * (product of ``outer`` variables) + b``,
    or None when it is not one (another variable in it)."""
    if not outer or not free:
        return None
    names = [name for name, v in outer.items() if any(f.same_as(v) for f in free)]
    if len(names) != len(free):
        return None

    def at(value: int) -> int:
        analyzer = Analyzer()
        for name in names:
            analyzer.bind(outer[name], tirx.IntImm("int64", value))
        return int(analyzer.simplify(d))

    one, two = at(1), at(2)  # a + b and a * 2^k + b
    a, rest = divmod(two - one, 2 ** len(names) - 1)
    return Affine(a, one - a, tuple(names)) if not rest else None


class SymbolicShapes:
    """The Relax view of a graph's shapes: its template's symbolic ones, else the ints."""

    def __init__(self, template: Template | None) -> None:
        self.template = template
        self.vars = {} if template is None else {
            s.name: tirx.Var(s.name, "int64") for s in template.symbols()}
        self.n = next(iter(self.vars.values()), None)

    def dims(self, v: Any) -> tuple[Any, ...]:
        if self.template is None:
            return v.shape
        return tuple(self._expr(d) for d in self.template.shape(v))

    def _product(self, of: tuple[str, ...]) -> Any:
        expr = self.vars[of[0]]
        for name in of[1:]:
            expr = expr * self.vars[name]
        return expr

    def _expr(self, d: int | Affine) -> Any:
        if not isinstance(d, Affine):
            return d
        m = self._product(d.of)
        expr = m if d.a == 1 else tirx.IntImm("int64", d.a) * m
        return expr if d.b == 0 else expr + tirx.IntImm("int64", d.b)

    def node(self, node: Any) -> Any:
        """``node`` as its lowering sees it: an affine attribute (a Slice's ``begin``, a
        Pad's ``paddings``; :data:`AFFINE_ATTRIBUTES`) with TIR expressions for its
        symbolic entries, in the attribute's own nesting; else ``node`` itself."""
        if self.template is None or not node.outputs or node.outputs[0].id not in self.template.attrs:
            return node
        key = AFFINE_ATTRIBUTES[node.prim.name]
        flat = iter([self._expr(d) for d in self.template.attrs[node.outputs[0].id]])

        def rebuild(value: Any) -> Any:
            if isinstance(value, tuple | list):
                return tuple(rebuild(v) for v in value)
            return next(flat)

        prim = copy.copy(node.prim)
        prim.attrs = {**node.prim.attrs, key: rebuild(node.prim.attrs[key])}
        setattr(prim, key, prim.attrs[key])
        return SimpleNamespace(prim=prim, inputs=node.inputs, outputs=node.outputs)

    def spec(self, v: Any) -> Spec:
        return v.spec if self.template is None else Spec(self.dims(v), v.dtype)

    def type(self, v: Any) -> relax.TensorType:
        return relax.TensorType(list(self.dims(v)), _dtype(v))

    def varies(self, v: Any) -> bool:
        """Whether the constant ``v`` differs from size to size."""
        t = self.template
        return t is not None and (v.id in t.scaled or v.id in t.dims)

    def constant(self, bb: relax.BlockBuilder, v: Any) -> relax.Expr:
        """The constant ``v`` at the runtime size: ``k * n`` / ``k / n``, or its one value
        broadcast to its symbolic shape."""
        assert self.template is not None
        dtype, dims = _dtype(v), self.dims(v)
        scaled = self.template.scaled.get(v.id)
        if scaled is None:
            scalar = relax.const(np.asarray(v.data).reshape(-1)[:1].reshape(()), dtype)
            return relax.op.broadcast_to(scalar, list(dims))
        k, names = scaled.k, [s.name for s in self.template.symbols()]

        def compute(*symbols: Any) -> te.Tensor:  # symbols as arguments: TVM passes them to
            # the kernel; in float64, then the constant's dtype: as the trace computed it
            by_name = dict(zip(names, symbols))
            n = by_name[scaled.of[0]].astype("float64")
            for name in scaled.of[1:]:
                n = n * by_name[name].astype("float64")
            m = tirx.const(k, "float64") * n
            if scaled.power == 0:
                value = m / (m - tirx.const(1.0, "float64"))
            elif scaled.power == 1:
                value = m
            else:
                value = tirx.const(k, "float64") / n
            return te.compute(tuple(dims), lambda *_: value.astype(dtype), name="symbolic_count")

        return bb.call_te(compute, *self.vars.values())

    # -- one n per Relax function (regions) ------------------------------------------------
    @contextlib.contextmanager
    def scope(self) -> Iterator[dict[str, Any] | None]:
        """A new Relax function being built: its own symbol variables while inside (yields
        the caller's, by symbol name: :meth:`localize`'s ``outer``)."""
        outer = self.current()
        if outer is not None:
            self.vars = {name: tirx.Var(name, "int64") for name in outer}
            self.n = next(iter(self.vars.values()))
        try:
            yield outer
        finally:
            if outer is not None:
                self.vars, self.n = outer, next(iter(outer.values()))

    def current(self) -> dict[str, Any] | None:
        """The symbol variables of the function being built (None: no symbols)."""
        return dict(self.vars) if self.vars else None

    def uses(self, graph: Graph) -> bool:
        """Whether ``graph`` (its regions too) has a symbolic dimension or constant."""
        t = self.template
        if t is None:
            return False
        for v in [*graph.inputs, *graph.outputs, *(x for node in graph.nodes for x in node.inputs)]:
            if v.id in t.dims or v.id in t.scaled:
                return True
        return any(self.uses(r) for node in graph.nodes for r in node.prim.regions)

    def needs_shape(self, inputs: list[Any], *graphs: Graph | None) -> bool:
        """Whether a function taking ``inputs`` and lowering ``graphs`` takes the symbols'
        ``R.Shape`` last: they use symbols and some symbol is no input's dimension itself
        (which would define it)."""
        if not any(g is not None and self.uses(g) for g in graphs):
            return False
        assert self.template is not None
        defined = {d.of[0] for v in inputs for d in self.template.shape(v)
                   if isinstance(d, Affine) and d.a == 1 and d.b == 0 and len(d.of) == 1}
        return not set(self.vars) <= defined

    def shape_type(self) -> relax.ShapeType:
        return relax.ShapeType(list(self.vars.values()))

    def shape_value(self) -> relax.Expr:
        return relax.ShapeExpr(list(self.vars.values()))

    def localize(self, ty: Any, outer: Any) -> Any:
        """The type ``ty`` of the function whose symbol variables were ``outer`` (by name) in
        this function's terms: a dimension ``a * (product of some of them) + b`` the same in
        this function's variables, any other symbolic one a fresh variable (a loop's row
        count)."""
        if isinstance(ty, relax.ShapeType):
            return self.shape_type()
        dims = []
        for d in ty.shape.values:
            if isinstance(d, tirx.IntImm):
                dims.append(d)
                continue
            free = tirx.analysis.undefined_vars(d)
            affine = _affine_in(d, free, outer)
            if affine is not None:
                dims.append(self._expr(affine))
            else:
                dims.append(tirx.Var("rows" if not free else free[0].name, "int64"))
        return relax.TensorType(dims, ty.dtype)

    @contextlib.contextmanager
    def lowering(self, node: Any) -> Iterator[None]:
        """Lowering ``node``: a failure on symbolic shapes names its primitive."""
        if self.template is None:
            yield
            return
        try:
            yield
        except NotSymbolic:
            raise
        except Exception as error:
            first = (str(error).strip().splitlines() or [type(error).__name__])[0][:160]
            raise NotSymbolic(f"{node.prim.name}: its lowering needs static sizes ({first})") from error
