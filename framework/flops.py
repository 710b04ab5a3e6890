"""MindSpore's ``flops_collection(phase)``: the floating-point operations of a compiled graph.

Contract (as MindSpore 2.10 counts on CPU, checked against it):

- Each graph compiled in graph mode is registered under a *phase*, a string that starts with
  the Cell's ``phase`` (``"train"`` unless set) and names the Cell and the compilation
  (``train.<id of the graph>.<id of the cell>.<n>``); the Cell lists its phases in
  ``compile_cache`` and the latest in ``current_phase``, as MindSpore's does.
- ``flops_collection(phase='train')`` returns ``(full_model_flops, full_hardware_flops,
  shard_model_flops, shard_hardware_flops, is_dynamic_shape)``: on one device, without
  recomputation, the four counts are equal; graphs are compiled per concrete shape, so
  ``is_dynamic_shape`` is False. An unknown phase is a RuntimeError naming it.
- Counted, as MindSpore counts them: matrix products (``MatMul``, ``BatchMatMul``: 2·M·K·N per
  matrix, batch broadcast) and convolutions with their gradients (``Conv2D``,
  ``Conv2DBackpropInput``, ``Conv2DBackpropFilter``: 2 per multiply-add, i.e. 2 · output
  elements · input channels · kernel area; a grouped one as if it were not grouped, as
  MindSpore counts it, G times its multiply-adds); bias additions, activations
  and other element-wise work count 0. The graph counted is the optimized one: a gradient
  nobody uses (of the network's input) is not in it, and not counted, as in MindSpore.
- Not MindSpore's: its ``ops.matmul`` and ``ops.dense`` (other primitives there) count 0; ours
  are the same ``MatMul`` as ``nn.Dense`` and count.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .ir.graph import Graph, Node
from .ops.batch_matmul import BatchMatMul
from .ops.conv import Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput
from .ops.group_conv import GroupConv2D, GroupConv2DBackpropFilter, GroupConv2DBackpropInput
from .ops.nn_ops import MatMul

# phase -> the graph's FLOPs (counted when it is compiled: one pass over its nodes)
_FLOPS: dict[str, float] = {}
_counter = itertools.count()


def _size(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _matmul(node: Node) -> float:
    a = node.inputs[0].shape
    k = a[-2] if getattr(node.prim, "transpose_a", False) else a[-1]
    return 2.0 * _size(node.outputs[0].shape) * k


def _conv(node: Node, dout: int, weight: tuple[int, ...]) -> float:
    """2 · the convolution's output elements (``dout``: which value holds them) · the
    multiply-adds per output element (a filter's size: ``weight`` is O, C/G, kh, kw)."""
    outs = node.outputs[0].shape if dout < 0 else node.inputs[dout].shape
    return 2.0 * _size(outs) * _size(weight[1:]) * getattr(node.prim, "group", 1)


def node_flops(node: Node) -> float:
    prim = node.prim
    if isinstance(prim, MatMul | BatchMatMul):
        return _matmul(node)
    if isinstance(prim, Conv2D | GroupConv2D):
        return _conv(node, -1, node.inputs[1].shape)
    if isinstance(prim, Conv2DBackpropInput | GroupConv2DBackpropInput):  # (dout, weight)
        return _conv(node, 0, node.inputs[1].shape)
    if isinstance(prim, Conv2DBackpropFilter | GroupConv2DBackpropFilter):  # (x, dout) -> weight
        return _conv(node, 1, node.outputs[0].shape)
    return 0.0


def graph_flops(graph: Graph) -> float:
    """The FLOPs of ``graph``'s nodes, those inside its control-flow regions once each."""
    total = 0.0
    for node in graph.nodes:
        total += node_flops(node)
        for region in node.prim.regions:
            total += graph_flops(region)
    return total


def register(graph: Graph, cell: Any) -> str:
    """Record a compiled graph's FLOPs under a new phase (added to ``cell``'s
    ``compile_cache`` and made its ``current_phase``); the phase."""
    prefix = getattr(cell, "phase", "train") if cell is not None else "jit"
    phase = f"{prefix}.{id(graph)}.{id(cell)}.{next(_counter)}"
    _FLOPS[phase] = graph_flops(graph)
    if cell is not None and hasattr(cell, "compile_cache"):
        cell.compile_cache.add(phase)
        cell.__dict__["_current_phase"] = phase
    return phase


def flops_collection(phase: str = "train") -> tuple[float, float, float, float, bool]:
    """The FLOPs of the graph compiled under ``phase`` (see the module docstring)."""
    if phase not in _FLOPS:
        raise RuntimeError(f"flops_collection: no graph was compiled under phase {phase!r}; pass a "
                           "graph-mode Cell's current_phase (or an entry of its compile_cache) "
                           "after calling it")
    flops = _FLOPS[phase]
    return flops, flops, flops, flops, False
