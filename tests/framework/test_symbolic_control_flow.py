"""Symbolic dimensions through control-flow regions: a function with a tensor-valued
``while`` / ``if`` / ``for`` compiles once for every size of a declared dynamic axis, its
results equal to PyNative's and to a per-size compile, its gradients through the While
equal to PyNative's; the compile report (summary.json) names the symbolic axes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.graph_mode import JitFunction, _front
from framework.ir.control import If, While
from framework.ir.symbolic import Affine, SymDim, generalize
from framework.signature import flatten

from .symbolic_context import compiles as _compiles
from .symbolic_context import graph_context  # noqa: F401  (the fixture pytestmark uses)

pytestmark = pytest.mark.usefixtures("graph_context")
SIZES = (3, 1, 6, 9)
SIGNATURE = (Tensor(shape=[None, 4], dtype=ms.float32),)


def grow(x):  # a while on a tensor: the state is batch-symbolic, the trip count data's
    while (x * x).sum() < 100.0:
        x = x * 2.0 + 1.0
    return x


def branch(x):  # an if on a tensor reduction
    if x.mean() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    return y.sum(axis=1)


def unrolled(x):  # a for over a Python range: unrolled, an If per iteration
    for _ in range(3):
        if x.sum() > 0:
            x = x * 0.5
        else:
            x = x + 1.0
    return x


def counted(x):  # a for over a tensor range: a While region (counter carried)
    for _ in range(ops.cast(x.abs().sum(), ms.int32) % 4 + 1):
        x = ops.tanh(x) + x.mean()
    return x


def _pynative(fn, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return fn(x).asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def _graph(fn):
    jit = JitFunction(fn)

    def trace(n):
        leaves, _, rebuild = flatten([Tensor(np.zeros((n, 4), np.float32))])
        return _front(jit, leaves, rebuild).graph
    return trace


@pytest.mark.parametrize("fn, region", [(grow, While), (branch, If), (unrolled, If), (counted, While)])
def test_regions_generalize_with_their_subgraphs(fn, region):
    trace = _graph(fn)
    a = trace(5)
    nodes = [node for node in a.nodes if isinstance(node.prim, region)]
    assert nodes, f"{fn.__name__} traces no {region.__name__} region"
    template = generalize(a, 5, trace(7), 7, SymDim())
    inner = {v.id for node in nodes for g in node.prim.regions for v in g.inputs}
    # the regions' own inputs (their subgraphs) are symbolic in n, not only the outer graph
    assert any(template.dims.get(i, ())[:1] == (Affine(1, 0),) for i in inner)
    assert template.matches(trace(9), 9) and template.matches(trace(1), 1)


def test_a_region_whose_subgraph_depends_on_the_size_is_refused():
    def inside(x):
        if x.sum() > 0:
            y = x[x.shape[0] // 2:] * 2.0  # a slice beginning at n // 2 inside the branch
        else:
            y = x[x.shape[0] // 2:] - 1.0
        return y

    trace = _graph(inside)
    with pytest.raises(Exception, match="Slice: its attribute 'begin' depends on the size"):
        generalize(trace(5), 5, trace(7), 7, SymDim())
    compiled = ms.jit(inside, input_signature=SIGNATURE)
    for n in (3, 5):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
        np.testing.assert_allclose(compiled(Tensor(x)).asnumpy(), x[n // 2:] * 2.0)
    assert compiled.last_report.symbolic_fallback.startswith("Slice: its attribute 'begin'")


def test_a_region_slicing_at_an_affine_begin_compiles_once():
    def inside(x):
        if x.sum() > 0:
            y = x[-2:] * 2.0  # a slice beginning at n - 2 inside the branch
        else:
            y = x[-2:] - 1.0
        return y

    template = generalize(_graph(inside)(5), 5, _graph(inside)(7), 7, SymDim())
    assert (Affine(1, -2), 0) in template.attrs.values()
    compiled = ms.jit(inside, input_signature=SIGNATURE)
    before = _compiles()
    for n in (3, 5, 2):
        x = np.arange(n * 4, dtype=np.float32).reshape(n, 4) * (1 if n != 5 else -1)
        want = x[-2:] * 2.0 if x.sum() > 0 else x[-2:] - 1.0
        np.testing.assert_allclose(compiled(Tensor(x)).asnumpy(), want)
    assert _compiles() - before == 1 and compiled.last_report.symbolic_fallback is None


@pytest.mark.slow
@pytest.mark.parametrize("fn", [grow, branch, unrolled, counted])
def test_one_compile_serves_every_batch_size(fn, tmp_path):
    compiled = ms.jit(fn, input_signature=SIGNATURE, ir_dir=str(tmp_path / "ir"))
    rng = np.random.default_rng(0)
    xs = [Tensor(rng.standard_normal((n, 4)).astype(np.float32)) for n in SIZES]
    before = _compiles()
    got = [compiled(x).asnumpy() for x in xs]
    assert _compiles() - before == 1
    for x, g in zip(xs, got):
        np.testing.assert_allclose(g, _pynative(fn, x), rtol=1e-5, atol=1e-6)
        per_size = ms.jit(fn)(x).asnumpy()  # compiled for this size alone
        np.testing.assert_allclose(g, per_size, rtol=1e-6, atol=1e-6)
    summary = json.loads((tmp_path / "ir" / "summary.json").read_text())
    assert summary["symbolic_axes"] == [[0]] and summary["symbolic_fallback"] is None


class _Recurrent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        h = x
        while (h * h).sum() < 50.0:
            h = ops.tanh(self.dense(h)) * 2.0 + h
        return h.sum(axis=1)


@pytest.mark.slow
def test_gradients_through_the_while_compile_once_and_equal_pynative():
    ms.set_seed(0)
    net = _Recurrent()
    grad = ms.grad(lambda x: net(x).sum(), grad_position=0, weights=net.trainable_params())
    compiled = ms.jit(grad, input_signature=SIGNATURE)
    rng = np.random.default_rng(1)
    before = _compiles()
    for n in SIZES:
        x = Tensor((0.1 * rng.standard_normal((n, 4))).astype(np.float32))
        gx, gw = compiled(x)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        wx, ww = grad(x)
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(gx.asnumpy(), wx.asnumpy(), rtol=1e-4, atol=1e-5)
        for a, b in zip(gw, ww):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-4, atol=1e-4)
    assert _compiles() - before == 1
    assert compiled.last_report.symbolic_axes == [[0]] and compiled.last_report.symbolic_fallback is None


@pytest.mark.slow
def test_a_train_step_through_the_while_compiles_once():
    def make():
        ms.set_seed(0)
        net = _Recurrent()
        loss = nn.MSELoss()
        return nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.01)), net

    dynamic, dnet = make()
    reference, rnet = make()
    dynamic.set_inputs(Tensor(shape=[None, 4], dtype=ms.float32), Tensor(shape=[None], dtype=ms.float32))
    rng = np.random.default_rng(2)
    before = _compiles()
    for n in SIZES:
        x = Tensor((0.1 * rng.standard_normal((n, 4))).astype(np.float32))
        y = Tensor(rng.standard_normal(n).astype(np.float32))
        got = dynamic(x, y).asnumpy()
        mark = _compiles()
        want = reference(x, y).asnumpy()  # compiled for this size alone
        before += _compiles() - mark
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        for p, q in zip(dnet.trainable_params(), rnet.trainable_params()):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    assert _compiles() - before == 1
    report = dynamic._graph_runner.last_report
    assert report.symbolic_axes == [[0], [0]] and report.symbolic_fallback is None


@pytest.mark.slow
def test_a_batch_symbolic_invariant_read_transposed_in_the_backward():
    # the VJP of h @ m reads m^T, m batch-symbolic and loop-invariant: its transpose is not
    # hoisted out of the loop (loop_grad), the gradient is still one compile
    def f(x):
        m = x * 0.5
        h = x
        while (h * h).sum() < 30.0:
            h = ops.tanh(ops.matmul(ops.matmul(h, m.T), m) * 0.1) + h
        return h.sum()

    grad = ms.grad(f, grad_position=0)
    compiled = ms.jit(grad, input_signature=SIGNATURE)
    rng = np.random.default_rng(3)
    before = _compiles()
    for n in SIZES:
        x = Tensor((0.3 * rng.standard_normal((n, 4))).astype(np.float32))
        got = compiled(x).asnumpy()
        np.testing.assert_allclose(got, _pynative(grad, x), rtol=1e-4, atol=1e-4)
    assert _compiles() - before == 1 and compiled.last_report.symbolic_fallback is None
