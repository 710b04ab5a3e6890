"""``nn.Conv2d(group=...)`` and ``ops.conv2d(groups=...)``: grouped and depthwise convolution
against the loop reference (tests/framework/refs.py) and against the ungrouped convolution
run block by block, in PyNative and compiled. The primitives' kernels, finite-difference
gradients and TVM lowerings are in the registry harness (test_primitives, test_lowering,
test_graph_mode)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

from . import refs


def _same_pads(h, w, k, s):
    return refs.conv_pads((h, w), (k, k), (s, s), (1, 1), "same", None)


@pytest.mark.parametrize("cin, cout, group, stride", [(4, 6, 2, 1), (6, 6, 6, 2), (3, 6, 3, 1)])
def test_conv2d_cell_matches_the_grouped_reference(cin, cout, group, stride):
    ms.set_seed(0)
    conv = nn.Conv2d(cin, cout, 3, stride=stride, group=group, has_bias=True)
    assert conv.weight.shape == (cout, cin // group, 3, 3)
    x = np.random.default_rng(0).standard_normal((2, cin, 7, 6)).astype(np.float32)
    got = conv(Tensor(x)).asnumpy()
    w, b = conv.weight.asnumpy().astype(np.float64), conv.bias.asnumpy().astype(np.float64)
    want = refs.group_conv2d(x.astype(np.float64), w, (stride, stride), (1, 1),
                             _same_pads(7, 6, 3, stride), group) + b[None, :, None, None]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert "group=" + str(group) in repr(conv)


def test_functional_groups_equal_the_ungrouped_conv_per_block():
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((2, 6, 5, 5)).astype(np.float32))
    w6 = Tensor(rng.standard_normal((6, 2, 3, 3)).astype(np.float32))
    got = ops.conv2d(x, w6, pad_mode="pad", padding=1, groups=3).asnumpy()
    blocks = [ops.conv2d(x[:, 2 * g:2 * g + 2], w6[2 * g:2 * g + 2], pad_mode="pad",
                         padding=1).asnumpy() for g in range(3)]
    np.testing.assert_allclose(got, np.concatenate(blocks, axis=1), rtol=1e-6, atol=1e-6)


def test_depthwise_net_forward_and_gradients_compile_to_the_pynative_values():
    """Depthwise 3x3 (stride 2) + pointwise 1x1: outputs and gradients of input and weights
    in graph mode equal PyNative's."""
    ms.set_seed(2)
    net = nn.SequentialCell(nn.Conv2d(4, 8, 3, stride=2, group=4, has_bias=True), nn.ReLU(),
                            nn.Conv2d(8, 3, 1))
    x = Tensor(np.random.default_rng(2).standard_normal((2, 4, 7, 7)).astype(np.float32))
    params = net.trainable_params()
    fn = ms.value_and_grad(lambda t: ops.reduce_sum(net(t) * net(t)), 0, params)

    def run(mode):
        ms.set_context(mode=mode)
        try:
            loss, (dx, dws) = fn(x)
            return [loss.asnumpy(), dx.asnumpy(), *(d.asnumpy() for d in dws)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    eager, graph = run(ms.PYNATIVE_MODE), run(ms.GRAPH_MODE)
    assert len(eager) == 2 + len(params) == 5
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
    assert eager[2].shape == (8, 1, 3, 3) and np.abs(eager[2]).sum() > 0


@pytest.mark.parametrize("kwargs, match", [
    (dict(in_channels=6, out_channels=4, group=4), "divisible by group"),
    (dict(in_channels=4, out_channels=6, group=4), "divisible by group"),
    (dict(in_channels=4, out_channels=4, group=0), "group must be >= 1"),
])
def test_conv2d_cell_refuses_bad_groups(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nn.Conv2d(kernel_size=3, **kwargs)


def test_grouped_primitive_names_the_weight_it_expects():
    x = Tensor(np.zeros((1, 4, 5, 5), np.float32))
    with pytest.raises(ValueError, match=r"weight must be \(out, 2, kh, kw\) with out divisible by 2"):
        ops.conv2d(x, Tensor(np.zeros((3, 2, 3, 3), np.float32)), groups=2)
    with pytest.raises(ValueError, match="input channels 4 .* not divisible by group=3"):
        ops.conv2d(x, Tensor(np.zeros((3, 1, 3, 3), np.float32)), groups=3)
