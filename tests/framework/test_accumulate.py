"""A weight's gradient accumulated over unrolled steps (``acc + x_t^T dy_t``) lowers to one
kernel per step (framework/backend/tvm/lower/accumulate.py): graph mode against a float64 NumPy
reference, and the lowered module holds those kernels instead of bare products."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import relax

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.lower import accumulate
from framework.backend.tvm.lower.relax_builder import to_relax
from framework.graph_mode import JitFunction

rng = np.random.default_rng(3)
W = rng.standard_normal((8, 5)).astype(np.float32) * 0.5


def _data(steps: int) -> tuple[np.ndarray, np.ndarray]:
    return (rng.standard_normal((steps, 4, 8)).astype(np.float32),
            rng.standard_normal((steps, 4, 5)).astype(np.float32))


def _loss(w, xs, cs):
    total = None
    for t in range(xs.shape[0]):  # the same weight at every step, like an unrolled recurrence
        term = (ops.tanh(ops.matmul(xs[t], w)) * cs[t]).sum()
        total = term if total is None else total + term
    return total


def _want(xs: np.ndarray, cs: np.ndarray) -> np.ndarray:
    xs, cs, w = xs.astype(np.float64), cs.astype(np.float64), W.astype(np.float64)
    return sum(xs[t].T @ ((1 - np.tanh(xs[t] @ w) ** 2) * cs[t]) for t in range(len(xs)))


@pytest.mark.parametrize("steps", [6, accumulate.CHAIN_MIN + 3])
def test_graph_gradient_of_a_shared_weight_matches_numpy(steps):
    xs, cs = _data(steps)
    args = (Tensor(W), Tensor(xs), Tensor(cs))
    got = ms.jit(ms.grad(_loss, 0))(*args).asnumpy()
    np.testing.assert_allclose(got, _want(xs, cs), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ms.grad(_loss, 0)(*args).asnumpy(), got, rtol=1e-5, atol=1e-5)


def _calls(steps: int) -> list[str]:
    xs, cs = _data(steps)
    traced = JitFunction(ms.grad(_loss, 0)).trace((Tensor(W), Tensor(xs), Tensor(cs)))
    graph, outs = traced.graph, traced.out_leaves
    graph.outputs = [outs[0]._data]
    mod = to_relax(graph)
    calls: list[str] = []

    def visit(expr):
        if isinstance(expr, relax.Call) and expr.op.same_as(tvm.ir.Op.get("relax.call_tir")):
            calls.append(expr.args[0].name_hint)

    relax.analysis.post_order_visit(mod["main"].body, visit)
    return calls


def test_each_step_adds_its_product_in_one_kernel():
    steps = accumulate.CHAIN_MIN - 2
    calls = _calls(steps)
    # the first step's product starts the sum; each later one is added in its own kernel
    assert sum(name.startswith("matmul_accumulate") for name in calls) == steps - 1, calls


def test_a_long_sum_of_products_is_one_product_of_stacked_operands():
    calls = _calls(accumulate.CHAIN_MIN + 3)
    assert not any(name.startswith("matmul_accumulate") for name in calls), calls
    # w's gradient: ONE a^T b kernel (the forward products are Relax matmuls, not call_tir yet)
    assert sum(name.startswith("matmul") for name in calls) == 1, calls
