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
A chain of at least ``CHAIN_MIN`` such terms goes further: ONE product of the stacked
operands, ``concat(a_t)^T concat(b_t)`` (as PyTorch's LSTM computes its weight gradients),
a long reduction that :mod:`..schedule.strided_matmul` blocks for the cache; float32 rounding then
differs from the step-by-step sum by the reordering of the additions only.

Contract: :func:`plan` returns ``{add node index: (matmul node index, acc input index)}``
for the pairs in ``nodes`` (one dataflow segment of a graph) that qualify: the MatMul is
``transpose_a`` only, float32, its output used once (``uses``) by an Add in the same
segment whose other input has the output's shape and dtype. The caller skips those
MatMul nodes and lowers each Add with :func:`lower` on the MatMul's inputs. :func:`chains`
groups those pairs into long sums; the caller skips their terms and inner Adds and lowers
the last Add with :func:`lower_chain`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tvm
from tvm import relax, te, topi

from ....ops.elementwise import Add
from ....ops.nn_ops import MatMul
from ....ops.shape_ops import Concat
from . import concat_copies
from .lowerings.base import emit

CHAIN_MIN = 8  # products from which a sum becomes one product of the stacked operands


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
            if not _is_term(nodes[j]) or other.spec.dtype != np.float32 or out.dtype != np.float32 \
                    or value is other:
                continue
            if tuple(other.spec.shape) != tuple(out.shape) or tuple(value.spec.shape) != tuple(out.shape):
                continue
            pairs[i] = (j, 1 - side)
            break
    return pairs


def _is_term(node: Any) -> bool:
    """A float32 ``MatMul(transpose_a=True)``: one term ``a^T b`` of a sum."""
    prim = node.prim
    return (type(prim) is MatMul and prim.transpose_a and not prim.transpose_b
            and all(v.spec.dtype == np.float32 for v in node.inputs))


def chains(nodes: list[Any], uses: dict[int, int], pairs: dict[int, tuple[int, int]],
           min_terms: int = CHAIN_MIN) -> dict[int, tuple[list[int], Any, list[int]]]:
    """Sums of at least ``min_terms`` products ``a_t^T b_t`` (pairs of :func:`plan` feeding
    each other, possibly started by a bare product): ``{last add: (terms, base, adds)}``,
    the MatMul node indices in order, the value the sum starts from (None when it starts
    with a product) and the chain's Add node indices."""
    producer = {v.id: i for i, node in enumerate(nodes) for v in node.outputs}
    fed_by: dict[int, int] = {}
    for k, (_, side) in pairs.items():
        acc = nodes[k].inputs[side]
        p = producer.get(acc.id)
        if p in pairs and uses.get(acc.id, 0) == 1:
            fed_by[k] = p
    feeding = set(fed_by.values())
    found: dict[int, tuple[list[int], Any, list[int]]] = {}
    for k in pairs:
        if k in feeding:
            continue
        adds = [k]
        while adds[-1] in fed_by:
            adds.append(fed_by[adds[-1]])
        adds.reverse()
        base = nodes[adds[0]].inputs[pairs[adds[0]][1]]
        terms = [pairs[a][0] for a in adds]
        start = producer.get(base.id)
        if start is not None and uses.get(base.id, 0) == 1 and _is_term(nodes[start]) \
                and tuple(base.spec.shape) == tuple(nodes[k].outputs[0].spec.shape):
            terms.insert(0, start)
            base = None
        if len(terms) >= min_terms:
            found[k] = (_order_like_concat(nodes, terms), base, adds)
    return found


def _order_like_concat(nodes: list[Any], terms: list[int]) -> list[int]:
    """``terms`` in the input order of a row Concat of the segment that stacks the same
    ``a_t`` (an unrolled RNN's input-gate gradient stacks the steps' gate gradients): the
    two stacks are then the same values in the same order, built once (concat_copies
    shares them). Unchanged when there is none: the sum's order is free."""
    position = {nodes[m].inputs[0].id: m for m in terms}
    if len(position) != len(terms):
        return terms
    for node in nodes:
        prim = node.prim
        if type(prim) is Concat and prim.axis in (0, -len(node.inputs[0].spec.shape)) \
                and len(node.inputs) == len(terms) and {v.id for v in node.inputs} == set(position):
            return [position[v.id] for v in node.inputs]
    return terms


def lower_chain(bb: relax.BlockBuilder, base: relax.Expr | None, a: list, b: list) -> relax.Expr:
    """``base + sum_t a_t^T b_t`` as ONE product of the stacked operands,
    ``concat(a)^T concat(b)`` (one long reduction: :mod:`..schedule.strided_matmul`).

    When ``b_0`` is a zero constant and ``b_1..b_T-1`` begin a stack already built (an RNN's
    recurrent weight gradient: ``h_-1 = 0``, and the layer's outputs ``h_0..h_T-1`` are
    stacked anyway), the product reads that stack shifted by one step instead:
    ``concat(a)[n:]^T stack[:-n]``, no second stack and no product with zeros."""
    a_all = emit(bb, concat_copies.concat(bb, a, 0))
    stack = _shifted_stack(bb, b)
    if stack is not None:
        skip = int(b[0].ty.shape.values[0])
        total = bb.emit(bb.call_te(_shifted_product, a_all, stack, skip,
                                   primfunc_name_hint="matmul_shifted"))
    else:
        b_all = emit(bb, concat_copies.concat(bb, b, 0))
        total = bb.emit(bb.call_te(topi.matmul, a_all, b_all, True, False))
    return total if base is None else relax.op.add(base, total)


def _shifted_stack(bb: relax.BlockBuilder, b: list) -> relax.Var | None:
    first = b[0]
    if len(b) < 2 or not isinstance(first, tvm.ir.expr.Constant) or np.any(first.value.numpy()):
        return None
    if any(not isinstance(x, relax.Var) for x in b[1:]):
        return None
    return concat_copies.stack_beginning_with(bb, b[1:])


def _shifted_product(a: te.Tensor, stack: te.Tensor, skip: int) -> te.Tensor:
    """``a[skip:]^T stack[:rows(a) - skip]``: the sum over rows ``r`` of ``a[r + skip, i]
    stack[r, j]`` (a^T b with both operands read in place)."""
    rows = a.shape[0] - skip
    r = te.reduce_axis((0, rows), name="k")
    return te.compute((a.shape[1], stack.shape[1]),
                      lambda i, j: te.sum(a[r + skip, i] * stack[r, j], axis=r), name="T_matmul")


def _kernel(acc: te.Tensor, a: te.Tensor, b: te.Tensor) -> te.Tensor:
    return topi.add(acc, topi.matmul(a, b, True, False))


def lower(bb: relax.BlockBuilder, acc: relax.Expr, a: relax.Expr, b: relax.Expr) -> relax.Expr:
    """``acc + a^T b`` as one kernel (a call_te whose PrimFunc FuseOps keeps whole)."""
    return bb.call_te(_kernel, acc, a, b, primfunc_name_hint="matmul_accumulate")
