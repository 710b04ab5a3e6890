"""Loop-invariant transposes out of a loop's backward.

A matmul ``a @ b^T`` lowers to a transposed copy of ``b`` and a plain matmul (so that
the kernel's vector loads of ``b`` are contiguous). In the VJP of a loop body, ``b`` is
often a weight the loop only reads (an RNN's ``W_h`` in ``dh = g @ W_h^T``): its
transpose is then the same in every iteration. :func:`hoist_transposes` rewrites the
VJP region so that such a matmul reads a new input, ``b^T``, which the caller computes
once before the loop. The region itself is left untouched (a new Graph shares its
values); only the lowering sees the rewrite.
"""

from __future__ import annotations

from dataclasses import replace

from ....ir import Graph, Value, ValueKind
from ....ops.nn_ops import MatMul


def hoist_transposes(graph: Graph, invariants: list[Value | None]) -> tuple[Graph, list[int]]:
    """``graph`` with each ``MatMul(a, inv_j, transpose_b=True)`` (``inv_j`` one of the
    region's ``invariants``; None: one not to hoist) reading a new trailing input ``inv_j^T``
    instead; and the positions ``j`` in ``invariants`` of the transposed inputs, in the new
    inputs' order."""
    position = {v.id: j for j, v in enumerate(invariants) if v is not None}
    transposed: dict[int, Value] = {}  # invariant position -> its new transposed input
    nodes = []
    for node in graph.nodes:
        b = node.inputs[1] if isinstance(node.prim, MatMul) and len(node.inputs) == 2 else None
        if b is None or not node.prim.transpose_b or b.id not in position:
            nodes.append(node)
            continue
        j = position[b.id]
        if j not in transposed:
            transposed[j] = Value(b.shape[::-1], b.dtype, kind=ValueKind.CAPTURE, name=f"{b.name}_T")
        prim = MatMul(transpose_a=node.prim.transpose_a, transpose_b=False)
        nodes.append(replace(node, prim=prim, inputs=(node.inputs[0], transposed[j])))
    if not transposed:
        return graph, []
    inputs = [*graph.inputs, *transposed.values()]
    return Graph(graph.name, inputs, nodes, list(graph.outputs)), list(transposed)


__all__ = ["hoist_transposes"]
