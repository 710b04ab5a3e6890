"""IR passes and printers on small traced graphs."""

from __future__ import annotations

import numpy as np

import framework as ms
from framework import Tensor, ops
from framework.graph_mode import JitFunction
from framework.ir import cse, dce, fold_constants, to_dot, to_text


def trace(fn, *arrays):
    traced = JitFunction(fn).trace(tuple(Tensor(a) for a in arrays))
    graph, outs = traced.graph, traced.out_leaves
    graph.outputs = [o._data for o in (outs if isinstance(outs, list) else [outs])]
    return graph


def names(graph):
    return [n.prim.name for n in graph.nodes]


def test_dce_removes_unused_nodes():
    def f(x):
        ops.exp(x)  # result unused
        return ops.relu(x)

    graph = trace(f, np.ones(3, np.float32))
    assert names(graph) == ["Exp", "ReLU"]
    assert dce(graph) == 1 and names(graph) == ["ReLU"]
    graph.verify()


def test_cse_merges_identical_nodes_and_constants():
    def f(x):
        a = ops.mul(x, 2.0)
        b = ops.mul(x, 2.0)  # same op, same inputs (an equal constant)
        return ops.add(a, b)

    graph = trace(f, np.ones(3, np.float32))
    assert names(graph) == ["Mul", "Mul", "Add"]
    assert cse(graph) == 1
    add = graph.nodes[-1]
    assert add.inputs[0] is add.inputs[1] is graph.nodes[0].outputs[0]
    graph.verify()


def test_cse_keeps_ops_with_different_attributes():
    graph = trace(lambda x: ops.add(ops.reduce_sum(x, 0), ops.reduce_sum(x, 1)),
                  np.ones((3, 3), np.float32))
    assert cse(graph) == 0


def test_constant_folding_evaluates_constant_subgraphs():
    const = Tensor(np.array([1.0, 4.0], np.float32))

    def f(x):
        return ops.add(x, ops.sqrt(ops.mul(const, 4.0)))  # sqrt(4c) is constant

    graph = trace(f, np.ones(2, np.float32))
    assert fold_constants(graph) == 2 and names(graph) == ["Add"]
    folded = graph.nodes[0].inputs[1]
    assert folded.kind == "const"
    np.testing.assert_allclose(folded.data, [2.0, 4.0])
    graph.verify()


def test_optimized_graph_computes_the_same_as_pynative():
    const = Tensor(np.array([0.5, 2.0, 3.0], np.float32))

    def f(x):
        unused = ops.tanh(x)  # noqa: F841
        y = ops.mul(x, ops.exp(const)) + ops.mul(x, ops.exp(const))
        return ops.reduce_sum(y * y)

    x = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    np.testing.assert_allclose(ms.jit(f)(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)


def test_text_and_dot_are_readable():
    graph = trace(lambda x: ops.relu(ops.matmul(x, x)), np.ones((2, 2), np.float32))
    text = to_text(graph, "demo")
    assert "input %0: float32[2, 2]" in text
    assert "MatMul{transpose_a=False, transpose_b=False}(%0, %0)" in text
    assert "test_ir.py:" in text  # source line of each node
    assert text == to_text(graph, "demo")  # deterministic numbering
    dot = to_dot(graph)
    assert dot.startswith('digraph "') and "MatMul" in dot and "->" in dot
