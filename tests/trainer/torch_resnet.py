"""PyTorch reference of the zoo's CIFAR ResNet (He et al. 2016, section 4.2), written from
the paper with PyTorch's own layers, for tests/trainer/test_zoo_torch.py and (its module
names are the zoo ResNet's) tests/framework/torch_safetensors_resnet.py.

Run in a separate process (PyTorch stays out of the main venv and out of the test process;
``PYTHONPATH`` points at a folder with torch, e.g. ``pip install torch==2.13.0 --target
/tmp/torchlib``)::

    python torch_resnet.py IN.npz OUT.npz

IN holds ``depth``, ``num_classes``, ``lr``, ``momentum``, ``x`` (N x 3 x H x W float32),
``y`` (int labels) and the parameters ``p000``, ``p001`` ... in the order of the network's
``trainable_params()`` (convolutions (out, in, kh, kw) without bias, BatchNorm gamma and
beta, Dense weight (out, in) and bias). OUT gets ``loss`` (training-mode forward, mean
cross entropy), the gradients ``g000`` ... (same order), ``loss2`` (the loss after one
SGD-with-momentum step), ``eval_logits`` (evaluation-mode logits after that step, on the
updated running statistics) and the parameters after the step ``q000`` ....

MindSpore's ``pad_mode='same'`` pads ``total // 2`` before and the rest after (TensorFlow's
rule): for a stride-2 3x3 convolution of an even size that is 0 before and 1 after, which
``nn.Conv2d(padding=1)`` would not reproduce, so stride-2 convolutions pad explicitly.
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


def same_pads(size: int, k: int, s: int) -> tuple[int, int]:
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


class SameConv(nn.Conv2d):
    """A bias-free ``Conv2d`` (its parameter is ``weight``, as twinmode's) padding as
    MindSpore's ``'same'``."""

    def __init__(self, cin: int, cout: int, k: int, stride: int) -> None:
        super().__init__(cin, cout, k, stride=stride, bias=False)

    def forward(self, x):
        k, stride = self.kernel_size[0], self.stride[0]
        top, bottom = same_pads(x.shape[2], k, stride)
        left, right = same_pads(x.shape[3], k, stride)
        return super().forward(F.pad(x, (left, right, top, bottom)))


def conv_bn(cin: int, cout: int, k: int, stride: int) -> list[nn.Module]:
    return [SameConv(cin, cout, k, stride), nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1)]


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(*conv_bn(cin, cout, 3, stride), nn.ReLU(),
                                  *conv_bn(cout, cout, 3, 1))
        self.shortcut = (nn.Sequential(*conv_bn(cin, cout, 1, stride))
                         if stride != 1 or cin != cout else None)

    def forward(self, x):
        skip = x if self.shortcut is None else self.shortcut(x)
        return F.relu(self.body(x) + skip)


class ResNet(nn.Module):
    def __init__(self, depth: int, num_classes: int) -> None:
        super().__init__()
        n = (depth - 2) // 6
        layers: list[nn.Module] = [*conv_bn(3, 16, 3, 1), nn.ReLU()]
        cin = 16
        for stage, cout in enumerate((16, 32, 64)):
            for i in range(n):
                layers.append(Block(cin, cout, 2 if stage and i == 0 else 1))
                cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


def main(src: str, dst: str) -> None:
    torch.set_num_threads(1)
    data = np.load(src)
    model = ResNet(int(data["depth"]), int(data["num_classes"]))
    params = list(model.parameters())
    names = sorted(k for k in data.files if k.startswith("p"))
    if len(names) != len(params):
        raise SystemExit(f"{len(names)} parameters given, the torch ResNet has {len(params)}")
    with torch.no_grad():
        for name, param in zip(names, params):
            value = torch.from_numpy(data[name])
            if tuple(value.shape) != tuple(param.shape):
                raise SystemExit(f"{name}: shape {tuple(value.shape)} != torch {tuple(param.shape)}")
            param.copy_(value)
    x, y = torch.from_numpy(data["x"]), torch.from_numpy(data["y"]).long()
    opt = torch.optim.SGD(params, lr=float(data["lr"]), momentum=float(data["momentum"]))
    model.train()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    out = {"loss": loss.detach().numpy()}
    out.update({f"g{i:03d}": p.grad.numpy().copy() for i, p in enumerate(params)})
    opt.step()
    out.update({f"q{i:03d}": p.detach().numpy().copy() for i, p in enumerate(params)})
    with torch.no_grad():
        out["loss2"] = F.cross_entropy(model(x), y).numpy()  # train mode: updates the stats again
        model.eval()
        out["eval_logits"] = model(x).numpy()
    np.savez(dst, **out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
