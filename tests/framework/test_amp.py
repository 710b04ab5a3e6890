"""``ms.amp.auto_mixed_precision`` levels O0-O3 and ``Model(amp_level=...)`` (issue 26): which
cells compute in the low dtype (seen through the dtypes their construct receives), float32
master weights, float32 outputs and loss, and the two modes agreeing."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.train import Model

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


class Probe(nn.Cell):
    """Identity that records the dtype its construct sees (PyNative)."""

    def __init__(self, seen, name):
        super().__init__()
        self.seen, self.label = seen, name

    def construct(self, x):
        self.seen[self.label] = x.dtype
        return x


class Net(nn.Cell):
    def __init__(self, seen):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.after_bn = Probe(seen, "after_bn")
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.dense = nn.Dense(4 * 6 * 6, 3)
        self.seen = seen

    def construct(self, x):
        x = self.conv(x)
        self.seen["conv_out"] = x.dtype
        x = self.bn(x)
        x = self.after_bn(x)
        x = self.relu(x)
        self.seen["relu_out"] = x.dtype
        return self.dense(self.flat(x))


def _dtypes(level, dtype=ms.float16):
    seen = {}
    net = ms.amp.auto_mixed_precision(Net(seen), level, dtype)
    out = net(Tensor(np.random.default_rng(0).normal(size=(2, 1, 6, 6)).astype(np.float32)))
    return net, seen, out


def test_o0_changes_nothing():
    net, seen, out = _dtypes("O0")
    assert set(seen.values()) == {ms.float32} and out.dtype == ms.float32


def test_o1_converts_the_white_list_cells_only():
    net, seen, out = _dtypes("O1")
    # conv and relu compute in float16 and hand float32 on; batch norm stays float32
    assert seen == {"conv_out": ms.float32, "after_bn": ms.float32, "relu_out": ms.float32}
    assert out.dtype == ms.float32
    assert type(net._cells["conv"]).__name__ == "_OutputTo32"
    assert net.conv._backbone._float_dtype == ms.float16 and "_float_dtype" not in net.bn.__dict__
    assert nn.Conv2d in ms.amp.get_white_list() and nn.BatchNorm2d in ms.amp.get_black_list()


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16])
def test_o2_keeps_batchnorm_in_float32_and_returns_float32(dtype):
    net, seen, out = _dtypes("O2", dtype)
    assert seen == {"conv_out": dtype, "after_bn": dtype, "relu_out": dtype}
    inner = net._backbone
    assert type(inner._cells["bn"]).__name__ == "_OutputTo16"
    assert inner.bn._backbone._float_dtype == ms.float32
    assert out.dtype == ms.float32
    assert all(p.dtype == ms.float32 for p in net.trainable_params())  # master weights
    names = [p.name for p in net.trainable_params()]
    assert "conv.weight" in names and "bn.gamma" in names  # names unchanged by the wrappers


def test_o3_converts_everything():
    net, seen, out = _dtypes("O3")
    assert set(seen.values()) == {ms.float16} and out.dtype == ms.float32
    assert net._backbone.bn._float_dtype == ms.float16


def test_bad_level_or_dtype_is_one_clear_error():
    with pytest.raises(ValueError, match="amp_level must be one of O0, O1, O2, O3"):
        ms.amp.auto_mixed_precision(nn.Dense(2, 2), "O4")
    with pytest.raises(ValueError, match="'auto' is not supported"):
        ms.amp.auto_mixed_precision(nn.Dense(2, 2), "auto")
    with pytest.raises(ValueError, match="dtype must be ms.float16 or ms.bfloat16"):
        ms.amp.auto_mixed_precision(nn.Dense(2, 2), "O2", ms.float32)
    with pytest.raises(ValueError, match="to_float: dst_type"):
        nn.Dense(2, 2).to_float(ms.int32)


def _data(n=4, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(8, 1, 6, 6)).astype(np.float32), (np.arange(8) % 3).astype(np.int32))
            for _ in range(n)]


def _model(mode, **amp):
    ms.set_seed(0)
    net = Net({})
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, opt, metrics={"loss", "accuracy"}, mode=mode, **amp), net


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_model_trains_each_level_in_both_modes_alike_and_near_float32(level):
    losses = {}
    for mode in ("pynative", "graph"):
        # a scale that does not overflow: no step skipped, float32's trajectory
        manager = ms.amp.DynamicLossScaleManager(2 ** 10, 2, 100)
        model, net = _model(mode, amp_level=level, loss_scale_manager=manager)
        ctx = model.train(2, _data())
        losses[mode] = (ctx.loss, model.eval(_data(2, seed=1))["loss"])
        assert all(p.dtype == ms.float32 for p in net.trainable_params())
    model, _ = _model("pynative")
    model.train(2, _data())
    f32 = (model.eval(_data(2, seed=1))["loss"],)
    np.testing.assert_allclose(losses["pynative"], losses["graph"], rtol=3e-3)
    np.testing.assert_allclose(losses["pynative"][1], f32[0], rtol=3e-2)


def test_model_o2_uses_dynamic_loss_scaling_and_o3_none():
    model, _ = _model("pynative", amp_level="O2")
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    manager = model.loss_scale_manager
    assert isinstance(manager, ms.amp.DynamicLossScaleManager) and manager.get_loss_scale() == 2 ** 24
    model.train(1, _data())
    # the device scale and the manager's host copy moved together (float16 overflows at 2**24)
    scale = float(model.train_network.scale_sense.asnumpy())
    assert scale == manager.get_loss_scale() < 2 ** 24
    model3, _ = _model("pynative", amp_level="O3")
    assert type(model3.train_network) is nn.TrainOneStepCell and model3.loss_scale_manager is None
    model2, net = _model("pynative", amp_level="O2", keep_batchnorm_fp32=False)
    assert net.bn._float_dtype == ms.float16


def test_model_fixed_scale_without_drop_is_a_plain_step_with_sens():
    model, _ = _model("pynative", amp_level="O3",
                      loss_scale_manager=ms.FixedLossScaleManager(64.0, drop_overflow_update=False))
    assert type(model.train_network) is nn.TrainOneStepCell and model.train_network.sens == 64.0


def test_model_refuses_what_it_cannot_do():
    net = nn.Dense(2, 2)
    with pytest.raises(ValueError, match="amp_level must be one of"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O5")
    with pytest.raises(ValueError, match="need an optimizer"):
        Model(net, nn.MSELoss(), amp_level="O2")
    with pytest.raises(TypeError, match="loss_scale_manager must be"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), loss_scale_manager=1024)
    with pytest.raises(TypeError, match="keep_batchnorm_fp32 must be a bool"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), keep_batchnorm_fp32="yes")
    with pytest.raises(ValueError, match="boost_level"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), boost_level="O1")


@pytest.mark.parametrize("mode", MODES)
def test_top_level_to_float_cell_casts_its_own_weights_in_both_modes(mode):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    dense = nn.Dense(3, 2).to_float(ms.bfloat16)
    x = np.array([[0.3, -1.7, 2.1]], np.float32)
    out = dense(Tensor(x))
    assert out.dtype == ms.bfloat16 and dense.weight.dtype == ms.float32
    w = dense.weight.asnumpy().astype(ms.bfloat16.np).astype(np.float32)
    b = dense.bias.asnumpy().astype(ms.bfloat16.np).astype(np.float32)
    xb = x.astype(ms.bfloat16.np).astype(np.float32)
    expected = ((xb @ w.T).astype(ms.bfloat16.np).astype(np.float32) + b).astype(ms.bfloat16.np)
    np.testing.assert_array_equal(out.asnumpy().astype(np.float32), expected.astype(np.float32))
    assert ops.cast(out, ms.float32).dtype == ms.float32


@pytest.mark.parametrize("precision", ["fp32", "bf16", "fp16"])
def test_yaml_precision_builds_an_o2_model_with_dynamic_loss_scaling(precision):
    from pathlib import Path

    from trainer.build import build_model_for
    from trainer.config import load_config

    path = Path(__file__).resolve().parents[2] / "experiments" / "resnet8_synthetic.yaml"
    model, net = build_model_for(load_config(path, [f"precision={precision}"]))
    if precision == "fp32":
        assert type(model.train_network) is nn.TrainOneStepCell
        return
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    assert net._amp_level == "O2" and isinstance(model.loss_scale_manager, ms.amp.DynamicLossScaleManager)
    dtype = ms.bfloat16 if precision == "bf16" else ms.float16
    assert {c._float_dtype for _, c in net.cells_and_names() if "_float_dtype" in c.__dict__} == \
        {dtype, ms.float32}  # batch norms in float32
    with pytest.raises(ValueError, match="precision"):
        load_config(path, ["precision=fp8"])
