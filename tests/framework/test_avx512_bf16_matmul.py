"""bfloat16 (batched) matmuls on AVX512-BF16 (``lower/avx512_bf16_matmul.py``): the kernel's
assembly multiplies bf16 pairs (``vdpbf16ps``, checked on any x86 machine by compiling for a
target that has it); where this CPU has the instruction, the kernel's sums equal NumPy's
float64 product of the same bf16 inputs, its bf16 store rounds to nearest even, and graph
mode's bf16 matmuls (odd sizes, transposes, batches) and a GPT's bf16 train step run on it
and agree with NumPy and with PyNative."""

from __future__ import annotations

import platform

import ml_dtypes
import numpy as np
import pytest
import tvm

import framework as ms
from framework import Tensor, nn, ops
from framework.backend.tvm.lower import avx512_bf16, avx512_bf16_matmul
from framework.backend.tvm.runtime.amx import cpu_flags

from .test_bf16_tiles import _graph_product  # graph-mode MatMul/BatchMatMul of two arrays

BF16 = np.dtype(ml_dtypes.bfloat16)
TARGET = tvm.target.Target({"kind": "llvm", "mcpu": "znver4", "mattr": ["+avx512bf16"]})
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86 instructions")
runs_here = pytest.mark.skipif("avx512_bf16" not in cpu_flags(), reason="this CPU has no avx512_bf16")


@pytest.fixture(autouse=True)
def _dots_everywhere(monkeypatch):
    """The kernels are chosen where they beat float32, AMD Zen 4/5 (``avx512_bf16.pays``);
    these tests ask for them wherever the CPU has the instruction (``TWINMODE_BF16_DOTS=1``),
    and on a CPU with AMX build graph mode for Cooper Lake (AVX512-BF16 without tiles)."""
    monkeypatch.setenv("TWINMODE_BF16_DOTS", "1")
    if {"amx_tile", "amx_bf16"} <= cpu_flags():
        monkeypatch.setenv("TWINMODE_CPU", "cooperlake")

KERNELS = [  # (batch, m, n, k): register blocks of 6x64, 8x48, 8x16 columns; row, column tails
    (1, 48, 64, 32),
    (2, 20, 48, 18),
    (3, 13, 70, 41),  # k odd (padded to even), n to 80: a partial last vector, 5 rows left
    (1, 7, 16, 2),
    (1, 130, 272, 96),  # several groups and column blocks, 17 vectors: a narrower last block
]


