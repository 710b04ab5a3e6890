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
