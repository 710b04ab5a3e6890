"""Gradient accumulation ``acc + a^T b`` lowered as one kernel per term.

The gradient of a weight used at every step of an unrolled loop (an LSTM's ``W_hh``) is a
chain ``g = g + dG_t^T h_t`` (the reverse sweep's accumulation). Lowered node by node,
Relax's FuseOps fuses the chain of adds into ONE kernel at the end, so every step's
``(4H, H)`` product is written to its own buffer and all of them stay live until that
kernel reads them back: 63 MiB per layer written and read again at T=64, about twice the
products' own time. Here ``Add(acc, MatMul(a, b, transpose_a=True))`` whose product has
no other use becomes one kernel ``acc + a^T b`` (the add as the matmul's epilogue): the
running sum stays in the cache and nothing else is materialized. The sum is the same
(each product is computed whole, then added: the same float32 operations as before).

Contract: :func:`plan` returns ``{add node index: (matmul node index, acc input index)}``
for the pairs in ``nodes`` (one dataflow segment of a graph) that qualify: the MatMul is
``transpose_a`` only, float32, its output used once (``uses``) by an Add in the same
segment whose other input has the output's shape and dtype. The caller skips those
MatMul nodes and lowers each Add with :func:`lower` on the MatMul's inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tvm import relax, te, topi

from ...ops.elementwise import Add
from ...ops.nn_ops import MatMul


def plan(nodes: list[Any], uses: dict[int, int]) -> dict[int, tuple[int, int]]:
    producer = {v.id: i for i, node in enumerate(nodes) for v in node.outputs}
    pairs: dict[int, tuple[int, int]] = {}
    for i, node in enumerate(nodes):
        if type(node.prim) is not Add or len(node.inputs) != 2:
            continue
        out = node.outputs[0].spec
        for side, value in enumerate(node.inputs):
            j = producer.get(value.id)
            other = node.inputs[1 - side]
            if j is None or j in {m for m, _ in pairs.values()} or uses.get(value.id, 0) != 1:
                continue
            prim = nodes[j].prim
            if type(prim) is not MatMul or not prim.transpose_a or prim.transpose_b:
                continue
            specs = [v.spec for v in nodes[j].inputs] + [value.spec, other.spec, out]
            if any(s.dtype != np.float32 for s in specs) or value is other:
                continue
            if tuple(other.spec.shape) != tuple(out.shape) or tuple(value.spec.shape) != tuple(out.shape):
                continue
            pairs[i] = (j, 1 - side)
            break
    return pairs


def _kernel(acc: te.Tensor, a: te.Tensor, b: te.Tensor) -> te.Tensor:
    return topi.add(acc, topi.matmul(a, b, True, False))


def lower(bb: relax.BlockBuilder, acc: relax.Expr, a: relax.Expr, b: relax.Expr) -> relax.Expr:
    """``acc + a^T b`` as one kernel (a call_te whose PrimFunc FuseOps keeps whole)."""
    return bb.call_te(_kernel, acc, a, b, primfunc_name_hint="matmul_accumulate")
