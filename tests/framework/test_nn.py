"""``framework.nn``: cell registration and layers vs NumPy references (losses and
initializers: test_losses_init.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops
from trainer.models import LeNet5

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import numpy_lenet  # noqa: E402

RNG = np.random.default_rng(1234)


def _rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ========================================================================================
# Cell registration and names
# ========================================================================================


def test_lenet_parameter_names_and_shapes():
    net = LeNet5()
    names = [p.name for p in net.trainable_params()]
    assert names == list(numpy_lenet.PARAM_NAMES)
    assert [n for n, _ in net.parameters_and_names()] == names
    shapes = {p.name: p.shape for p in net.get_parameters()}
    assert shapes == {
        "conv1.weight": (6, 1, 5, 5), "conv2.weight": (16, 6, 5, 5),
        "fc1.weight": (120, 400), "fc1.bias": (120,), "fc2.weight": (84, 120),
        "fc2.bias": (84,), "fc3.weight": (10, 84), "fc3.bias": (10,),
    }
    assert list(net.parameters_dict()) == names
    assert net.parameters_dict()["fc1.bias"] is net.fc1.bias


def test_lenet_forward_shape_and_cells():
    net = LeNet5()
    out = net(Tensor(_rand(2, 1, 32, 32)))
    assert out.shape == (2, 10)
    names = [n for n, _ in net.cells_and_names()]
    assert names[0] == ""
    assert {"conv1", "conv2", "fc1", "fc2", "fc3", "relu", "max_pool2d", "flatten"} <= set(names)
    assert list(net.name_cells()) == [
        "conv1", "conv2", "fc1", "fc2", "fc3", "relu", "max_pool2d", "flatten"
    ]


class _Nested(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 1)])
        self.scale = Parameter(Tensor(np.array([2.0], np.float32)))

    def construct(self, x):
        return self.body(x) * self.scale


def test_sequential_cell_names():
    seq = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 1)])
    assert [p.name for p in seq.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU)
    x = Tensor(_rand(4, 2))
    w0, b0 = seq[0].weight.asnumpy(), seq[0].bias.asnumpy()
    w2, b2 = seq[2].weight.asnumpy(), seq[2].bias.asnumpy()
    expected = np.maximum(x.asnumpy() @ w0.T + b0, 0) @ w2.T + b2
    np.testing.assert_allclose(seq(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_nested_sequential_names_and_unnamed_parameter():
    net = _Nested()
    assert [p.name for p in net.trainable_params()] == [
        "scale", "body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias"
    ]
    assert net.scale.name == "scale"  # an unnamed Parameter takes its attribute's name


def test_sequential_append_and_ordered_dict():
    from collections import OrderedDict

    seq = nn.SequentialCell(OrderedDict([("first", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    seq.append(nn.Dense(2, 1))
    assert [p.name for p in seq.trainable_params()] == [
        "first.weight", "first.bias", "2.weight", "2.bias"
    ]
    with pytest.raises(TypeError, match="not a Cell"):
        nn.SequentialCell([nn.ReLU(), 3])


def test_cell_without_super_init_is_an_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.fc = nn.Dense(2, 2)

    with pytest.raises(AttributeError, match="super"):
        Bad()


class _BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.bn(self.conv(x)))


def test_trainable_params_exclude_batchnorm_moving_statistics():
    net = _BNNet()
    trainable = [p.name for p in net.trainable_params()]
    assert trainable == ["conv.weight", "conv.bias", "bn.gamma", "bn.beta"]
    untrainable = net.untrainable_params()
    assert len(untrainable) == 2
    assert {id(p) for p in untrainable} == {id(net.bn.moving_mean), id(net.bn.moving_variance)}
    assert all(not p.requires_grad for p in untrainable)
    assert len(list(net.get_parameters())) == 6


def test_set_train_propagates():
    net = _BNNet()
    assert not net.training and not net.bn.training and not net.drop.training
    assert net.set_train() is net
    assert all(cell.training for _, cell in net.cells_and_names())
    net.set_train(False)
    assert not any(cell.training for _, cell in net.cells_and_names())


def test_parameter_set_data_shape_check():
    p = Parameter(np.zeros((2, 3), np.float32), name="p")
    p.set_data(np.ones((2, 3)))
    assert p.asnumpy().dtype == np.float32
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"'p'.*\(3, 2\).*\(2, 3\)"):
        p.set_data(np.ones((3, 2)))


# ========================================================================================
# Layers vs NumPy
# ========================================================================================


def _same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _conv_ref(x, w, stride=1, pads=(0, 0, 0, 0)):
    """Direct convolution: one window at a time (float64)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = x[:, :, i * stride: i * stride + kh, j * stride: j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", win, w.astype(np.float64))
    return out


def _pool_ref(x, k, s, op, pads=(0, 0, 0, 0)):
    fill = -np.inf if op == "max" else np.nan
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]), constant_values=fill)
    n, c, h, w = x.shape
    ho, wo = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = x[:, :, i * s: i * s + k, j * s: j * s + k]
            out[:, :, i, j] = win.max(axis=(2, 3)) if op == "max" else np.nanmean(win, (2, 3))
    return out


