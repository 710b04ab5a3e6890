"""Stride-1 bf16 convolutions whose tile loads read the padded input in place
(``lower/amx_direct_conv.py``): the kernels against NumPy's float32 convolution of the same
bf16 values, the instructions they compile to, and graph mode's use of them (forward, input
and weight gradients) against its float32 path, with and without AMX."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import tvm

from framework.backend.tvm import compiler
from framework.backend.tvm.lower import amx_direct_conv as adc
from framework.backend.tvm.runtime import amx
from tests.framework.test_bf16_tiles import _bf16, _conv_and_grads

BF16 = np.dtype(ml_dtypes.bfloat16)
needs_amx = pytest.mark.skipif(not amx.amx_permitted(), reason="no AMX bf16 tiles on this CPU")


def _build(source: str):
    target = compiler.make_target("CPU")
    func = tvm.script.from_source(source)
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target=target)
    asm = lib.inspect_source("asm") if hasattr(lib, "inspect_source") else lib.mod.inspect_source("asm")
    return lib["main"], asm


def _reference_conv(xpad: np.ndarray, w: np.ndarray) -> np.ndarray:
    """float32 stride-1 'valid' convolution of a padded NCHW input, OIHW weights."""
    n, c, hp, wp = xpad.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, hp - kh + 1, wp - kw + 1), np.float32)
    for i in range(kh):
        for j in range(kw):
            window = xpad[:, :, i:i + hp - kh + 1, j:j + wp - kw + 1]
            out += np.einsum("nchw,oc->nohw", window, w[:, :, i, j])
    return out


@needs_amx
@pytest.mark.parametrize("c,o,ho,wo", [(16, 16, 3, 32), (32, 48, 2, 16), (64, 64, 3, 8)])
def test_forward_kernel_multiplies_tiles_and_matches_numpy(c, o, ho, wo):
    rng = np.random.default_rng(0)
    xpad = _bf16(rng, (2, c, ho + 2, wo + 2))
    w = _bf16(rng, (o, c, 3, 3))
    kernel, asm = _build(adc.forward_source(2, c, o, ho, wo, 3, 3))
    assert "tdpbf16ps" in asm and "ldtilecfg" in asm
    pairs = np.ascontiguousarray(xpad.reshape(2, c // 2, 2, ho + 2, wo + 2).transpose(0, 1, 3, 4, 2))
    pairs = pairs.view(np.uint32).reshape(2, c // 2, 1, ho + 2, wo + 2)
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1).reshape(9, o, c))
    out = tvm.runtime.empty((2, o, ho, wo), "float32", tvm.cpu())
    kernel(tvm.runtime.tensor(pairs), tvm.runtime.tensor(taps), out)
    want = _reference_conv(xpad.astype(np.float32), w.astype(np.float32))
    # bf16 products are exact in float32: the sums differ from NumPy's in order only
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


@needs_amx
@pytest.mark.parametrize("c,o,ho,wo", [(16, 16, 3, 32), (32, 48, 2, 16), (64, 32, 2, 8)])
def test_weight_gradient_kernel_multiplies_tiles_and_matches_numpy(c, o, ho, wo):
    rng = np.random.default_rng(1)
    xpad = _bf16(rng, (2, c, ho + 2, wo + 2))
    dy = _bf16(rng, (2, o, ho, wo))
    kernel, asm = _build(adc.filter_grad_source(2, c, o, ho, wo, 3, 3))
    assert "tdpbf16ps" in asm
    pairs = np.ascontiguousarray(dy.reshape(2, o, ho, wo // 2, 2).transpose(0, 2, 3, 1, 4))
    out = tvm.runtime.empty((9, c, o), "float32", tvm.cpu())
    kernel(tvm.runtime.tensor(xpad[:, :, None]), tvm.runtime.tensor(pairs), out)
    x32, dy32 = xpad.astype(np.float32), dy.astype(np.float32)
    want = np.stack([np.einsum("nchw,nohw->co", x32[:, :, i:i + ho, j:j + wo], dy32)
                     for i in range(3) for j in range(3)])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


@needs_amx
@pytest.mark.parametrize("c,o,h,w,k,pads", [(16, 32, 4, 32, 3, (0, 1, 0, 1)),
                                          (32, 64, 4, 16, 1, (0, 0, 0, 0)),
                                          (16, 16, 6, 16, 3, (1, 1, 1, 1))])
def test_strided_input_gradient_kernel_runs_phases_on_tiles_and_matches_numpy(c, o, h, w, k, pads):
    rng = np.random.default_rng(5)
    ho, wo = (h + pads[0] + pads[1] - k) // 2 + 1, (w + pads[2] + pads[3] - k) // 2 + 1
    dy, wt = _bf16(rng, (2, o, ho, wo)), _bf16(rng, (o, c, k, k))
    geometry = ((2, 2), (pads[0], pads[2]), (k, k))
    kernel, asm = _build(adc.input_grad_phases_source(2, o, c, (ho, wo), (h, w), *geometry))
    assert "tdpbf16ps" in asm
    top, bottom, left, right = adc.phase_padding(*geometry, (ho, wo), (h, w))
    padded = np.pad(dy, ((0, 0), (0, 0), (top, bottom), (left, right)))
    pairs = padded.reshape(2, o // 2, 2, *padded.shape[2:]).transpose(0, 1, 3, 4, 2)
    pairs = np.ascontiguousarray(pairs).view(np.uint32).reshape(2, o // 2, 1, *padded.shape[2:])
    taps = np.ascontiguousarray(wt.transpose(2, 3, 1, 0).reshape(k * k, c, o))
    out = tvm.runtime.empty((2, c, 2, 2, h // 2, w // 2), "float32", tvm.cpu())
    kernel(tvm.runtime.tensor(pairs), tvm.runtime.tensor(taps), out)
    got = out.numpy().transpose(0, 1, 4, 2, 5, 3).reshape(2, c, h, w)
    # the gradient by its definition: every output position scatters into the input
    want = np.zeros((2, c, h + pads[0] + pads[1], w + pads[2] + pads[3]), np.float32)
    dy32, w32 = dy.astype(np.float32), wt.astype(np.float32)
    for i in range(k):
        for j in range(k):
            want[:, :, i:i + 2 * ho:2, j:j + 2 * wo:2] += np.einsum("nopq,oc->ncpq", dy32, w32[:, :, i, j])
    want = want[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def _phases(xpad: np.ndarray, stride: int, hw: tuple[int, int]) -> np.ndarray:
    """``(n, c, s*s, h', w')``: phase ``a s + b`` holds the padded rows ``s y + a``, columns
    ``s z + b`` (zeros past the end)."""
    n, c, hp, wp = xpad.shape
    big = np.zeros((n, c, hw[0] * stride, hw[1] * stride), xpad.dtype)
    rows, cols = min(hp, hw[0] * stride), min(wp, hw[1] * stride)
    big[:, :, :rows, :cols] = xpad[:, :, :rows, :cols]
    split = big.reshape(n, c, hw[0], stride, hw[1], stride).transpose(0, 1, 3, 5, 2, 4)
    return np.ascontiguousarray(split).reshape(n, c, stride * stride, *hw)


@needs_amx
@pytest.mark.parametrize("k", [3, 1])
def test_strided_forward_and_weight_gradient_kernels_read_phases_and_match_numpy(k):
    rng = np.random.default_rng(6)
    c, o, ho, wo = 16, 32, 3, 16
    xpad = _bf16(rng, (2, c, 2 * ho + k - 1, 2 * wo + k - 1))  # already padded, 'valid' from here
    w, dy = _bf16(rng, (o, c, k, k)), _bf16(rng, (2, o, ho, wo))
    hw = (ho + (k - 1) // 2, wo + (k - 1) // 2)
    phases = _phases(xpad, 2, hw)
    forward, asm = _build(adc.forward_source(2, c, o, ho, wo, k, k, (2, 2)))
    assert "tdpbf16ps" in asm
    pairs = phases.reshape(2, c // 2, 2, 4, *hw).transpose(0, 1, 3, 4, 5, 2)
    pairs = np.ascontiguousarray(pairs).view(np.uint32).reshape(2, c // 2, 4, *hw)
    taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1).reshape(k * k, o, c))
    y = tvm.runtime.empty((2, o, ho, wo), "float32", tvm.cpu())
    forward(tvm.runtime.tensor(pairs), tvm.runtime.tensor(taps), y)
    x32, w32, dy32 = xpad.astype(np.float32), w.astype(np.float32), dy.astype(np.float32)
    windows = [x32[:, :, i:i + 2 * ho:2, j:j + 2 * wo:2] for i in range(k) for j in range(k)]
    want = sum(np.einsum("nchw,oc->nohw", win, w32[:, :, t // k, t % k]) for t, win in enumerate(windows))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-4)
    grad, _ = _build(adc.filter_grad_source(2, c, o, ho, wo, k, k, (2, 2)))
    dy_pairs = np.ascontiguousarray(dy.reshape(2, o, ho, wo // 2, 2).transpose(0, 2, 3, 1, 4))
    dw = tvm.runtime.empty((k * k, c, o), "float32", tvm.cpu())
    grad(tvm.runtime.tensor(phases), tvm.runtime.tensor(dy_pairs), dw)
    want = np.stack([np.einsum("nchw,nohw->co", win, dy32) for win in windows])
    np.testing.assert_allclose(dw.numpy(), want, rtol=1e-5, atol=1e-4)


def test_only_multiples_of_16_channels_and_8_columns_apply():
    assert adc.applies(16, 16, 32, (1, 1), (1, 1, 1, 1), (3, 3))
    assert adc.applies(16, 32, 16, (2, 2), (0, 1, 0, 1), (3, 3))  # a stage's first conv: phases
    assert adc.applies(64, 64, 8, (1, 1), (1, 1, 1, 1), (3, 3))  # 8 columns: half-width tiles
    assert not adc.applies(64, 64, 4, (1, 1), (1, 1, 1, 1), (3, 3))
    assert not adc.applies(3, 16, 32, (1, 1), (1, 1, 1, 1), (3, 3))  # RGB input
    assert not adc.applies(16, 16, 32, (1, 1), (-1, 0, 0, 0), (3, 3))  # a crop


CONVS = [((2, 16, 4, 32), (16, 16, 3, 3), 1, "same"),  # ResNet-20's first stage, 32 columns
         ((2, 32, 3, 16), (16, 32, 3, 3), 1, "same"),  # 16 columns, fewer output channels
         ((2, 16, 6, 18), (32, 16, 3, 3), 1, "valid"),
         ((2, 64, 3, 8), (64, 64, 3, 3), 1, "same"),  # the third stage: 8 columns
         ((2, 16, 4, 32), (32, 16, 3, 3), 2, "same"),  # a stage's start: input gradient by phases
         ((2, 32, 4, 16), (64, 32, 1, 1), 2, "same")]  # its projection shortcut


def _agrees_with_float32(xs, ws, stride, pad_mode, seed):
    rng = np.random.default_rng(seed)
    x, w = _bf16(rng, xs), _bf16(rng, ws)
    y32 = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), np.ones(1, np.float32), stride,
                          pad_mode)[0]
    g = _bf16(rng, y32.shape)
    low = _conv_and_grads(x, w, g, stride, pad_mode)
    wide = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), g.astype(np.float32), stride,
                           pad_mode)
    for name, got, want in zip(("y", "dx", "dw"), low, wide):
        # float32 sums of the same bf16 products, rounded once to bf16
        np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=np.abs(want).max() * 2 ** -8, err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("xs,ws,stride,pad_mode", CONVS, ids=[f"{x}*{w}/s{s}-{p}" for x, w, s, p in CONVS])
def test_graph_mode_conv_and_gradients_agree_with_float32(xs, ws, stride, pad_mode):
    _agrees_with_float32(xs, ws, stride, pad_mode, seed=2)


@pytest.mark.slow
def test_without_amx_the_same_convolutions_agree(monkeypatch):
    monkeypatch.setenv("TWINMODE_CPU", "haswell")
    _agrees_with_float32(*CONVS[0], seed=3)


@needs_amx
@pytest.mark.slow
def test_graph_mode_uses_the_direct_kernels_for_all_three(tmp_path):
    import framework as ms

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        rng = np.random.default_rng(4)
        _conv_and_grads(_bf16(rng, (2, 16, 4, 16)), _bf16(rng, (16, 16, 3, 3)), _bf16(rng, (2, 16, 4, 16)),
                        1, "same")
    finally:
        ms.set_context(save_graphs=False)
    texts = [p.read_text() for p in tmp_path.rglob("10_relax.py")]
    assert sorted(t.count("call_tir(cls.amx_direct_conv") for t in texts) == [1, 3]
    assert all("amx_bf16_conv" not in t for t in texts)  # no gathered operand


@needs_amx
@pytest.mark.slow
def test_a_strided_convolution_runs_all_three_on_the_direct_kernels(tmp_path):
    import framework as ms

    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        rng = np.random.default_rng(7)
        _conv_and_grads(_bf16(rng, (2, 16, 4, 32)), _bf16(rng, (32, 16, 3, 3)), _bf16(rng, (2, 32, 2, 16)),
                        2, "same")
    finally:
        ms.set_context(save_graphs=False)
    texts = [p.read_text() for p in tmp_path.rglob("10_relax.py")]
    assert sorted(t.count("call_tir(cls.amx_direct_") for t in texts) == [1, 3]  # phases: one kernel
    assert all("amx_bf16_conv" not in t and "amx_im2col" not in t for t in texts)
    kernels = "".join(p.read_text() for p in tmp_path.rglob("20_kernels.ll"))
    assert "@llvm.x86.tdpbf16ps" in kernels
