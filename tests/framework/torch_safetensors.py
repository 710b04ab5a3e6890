"""PyTorch's side of tests/framework/test_ckpt_safetensors.py: ``python torch_safetensors.py
IN.npz OUT.npz``. Loads ``ours_lenet.safetensors`` (written by twinmode, next to IN.npz) into
PyTorch's LeNet-5 with the same module names, strictly, and writes its logits for IN's ``x``;
then writes ``torch_lenet.safetensors`` from a PyTorch LeNet-5 of its own, with that net's logits.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn


class LeNet5(nn.Module):  # twinmode's LeNet5: convolutions without bias, as MindSpore's
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, bias=False)
        self.conv2 = nn.Conv2d(6, 16, 5, bias=False)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc3(torch.relu(self.fc2(x)))


def main(inputs: Path, outputs: Path) -> None:
    torch.set_num_threads(1)
    x = torch.from_numpy(np.load(inputs)["x"])
    net = LeNet5()
    net.load_state_dict(load_file(str(inputs.parent / "ours_lenet.safetensors")), strict=True)
    torch.manual_seed(11)
    theirs = LeNet5()
    save_file(theirs.state_dict(), str(inputs.parent / "torch_lenet.safetensors"))
    with torch.no_grad():
        np.savez(outputs, logits=net(x).numpy(), theirs=theirs(x).numpy())


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