def test_dense_with_activation_and_without_bias():
    x = _rand(5, 4)
    d = nn.Dense(4, 3, activation="relu")
    expected = np.maximum(x @ d.weight.asnumpy().T + d.bias.asnumpy(), 0)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    d2 = nn.Dense(4, 3, has_bias=False)
    assert [p.name for p in d2.trainable_params()] == ["weight"]
    np.testing.assert_allclose(d2(Tensor(x)).asnumpy(), x @ d2.weight.asnumpy().T, rtol=1e-5)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(pad_mode="valid"),
        dict(pad_mode="same"),
        dict(pad_mode="same", stride=2),
        dict(pad_mode="pad", padding=1),
        dict(pad_mode="valid", stride=2, has_bias=True),
        dict(pad_mode="pad", padding=2, stride=2, has_bias=True),
    ],
)
def test_conv2d_matches_direct_convolution(kwargs):
    x = _rand(2, 3, 9, 8)
    conv = nn.Conv2d(3, 4, 3, **kwargs)
    out = conv(Tensor(x)).asnumpy()
    stride = kwargs.get("stride", 1)
    mode = kwargs["pad_mode"]
    if mode == "same":
        pads = _same_pads(9, 3, stride) + _same_pads(8, 3, stride)
    elif mode == "pad":
        pads = (kwargs["padding"],) * 4
    else:
        pads = (0, 0, 0, 0)
    expected = _conv_ref(x, conv.weight.asnumpy(), stride, pads)
    if kwargs.get("has_bias"):
        expected += conv.bias.asnumpy()[None, :, None, None]
    if mode == "same":
        assert out.shape[2:] == (-(-9 // stride), -(-8 // stride))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_conv2d_defaults_are_mindspore_defaults():
    conv = nn.Conv2d(1, 2, 5)
    assert not conv.has_bias
    assert [p.name for p in conv.trainable_params()] == ["weight"]
    # default pad_mode is 'same': spatial size is kept
    assert conv(Tensor(_rand(1, 1, 7, 7))).shape == (1, 2, 7, 7)


@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2)])
def test_max_pool2d_valid(k, s):
    x = _rand(2, 3, 7, 8)
    out = nn.MaxPool2d(kernel_size=k, stride=s)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, _pool_ref(x, k, s, "max").astype(np.float32))


@pytest.mark.parametrize("k,s", [(2, 2), (3, 1), (3, 2)])
def test_avg_pool2d_valid(k, s):
    x = _rand(2, 3, 7, 8)
    out = nn.AvgPool2d(kernel_size=k, stride=s)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, _pool_ref(x, k, s, "avg"), rtol=1e-5, atol=1e-6)


def test_pools_same_padding():
    x = _rand(1, 2, 5, 6)
    pads = _same_pads(5, 3, 2) + _same_pads(6, 3, 2)
    mx = nn.MaxPool2d(3, 2, pad_mode="same")(Tensor(x)).asnumpy()
    av = nn.AvgPool2d(3, 2, pad_mode="same")(Tensor(x)).asnumpy()
    assert mx.shape == (1, 2, 3, 3)
    np.testing.assert_array_equal(mx, _pool_ref(x, 3, 2, "max", pads).astype(np.float32))
    # 'same' average: mean over the real (unpadded) entries of each window
    np.testing.assert_allclose(av, _pool_ref(x, 3, 2, "avg", pads), rtol=1e-5, atol=1e-6)


