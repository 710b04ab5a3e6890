"""Symbolic dimensions (:mod:`framework.ir.symbolic`) as Relax and TIR see them.

One ``tirx.Var`` (int64) per symbol of the compiled function (``n``; ``n`` and ``t``); a
dimension ``a * n + b`` (``k * n * t``) of the IR is that expression in the Relax types of the function's inputs, so
TVM propagates it through every op and the kernels take it as a loop extent. Lowerings get
Specs whose symbolic dimensions are TIR expressions (ints elsewhere); one that needs an int
(``int(d)``, a hand schedule sized by it) fails, and :meth:`SymbolicShapes.lowering` turns
the failure into :class:`NotSymbolic` naming the primitive (the function then compiles per
size). A constant ``k * n`` or ``k / n`` (a mean's count; ``n`` the product of its
symbols) is computed from the symbols at run time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
from tvm import relax, te, tirx

from ....ir.symbolic import Affine, NotSymbolic, Template
from ....primitive import Spec


def _dtype(v: Any) -> str:
    return "bool" if v.dtype == np.bool_ else str(v.dtype)


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
