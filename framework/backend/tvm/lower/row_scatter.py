"""Adding rows into a tensor at given row indices (``IndexAdd`` along axis 0: an
Embedding's gradient) as one pre-scheduled TIR kernel.

TOPI's ``scatter_elements`` takes one index per element (the row index broadcast to the
updates' shape, materialized) and runs a serial loop with index arithmetic per element:
1.5 ms for the LSTM LM's ``(2048, 256)`` rows into ``(65, 256)``. Here: ``out = x``, then
for each update row ``r`` in order, ``out[index[r], :] += values[r, :]`` with the row a
vector loop. Rows go in order (duplicates summed as the NumPy kernel's ``np.add.at``), so
the loop over rows stays serial; its schedule is written in the kernel (marked scheduled:
the default rules would see a data-dependent write they cannot split).

Contract: :func:`index_add_rows` takes ``x`` viewed ``(dim, width)``, in-range ``int32`` or
``int64`` indices ``(count,)`` and ``values`` ``(count, width)``; returns the sum.
"""

from __future__ import annotations

import tvm
from tvm import relax
from tvm.script import tirx as T  # noqa: F401  (the kernel is TVMScript)

_KERNEL = '''
@T.prim_func(private=True, s_tir=True)
def index_add_rows(x: T.Buffer(({dim}, {width}), "{dt}"), index: T.Buffer(({count},), "{it}"),
                   values: T.Buffer(({count}, {width}), "{dt}"), out: T.Buffer(({dim}, {width}), "{dt}")):
    T.func_attr({{"tirx.noalias": True, "tirx.is_scheduled": True}})
    for r in T.serial({dim}):
        for j in T.vectorized({width}):
            with T.sblock("copy"):
                vr, vj = T.axis.remap("SS", [r, j])
                out[vr, vj] = x[vr, vj]
    for r in T.serial({count}):
        for j in T.vectorized({width}):
            with T.sblock("add"):
                vr, vj = T.axis.remap("SS", [r, j])
                out[index[vr], vj] = out[index[vr], vj] + values[vr, vj]
'''


# the same kernel for a symbolic row count (framework.ir.symbolic: a batch's tokens): the
# count a variable of the kernel, bound from the index buffer's shape at the call
_SYMBOLIC_KERNEL = _KERNEL.replace(
    'index: T.Buffer(({count},), "{it}"),\n                   values: T.Buffer(({count}, {width}), "{dt}")',
    'index_h: T.handle, values_h: T.handle').replace(
    '    T.func_attr(', '    count = T.int64()\n'
    '    index = T.match_buffer(index_h, (count,), "{it}")\n'
    '    values = T.match_buffer(values_h, (count, {width}), "{dt}")\n    T.func_attr(', 1)
assert _SYMBOLIC_KERNEL.count("match_buffer") == 2


def source(dim: int, width: int, count: int | None, dtype: str, index_dtype: str) -> str:
    """The kernel's TVMScript; ``count`` None: symbolic."""
    if count is None:
        return _SYMBOLIC_KERNEL.format(dim=f"T.int64({dim})", width=f"T.int64({width})",
                                       count="count", dt=dtype, it=index_dtype)
    return _KERNEL.format(dim=f"T.int64({dim})", width=f"T.int64({width})",
                          count=f"T.int64({count})", dt=dtype, it=index_dtype)


def index_add_rows(bb: relax.BlockBuilder, x: relax.Expr, index: relax.Expr,
                   values: relax.Expr) -> relax.Expr:
    dim, width = (int(d) for d in x.ty.shape.values)
    try:
        count: int | None = int(index.ty.shape.values[0])
    except TypeError:  # a symbolic count
        count = None
    dtype, index_dtype = str(x.ty.dtype), str(index.ty.dtype)
    gv = bb.add_func(tvm.script.from_source(source(dim, width, count, dtype, index_dtype)),
                     "index_add_rows")
    return relax.call_tir(gv, [x, index, values], relax.TensorType([dim, width], dtype))
