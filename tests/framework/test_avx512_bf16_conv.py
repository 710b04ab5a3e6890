"""bf16 convolutions on AVX512-BF16 without AMX (``lower/avx512_bf16_conv.py``): the three
kernels (forward, input gradient, weight gradient) against NumPy's float64 convolution of
the same bf16 values, the ``vdpbf16ps`` in their assembly (compiled for a +avx512bf16
target on any x86 machine; run only where this CPU has the instruction), and graph mode's
use of them against its float32 path."""

from __future__ import annotations

import platform

import ml_dtypes
import numpy as np
import pytest
import tvm

from framework.backend.tvm.lower import amx_direct_conv as adc
from framework.backend.tvm.lower import avx512_bf16
from framework.backend.tvm.lower import avx512_bf16_conv as bc
from framework.backend.tvm.runtime.amx import cpu_flags

from .test_avx512_bf16_matmul import _dots_everywhere  # noqa: F401  (autouse: the kernels asked for)

BF16 = np.dtype(ml_dtypes.bfloat16)
TARGET = tvm.target.Target({"kind": "llvm", "mtriple": "x86_64-unknown-linux-gnu", "mcpu": "znver4",
                            "mattr": ["+avx512bf16"], "num-cores": 2})
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86 instructions")
runs_here = pytest.mark.skipif("avx512_bf16" not in cpu_flags(), reason="this CPU has no avx512_bf16")


def _bf16(rng, shape):
    return rng.standard_normal(shape).astype(BF16)


def _build(source: str):
    func = avx512_bf16.parse(source)
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target=TARGET)
    asm = lib.inspect_source("asm") if hasattr(lib, "inspect_source") else lib.mod.inspect_source("asm")
    return lib["main"], asm


def _run(kernel, args, out_shape):
    out = tvm.runtime.empty(out_shape, "float32", tvm.cpu())
    kernel(*[tvm.runtime.tensor(np.ascontiguousarray(a)) for a in args], out)
    return out.numpy()


