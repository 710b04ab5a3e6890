"""Causal attention as one CUDA kernel (schedule/flash_attention.py), checked without a GPU.

The kernel's TIR is built for the CPU from the same template as for CUDA (serial loops in
place of thread bindings) and compared with NumPy; the Relax rewrite that puts it in a graph
is run on the CPU against the unrewritten attention; the CUDA C of a GPT's forward graph
must hold the one attention kernel where there were a product, a softmax and a product.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

import framework as ms
from framework import Tensor

BF16 = np.dtype(ml_dtypes.bfloat16)


def _attention_numpy(q, k, v, scale):
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    t = q.shape[-2]
    s = q @ np.swapaxes(k, -1, -2) * scale
    s[..., np.triu(np.ones((t, t), bool), 1)] = -np.inf
    top = s.max(-1, keepdims=True)
    e = np.exp(s - top)
    return e / e.sum(-1, keepdims=True) @ v, top[..., 0] + np.log(e.sum(-1))


@pytest.mark.parametrize(("dtype", "length", "rtol"), [(np.float32, 70, 1e-5), (BF16, 129, 1e-2)])
def test_the_kernel_computes_causal_attention_and_its_log_sum_exp(dtype, length, rtol):
    import tvm

    from framework.backend.tvm.schedule import flash_attention

    rng = np.random.default_rng(length)
    q, k, v = (rng.standard_normal((3, length, 16)).astype(dtype) for _ in range(3))
    func = flash_attention.kernel(3, length, 16, np.dtype(dtype).name, 0.25, cuda=False)
    run = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
    cpu = tvm.cpu()
    out = tvm.runtime.tensor(np.full((3, length, 16), np.nan, dtype), cpu)  # poisoned
    lse = tvm.runtime.tensor(np.full((3, length), np.nan, np.float32), cpu)
    run(*[tvm.runtime.tensor(a, cpu) for a in (q, k, v)], out, lse)
    expected, expected_lse = _attention_numpy(q, k, v, 0.25)
    got = out.numpy().astype(np.float64)
    assert np.linalg.norm(got - expected) / np.linalg.norm(expected) < rtol
    np.testing.assert_allclose(lse.numpy(), expected_lse, rtol=1e-5, atol=1e-5)


def _attention_module(keep_probabilities: bool):
    """``softmax(q k^T * 0.25 + causal) v`` in Relax, as the GPT's lowering writes it;
    with ``keep_probabilities`` the probabilities are returned too (as a backward reads them)."""
    from tvm import relax

    shape = (2, 3, 40, 8)
    bb = relax.BlockBuilder()
    q, k, v = (relax.Var(n, relax.TensorType(shape, "float32")) for n in "qkv")
    mask = np.where(np.triu(np.ones((40, 40), bool), 1), -np.inf, 0.0).astype(np.float32)
    with bb.function("main", [q, k, v]):
        with bb.dataflow():
            kt = bb.emit(relax.op.permute_dims(k, [0, 1, 3, 2]))
            s = bb.emit(relax.op.matmul(q, kt))
            s = bb.emit(relax.op.multiply(s, relax.const(0.25, "float32")))
            s = bb.emit(relax.op.add(s, relax.const(mask)))
            p = bb.emit(relax.op.nn.softmax(s, axis=3))
            o = bb.emit(relax.op.matmul(p, v))
            out = bb.emit_output(relax.Tuple([o, p]) if keep_probabilities else o)
        bb.emit_func_output(out)
    return bb.get()


def test_the_rewrite_replaces_an_attention_and_computes_the_same():
    import tvm
    from tvm import relax

    from framework.backend.tvm.schedule import flash_attention

    with tvm.target.Target("llvm"):
        fused = flash_attention.fuse_causal_attention(_attention_module(False))
    text = fused["main"].script()
    assert "causal_attention" in text and "softmax" not in text
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 40, 8)).astype(np.float32) for _ in range(3))
    cpu = tvm.cpu()
    got = relax.VirtualMachine(tvm.compile(fused, target="llvm"), cpu)["main"](
        *[tvm.runtime.tensor(a, cpu) for a in (q, k, v)]).numpy()
    np.testing.assert_allclose(got, _attention_numpy(q, k, v, 0.25)[0], rtol=1e-5, atol=1e-5)


def test_probabilities_read_elsewhere_keep_the_attention_as_it_was():
    import tvm

    from framework.backend.tvm.schedule import flash_attention

    with tvm.target.Target("llvm"):
        kept = flash_attention.fuse_causal_attention(_attention_module(True))
    assert "causal_attention" not in kept["main"].script()


@pytest.mark.slow
@pytest.mark.parametrize("amp", [None, ms.bfloat16])
def test_a_gpt_forward_on_cuda_has_one_attention_kernel_per_layer_shape(tmp_path, amp):
    from trainer.models.gpt import GPT

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = GPT(65, 32, 2, 2, 32)
    if amp is not None:
        net = ms.amp.auto_mixed_precision(net, "O2", amp)
    net.set_train(False)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU", save_graphs=True,
                   save_graphs_path=str(tmp_path))
    try:
        x = np.random.default_rng(0).integers(0, 65, (3, 32)).astype(np.int32)
        ms.jit(net).compile(Tensor(x), load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    (folder,) = tmp_path.iterdir()
    source = (folder / "20_kernels.cu").read_text()
    names = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', source)
    assert any("causal_attention" in n for n in names), sorted(set(names))
    assert not any("softmax" in n for n in names), sorted(set(names))
    relax_text = (folder / "11_relax_opt.py").read_text()
    assert "(3, 2, 32, 32)" not in relax_text  # no (B, H, T, T) scores anywhere
