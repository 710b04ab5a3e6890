"""How an unrolled LSTM's train step lowers to Relax (framework/backend/tvm): its steps'
input rows are sliced next to the kernel that reads them (no split of the whole projection
before the loop), the stacked gate gradients are built once, shared by the input weights'
gradient and the recurrent weights' long sum (accumulate.py), and that sum reads the
layer's stacked outputs shifted by a step. The values are checked against PyNative: same
gradients with the module as lowered here."""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax

import framework as ms
from framework import Tensor, nn
from framework.backend.tvm.lower import accumulate
from framework.backend.tvm.lower.relax_builder import to_relax
from framework.graph_mode import JitFunction

STEPS, BATCH, INPUT, HIDDEN = accumulate.CHAIN_MIN + 4, 4, 6, 8


def _setup():
    ms.set_seed(5)
    net = nn.LSTM(INPUT, HIDDEN, 1)
    x = Tensor(np.random.default_rng(5).standard_normal((STEPS, BATCH, INPUT)).astype(np.float32))
    params = net.trainable_params()

    def loss(x):
        out, _ = net(x)
        return (out * out).sum()

    return ms.value_and_grad(loss, None, params), x


def _bindings() -> list:
    grad_fn, x = _setup()
    traced = JitFunction(grad_fn).trace((x,))
    graph = traced.graph
    graph.outputs = [leaf._data for leaf in traced.out_leaves]
    main = to_relax(graph)["main"]
    return [b for block in main.body.blocks for b in block.bindings]


def _call_tir_name(value) -> str | None:
    if isinstance(value, relax.Call) and value.op.same_as(tvm.ir.Op.get("relax.call_tir")):
        return value.args[0].name_hint
    return None


def _uses(value, var) -> bool:
    found = []
    relax.analysis.post_order_visit(value, lambda e: found.append(e.same_as(var)))
    return any(found)


def test_the_stacked_gate_gradients_are_built_once():
    bindings = _bindings()
    stacks = [b for b in bindings if (_call_tir_name(b.value) or "").startswith("concat_copies")
              and tuple(int(d) for d in b.var.ty.shape.values) == (STEPS * BATCH, 4 * HIDDEN)]
    assert len(stacks) == 1, [b.var.name_hint for b in stacks]


def test_the_recurrent_weights_gradient_reads_the_output_stack_shifted():
    bindings = _bindings()
    names = [_call_tir_name(b.value) or "" for b in bindings]
    assert names.count("matmul_shifted") == 1, names
    # the only (T * N, H) stack is the layer's output: the sum's h_-1..h_T-2 are its rows
    stacks = [b for b, name in zip(bindings, names) if name.startswith("concat_copies")
              and tuple(int(d) for d in b.var.ty.shape.values) == (STEPS * BATCH, HIDDEN)]
    assert len(stacks) == 1


def test_each_steps_input_rows_are_sliced_next_to_their_reader():
    bindings = _bindings()
    slice_op = tvm.ir.Op.get("relax.strided_slice")
    slices = [k for k, b in enumerate(bindings) if isinstance(b.value, relax.Call)
              and b.value.op.same_as(slice_op) and b.var.ty.shape.values[1] == 4 * HIDDEN]
    assert len(slices) == STEPS
    for k in slices:  # read by one of the next bindings (its step's gate add)
        assert any(_uses(b.value, bindings[k].var) for b in bindings[k + 1:k + 4]), k
    split = tvm.ir.Op.get("relax.split")
    assert not any(isinstance(b.value, relax.Call) and b.value.op.same_as(split) for b in bindings)


def test_graph_gradients_equal_pynative():
    grad_fn, x = _setup()
    want_loss, want = grad_fn(x)
    got_loss, got = ms.jit(grad_fn)(x)
    np.testing.assert_allclose(got_loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=2e-4, atol=2e-5)
