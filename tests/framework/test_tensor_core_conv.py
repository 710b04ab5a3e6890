"""bfloat16/float16 convolutions on CUDA tensor cores, checked without a GPU.

The three implicit-GEMM kernels (``lower/tensor_core_conv.py``: forward, input and weight
gradients) are built for the CPU and compared with a NumPy convolution and with the
adjoint identities that define the two gradients (<dy, conv(x, w)> = <dx(dy, w), x> =
<dw(x, dy), w>). The CUDA C that TVM generates for sm_90 must issue WMMA instructions with
16-bit fragments and float32 accumulators for the convolutions of a bf16 train step, and
none for a float32 one (the matrix units would round float32 operands to TF32).
A strided input gradient is checked phase by phase, interleaved as ``lower`` interleaves them.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

BF16 = np.dtype(ml_dtypes.bfloat16)


def _conv_numpy(x, w, stride, pads):
    """Direct float64 convolution, NCHW x OIHW; ``pads`` (top, bottom, left, right)."""
    top, bottom, left, right = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    o, _, kh, kw = w.shape
    ho = (xp.shape[2] - kh) // stride + 1
    wo = (xp.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            window = xp[:, :, i: i + stride * ho: stride, j: j + stride * wo: stride]
            out += np.einsum("nchw,oc->nohw", window, w[:, :, i, j].astype(np.float64))
    return out


def _run_cpu(make, *arrays):
    import tvm
    from tvm import te

    placeholders = [te.placeholder(a.shape, str(a.dtype), name=f"in{i}") for i, a in enumerate(arrays)]
    out = make(*placeholders)
    func = tvm.compile(te.create_prim_func([*placeholders, out]), target="llvm")
    cpu = tvm.cpu()
    result = tvm.runtime.empty(tuple(int(d) for d in out.shape), out.dtype, cpu)
    func(*[tvm.runtime.tensor(a, cpu) for a in arrays], result)
    assert result.dtype == "float32"
    return result.numpy().astype(np.float64)


@pytest.mark.parametrize(("kernel", "stride", "pads"), [
    (3, 1, (1, 1, 1, 1)), (1, 1, (0, 0, 0, 0)), (3, 2, (1, 1, 1, 1)), (7, 2, (3, 3, 3, 3)),
    (3, 2, (0, 1, 0, 1))])
@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16)])
def test_the_three_kernels_compute_the_convolution_and_its_adjoints(kernel, stride, pads, dtype):
    from framework.backend.tvm.lower import tensor_core_conv as tc

    rng = np.random.default_rng(kernel * 10 + stride)
    x = rng.standard_normal((2, 5, 10, 12)).astype(dtype)  # even: whole phases
    w = rng.standard_normal((6, 5, kernel, kernel)).astype(dtype)
    y = _conv_numpy(x, w, stride, pads)
    got = _run_cpu(lambda a, b: tc.conv2d(a, b, (stride, stride), pads), x, w)
    np.testing.assert_allclose(got, y, rtol=1e-5, atol=1e-4)  # exact products, float32 sums
    dy = rng.standard_normal(y.shape).astype(dtype)
    dw = _run_cpu(lambda a, b: tc.filter_grad(a, b, w.shape, (stride, stride), pads), x, dy)
    inner = float(np.sum(dy.astype(np.float64) * y))
    assert np.sum(dw * w.astype(np.float64)) == pytest.approx(inner, rel=1e-5)
    if stride == 1:
        dx = _run_cpu(lambda a, b: tc.input_grad(a, b, x.shape, pads), dy, w)
    else:  # one GEMM per phase of the stride: dx[n, c, s*q + p, s*v + r] = phase(p, r)[n, c, q, v]
        dx = np.zeros(x.shape)
        for p in range(stride):
            for r in range(stride):
                dx[:, :, p::stride, r::stride] = _run_cpu(
                    lambda a, b, p=p, r=r: tc.input_grad_phase(a, b, x.shape, (stride, stride), pads, p, r),
                    dy, w)
    assert dx.shape == x.shape
    assert np.sum(dx * x.astype(np.float64)) == pytest.approx(inner, rel=1e-5)


def _kernels(source: str) -> dict[str, str]:
    parts = re.split(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', source)
    return dict(zip(parts[1::2], parts[2::2]))


def _cuda_code(tmp_path, dtype) -> tuple[str, str | None]:
    """CUDA C (and PTX, where nvcc is installed) of a small ResNet-like train step: 3x3
    and 1x1 convolutions at strides 1 and 2, BatchNorm, amp O2 in ``dtype``."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 32, 3, stride=2, pad_mode="pad", padding=1)
            self.conv3 = nn.Conv2d(32, 32, 1)
            self.fc = nn.Dense(32, 10)

        def construct(self, x):
            x = ops.relu(self.bn1(self.conv1(x)))
            x = self.conv3(ops.relu(self.conv2(x)))
            return self.fc(ops.reduce_mean(x, (2, 3)))

    net = Net()
    if dtype is not None:
        net = ms.amp.auto_mixed_precision(net, "O2", dtype)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU", save_graphs=True,
                   save_graphs_path=str(tmp_path))
    try:
        x = np.random.default_rng(0).standard_normal((4, 3, 16, 16)).astype(np.float32)
        ms.jit(step).compile(Tensor(x), Tensor(np.arange(4, dtype=np.int32)), load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    (folder,) = tmp_path.iterdir()
    ptx = folder / "20_kernels.ptx"
    return (folder / "20_kernels.cu").read_text(), ptx.read_text() if ptx.exists() else None


@pytest.mark.slow
@pytest.mark.parametrize(("dtype", "fragment", "ptx_types"), [
    (ms.bfloat16, "nv_bfloat16", "f32.bf16.bf16.f32"), (ms.float16, "half", "f32.f32")])
def test_the_convolutions_of_a_low_precision_step_use_the_tensor_cores(tmp_path, dtype, fragment,
                                                                        ptx_types):
    source, ptx = _cuda_code(tmp_path, dtype)
    kernels = _kernels(source)
    convs = {name: body for name, body in kernels.items() if "conv2d" in name}
    tensor_cores = {name for name in convs if "tc_conv2d" in name}
    # forward 3, weight gradients 3; input gradients of conv3 (stride 1) and, one kernel per
    # phase of its stride, of conv2 (conv1's is not needed): every one on the tensor cores
    assert set(convs) == tensor_cores, sorted(set(convs) - tensor_cores)
    assert sum("tc_conv2d_filter_grad" in n for n in convs) == 3, sorted(convs)
    assert sum("tc_conv2d_input_grad_phase" in n for n in convs) >= 2, sorted(convs)
    assert sum(re.search(r"tc_conv2d_input_grad(?!_phase)", n) is not None for n in convs) == 1
    forward = [n for n in convs if re.search(r"tc_conv2d\d*(?!\d|_filter|_input)", n)]
    assert len(forward) == 3, sorted(convs)
    for name in tensor_cores:
        body = convs[name]
        assert "wmma::mma_sync" in body, name
        assert f"wmma::matrix_a, 16, 16, 16, {fragment}" in body, name
        assert "wmma::accumulator, 16, 16, 16, float>" in body, name
    if ptx is not None:
        assert f"wmma.mma.sync.aligned.row.col.m16n16k16.{ptx_types}" in ptx


@pytest.mark.slow
def test_a_float32_convolution_step_stays_off_the_tensor_cores(tmp_path):
    source, ptx = _cuda_code(tmp_path, None)
    assert any("conv2d" in name for name in _kernels(source))
    assert "tc_conv2d" not in source and "wmma" not in source and "mma.sync" not in source
    if ptx is not None:
        assert "mma" not in ptx
