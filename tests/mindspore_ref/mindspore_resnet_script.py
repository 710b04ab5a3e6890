"""Run by MindSpore's own Python (``$MINDSPORE_PYTHON``) for
tests/mindspore_ref/test_ckpt_mindspore_resnet.py: ``python mindspore_resnet_script.py FOLDER``.

A CIFAR ResNet-20 written with MindSpore's layers (the attribute names of twinmode's zoo
ResNet, so MindSpore names its parameters as it would any such network: BatchNorm's
``moving_mean``/``moving_variance``). It loads ``ours_resnet.ckpt`` (written by twinmode)
strictly and records what ``load_param_into_net`` returned and the logits of ``x.npy``; then
sets weights of its own, saves them as ``ms_resnet.ckpt`` and ``ms_resnet.safetensors`` with
its logits, for twinmode to load. Independent of twinmode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops


def conv_bn(cin, cout, kernel, stride):
    return [nn.Conv2d(cin, cout, kernel, stride=stride, pad_mode="same"), nn.BatchNorm2d(cout)]


class BasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.SequentialCell([*conv_bn(cin, cout, 3, stride), nn.ReLU(), *conv_bn(cout, cout, 3, 1)])
        self.project = stride != 1 or cin != cout
        self.shortcut = nn.SequentialCell(conv_bn(cin, cout, 1, stride)) if self.project else None
        self.relu = nn.ReLU()

    def construct(self, x):
        skip = self.shortcut(x) if self.project else x
        return self.relu(self.body(x) + skip)


class ResNet20(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        layers = [*conv_bn(3, 16, 3, 1), nn.ReLU()]
        cin = 16
        for stage, cout in enumerate((16, 32, 64)):
            for i in range(3):
                layers.append(BasicBlock(cin, cout, 2 if stage and i == 0 else 1))
                cin = cout
        self.features = nn.SequentialCell(layers)
        self.fc = nn.Dense(64, num_classes)

    def construct(self, x):
        return self.fc(ops.mean(self.features(x), (2, 3)))


def main(folder: Path) -> None:
    x = Tensor(np.load(folder / "x.npy"))
    found = {}
    net = ResNet20()
    net.set_train(False)
    found["names"] = np.array([p.name for p in net.get_parameters()])
    params = ms.load_checkpoint(str(folder / "ours_resnet.ckpt"))
    not_loaded, unused = ms.load_param_into_net(net, params, strict_load=True)
    found["not_loaded"], found["unused"] = np.array(not_loaded, str), np.array(unused, str)
    found["logits_of_ours"] = net(x).asnumpy()

    rng = np.random.default_rng(11)
    for p in net.get_parameters():  # statistics too: variances positive, the rest anything
        values = rng.uniform(0.5, 1.5, p.shape) if "variance" in p.name or "gamma" in p.name \
            else rng.standard_normal(p.shape) * 0.2
        p.set_data(Tensor(values.astype(np.float32)))
    ms.save_checkpoint(net, str(folder / "ms_resnet.ckpt"))
    ms.save_checkpoint(net, str(folder / "ms_resnet.safetensors"), format="safetensors")
    found["ms_logits"] = net(x).asnumpy()
    np.savez(folder / "ms_resnet.npz", **found)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
