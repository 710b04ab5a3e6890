"""bfloat16/float16 GEMMs on CUDA tensor cores, checked without a GPU.

The CUDA C that TVM generates for sm_90 (and the PTX, where nvcc is installed) must issue
WMMA matrix instructions for every matrix product of a low-precision train step, with 16-bit
operand fragments and float32 accumulators; a float32 step must have none (the matrix units
would round its operands to TF32). The Relax rewrite that feeds the 16-bit operands to the
products is run on the CPU against NumPy.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn

BF16 = np.dtype(ml_dtypes.bfloat16)
pytestmark = pytest.mark.slow


def _cuda_step_code(tmp_path, dtype) -> tuple[str, str | None]:
    """The CUDA C (and PTX or None) of a 2-layer MLP train step, amp O2 in ``dtype``."""
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(256, 512), nn.ReLU(), nn.Dense(512, 128)])
    if dtype is not None:
        net = ms.amp.auto_mixed_precision(net, "O2", dtype)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU", save_graphs=True,
                   save_graphs_path=str(tmp_path))
    try:
        x = np.random.default_rng(0).standard_normal((128, 256)).astype(np.float32)
        ms.jit(step).compile(Tensor(x), Tensor(np.arange(128, dtype=np.int32) % 128), load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    (folder,) = tmp_path.iterdir()
    ptx = folder / "20_kernels.ptx"
    return (folder / "20_kernels.cu").read_text(), ptx.read_text() if ptx.exists() else None


def _kernels(source: str) -> dict[str, str]:
    """Kernel name -> its body, from TVM's CUDA C."""
    parts = re.split(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', source)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize(("dtype", "fragment", "ptx_types"), [
    (ms.bfloat16, "nv_bfloat16", "f32.bf16.bf16.f32"), (ms.float16, "half", "f32.f32")])
def test_every_matmul_of_a_low_precision_step_uses_the_tensor_cores(tmp_path, dtype, fragment, ptx_types):
    source, ptx = _cuda_step_code(tmp_path, dtype)
    matmuls = {name: body for name, body in _kernels(source).items() if "matmul" in name}
    # forward 2, input gradient 1 (the first layer's is not needed), weight gradients 2
    assert len(matmuls) == 5, sorted(matmuls)
    for name, body in matmuls.items():
        assert "wmma::mma_sync" in body, name
        assert f"wmma::matrix_a, 16, 16, 16, {fragment}" in body, name
        assert "wmma::accumulator, 16, 16, 16, float>" in body, name  # float32 accumulation
    if ptx is not None:  # nvcc installed: the instruction itself (f16 operands are implied)
        assert f"wmma.mma.sync.aligned.row.col.m16n16k16.{ptx_types}" in ptx


def test_a_float32_step_stays_off_the_tensor_cores(tmp_path):
    source, ptx = _cuda_step_code(tmp_path, None)
    assert any("matmul" in name for name in _kernels(source))
    assert "wmma" not in source and "mma.sync" not in source
    if ptx is not None:
        assert "mma" not in ptx


def test_folded_operand_casts_give_the_float32_products_on_cpu():
    import tvm
    from tvm import relax, topi

    from framework.backend.tvm.schedule import tensor_cores

    rng = np.random.default_rng(0)
    shapes = {"a": (24, 40), "b": (40, 32), "bt": (32, 40), "c": (24, 32)}
    values = {n: rng.standard_normal(s).astype(BF16) for n, s in shapes.items()}
    bb = relax.BlockBuilder()
    args = {n: relax.Var(n, relax.TensorType(s, "bfloat16")) for n, s in shapes.items()}
    with bb.function("main", list(args.values())):
        with bb.dataflow():
            wide = {n: bb.emit(relax.op.astype(v, "float32")) for n, v in args.items()}
            ab = bb.emit(relax.op.matmul(wide["a"], wide["b"]))
            b_t = bb.emit(relax.op.permute_dims(wide["bt"], [1, 0]))
            abt = bb.emit(relax.op.matmul(wide["a"], b_t))  # a bt^T (a transposed operand)
            atc = bb.emit(bb.call_te(lambda x, y: topi.matmul(x, y, True, False),  # a^T c
                                     wide["a"], wide["c"]))
            out = bb.emit_output(relax.Tuple([ab, abt, atc]))
        bb.emit_func_output(out)
    folded = tensor_cores.fold_operand_casts(bb.get())
    text = folded["main"].script()
    assert text.count('out_dtype="float32"') == 3 and "call_tir" not in text  # all three folded
    cpu = tvm.cpu()
    main = relax.VirtualMachine(tvm.compile(folded, target="llvm"), cpu)["main"]
    got = [r.numpy() for r in main(*[tvm.runtime.tensor(v, cpu) for v in values.values()])]
    a, b, bt, c = (v.astype(np.float32) for v in values.values())
    for result, expected in zip(got, [a @ b, a @ bt.T, a.T @ c]):
        assert result.dtype == np.float32
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
