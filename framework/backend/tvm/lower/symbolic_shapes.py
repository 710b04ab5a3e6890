"""Symbolic dimensions (:mod:`framework.ir.symbolic`) as Relax and TIR see them.

One ``tirx.Var`` (int64) per compiled function stands for the symbol; a dimension
``a * n + b`` of the IR is that expression in the Relax types of the function's inputs, so
TVM propagates it through every op and the kernels take it as a loop extent. Lowerings get
Specs whose symbolic dimensions are TIR expressions (ints elsewhere); one that needs an int
(``int(d)``, a hand schedule sized by it) fails, and :meth:`SymbolicShapes.lowering` turns
the failure into :class:`NotSymbolic` naming the primitive (the function then compiles per
size). A constant ``k * n`` or ``k / n`` (a mean's count) is computed from ``n`` at run time.

Control-flow regions: a Relax symbolic variable belongs to one function, so every function
lowered from a region (an If's branches, a loop body, a loop's tree of calls) has its own
``n`` (:meth:`SymbolicShapes.scope`), defined by a parameter whose dimension is ``n``, else
by a trailing ``R.Shape([n])`` parameter (:meth:`SymbolicShapes.needs_shape`); a loop's
opaque state carries ``R.Shape([n])`` first, and its values are re-typed in the reading
function's ``n`` (:meth:`SymbolicShapes.localize`). A loop body using ``n`` is inlined as
any (:mod:`.inlining`) but takes its inputs by rank and casts them (``match_cast``) to their
symbolic shapes first: TVM's inliner renames the symbolic variables, which only such casts
define again in the caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
from tvm import relax, te, tirx
from tvm.sym import detect_linear_equation

from ....ir import Graph
from ....ir.symbolic import Affine, NotSymbolic, Template
from ....primitive import Spec


def _dtype(v: Any) -> str:
    return "bool" if v.dtype == np.bool_ else str(v.dtype)


class SymbolicShapes:
    """The Relax view of a graph's shapes: its template's symbolic ones, else the ints."""

    def __init__(self, template: Template | None) -> None:
        self.template = template
        self.n = None if template is None else tirx.Var(template.sym.name, "int64")

    def dims(self, v: Any) -> tuple[Any, ...]:
        if self.template is None:
            return v.shape
        return tuple(self._expr(d) for d in self.template.shape(v))

    def _expr(self, d: int | Affine) -> Any:
        if not isinstance(d, Affine):
            return d
        expr = self.n if d.a == 1 else tirx.IntImm("int64", d.a) * self.n
        return expr if d.b == 0 else expr + tirx.IntImm("int64", d.b)

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
        k = scaled.k

        def compute(n: Any) -> te.Tensor:  # n as an argument: TVM passes it to the kernel
            # in float64, then the constant's dtype: as the trace computed it in Python
            m = tirx.const(k, "float64") * n.astype("float64")
            if scaled.power == 0:
                value = m / (m - tirx.const(1.0, "float64"))
            elif scaled.power == 1:
                value = m
            else:
                value = tirx.const(k, "float64") / n.astype("float64")
            return te.compute(tuple(dims), lambda *_: value.astype(dtype), name="symbolic_count")

        return bb.call_te(compute, self.n)

    # -- one n per Relax function (regions) ------------------------------------------------
    @contextlib.contextmanager
    def scope(self) -> Iterator[Any]:
        """A new Relax function being built: its own ``n`` while inside (yields the caller's)."""
        outer = self.n
        if outer is not None:
            self.n = tirx.Var(outer.name, "int64")
        try:
            yield outer
        finally:
            self.n = outer

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
        """Whether a function taking ``inputs`` and lowering ``graphs`` takes ``R.Shape([n])``
        last: they use ``n`` and no input has a dimension that is ``n`` itself (defining it)."""
        if not any(g is not None and self.uses(g) for g in graphs):
            return False
        assert self.template is not None
        return not any(d == Affine(1, 0) for v in inputs for d in self.template.shape(v))

    def shape_type(self) -> relax.ShapeType:
        return relax.ShapeType([self.n])

    def shape_value(self) -> relax.Expr:
        return relax.ShapeExpr([self.n])

    def localize(self, ty: Any, outer: Any) -> Any:
        """The type ``ty`` of the function where ``n`` was ``outer`` in this function's terms:
        a dimension affine in ``outer`` in this ``n``, any other symbolic one a fresh variable
        (a loop's row count)."""
        if isinstance(ty, relax.ShapeType):
            return self.shape_type()
        dims = []
        for d in ty.shape.values:
            if isinstance(d, tirx.IntImm):
                dims.append(d)
                continue
            free = tirx.analysis.undefined_vars(d)
            if outer is not None and len(free) == 1 and free[0].same_as(outer):
                a, b = (int(c) for c in detect_linear_equation(d, [outer]))
                dims.append(self._expr(Affine(a, b)))
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
