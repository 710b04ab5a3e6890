"""CUDA code generated without a GPU: every kernel of a train step must be a device kernel.

A kernel written for the CPU (a pre-scheduled loop, or several blocks that TVM's GPU rules
do not bind to threads) ends up on the host in a CUDA build, where it reads device memory:
on an H200 the GPT step segfaulted in its Embedding gradient (bench/gpu_check.py found it).
The lowerings choose such kernels for the CPU only (framework/backend/tvm/lower/lower_target.py).
"""

from __future__ import annotations

import numpy as np

import framework as ms
from framework import Tensor, nn, ops


def _cuda_source(tmp_path, fn, *args) -> str:
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU", save_graphs=True,
                   save_graphs_path=str(tmp_path))
    try:
        ms.jit(fn).compile(*args, load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    (folder,) = tmp_path.iterdir()
    return (folder / "20_kernels.cu").read_text()


def test_an_embedding_gradient_is_a_device_kernel_on_cuda(tmp_path):
    table = nn.Embedding(50, 8)
    grad = ms.value_and_grad(lambda i: table(i).sum(), None, table.trainable_params())
    source = _cuda_source(tmp_path, grad, Tensor(np.array([[1, 2, 2]], np.int32)))
    assert "scatter" in source and "index_add_rows" not in source


def test_a_concatenate_of_many_inputs_is_a_device_kernel_on_cuda(tmp_path):
    parts = [Tensor(np.full((2, 3), k, np.float32)) for k in range(6)]
    source = _cuda_source(tmp_path, lambda *xs: ops.concat(xs, 0) * 2.0, *parts)
    assert "concat" in source and "concat_copies" not in source


def test_an_overlapping_max_pool_gradient_is_a_device_kernel_on_cuda(tmp_path):
    pool = nn.MaxPool2d(kernel_size=3, stride=1, pad_mode="same")
    grad = ops.grad(lambda x: pool(x).sum())
    source = _cuda_source(tmp_path, grad, Tensor(np.ones((2, 3, 4, 4), np.float32)))
    assert "max_pool2d_grad" in source and "__global__" in source
