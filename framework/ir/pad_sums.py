"""IR pass: a sum of zero pads that tiles one axis becomes a ``Concat`` of the padded values.

Where a forward slices one tensor into parts along an axis (a Transformer's fused
``qkv[..., :c]``, ``qkv[..., c:2c]``, ``qkv[..., 2c:]``), each ``Slice``'s gradient is a
``Pad`` of the part's gradient back to the whole shape, and autodiff sums them:
``Add(Add(Pad(dq), Pad(dk)), Pad(dv))``. Summed that way every output element reads all
parts through bounds checks that keep a fused kernel from vectorizing (the character GPT's
bf16 ``qkv`` gradient: scalar code, 3x its float32 time); it is a concatenation.

Contract: an ``Add`` of two values, each a ``Pad`` along one axis only (static widths and
extent) or such a sum already, of the same shape and dtype as the ``Add``, whose parts do
not overlap and cover the axis from one end to the other, is rewritten in place into
``concat(axis)`` (the ``Concat`` primitive, passed in: the IR does not import the ops) of
the parts in order (equal values: ``x + 0`` is ``x``, up to the sign of
a zero). Sums that cover only part of the axis are left as they are; the pads and adds that
nothing else reads are then dead (``passes.dce``). Regions are rewritten too.
"""

from __future__ import annotations

from collections.abc import Callable

from ..primitive import Primitive
from .graph import Graph, Value

Parts = tuple[int, list[tuple[int, int, Value]]]  # (axis, [(begin, end, value)] in order)


def _pad_parts(node) -> Parts | None:
    x = node.inputs[0]
    axes = [i for i, (lo, hi) in enumerate(node.prim.paddings) if lo or hi]
    if len(axes) != 1 or not isinstance(x.shape[axes[0]], int):
        return None
    axis = axes[0]
    begin = node.prim.paddings[axis][0]
    return axis, [(begin, begin + x.shape[axis], x)]


def _merged(a: Parts, b: Parts) -> Parts | None:
    if a[0] != b[0]:
        return None
    parts = sorted(a[1] + b[1], key=lambda p: p[0])
    if any(p[1] > q[0] for p, q in zip(parts, parts[1:])):
        return None  # overlapping parts: a real sum
    return a[0], parts


def concat_pads(graph: Graph, concat: Callable[[int], Primitive]) -> int:
    """Rewrite summed pads that tile an axis into ``concat(axis)`` (see the module); returns
    how many."""
    sums: dict[int, Parts] = {}
    rewritten = 0
    for node in graph.nodes:
        name = node.prim.name
        if name == "Pad" and len(node.inputs) == 1:
            parts = _pad_parts(node)
            if parts is not None:
                sums[node.outputs[0].id] = parts
        elif name == "Add" and len(node.inputs) == 2 and all(v.id in sums for v in node.inputs):
            out = node.outputs[0]
            if any(v.shape != out.shape or v.dtype != out.dtype for v in node.inputs):
                continue
            merged = _merged(sums[node.inputs[0].id], sums[node.inputs[1].id])
            if merged is None:
                continue
            axis, parts = merged
            whole = parts[0][0] == 0 and parts[-1][1] == out.shape[axis] \
                and all(p[1] == q[0] for p, q in zip(parts, parts[1:]))
            if whole:
                node.prim, node.inputs = concat(axis), tuple(p[2] for p in parts)
                rewritten += 1
            else:
                sums[out.id] = merged
    return rewritten + sum(concat_pads(region, concat) for n in graph.nodes for region in n.prim.regions)
