"""Parameter names and order as MindSpore 2.10 gives them (found with the reference venv,
checked here against the rule itself):

- a Cell assigned as an attribute names every parameter below it after its attribute path
  (``block.cell_list.0.weight`` for a layer appended to a CellList before the block was
  assigned; ``bn.moving_mean`` for BatchNorm's statistic created as ``"mean"``); a
  parameter of the outermost Cell keeps the name it was created with;
- a layer appended to a CellList/SequentialCell is named as its siblings are (the prefix
  read from the first sibling's parameter name: ``extra.cell_list.2.weight`` after the
  block was assigned; ``2.weight`` in a list whose items have no prefix); any other late
  attribute is named from the cell it was added to;
- BatchNorm registers its moving statistics before gamma and beta, and an RNN every
  ``weight_ih`` first, then ``weight_hh``, ``bias_ih``, ``bias_hh``;
- ``Parameter.value()`` is a snapshot that gradients flow through (MindSpore's ``Load``).

With ``MINDSPORE_PYTHON``, MindSpore 2.10 runs these same assertions (imports changed).
"""

from __future__ import annotations

import subprocess
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cell_list = nn.CellList()
        for _ in range(2):
            self.cell_list.append(nn.Dense(2, 2))
        self.norm = nn.BatchNorm2d(3)
        self.own = Parameter(Tensor(np.ones(2, np.float32)), name="custom")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(OrderedDict([("block", Block()), ("head", nn.Dense(2, 2))]))
        self.extra = Block()


def test_nested_parameters_are_named_after_their_paths():
    net = Net()
    pairs = list(net.parameters_and_names())
    assert [p.name for _, p in pairs] == [path for path, _ in pairs]
    assert "features.block.cell_list.1.weight" in net.parameters_dict()
    assert "extra.norm.moving_mean" in net.parameters_dict()
    assert "extra.own" in net.parameters_dict()  # the attribute, not the name it was made with


def test_the_outermost_cell_keeps_given_names_and_late_layers_their_owners():
    block = Block()
    assert block.own.name == "custom" and block.norm.moving_mean.name == "norm.moving_mean"
    assert nn.BatchNorm2d(2).moving_mean.name == "mean"
    net = Net()
    net.extra.cell_list.append(nn.Dense(2, 2))  # after extra was assigned: named as its siblings
    assert net.extra.cell_list[2].weight.name == "extra.cell_list.2.weight"
    block.cell_list.append(nn.Dense(2, 2))  # the siblings here are unprefixed (0.weight ...)
    assert block.cell_list[2].bias.name == "2.bias"
    net.extra.late = nn.Dense(2, 2)  # a plain attribute added late: named from its owner only
    assert net.extra.late.weight.name == "late.weight"


def test_mindspore_parameter_order():
    assert [n for n, _ in nn.BatchNorm1d(3).parameters_and_names()] == [
        "moving_mean", "moving_variance", "gamma", "beta"]
    kinds = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    assert [n for n, _ in nn.GRU(2, 3, num_layers=2, bidirectional=True).parameters_and_names()] == [
        f"{k}_l{layer}{d}" for k in kinds for layer in (0, 1) for d in ("", "_reverse")]


class ValueNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return (self.w.value() * x).sum() + (self.w * x * x).sum()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_value_passes_gradients_to_the_parameter(mode):
    ms.set_context(mode=mode)
    try:
        net = ValueNet()
        x = np.array([1.0, 2.0, 3.0], np.float32)
        grads = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(Tensor(x))
        np.testing.assert_allclose(grads[0].asnumpy(), x + x * x)  # d/dw of w.x + w.x^2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_value_is_a_snapshot():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    snapshot = w.value()
    w.set_data(Tensor(np.zeros(2, np.float32)))
    assert snapshot.asnumpy().tolist() == [1.0, 2.0]


@needs_mindspore
def test_mindspore_passes_the_same_assertions(tmp_path):
    """This module, its imports changed to ``mindspore``, run by MindSpore 2.10."""
    source = Path(__file__).read_text().replace("import framework as ms", "import mindspore as ms")
    source = source.replace("from framework import", "from mindspore import").replace(
        "from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore\n", "")
    calls = [f"{name}()" for name in ("test_nested_parameters_are_named_after_their_paths",
                                      "test_the_outermost_cell_keeps_given_names_and_late_layers_their_owners",
                                      "test_mindspore_parameter_order", "test_value_is_a_snapshot")]
    calls += [f"test_value_passes_gradients_to_the_parameter(ms.{mode})"
              for mode in ("PYNATIVE_MODE", "GRAPH_MODE")]
    script = tmp_path / "names_in_mindspore.py"
    script.write_text(source.split("\n\n@needs_mindspore")[0] + "\n\n" + "\n".join(calls) + "\nprint('ok')\n")
    done = subprocess.run([MINDSPORE_PYTHON, str(script)], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
