"""A weight's gradient accumulated over unrolled steps (``acc + x_t^T dy_t``) lowers to one
kernel per step (framework/backend/tvm/accumulate.py): graph mode against a float64 NumPy
reference, and the lowered module holds those kernels instead of bare products."""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.relax_builder import to_relax
from framework.graph_mode import JitFunction

T = 6
rng = np.random.default_rng(3)
XS = rng.standard_normal((T, 4, 8)).astype(np.float32)
CS = rng.standard_normal((T, 4, 5)).astype(np.float32)
W = rng.standard_normal((8, 5)).astype(np.float32) * 0.5


def _loss(w, xs, cs):
    total = None
    for t in range(T):  # the same weight at every step, like an unrolled recurrence
        term = (ops.tanh(ops.matmul(xs[t], w)) * cs[t]).sum()
        total = term if total is None else total + term
    return total


def _want() -> np.ndarray:
    xs, cs, w = XS.astype(np.float64), CS.astype(np.float64), W.astype(np.float64)
    return sum(xs[t].T @ ((1 - np.tanh(xs[t] @ w) ** 2) * cs[t]) for t in range(T))


def test_graph_gradient_of_a_shared_weight_matches_numpy():
    args = (Tensor(W), Tensor(XS), Tensor(CS))
    got = ms.jit(ms.grad(_loss, 0))(*args).asnumpy()
    np.testing.assert_allclose(got, _want(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ms.grad(_loss, 0)(*args).asnumpy(), got, rtol=1e-5, atol=1e-6)


def test_each_step_adds_its_product_in_one_kernel():
    traced = JitFunction(ms.grad(_loss, 0)).trace((Tensor(W), Tensor(XS), Tensor(CS)))
    graph, outs = traced.graph, traced.out_leaves
    graph.outputs = [outs[0]._data]
    mod = to_relax(graph)
    calls: list[str] = []

    def visit(expr):
        if isinstance(expr, relax.Call) and expr.op.same_as(tvm.ir.Op.get("relax.call_tir")):
            calls.append(expr.args[0].name_hint)

    relax.analysis.post_order_visit(mod["main"].body, visit)
    # the first step's product starts the sum; each later one is added in its own kernel
    assert sum(name.startswith("matmul_accumulate") for name in calls) == T - 1, calls
