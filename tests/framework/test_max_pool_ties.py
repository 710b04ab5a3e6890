"""Max-pool gradients with tied maxima, in overlapping windows: graph mode sends each
window's gradient to its first maximum (row-major), as the NumPy kernel does. A ReLU's zeros
under a 3x3 stride-1 'same' pool (GoogLeNet's) tie in most windows; TOPI's pool_grad, used
before, sent a 2x2 map's gradient under a 3x3/1 'same' pool elsewhere (GoogLeNet's last
blocks: its step 25% off in those layers; found by ``framework.node_parity``)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops


@pytest.mark.parametrize("hw", [(2, 2), (7, 6), (1, 3)])
@pytest.mark.parametrize("kernel,stride,pad_mode", [(3, 1, "same"), (3, 2, "same"), (3, 2, "valid"),
                                                    (2, 1, "valid"), (2, 2, "valid")])
def test_tied_maxima_get_the_gradient_as_in_pynative(hw, kernel, stride, pad_mode):
    if pad_mode == "valid" and min(hw) < kernel:
        pytest.skip("no window fits")
    rng = np.random.default_rng(0)
    x = np.maximum(rng.standard_normal((2, 3) + hw), 0).astype(np.float32)  # half zeros
    x[0, 0, :3, :3] = 1.0  # a plateau of equal positive maxima
    weights = rng.standard_normal((2, 3) + nn.MaxPool2d(kernel, stride, pad_mode)(Tensor(x)).shape[2:])
    pool = nn.MaxPool2d(kernel_size=kernel, stride=stride, pad_mode=pad_mode)

    def loss(v):
        return (pool(v) * Tensor(weights.astype(np.float32))).sum()

    eager = ops.grad(loss)(Tensor(x)).asnumpy()
    compiled = ms.jit(ops.grad(loss))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(compiled, eager, rtol=1e-6, atol=1e-6)
    # every window's gradient lands on exactly one input element: the totals agree
    np.testing.assert_allclose(compiled.sum(), weights.sum(), rtol=1e-5)
