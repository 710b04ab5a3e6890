"""Symbolic dimensions in graph mode: one compile for every size of a declared dynamic axis
(set_inputs / jit(input_signature=...)), results equal to the shape-specialised compile and
to PyNative, and a per-size fallback that names its reason."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, graph_mode, nn, ops
from framework.graph_mode import JitFunction, _front
from framework.ir.symbolic import Affine, NotSymbolic, SymDim, generalize
from framework.signature import flatten

from .symbolic_context import compiles as _compiles
from .symbolic_context import graph_context  # noqa: F401  (the fixture pytestmark uses)

SIZES = (8, 1, 7, 33, 512)


pytestmark = pytest.mark.usefixtures("graph_context")


def _mlp() -> nn.Cell:
    return nn.SequentialCell(nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 10))


def _lenet() -> nn.Cell:
    return nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Flatten(), nn.Dense(400, 120), nn.ReLU(), nn.Dense(120, 10))


def _step(make, optimizer=nn.Momentum):
    ms.set_seed(0)
    net = make()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = optimizer(net.trainable_params(), 0.01, 0.9) if optimizer is nn.Momentum \
        else optimizer(net.trainable_params(), 0.01)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt), net


def _trace(step: nn.Cell, n: int, shape: tuple[int, ...]):
    jit = JitFunction(step.construct, cell=step)
    leaves, _, rebuild = flatten([Tensor(np.zeros((n, *shape), np.float32)),
                                  Tensor(np.zeros((n,), np.int32))])
    return _front(jit, leaves, rebuild)


def test_two_traces_give_the_batch_axis_and_the_mean_count():
    step, _ = _step(_mlp)
    a, b = _trace(step, 5, (16,)), _trace(step, 7, (16,))
    template = generalize(a.graph, 5, b.graph, 7, SymDim())
    inputs = [template.shape(v) for v in a.graph.inputs if v.kind == "input"]
    assert inputs == [(Affine(1, 0), 16), (Affine(1, 0),)]
    # the loss mean's gradient divides by the batch: a constant k * n, not a fixed number
    assert [(s.k, s.power) for s in template.scaled.values()] == [(1.0, 1)]
    assert template.matches(_trace(step, 33, (16,)).graph, 33)
    assert template.matches(_trace(step, 1, (16,)).graph, 1)
    # a trace of another structure is refused, not generalized (SGD: no momentum nodes)
    other, _ = _step(_mlp, nn.SGD)
    with pytest.raises(NotSymbolic, match="structure depends on the size"):
        generalize(a.graph, 5, _trace(other, 7, (16,)).graph, 7, SymDim())


def _run_steps(make, shape, sizes, optimizer=nn.Momentum):
    dynamic, dnet = _step(make, optimizer)
    reference, rnet = _step(make, optimizer)
    dynamic.set_inputs(Tensor(shape=[None, *shape], dtype=ms.float32),
                       Tensor(shape=[None], dtype=ms.int32))
    rng = np.random.default_rng(0)
    before = _compiles()
    for n in sizes:
        x = Tensor(rng.standard_normal((n, *shape)).astype(np.float32))
        y = Tensor(rng.integers(0, 10, n).astype(np.int32))
        got = dynamic(x, y).asnumpy()
        dynamic_compiles = _compiles()
        want = reference(x, y).asnumpy()  # compiled for this size (no set_inputs)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        for (_, p), (_, q) in zip(dnet.parameters_and_names(), rnet.parameters_and_names()):
            want_p = q.asnumpy()  # weights, optimizer state, BatchNorm's running statistics
            np.testing.assert_allclose(p.asnumpy(), want_p, rtol=1e-6, atol=1e-6 * np.abs(want_p).max())
        before += _compiles() - dynamic_compiles  # the reference's own compiles
    report = dynamic._graph_runner.last_report
    return _compiles() - before, report


@pytest.mark.slow
def test_mlp_train_step_compiles_once_for_every_batch_size():
    count, report = _run_steps(_mlp, (16,), SIZES, optimizer=nn.SGD)
    assert count == 1
    assert report.symbolic_axes == [[0], [0]] and report.symbolic_fallback is None


@pytest.mark.slow
def test_lenet_train_step_compiles_once_for_every_batch_size():
    count, report = _run_steps(_lenet, (1, 32, 32), (8, 1, 7, 33))
    assert count == 1
    assert report.symbolic_axes == [[0], [0]]


@pytest.mark.slow
def test_one_cached_library_serves_every_size(tmp_path):
    step, _ = _step(_mlp)
    step.set_inputs(Tensor(shape=[None, 16], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    for n in SIZES:
        step(Tensor(np.ones((n, 16), np.float32)), Tensor(np.zeros((n,), np.int32)))
    assert len(list((tmp_path / "cache").glob("*.so"))) == 1
    # a new process (a fresh function) finds it on disk, whatever size comes first
    again, _ = _step(_mlp)
    again.set_inputs(Tensor(shape=[None, 16], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    hits = graph_mode.cache_stats["disk_hits"]
    again(Tensor(np.ones((3, 16), np.float32)), Tensor(np.zeros((3,), np.int32)))
    assert graph_mode.cache_stats["disk_hits"] == hits + 1
    assert len(list((tmp_path / "cache").glob("*.so"))) == 1


@pytest.mark.slow
def test_jit_input_signature_forward_equals_pynative():
    ms.set_seed(0)
    net = _mlp()

    def forward(x):
        return ops.softmax(net(x), -1)

    compiled = ms.jit(forward, input_signature=(Tensor(shape=[None, 16], dtype=ms.float32),))
    before = _compiles()
    rng = np.random.default_rng(1)
    for n in (3, 1, 10, 65):
        x = Tensor(rng.standard_normal((n, 16)).astype(np.float32))
        got = compiled(x).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = forward(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    assert _compiles() - before == 1


@pytest.mark.slow
def test_a_size_dependent_attribute_compiles_per_size_and_says_why():
    def tail(x):
        return x[-2:] * 2.0  # the slice's begin is n - 2: affine in the size, symbolic

    def half(x):
        return x[x.shape[0] // 2:] * 2.0  # begin n // 2: not affine, compiled per size

    for fn, want_axes in ((tail, [[0]]), (half, [[]])):
        compiled = ms.jit(fn, input_signature=(Tensor(shape=[None, 4], dtype=ms.float32),))
        for n in (3, 6):
            x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
            np.testing.assert_array_equal(compiled(Tensor(x)).asnumpy(), fn(x))
        report = compiled.last_report
        assert report.symbolic_axes == want_axes
        if fn is tail:
            assert report.symbolic_fallback is None
        else:
            assert "attribute 'begin' depends on the size" in report.symbolic_fallback


def test_a_call_whose_fixed_axis_differs_is_the_set_inputs_error():
    step, _ = _step(_mlp)
    step.set_inputs(Tensor(shape=[None, 16], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    with pytest.raises(ValueError, match=r"^set_inputs: input 1 must have size 16 on axis 1"):
        step(Tensor(np.ones((4, 8), np.float32)), Tensor(np.zeros((4,), np.int32)))


@pytest.mark.slow
def test_summary_json_says_which_axes_are_symbolic(tmp_path):
    import json

    net = _mlp()
    compiled = ms.jit(lambda x: net(x), input_signature=(Tensor(shape=[None, 16], dtype=ms.float32),),
                      ir_dir=str(tmp_path / "ir"))
    for n in (2, 9):
        compiled(Tensor(np.ones((n, 16), np.float32)))
    summary = json.loads((tmp_path / "ir" / "summary.json").read_text())
    assert summary["symbolic_axes"] == [[0]] and summary["symbolic_fallback"] is None
    assert (tmp_path / "ir" / "10_relax.py").is_file() and not (tmp_path / "ir_2").exists()


def _bn_net() -> nn.Cell:
    return nn.SequentialCell(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(),
                             nn.Dense(8 * 8 * 8, 10))


@pytest.mark.slow
def test_batch_norm_statistics_divide_by_the_runtime_batch():
    # the batch mean/variance divide by n*H*W and the running variance's unbiased factor is
    # m / (m - 1): both computed from the runtime size (a per-size compile would bake them in)
    count, report = _run_steps(_bn_net, (3, 8, 8), (8, 1, 3, 33))
    assert count == 1 and report.symbolic_axes == [[0], [0]]


@pytest.mark.slow
def test_a_lowering_that_needs_static_sizes_falls_back_by_name_quietly(capfd):
    # an integer mean divides toward zero by an int count: its lowering needs it static
    compiled = ms.jit(lambda x: x.mean(axis=0), input_signature=(Tensor(shape=[None, 4], dtype=ms.int32),))
    for n in (3, 5):
        x = np.arange(n * 4, dtype=np.int32).reshape(n, 4)
        np.testing.assert_array_equal(compiled(Tensor(x)).asnumpy(), x.sum(0) // n)
    assert compiled.last_report.symbolic_fallback.startswith("ReduceMean: its lowering needs static sizes")
    assert "BlockBuilder" not in capfd.readouterr().err