def _build(batch, m, n, k, out_dtype="float32", cores=2, a_words=False, b_rows=False):
    source = avx512_bf16_matmul.kernel_source(batch, m, n, -(-k // 2), cores, out_dtype=out_dtype,
                                              a_words=a_words, b_rows=b_rows)
    func = avx512_bf16.parse(source).with_attr("global_symbol", "main")
    return tvm.compile(tvm.IRModule({"main": func}), target=TARGET)


def _asm(lib):
    return lib.mod.inspect_source("asm") if hasattr(lib, "mod") else lib.inspect_source("asm")


def _zipped(x):
    """``x (batch, 2 r, c)`` bf16 as int32 words ``(batch, r, c)``: row ``2 i`` in the low half."""
    pairs = x.reshape(x.shape[0], x.shape[1] // 2, 2, x.shape[2]).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(pairs).view(np.int32)[..., 0]


def _operands(rng, batch, m, n, k, values=None):
    """bf16 ``a (batch, m, k')``, ``b (batch, k', n)`` (``k'`` even, zero-padded) and ``b``
    as the kernel reads it: words of pairs along ``k'``, ``(batch, k' / 2, n')``."""
    k_even, n_pad = k + k % 2, -(-n // 16) * 16
    draw = (lambda s: rng.integers(-values, values + 1, s)) if values else rng.standard_normal
    a = np.zeros((batch, m, k_even), BF16)
    b = np.zeros((batch, k_even, n_pad), BF16)
    a[..., :k] = draw((batch, m, k)).astype(BF16)
    b[:, :k, :n] = draw((batch, k, n)).astype(BF16)
    return a, b[..., :n], _zipped(b)


def _run(lib, a, packed, shape, dtype):
    dev = tvm.cpu()
    out = tvm.runtime.empty(shape, dtype, dev)
    lib["main"](tvm.runtime.tensor(a, dev), tvm.runtime.tensor(packed, dev), out)
    return out.numpy()


@pytest.mark.parametrize("out_dtype", ["float32", "bfloat16"])
def test_the_kernel_is_vdpbf16ps_in_registers(out_dtype):
    asm = _asm(_build(2, 20, 48, 18, out_dtype))
    assert asm.count("vdpbf16ps") >= 8 * 3  # one register block: 8 rows x 3 vectors
    assert avx512_bf16.FUNCTION not in "".join(l for l in asm.splitlines() if "call" in l)


def test_wanted_needs_the_instruction_and_sizes_that_pay():
    with TARGET:
        assert avx512_bf16_matmul.wanted(768, 128, 512)
        assert avx512_bf16_matmul.wanted(5, 64, 64)
        assert not avx512_bf16_matmul.wanted(768, 8, 512)  # n thinner than a vector: float32
        assert not avx512_bf16_matmul.wanted(768, 17, 512)  # padded to 32: too wasteful
    with tvm.target.Target({"kind": "llvm", "mcpu": "haswell"}):
        assert not avx512_bf16_matmul.wanted(768, 128, 512)


@runs_here
@pytest.mark.parametrize("batch,m,n,k", KERNELS, ids=[f"{b}x{m}x{n}x{k}" for b, m, n, k in KERNELS])
@pytest.mark.parametrize("a_words", [False, True], ids=["a", "aT_words"])
def test_the_sums_equal_numpys_float64_product(batch, m, n, k, a_words):
    a, b, packed = _operands(np.random.default_rng(k), batch, m, n, k)
    # a_words: a^T as stored by a weight gradient, (batch, k', m), zipped in pairs of rows
    operand = _zipped(np.ascontiguousarray(np.swapaxes(a, 1, 2))) if a_words else a
    got = _run(_build(batch, m, n, k, a_words=a_words), operand, packed, (batch, m, n), "float32")
    want = a.astype(np.float64) @ b.astype(np.float64)
    # bf16 products are exact in float32; float32 sums of k terms in another order
    bound = 2 ** -22 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert np.all(np.abs(got - want) <= bound + 1e-30)


@runs_here
@pytest.mark.parametrize("m", [130, None], ids=["static", "symbolic_rows"])
def test_a_row_major_b_zipped_by_the_kernel_gives_the_same_sums(m):
    # b_rows: b as stored (batch, k, n), each column block zipped into a panel by the kernel;
    # the same float32 sums, bit for bit, as the kernel reading b's words
    batch, rows, n, k = 2, 130, 272, 96
    a, b, packed = _operands(np.random.default_rng(11), batch, rows, n, k)
    lib = _build(batch, m, n, k, b_rows=True)
    got = _run(lib, a, np.ascontiguousarray(b), (batch, rows, n), "float32")
    want = _run(_build(batch, rows, n, k), a, packed, (batch, rows, n), "float32")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("transpose", [False, True])
def test_words_zip_pairs_along_k_and_zero_pad(transpose):
    # k odd: the last pair's high half is zero; columns padded from 21 to 32
    from tvm import te

    k, cols, cols_pad = 9, 21, 32
    shape = (2, cols, k) if transpose else (2, k, cols)
    x = np.random.default_rng(3).standard_normal(shape).astype(BF16)
    placeholder = te.placeholder(shape, "bfloat16", name="x")
    out = avx512_bf16_matmul.words(placeholder, k, cols, transpose, cols_pad)
    lib = tvm.compile(te.create_prim_func([placeholder, out]), target="llvm")
    got = tvm.runtime.empty((2, 5, cols_pad), "int32", tvm.cpu())
    lib["main"](tvm.runtime.tensor(x, tvm.cpu()), got)
    padded = np.zeros((2, 10, cols_pad), BF16)
    padded[:, :k, :cols] = np.swapaxes(x, 1, 2) if transpose else x
    np.testing.assert_array_equal(got.numpy(), _zipped(padded))


def test_transposed_words_of_a_float32_master_are_tiled_and_rounded():
    # an amp weight (n, k) float32 read as b^T: the words round it to bf16 (as ml_dtypes) and
    # the CPU rules copy it in 16 x 16 tiles of words (schedule/transpose_tiles.py)
    from tvm import te

    from framework.backend.tvm.schedule import cpu_rules

    n, k = 48, 64
    w = np.random.default_rng(4).standard_normal((1, n, k)).astype(np.float32)
    w[0, 0, :4] = [np.nan, np.inf, -np.inf, 1 + 2 ** -8]  # 1 + 2^-8: a tie, to even (1.0)
    placeholder = te.placeholder((1, n, k), "float32", name="w")
    out = avx512_bf16_matmul.words(placeholder, k, n, True, n)
    func = cpu_rules.schedule_func(te.create_prim_func([placeholder, out]), cores=2)
    script = func.script()
    assert "r2_1" in script and "T.vectorized(16)" in script  # r2 split: tiles, j in vectors
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
    got = tvm.runtime.empty((1, k // 2, n), "int32", tvm.cpu())
    lib["main"](tvm.runtime.tensor(w, tvm.cpu()), got)
    want = _zipped(np.ascontiguousarray(np.swapaxes(w, 1, 2)).astype(BF16))
    halves, expected = got.numpy().view(np.uint16), want.view(np.uint16)  # NaN payloads aside
    nan = np.isnan(halves.view(BF16).astype(np.float32)) & np.isnan(expected.view(BF16).astype(np.float32))
    assert ((halves == expected) | nan).all() and nan.sum() == 1


@runs_here
def test_the_bf16_store_rounds_exact_sums_to_nearest_even():
    # small integers: every float32 sum is exact, so the store's rounding is all there is;
    # sums between 256 and 4096 hold ties (257 -> 256, 259 -> 260) that truncation misses
    batch, m, n, k = 2, 30, 40, 64
    a, b, packed = _operands(np.random.default_rng(5), batch, m, n, k, values=8)
    got = _run(_build(batch, m, n, k, "bfloat16"), a, packed, (batch, m, n), "bfloat16")
    exact = a.astype(np.float64) @ b.astype(np.float64)
    ties = np.abs(exact) > 256
    truncated = (exact.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    assert ties.sum() > 100 and np.any(truncated.astype(BF16) != exact.astype(np.float32).astype(BF16))
    np.testing.assert_array_equal(got, exact.astype(np.float32).astype(BF16))


CASES = [  # (a shape, b shape, transpose_a, transpose_b, batched)
    ((768, 128), (128, 512), False, False, False),  # the character GPT's MLP
    ((768, 128), (65, 128), False, True, False),  # its head: n = 65, a partial vector
    ((768, 128), (768, 384), True, False, False),  # a weight gradient, a^T b
    ((33, 45), (37, 33), True, True, False),  # both transposed, k odd
    ((100, 70), (70, 40), False, False, False),
    ((48, 64, 32), (48, 64, 32), False, True, True),  # attention scores q k^T
    ((2, 3, 17, 64), (2, 3, 64, 32), False, False, True),
]


@runs_here
@pytest.mark.parametrize("sa,sb,ta,tb,batched", CASES,
                         ids=[f"{a}{'T' * ta}@{b}{'T' * tb}" for a, b, ta, tb, _ in CASES])
def test_graph_mode_bf16_matmul_is_the_float64_product_rounded(sa, sb, ta, tb, batched, tmp_path):
    rng = np.random.default_rng(sum(sa))
    a, b = rng.standard_normal(sa).astype(BF16), rng.standard_normal(sb).astype(BF16)
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        got = _graph_product(a, b, ta, tb, batched)
    finally:
        ms.set_context(save_graphs=False)
    kernels = "".join(p.read_text() for p in tmp_path.rglob("20_kernels.ll"))
    assert "@llvm.x86.avx512bf16.dpbf16ps.512" in kernels  # the product ran on the kernel
    assert got.dtype == BF16
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = np.matmul(np.swapaxes(a64, -1, -2) if ta else a64, np.swapaxes(b64, -1, -2) if tb else b64)
    # float32 sums rounded once to bf16: half a bf16 step (2^-9 relative) and the sums' error
    k = sa[-2] if ta else sa[-1]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2 ** -8, atol=k * 2 ** -20)


@runs_here
@pytest.mark.parametrize("batched", [False, True])
def test_one_kernel_serves_every_size_of_a_symbolic_axis(batched, tmp_path, monkeypatch):
    from framework import graph_mode

    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(7)
    w = rng.standard_normal((64, 40)).astype(BF16)
    # the rows symbolic; batched: the batch (attention scores x x^T)
    shape = [None, 3, 32, 64] if batched else [None, 64]
    product = (lambda x: ops.BatchMatMul(False, True)(x, x)) if batched else \
        (lambda x: ops.MatMul()(x, Tensor(w)))
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path / "ir"))
    try:
        fn = ms.jit(product, input_signature=(Tensor(shape=shape, dtype=ms.bfloat16),))
        before = graph_mode.cache_stats["compiles"]
        for size in (5, 1, 8):
            x = rng.standard_normal([size] + shape[1:]).astype(BF16)
            got = fn(Tensor(x)).asnumpy().astype(np.float64)
            x64 = x.astype(np.float64)
            want = x64 @ np.swapaxes(x64, -1, -2) if batched else x64 @ w.astype(np.float64)
            np.testing.assert_allclose(got, want, rtol=2 ** -8, atol=64 * 2 ** -20)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    assert graph_mode.cache_stats["compiles"] - before == 1
    kernels = "".join(p.read_text() for p in tmp_path.rglob("20_kernels.ll"))
    assert "@llvm.x86.avx512bf16.dpbf16ps.512" in kernels


@runs_here
def test_a_gpt_bf16_train_step_in_graph_mode_follows_pynative(tmp_path):
    from trainer.models.gpt import GPT

    vocab, block, batch = 37, 24, 3
    rng = np.random.default_rng(0)
    tokens = [rng.integers(0, vocab, (batch, block + 1)).astype(np.int32)] * 4  # learnt by heart

    def losses(mode):
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.set_seed(0)
        net = ms.amp.auto_mixed_precision(GPT(vocab, block, 2, 2, 48), "O2", ms.bfloat16)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        optimizer = nn.AdamWeightDecay(net.trainable_params(), 3e-3)
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x).reshape(-1, vocab), y.reshape(-1)),
                                    None, optimizer.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            optimizer(grads)
            return loss

        ms.set_context(mode=mode)
        run = ms.jit(step) if mode == ms.GRAPH_MODE else step
        try:
            return [float(run(Tensor(t[:, :-1].copy()), Tensor(t[:, 1:].copy())).asnumpy()) for t in tokens]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    pynative = losses(ms.PYNATIVE_MODE)
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        graph = losses(ms.GRAPH_MODE)
    finally:
        ms.set_context(save_graphs=False)
    kernels = "".join(p.read_text() for p in tmp_path.rglob("20_kernels.ll"))
    assert "@llvm.x86.avx512bf16.dpbf16ps.512" in kernels
    assert pynative[-1] < pynative[0] - 0.1  # it learns
    # bf16 rounding in other places (graph mode keeps fused chains in float32)
    np.testing.assert_allclose(graph, pynative, rtol=2e-2)
