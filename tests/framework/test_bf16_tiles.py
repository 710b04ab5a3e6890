"""bfloat16 (batched) matmuls in graph mode on AMX tiles (``lower/amx_matmul.py``): values
against NumPy's float32 product of the same bf16 inputs, rounded to bf16; the generated code
multiplies tiles (``tdpbf16ps``) where the CPU has them, and the AVX2 build stays correct."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import tvm

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm import compiler
from framework.backend.tvm.lower import amx_matmul
from framework.backend.tvm.runtime import amx

BF16 = np.dtype(ml_dtypes.bfloat16)
needs_amx = pytest.mark.skipif(not amx.amx_permitted(), reason="no AMX bf16 tiles on this CPU")

CASES = [  # (a shape, b shape, transpose_a, transpose_b, batched)
    ((256, 256), (256, 256), False, False, False),
    ((768, 128), (128, 512), False, False, False),  # the character GPT's MLP
    ((768, 128), (65, 128), False, True, False),  # its head: n padded to 80 (16-wide blocks)
    ((48, 64), (64, 80), False, False, False),  # 16-row and 16-column blocks
    ((768, 128), (768, 384), True, False, False),  # a weight gradient, a^T b
    ((100, 70), (70, 40), False, False, False),  # every size padded
    ((48, 64, 32), (48, 64, 32), False, True, True),  # attention scores q k^T
    ((2, 3, 64, 64), (2, 3, 64, 32), False, False, True),
]


def _bf16(rng, shape):
    return rng.standard_normal(shape).astype(BF16)


def _reference(a, b, ta, tb):
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if ta:
        a32 = np.swapaxes(a32, -1, -2)
    if tb:
        b32 = np.swapaxes(b32, -1, -2)
    return np.matmul(a32, b32).astype(BF16).astype(np.float32)


def _graph_product(a, b, ta, tb, batched):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        op = ops.BatchMatMul(ta, tb) if batched else ops.MatMul(ta, tb)
        return ms.jit(lambda x, y: op(x, y))(Tensor(a), Tensor(b)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("sa,sb,ta,tb,batched", CASES,
                         ids=[f"{a}{'T' * ta}@{b}{'T' * tb}" for a, b, ta, tb, _ in CASES])
def test_bf16_matmul_is_numpys_float32_product_rounded(sa, sb, ta, tb, batched):
    rng = np.random.default_rng(0)
    a, b = _bf16(rng, sa), _bf16(rng, sb)
    got = _graph_product(a, b, ta, tb, batched)
    assert got.dtype == BF16
    want = _reference(a, b, ta, tb)
    # float32 sums in another order: at most one bf16 step (2^-8 relative) apart after rounding
    scale = np.sqrt(sa[-1] if not ta else sa[-2])
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2 ** -7, atol=scale * 2 ** -8)


@needs_amx
def test_the_kernel_multiplies_tiles_and_matches_numpy():
    target = compiler.make_target("CPU")
    with target:
        assert amx_matmul.on_amx()
    func = tvm.script.from_source(amx_matmul.kernel_source(2, 48, 96, 64, True))  # 16 x 32 blocks
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target=target)
    assembly = lib.inspect_source("asm") if hasattr(lib, "inspect_source") else lib.mod.inspect_source("asm")
    assert "tdpbf16ps" in assembly and "ldtilecfg" in assembly
    rng = np.random.default_rng(1)
    a, b = _bf16(rng, (2, 48, 64)), _bf16(rng, (2, 64, 96))
    pairs = np.ascontiguousarray(b.reshape(2, 32, 2, 96).transpose(0, 1, 3, 2))
    out = tvm.runtime.empty((2, 48, 96), "float32", tvm.cpu())
    lib["main"](tvm.runtime.tensor(a), tvm.runtime.tensor(pairs), out)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


@needs_amx
def test_graph_mode_bf16_matmul_runs_on_tiles(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        rng = np.random.default_rng(2)
        _graph_product(_bf16(rng, (64, 96)), _bf16(rng, (96, 64)), False, False, False)
    finally:
        ms.set_context(save_graphs=False)
    kernels = "".join(p.read_text() for p in tmp_path.rglob("20_kernels.ll"))
    assert "@llvm.x86.tdpbf16ps" in kernels


def test_avx2_build_multiplies_bf16_in_float32_and_agrees(monkeypatch):
    monkeypatch.setenv("TWINMODE_CPU", "haswell")
    with compiler.make_target("CPU"):
        assert not amx_matmul.on_amx()
    rng = np.random.default_rng(3)
    a, b = _bf16(rng, (96, 64)), _bf16(rng, (32, 64))
    got = _graph_product(a, b, False, True, False)
    np.testing.assert_allclose(got.astype(np.float32), _reference(a, b, False, True),
                               rtol=2 ** -7, atol=8 * 2 ** -8)


CONVS = [  # (x shape, w shape, stride, pad_mode)
    ((2, 32, 8, 8), (32, 32, 3, 3), 1, "same"),  # a ResNet block's convolution
    ((2, 16, 8, 8), (32, 16, 3, 3), 2, "same"),  # a stage start: the input gradient in float32
    ((2, 3, 12, 12), (32, 3, 3, 3), 1, "valid"),  # three input channels: k = 27 padded to 32
]


def _conv_and_grads(x, w, g, stride, pad_mode):
    op = ops.Conv2D(w.shape[0], w.shape[2], pad_mode=pad_mode, stride=stride)

    def loss(a, b):
        return (op(a, b) * Tensor(g)).sum()

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        y = ms.jit(lambda a, b: op(a, b))(Tensor(x), Tensor(w)).asnumpy()
        _, (dx, dw) = ms.jit(ms.value_and_grad(loss, grad_position=(0, 1)))(Tensor(x), Tensor(w))
        return [t.astype(np.float32) for t in (y, dx.asnumpy(), dw.asnumpy())]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.slow
@pytest.mark.parametrize("xs,ws,stride,pad_mode", CONVS, ids=[f"{x}*{w}/s{s}-{p}" for x, w, s, p in CONVS])
def test_bf16_conv_and_gradients_agree_with_float32_of_the_same_values(xs, ws, stride, pad_mode):
    rng = np.random.default_rng(4)
    x, w = _bf16(rng, xs), _bf16(rng, ws)
    y32 = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), np.ones(1, np.float32), stride,
                          pad_mode)[0]
    g = _bf16(rng, y32.shape)
    low = _conv_and_grads(x, w, g, stride, pad_mode)
    # the float32 path (its own kernels) on the same bf16 values; sums differ in order only
    wide = _conv_and_grads(x.astype(np.float32), w.astype(np.float32), g.astype(np.float32), stride,
                           pad_mode)
    for name, got, want in zip(("y", "dx", "dw"), low, wide):
        scale = np.abs(want).max()
        np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=scale * 2 ** -8, err_msg=name)


def _conv_relax_modules(tmp_path, channels: int, seed: int) -> list[str]:
    """The Relax modules graph mode builds for a bf16 convolution and its gradients."""
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        rng = np.random.default_rng(seed)
        _conv_and_grads(_bf16(rng, (2, channels, 8, 8)), _bf16(rng, (channels, channels, 3, 3)),
                        _bf16(rng, (2, channels, 8, 8)), 1, "same")
    finally:
        ms.set_context(save_graphs=False)
    return [p.read_text() for p in tmp_path.rglob("10_relax.py")]


@needs_amx
def test_graph_mode_bf16_conv_runs_on_tiles(tmp_path):
    texts = _conv_relax_modules(tmp_path, 32, 5)
    # stride 1 and 8 columns: the tile loads read the padded input in place (amx_direct_conv)
    calls = sorted(text.count("call_tir(cls.amx_direct_conv") for text in texts)
    assert calls == [1, 3]  # the forward graph; forward, input and weight gradients


@needs_amx
def test_convolutions_of_few_channels_run_on_tiles_without_a_gathered_operand(tmp_path):
    # 16 channels reuse a gathered (im2col) operand too little to pay for it (amx_conv.MIN_REUSE);
    # the direct kernels have none
    texts = _conv_relax_modules(tmp_path, 16, 6)
    assert all("amx_bf16_conv" not in text for text in texts)
    assert sorted(text.count("call_tir(cls.amx_direct_conv") for text in texts) == [1, 3]


@needs_amx
def test_a_rounded_float32_weight_is_rounded_inside_each_pack(tmp_path):
    """amp's float32 master weight, cast to bf16 and read by two products (the forward's
    ``x w^T`` and the input gradient's ``g w``): each pack rounds it itself (one kernel
    fewer per weight and step), and both products still see the weight rounded once."""
    rng = np.random.default_rng(9)
    x, g = _bf16(rng, (96, 64)), _bf16(rng, (96, 48))
    w = rng.standard_normal((48, 64)).astype(np.float32)
    op = ops.MatMul(False, True)

    def loss(a, b):
        return (op(a, ops.cast(b, ms.bfloat16)).astype(ms.float32) * Tensor(g.astype(np.float32))).sum()

    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        y = ms.jit(lambda a, b: op(a, ops.cast(b, ms.bfloat16)))(Tensor(x), Tensor(w)).asnumpy()
        _, dx = ms.jit(ms.value_and_grad(loss, grad_position=0))(Tensor(x), Tensor(w))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    w16 = w.astype(BF16)
    np.testing.assert_array_equal(y.astype(np.float32), _reference(x, w16, False, True))
    want = _reference(g, w16, False, False)
    np.testing.assert_allclose(dx.asnumpy().astype(np.float32), want, rtol=2 ** -7,
                               atol=np.abs(want).max() * 2 ** -8)
    texts = [p.read_text() for p in tmp_path.rglob("11_relax_opt.py")]  # fused
    assert len(texts) == 2 and all("_round_to_bfloat16" in t for t in texts), "no explicit rounding"
    assert not any("call_tir(cls._round_to_bfloat16" in t for t in texts), \
        "a rounding kernel of its own"


@needs_amx
def test_a_bf16_product_is_rounded_by_the_tile_kernel_itself(tmp_path):
    """A bf16 result leaves the tile kernel in bf16 (the float32 sums rounded as they are
    stored): no float32 product in memory and no rounding pass over it; NumPy's float32
    product of the same inputs, rounded once, exactly."""
    rng = np.random.default_rng(4)
    a, b = _bf16(rng, (96, 64)), _bf16(rng, (64, 80))
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        got = _graph_product(a, b, False, False, False)
    finally:
        ms.set_context(save_graphs=False)
    np.testing.assert_array_equal(got.astype(np.float32), _reference(a, b, False, False))
    calls = [line for p in tmp_path.rglob("11_relax_opt.py") for line in p.read_text().splitlines()
             if "call_tir(cls.amx_bf16_matmul" in line]
    assert calls and all('dtype="bfloat16"))' in line for line in calls), calls


@needs_amx
def test_a_symbolic_bf16_matmul_compiles_per_size_on_tiles_and_says_why(tmp_path, monkeypatch):
    """AMX kernels take static sizes; VDPBF16PS, which takes symbolic rows, is no faster
    than float32 FMAs on an Intel core: a ``None`` axis compiles once per size, each on
    tiles, and the compile report names the reason."""
    from framework import graph_mode

    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(5)
    w = _bf16(rng, (64, 48))
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path / "ir"))
    try:
        fn = ms.jit(lambda x: ops.MatMul()(x, Tensor(w)),
                    input_signature=(Tensor(shape=[None, 64], dtype=ms.bfloat16),))
        before = graph_mode.cache_stats["compiles"]
        for rows in (48, 32):
            x = _bf16(rng, (rows, 64))
            got = fn(Tensor(x)).asnumpy().astype(np.float32)
            np.testing.assert_array_equal(got, _reference(x, w, False, False))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    assert graph_mode.cache_stats["compiles"] - before == 2
    assert "AMX tiles take static sizes" in str(fn.last_report.symbolic_fallback)
    kernels = [p.read_text() for p in (tmp_path / "ir").rglob("20_kernels.ll")]
    assert len(kernels) == 2 and all("@llvm.x86.tdpbf16ps" in k for k in kernels)