def test_flatten_relu_softmax_logsoftmax():
    x = _rand(2, 3, 4, 5)
    flat = nn.Flatten()(Tensor(x))
    assert flat.shape == (2, 60)
    np.testing.assert_array_equal(flat.asnumpy(), x.reshape(2, 60))
    np.testing.assert_array_equal(nn.ReLU()(Tensor(x)).asnumpy(), np.maximum(x, 0))
    logits = _rand(4, 6) * 5
    e = np.exp(logits.astype(np.float64) - logits.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(nn.Softmax()(Tensor(logits)).asnumpy(), sm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nn.LogSoftmax()(Tensor(logits)).asnumpy(), np.log(sm),
                               rtol=1e-5, atol=1e-6)
    e0 = np.exp(logits.astype(np.float64))
    np.testing.assert_allclose(nn.Softmax(axis=0)(Tensor(logits)).asnumpy(),
                               e0 / e0.sum(0, keepdims=True), rtol=1e-5, atol=1e-7)
    # large logits stay finite
    big = Tensor(np.array([[1000.0, 0.0, -1000.0]], np.float32))
    np.testing.assert_allclose(nn.Softmax()(big).asnumpy(), [[1.0, 0.0, 0.0]], atol=1e-7)


def test_dropout_eval_is_identity_and_train_scales():
    x = Tensor(np.ones((200, 100), np.float32))
    drop = nn.Dropout(p=0.3)
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())  # eval (default) mode
    drop.set_train()
    ms.set_seed(7)
    out = drop(x).asnumpy()
    zero_frac = np.mean(out == 0)
    assert abs(zero_frac - 0.3) < 0.02  # 20,000 draws: sd ~0.003
    kept = out[out != 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)
    # the older keep_prob spelling
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    with pytest.raises(ValueError):
        nn.Dropout(p=1.0)


def test_dropout_gradient_uses_same_mask():
    drop = nn.Dropout(p=0.5)
    drop.set_train()
    x = Tensor(_rand(50, 20))

    def fn(x):
        return ops.reduce_sum(drop(x) * 3.0)

    ms.set_seed(3)
    out_mask = drop(x).asnumpy() != 0
    ms.set_seed(3)
    g = ms.grad(fn)(x).asnumpy()
    np.testing.assert_allclose(g, np.where(out_mask, 3.0 / 0.5, 0.0), rtol=1e-6)


def test_batchnorm2d_train_and_eval():
    x = _rand(4, 3, 5, 5) * 2 + 1
    bn = nn.BatchNorm2d(3)
    bn.gamma.set_data(np.array([1.0, 2.0, 0.5], np.float32))
    bn.beta.set_data(np.array([0.0, -1.0, 3.0], np.float32))
    bn.set_train()
    y = bn(Tensor(x)).asnumpy()
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(0, 2, 3))
    var = x64.var(axis=(0, 2, 3))
    g, b = bn.gamma.asnumpy(), bn.beta.asnumpy()
    expected = ((x64 - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
                * g[None, :, None, None] + b[None, :, None, None])
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    count = 4 * 5 * 5
    unbiased = var * count / (count - 1)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.9 * 0 + 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 * 1 + 0.1 * unbiased, rtol=1e-5)

    # a second training step moves the statistics again
    mm, mv = bn.moving_mean.asnumpy().copy(), bn.moving_variance.asnumpy().copy()
    bn(Tensor(x))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.9 * mm + 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 * mv + 0.1 * unbiased,
                               rtol=1e-5)

    # evaluation uses the moving statistics and leaves them alone
    bn.set_train(False)
    mm, mv = bn.moving_mean.asnumpy().copy(), bn.moving_variance.asnumpy().copy()
    y_eval = bn(Tensor(x)).asnumpy()
    expected_eval = ((x64 - mm[None, :, None, None]) / np.sqrt(mv[None, :, None, None] + 1e-5)
                     * g[None, :, None, None] + b[None, :, None, None])
    np.testing.assert_allclose(y_eval, expected_eval, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), mm)
    np.testing.assert_array_equal(bn.moving_variance.asnumpy(), mv)


def test_batchnorm2d_train_gradient_matches_finite_differences():
    x = _rand(3, 2, 2, 2).astype(np.float64)
    r = _rand(3, 2, 2, 2).astype(np.float64)
    bn = nn.BatchNorm2d(2)
    bn.set_train()
    gamma = np.array([1.5, 0.7])

    def loss_np(x):
        mean = x.mean(axis=(0, 2, 3), keepdims=True)
        var = x.var(axis=(0, 2, 3), keepdims=True)
        return np.sum((x - mean) / np.sqrt(var + 1e-5) * gamma[None, :, None, None] * r)

    bn.gamma.set_data(gamma.astype(np.float32))

    def loss(x):
        return ops.reduce_sum(bn(x) * Tensor(r.astype(np.float32)))

    g = ms.grad(loss)(Tensor(x.astype(np.float32))).asnumpy()
    eps = 1e-6
    numeric = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        numeric[idx] = (loss_np(x + d) - loss_np(x - d)) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-3, atol=1e-4)


def test_batchnorm_wrong_channels():
    with pytest.raises(ValueError, match=r"3 channels.*\(2, 4, 5, 5\)"):
        nn.BatchNorm2d(3)(Tensor(_rand(2, 4, 5, 5)))