def _channel_pairs(x):
    """(n, c, h, w) bf16 -> (n, c/2, 1, h, w) uint32, the even channel in the low half."""
    n, c, h, w = x.shape
    pairs = np.ascontiguousarray(x.reshape(n, c // 2, 2, h, w).transpose(0, 1, 3, 4, 2))
    return pairs.view(np.uint32).reshape(n, c // 2, 1, h, w)


def _weight_pairs(taps):
    """(t, m, k) bf16 -> (t, k/2, m) uint32."""
    t, m, k = taps.shape
    pairs = np.ascontiguousarray(taps.reshape(t, m, k // 2, 2).transpose(0, 2, 1, 3))
    return pairs.view(np.uint32).reshape(t, k // 2, m)


def _conv64(x, w, stride, pads):
    """float64 NCHW convolution by its definition."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    w = w.astype(np.float64)
    kh, kw = w.shape[2:]
    ho, wo = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    return sum(np.einsum("nchw,oc->nohw", x[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride],
                         w[:, :, i, j]) for i in range(kh) for j in range(kw))


def _input_grad64(dy, w, x_hw, stride, pads):
    kh, kw = w.shape[2:]
    n, o, ho, wo = dy.shape
    full = np.zeros((n, w.shape[1], x_hw[0] + pads[0] + pads[1] + stride, x_hw[1] + pads[2] + pads[3] + stride))
    for i in range(kh):
        for j in range(kw):
            full[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride] += np.einsum(
                "nopq,oc->ncpq", dy.astype(np.float64), w[:, :, i, j].astype(np.float64))
    return full[:, :, pads[0]:pads[0] + x_hw[0], pads[2]:pads[2] + x_hw[1]]


def _filter_grad64(x, dy, kernel, stride, pads):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    ho, wo = dy.shape[2:]
    return np.stack([np.stack([np.einsum("nchw,nohw->oc", x[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride],
                                         dy.astype(np.float64)) for j in range(kernel[1])], -1)
                     for i in range(kernel[0])], -2)


def _close(got, want):
    # exact bf16 products, float32 sums in another order than float64's
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


FORWARD = [  # (x shape, o, k, stride, pads)
    ((2, 16, 5, 32), 16, 3, 1, (1, 1, 1, 1)),
    ((2, 32, 7, 9), 32, 3, 1, (1, 1, 1, 1)),  # odd sizes
    ((2, 64, 8, 8), 64, 3, 1, (1, 1, 1, 1)),
    ((2, 16, 9, 11), 32, 3, 2, (1, 1, 1, 1)),  # strided, odd sizes
    ((2, 16, 8, 64), 32, 3, 2, (0, 1, 0, 1)),  # strided, columns in lanes
    ((2, 32, 8, 16), 64, 1, 2, (0, 0, 0, 0)),  # a projection shortcut
    ((1, 16, 6, 6), 48, 3, 1, (0, 1, 2, 0)),
]


@pytest.mark.parametrize("xs,o,k,stride,pads", FORWARD)
def test_forward_kernel_is_vdpbf16ps_and_matches_numpy(xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    kernel, asm = _build(bc.forward_source(n, c, o, ho, wo, k, k, (stride, stride)))
    assert "vdpbf16ps" in asm and "tdpbf16ps" not in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    _check_forward(kernel, xs, o, k, stride, pads)


def _check_forward(kernel, xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    rng = np.random.default_rng(0)
    x, wt = _bf16(rng, xs), _bf16(rng, (o, c, k, k))
    hw = adc._phase_hw(ho, wo, k, k, (stride, stride))
    xp = np.zeros((n, c, hw[0] * stride, hw[1] * stride), BF16)
    padded = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))[:, :, :hw[0] * stride, :hw[1] * stride]
    xp[:, :, :padded.shape[2], :padded.shape[3]] = padded
    phases = xp.reshape(n, c, hw[0], stride, hw[1], stride).transpose(0, 1, 3, 5, 2, 4)
    phases = np.ascontiguousarray(phases).reshape(n, c // 2, 2, stride * stride, *hw).transpose(0, 1, 3, 4, 5, 2)
    pairs = np.ascontiguousarray(phases).view(np.uint32).reshape(n, c // 2, stride * stride, *hw)
    taps = wt.transpose(2, 3, 0, 1).reshape(k * k, o, c)
    if bc.pixel_lanes(wo):  # NCHW as it comes
        got = _run(kernel, [pairs, _weight_pairs(taps)], (n, o, ho, wo))
    else:
        got = _run(kernel, [pairs, _weight_pairs(taps)], (n, ho, wo, o)).transpose(0, 3, 1, 2)
    _close(got, _conv64(x, wt, stride, pads))


INPUT_GRAD = [  # (x shape, o, k, stride, pads)
    ((2, 16, 4, 32), 16, 3, 1, (1, 1, 1, 1)),  # columns in lanes
    ((3, 48, 3, 16), 16, 3, 1, (1, 1, 1, 1)),
    ((2, 32, 7, 5), 16, 3, 1, (1, 1, 1, 1)),
    ((2, 16, 8, 16), 32, 3, 2, (1, 1, 1, 1)),  # a stage's first convolution
    ((2, 16, 6, 32), 32, 3, 2, (1, 1, 1, 1)),  # ... with 16 columns per phase: in lanes
    ((2, 32, 6, 10), 64, 3, 2, (0, 1, 0, 1)),
    ((2, 64, 8, 8), 32, 1, 2, (0, 0, 0, 0)),
]


@pytest.mark.parametrize("xs,o,k,stride,pads", INPUT_GRAD)
def test_input_gradient_kernel_matches_numpy(xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    geometry = ((stride, stride), (pads[0], pads[2]), (k, k))
    kernel, asm = _build(bc.input_grad_phases_source(n, o, c, (ho, wo), (h, w), *geometry))
    assert "vdpbf16ps" in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    _check_input_grad(kernel, xs, o, k, stride, pads)


def _check_input_grad(kernel, xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    geometry = ((stride, stride), (pads[0], pads[2]), (k, k))
    rng = np.random.default_rng(1)
    dy, wt = _bf16(rng, (n, o, ho, wo)), _bf16(rng, (o, c, k, k))
    top, bottom, left, right = adc.phase_padding(*geometry, (ho, wo), (h, w))
    padded = np.pad(dy, ((0, 0), (0, 0), (top, bottom), (left, right)))
    taps = wt.transpose(2, 3, 1, 0).reshape(k * k, c, o)
    phase_hw = (h // stride, w // stride)
    if bc.pixel_lanes(phase_hw[1]):
        got = _run(kernel, [_channel_pairs(padded), _weight_pairs(taps)], (n, c, stride, stride, *phase_hw))
        got = got.transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h, w)
    else:
        got = _run(kernel, [_channel_pairs(padded), _weight_pairs(taps)], (n, stride, stride, *phase_hw, c))
        got = got.transpose(0, 5, 3, 1, 4, 2).reshape(n, c, h, w)
    _close(got, _input_grad64(dy, wt, (h, w), stride, pads))


FILTER_GRAD = [  # (x shape, o, k, stride, pads)
    ((2, 16, 6, 32), 16, 3, 1, (1, 1, 1, 1)),
    ((3, 32, 5, 7), 32, 3, 1, (1, 1, 1, 1)),  # odd width: a zero in the last pixel pair; odd batch
    ((2, 64, 8, 8), 64, 3, 1, (1, 1, 1, 1)),
    ((2, 16, 9, 11), 32, 3, 2, (1, 1, 1, 1)),
    ((2, 32, 8, 16), 64, 1, 2, (0, 0, 0, 0)),
    ((2, 3, 8, 8), 16, 3, 1, (1, 1, 1, 1)),  # an RGB input: any input channels
]


@pytest.mark.parametrize("xs,o,k,stride,pads", FILTER_GRAD)
def test_weight_gradient_kernel_matches_numpy(xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    kernel, asm = _build(bc.filter_grad_source(n, c, o, ho, wo, k, k, (stride, stride)))
    assert "vdpbf16ps" in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    _check_filter_grad(kernel, bc.filter_chunks(n, c, o), xs, o, k, stride, pads)


def _check_filter_grad(kernel, chunks, xs, o, k, stride, pads):
    n, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    rng = np.random.default_rng(2)
    x, dy = _bf16(rng, xs), _bf16(rng, (n, o, ho, wo))
    q2 = -(-wo // 2)
    rows, cols = bc.column_pairs_hw(ho, wo, k, k, (stride, stride))
    xp = np.zeros((n, c, rows, cols + stride), BF16)
    padded = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))[:, :, :rows, :cols + stride]
    xp[:, :, :padded.shape[2], :padded.shape[3]] = padded
    pairs = np.stack([xp[..., :cols], xp[..., stride:cols + stride]], -1)  # columns q, q + stride
    xq = np.ascontiguousarray(pairs).view(np.uint32).reshape(n, c, rows, cols)
    dyq = np.zeros((n, o, ho, 2 * q2), BF16)
    dyq[..., :wo] = dy
    dyq = np.ascontiguousarray(dyq.reshape(n, o, ho, q2, 2).transpose(0, 2, 3, 1, 4)).view(np.uint32)
    got = _run(kernel, [xq, dyq.reshape(n, ho, q2, o)], (chunks, o, c, k, k)).sum(0)
    _close(got, _filter_grad64(x, dy, (k, k), stride, pads))


# a symbolic batch: one kernel (its buffers matched to a T.int64() var) for every batch size
BATCHES = (1, 3)  # an odd one: the weight gradient's second half of the batch an image short


@pytest.mark.parametrize("xs,o,k,stride,pads", [FORWARD[1], FORWARD[3], FORWARD[4]])
def test_forward_kernel_with_a_symbolic_batch_matches_numpy_at_each_size(xs, o, k, stride, pads):
    _, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    kernel, asm = _build(bc.forward_source(None, c, o, ho, wo, k, k, (stride, stride)))
    assert "vdpbf16ps" in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    for n in BATCHES:
        _check_forward(kernel, (n, c, h, w), o, k, stride, pads)


@pytest.mark.parametrize("xs,o,k,stride,pads", [INPUT_GRAD[0], INPUT_GRAD[2], INPUT_GRAD[3]])
def test_input_gradient_kernel_with_a_symbolic_batch_matches_numpy_at_each_size(xs, o, k, stride, pads):
    _, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    geometry = ((stride, stride), (pads[0], pads[2]), (k, k))
    kernel, asm = _build(bc.input_grad_phases_source(None, o, c, (ho, wo), (h, w), *geometry))
    assert "vdpbf16ps" in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    for n in BATCHES:
        _check_input_grad(kernel, (n, c, h, w), o, k, stride, pads)


@pytest.mark.parametrize("xs,o,k,stride,pads", [FILTER_GRAD[0], FILTER_GRAD[1], FILTER_GRAD[2], FILTER_GRAD[3]])
def test_weight_gradient_kernel_with_a_symbolic_batch_matches_numpy_at_each_size(xs, o, k, stride, pads):
    _, c, h, w = xs
    ho, wo = (h + pads[0] + pads[1] - k) // stride + 1, (w + pads[2] + pads[3] - k) // stride + 1
    kernel, asm = _build(bc.filter_grad_source(None, c, o, ho, wo, k, k, (stride, stride)))
    assert "vdpbf16ps" in asm
    if "avx512_bf16" not in cpu_flags():
        pytest.skip("this CPU has no avx512_bf16")
    for n in BATCHES:
        _check_filter_grad(kernel, bc.filter_chunks(None, c, o), (n, c, h, w), o, k, stride, pads)


def test_applies_to_16_lane_multiples_and_even_reductions():
    assert bc.applies(16, 16, (1, 1, 1, 1), (3, 3))
    assert bc.applies(64, 32, (0, 1, 0, 1), (3, 3))
    assert not bc.applies(3, 16, (1, 1, 1, 1), (3, 3))  # RGB input: odd reduction
    assert not bc.applies(16, 24, (1, 1, 1, 1), (3, 3))
    assert not bc.applies(16, 16, (-1, 0, 0, 0), (3, 3))  # a crop
    assert bc.blocking(16, 32, 32)[0] * bc.blocking(16, 32, 32)[1] * bc.blocking(16, 32, 32)[2] <= bc.MAX_ACC


# graph mode: the lowering picks these kernels where they pay (AMD Zen; here: _dots_everywhere)
def _direct_kernel_calls(tmp_path, run) -> list[int]:
    import framework as ms

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        run()
    finally:
        ms.set_context(save_graphs=False)
    return sorted(p.read_text().count("call_tir(cls.bf16_direct_") for p in tmp_path.rglob("10_relax.py"))


def _on_dots() -> bool:
    from framework.backend.tvm import compiler
    from framework.backend.tvm.lower import amx_matmul

    with compiler.make_target("CPU"):
        return avx512_bf16.available() and not amx_matmul.on_amx()


CONVS = [((2, 16, 9, 11), (32, 16, 3, 3), 2, "same"),  # odd sizes, strided: input gradient cropped
         ((2, 16, 4, 32), (16, 16, 3, 3), 1, "same"),  # columns in lanes
         ((2, 64, 5, 8), (64, 64, 3, 3), 1, "valid"),
         ((2, 32, 8, 32), (64, 32, 1, 1), 2, "same")]


@runs_here
@pytest.mark.parametrize("xs,ws,stride,pad_mode", [CONVS[0]] + [pytest.param(*c, marks=pytest.mark.slow)
                                                                for c in CONVS[1:]])
def test_graph_mode_conv_and_gradients_run_on_vdpbf16ps_and_agree_with_float32(tmp_path, xs, ws, stride,
                                                                                pad_mode):
    from tests.framework.test_bf16_tiles import _conv_and_grads

    rng = np.random.default_rng(8)
    x, w = _bf16(rng, xs), _bf16(rng, ws)
    y32 = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), np.ones(1, np.float32), stride,
                          pad_mode)[0]
    g = _bf16(rng, y32.shape)
    low = []
    calls = _direct_kernel_calls(tmp_path, lambda: low.extend(_conv_and_grads(x, w, g, stride, pad_mode)))
    if _on_dots():
        assert calls == [1, 3]  # the forward alone; with its two gradients
    wide = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), g.astype(np.float32), stride, pad_mode)
    for name, got, want in zip(("y", "dx", "dw"), low, wide):
        # float32 sums of the same bf16 products, rounded once to bf16
        np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=np.abs(want).max() * 2 ** -8, err_msg=name)


def _resnet_losses(mode, steps=3):
    import framework as ms
    from framework import Tensor, nn
    from framework.train.step import make_step
    from trainer.models.resnet import resnet8

    ms.set_seed(0)
    net = ms.amp.auto_mixed_precision(resnet8(), "O2", ms.bfloat16)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    cell = ms.amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9), loss, "O0")
    cell.set_train()
    step = make_step(cell, mode)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3, 16, 16)).astype(np.float32)
    y = rng.integers(0, 10, 8).astype(np.int32)
    out = []
    for _ in range(steps):  # one batch: the loss falls
        result = step(Tensor(x), Tensor(y))
        out.append(float(np.asarray((result[0] if isinstance(result, tuple) else result).asnumpy())))
    return np.array(out)


@pytest.mark.slow
def test_bf16_resnet_train_steps_in_graph_mode_follow_pynative(tmp_path):
    import framework as ms

    graph = []
    calls = _direct_kernel_calls(tmp_path, lambda: graph.append(_resnet_losses(ms.GRAPH_MODE)))
    eager = _resnet_losses(ms.PYNATIVE_MODE)
    if _on_dots():
        assert sum(calls) >= 3 * 6  # resnet8: 6 bf16 convolutions past the RGB one, all three kinds
    np.testing.assert_allclose(graph[0], eager, rtol=2e-2)  # bf16 activations, sums in another order
    assert np.all(np.isfinite(eager)) and eager[-1] < eager[0]  # it trains


@runs_here
def test_columns_in_lanes_store_bf16_rounded_to_nearest_even():
    n, c, o, ho, wo = 2, 16, 16, 4, 32
    rng = np.random.default_rng(9)
    x, wt = _bf16(rng, (n, c, ho + 2, wo + 2)), _bf16(rng, (o, c, 3, 3))
    args = [_channel_pairs(x), _weight_pairs(wt.transpose(2, 3, 0, 1).reshape(9, o, c))]
    wide, _ = _build(bc.forward_source(n, c, o, ho, wo, 3, 3))
    low, asm = _build(bc.forward_source(n, c, o, ho, wo, 3, 3, out_dtype="bfloat16"))
    assert "vdpbf16ps" in asm
    sums = _run(wide, args, (n, o, ho, wo))
    out = tvm.runtime.empty((n, o, ho, wo), "bfloat16", tvm.cpu())
    low(*[tvm.runtime.tensor(np.ascontiguousarray(a)) for a in args], out)
    np.testing.assert_array_equal(out.numpy().astype(np.float32), sums.astype(BF16).astype(np.float32))


def _small_bf16_step():
    import framework as ms
    from framework import nn

    ms.set_seed(0)
    net = nn.SequentialCell(nn.Conv2d(16, 32, 3, stride=2, pad_mode="same"), nn.ReLU(),
                            nn.Conv2d(32, 32, 3, pad_mode="same"), nn.ReLU(), nn.Flatten(), nn.Dense(32 * 16, 10))
    net = ms.amp.auto_mixed_precision(net, "O2", ms.bfloat16)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    cell = ms.amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9), loss, "O0")
    cell.set_train()
    return cell, net


@runs_here
def test_graph_mode_bf16_convs_with_a_symbolic_batch_compile_once_and_match_the_static_compile(
        tmp_path, monkeypatch):
    import framework as ms
    from framework import Tensor

    from .symbolic_context import compiles

    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        dynamic, dnet = _small_bf16_step()
        reference, rnet = _small_bf16_step()
        dynamic.set_inputs(Tensor(shape=[None, 16, 8, 8], dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
        rng = np.random.default_rng(3)
        own = 0
        for n in (1, 3, 8):
            x = Tensor(rng.standard_normal((n, 16, 8, 8)).astype(np.float32))
            y = Tensor(rng.integers(0, 10, n).astype(np.int32))
            before = compiles()
            ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path / "ir"))  # its Relax module
            try:
                got = dynamic(x, y)
            finally:
                ms.set_context(save_graphs=False)
            own += compiles() - before
            want = reference(x, y)  # compiled for this size
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)  # the loss
            for (_, p), (_, q) in zip(dnet.parameters_and_names(), rnet.parameters_and_names()):
                want_p = q.asnumpy()
                np.testing.assert_allclose(p.asnumpy(), want_p, rtol=1e-5, atol=1e-5 * np.abs(want_p).max())
        report = dynamic._graph_runner.last_report
        assert own == 1, (own, report.symbolic_axes, report.symbolic_fallback)
        assert report.symbolic_axes == [[0], [0]] and report.symbolic_fallback is None
        if _on_dots():  # both forwards, their weight gradients, the second's input gradient
            modules = list((tmp_path / "ir").rglob("10_relax.py"))
            assert len(modules) == 1 and modules[0].read_text().count("call_tir(cls.bf16_direct_") >= 5
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
