"""float16 and bfloat16 tensors (issue 26): the dtype, promotion, casts and the common ops in
both modes, against NumPy computing the same thing in float32 and rounding once (what
"low-precision storage, float32 accumulation" means), and the two modes against each other.
CUDA code for half types is generated without a GPU."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

BF16 = np.dtype(ml_dtypes.bfloat16)
LOW = {"float16": np.dtype(np.float16), "bfloat16": BF16}
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def _run(mode, fn, *arrays):
    ms.set_context(mode=mode)
    tensors = [Tensor(a) for a in arrays]
    out = ms.jit(fn)(*tensors) if mode == ms.GRAPH_MODE else fn(*tensors)
    return [o.asnumpy() for o in out] if isinstance(out, tuple) else out.asnumpy()


def _f32(a):
    return np.asarray(a).astype(np.float32)


def test_bfloat16_is_a_dtype_with_mindspores_name_and_rules():
    assert str(ms.bfloat16) == "BFloat16" and ms.bfloat16.is_floating
    from framework.common import dtype as mstype

    assert mstype.bfloat16 is ms.bfloat16
    t = Tensor([1.5, 2.0], ms.bfloat16)
    assert t.dtype == ms.bfloat16 and t.asnumpy().dtype == BF16
    assert Tensor(np.ones(2, BF16)).dtype == ms.bfloat16
    b, h = Tensor(np.ones(2, BF16)), Tensor(np.ones(2, np.float16))
    assert (b + h).dtype == ms.float32  # neither holds the other: float32, as MindSpore
    assert (b + Tensor(np.ones(2, np.int32))).dtype == ms.bfloat16
    assert (b * 2).dtype == ms.bfloat16 and (b + Tensor(np.ones(2, np.float32))).dtype == ms.float32
    with pytest.raises(TypeError, match="unknown dtype"):
        Tensor([1.0], "bfloat17")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_casts_round_like_numpy_and_keep_inf(mode, low):
    x = np.array([1.0, 1 / 3, -2.75, 1e5, 7e4, 3.0e38, -np.inf, 0.1], np.float32)
    out = _run(mode, lambda t: (ops.cast(t, ms.bfloat16 if low == "bfloat16" else ms.float16),), x)[0]
    with np.errstate(over="ignore"):
        expected = x.astype(LOW[low])
    assert out.dtype == LOW[low]
    np.testing.assert_array_equal(_f32(out), _f32(expected))  # 7e4 -> inf in float16
    back = _run(mode, lambda t: ops.cast(t, ms.float32), expected)
    np.testing.assert_array_equal(back, _f32(expected))


def _ops_program(x, w, v):
    h = ops.matmul(x, w)                   # GEMM: float32 accumulation
    s = ops.reduce_sum(h, 1)               # reduction: float32 accumulation
    m = ops.reduce_mean(h * h, 0)
    p = ops.softmax(h)
    e = ops.exp(ops.relu(h) * 0.01) + v    # elementwise in the low dtype
    return h, s, m, p, e


def _ops_expected(x, w, v, dtype):
    r = lambda a: a.astype(dtype).astype(np.float32)  # noqa: E731 - round once
    h = r(_f32(x) @ _f32(w))
    s = r(h.sum(1))
    hh = r(h * h)
    m = r(hh.mean(0))
    z = np.exp(h - h.max(1, keepdims=True))
    p = r(z / z.sum(1, keepdims=True))
    e = r(r(np.exp(r(r(np.maximum(h, 0)) * np.float32(r(np.float32(0.01)))))) + _f32(v))
    return h, s, m, p, e


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_common_ops_in_both_modes_against_numpy_in_float32(low):
    rng = np.random.default_rng(0)
    dtype = LOW[low]
    x = rng.normal(size=(6, 300)).astype(dtype)
    w = rng.normal(size=(300, 5)).astype(dtype)
    v = rng.normal(size=(5,)).astype(dtype)
    expected = _ops_expected(x, w, v, dtype)
    eps = float(np.finfo(np.float16).eps) if low == "float16" else 2.0 ** -7
    results = {}
    for mode in MODES:
        got = _run(mode, _ops_program, x, w, v)
        for name, g, e in zip("hsmpe", got, expected):
            assert g.dtype == dtype, (mode, name)
            # one rounding of the float32 result (two for chained elementwise ops), never the
            # drift of a low-precision accumulation
            np.testing.assert_allclose(_f32(g), e, rtol=2 * eps, atol=2 * eps * np.abs(e).max(),
                                       err_msg=f"{low} {name} mode {mode}")
        results[mode] = got
    for a, b in zip(*results.values()):  # the modes agree to one rounding step
        np.testing.assert_allclose(_f32(a), _f32(b), rtol=eps, atol=eps * np.abs(_f32(a)).max())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_sums_accumulate_in_float32(mode, low):
    # 1000 ones summed in bfloat16 stop at 256 (256 + 1 rounds back to 256); float16 at 2048
    # is fine but 3000 ones of 0.5 plus a 1024 start would stall: float32 accumulation
    x = np.ones((4, 1000), LOW[low])
    total = _run(mode, lambda t: ops.reduce_sum(t, 1), x)
    np.testing.assert_array_equal(_f32(total), np.full(4, 1000.0, np.float32))
    mean = _run(mode, lambda t: ops.reduce_mean(t), np.full((4, 1000), 0.3, LOW[low]))
    np.testing.assert_allclose(_f32(mean), _f32(np.array(0.3, LOW[low])), rtol=1e-2)
    dot = _run(mode, lambda a, b: ops.matmul(a, b), np.ones((2, 1000), LOW[low]),
               np.ones((1000, 3), LOW[low]))
    np.testing.assert_array_equal(_f32(dot), np.full((2, 3), 1000.0, np.float32))


def test_graph_mode_fused_bf16_chain_computes_in_float32_and_rounds_once():
    # one fused kernel reads bf16 and writes bf16; in between the arithmetic is float32 in
    # registers (as PyTorch's fused bf16 kernels): NumPy's float32 chain rounded once, bit
    # for bit (+, *, - are exact IEEE float32 in both). Rounding each op (PyNative) differs.
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4096).astype(BF16)

    def chain(t):  # Python scalars take the tensor's dtype: 1.1 and 0.3 rounded to bf16
        return ((t * 1.1 + 0.3) * t - 1.1) * t

    got = _run(ms.GRAPH_MODE, chain, x)
    wide, c, d = _f32(x), _f32(np.array(1.1, BF16)), _f32(np.array(0.3, BF16))
    want = (((wide * c + d) * wide - c) * wide).astype(BF16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    per_op = _run(ms.PYNATIVE_MODE, chain, x)
    assert (per_op.view(np.uint16) != want.view(np.uint16)).any()  # the test can tell them apart


@pytest.mark.parametrize("low", ["float16", "bfloat16"])
def test_conv_batchnorm_pool_train_step_agrees_across_modes_and_with_float32(low):
    """One O3-style step (everything in the low dtype, float32 master weights): both modes
    give the same loss, and it is float32's to the low dtype's precision."""
    dtype = ms.bfloat16 if low == "bfloat16" else ms.float16
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 1, 10, 10)).astype(np.float32)
    y = (np.arange(8) % 10).astype(np.int32)
    losses = {}
    for label, mode in [("f32", ms.PYNATIVE_MODE), ("py", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)]:
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2),
                                nn.Flatten(), nn.Dense(4 * 5 * 5, 10))
        if label != "f32":
            net.to_float(dtype)
        with_loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        step = nn.TrainOneStepCell(with_loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses[label] = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
        assert all(p.dtype == ms.float32 for p in net.trainable_params())  # master weights
    eps = 1e-3 if low == "float16" else 8e-3
    np.testing.assert_allclose(losses["py"], losses["graph"], rtol=eps)
    np.testing.assert_allclose(losses["py"], losses["f32"], rtol=8 * eps)
    assert losses["py"][2] < losses["py"][0]  # it learns


def _cuda_source(folder, dtype) -> str:
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU", save_graphs=True,
                   save_graphs_path=str(folder))
    try:
        fn = ms.jit(lambda a, b: ops.softmax(ops.matmul(a, b)))
        fn.compile(Tensor(np.ones((4, 8), dtype)), Tensor(np.ones((8, 16), dtype)), load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    (dump,) = folder.iterdir()
    return (dump / "20_kernels.cu").read_text()


def test_half_types_generate_cuda_code_without_a_gpu(tmp_path):
    sources = [_cuda_source(tmp_path / name, dtype) for name, dtype in LOW.items()]
    assert "half" in sources[0] and "nv_bfloat16" in sources[1]
    for source in sources:  # stored in 16 bits, accumulated in float32
        assert "float" in source
