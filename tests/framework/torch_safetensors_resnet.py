"""PyTorch's side of tests/framework/test_ckpt_safetensors.py for ResNet-20: ``python
torch_safetensors_resnet.py IN.npz OUT.npz``.

A CIFAR ResNet-20 with the module names of twinmode's zoo ResNet (``features.0`` the stem
convolution, ``features.1`` its BatchNorm, ``features.3.body.0`` ..., ``fc``). It loads
``ours_resnet.safetensors`` (written by twinmode, next to IN.npz) with the mapping the
README states: a twinmode BatchNorm's ``X.gamma``, ``X.beta``, ``X.moving_mean``, ``X.moving_variance``
are PyTorch's ``X.weight``, ``X.bias``, ``X.running_mean``, ``X.running_var``; every other
name is the same; ``X.num_batches_tracked`` is not in the file. It writes the evaluation
logits of IN's ``x``, then a ResNet-20 of its own as ``torch_resnet.safetensors`` under
twinmode's names (the mapping reversed) with that network's logits.

The network is tests/trainer/torch_resnet.py's (its convolutions pad as MindSpore's ``'same'``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trainer"))
from torch_resnet import ResNet  # noqa: E402  (the zoo's ResNet in PyTorch, its module names)

TO_TORCH = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
            "moving_variance": "running_var"}


def torch_name(name: str) -> str:
    head, _, last = name.rpartition(".")
    return f"{head}.{TO_TORCH[last]}" if last in TO_TORCH else name


def main(inputs: Path, outputs: Path) -> None:
    torch.set_num_threads(1)
    x = torch.from_numpy(np.load(inputs)["x"])
    net = ResNet(20, 10).eval()
    ours = {torch_name(k): v for k, v in load_file(str(inputs.parent / "ours_resnet.safetensors")).items()}
    missing, unexpected = net.load_state_dict(ours, strict=False)
    assert not unexpected, unexpected
    assert all(m.endswith("num_batches_tracked") for m in missing), missing
    torch.manual_seed(12)
    theirs = ResNet(20, 10).eval()
    with torch.no_grad():
        for module in theirs.modules():  # statistics off their initial 0 and 1
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.normal_(0, 0.2)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0, 0.2)
    back = {v: k for k, v in TO_TORCH.items()}
    state = {}
    for name, value in theirs.state_dict().items():
        head, _, last = name.rpartition(".")
        if last != "num_batches_tracked":
            state[f"{head}.{back[last]}" if isinstance(dict(theirs.named_modules())[head], nn.BatchNorm2d)
                  else name] = value
    save_file(state, str(inputs.parent / "torch_resnet.safetensors"))
    with torch.no_grad():
        np.savez(outputs, logits=net(x).numpy(), theirs=theirs(x).numpy())


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
