"""Run by MindSpore's own Python (``$MINDSPORE_PYTHON``) for tests/mindspore_ref/test_ckpt_mindspore.py:
``python mindspore_ckpt_script.py FOLDER``. It reads the files twinmode wrote in FOLDER (``ours_*``)
with MindSpore and records what it found in ``ms_read.npz``, then writes MindSpore's own
checkpoints (``ms_*``) of a LeNet-5 with set weights for twinmode to load. Independent of twinmode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn


class LeNet5(nn.Cell):  # the MindSpore tutorial's LeNet-5, the names twinmode's LeNet5 uses
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(400, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.relu(self.fc1(self.flatten(x)))
        return self.fc3(self.relu(self.fc2(x)))


def main(folder: Path) -> None:
    x = Tensor(np.load(folder / "x.npy"))
    found = {}
    for name in ("ours_lenet.ckpt", "ours_lenet_crc.ckpt", "ours_lenet.safetensors"):
        net = LeNet5()
        kwargs = {"format": "safetensors"} if name.endswith(".safetensors") else {"crc_check": True}
        params = ms.load_checkpoint(str(folder / name), **kwargs)
        not_loaded, ckpt_not_loaded = ms.load_param_into_net(net, params)
        assert not not_loaded, not_loaded
        found[f"{name}:logits"] = net(x).asnumpy()
        found[f"{name}:unused"] = np.array(sorted(ckpt_not_loaded))
    for name, value in ms.load_checkpoint(str(folder / "ours_dtypes.ckpt")).items():
        if isinstance(value, str):
            found[f"dtypes:{name}:str"] = np.array(value)
        else:
            found[f"dtypes:{name}:{value.dtype}"] = value.asnumpy() if str(value.dtype) != "BFloat16" \
                else value.float().asnumpy()
    np.savez(folder / "ms_read.npz", **found)

    ms.set_seed(5)
    net = LeNet5()
    rng = np.random.default_rng(7)
    for p in net.get_parameters():  # not MindSpore's init: values a wrong offset would change
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.1))
    ms.save_checkpoint(net, str(folder / "ms_lenet.ckpt"), append_dict={"epoch_num": 4, "note": "ms"})
    ms.save_checkpoint(net, str(folder / "ms_lenet_crc.ckpt"), crc_check=True)
    np.save(folder / "ms_logits.npy", net(x).asnumpy())
    items = [{"name": f"t_{i}", "data": Tensor(np.arange(-3, 3).reshape(2, 3) % 3, dtype)}
             for i, dtype in enumerate([ms.int8, ms.uint8, ms.int16, ms.uint16, ms.int32, ms.uint32,
                                        ms.int64, ms.uint64, ms.float16, ms.float32, ms.float64,
                                        ms.bool_, ms.bfloat16])]
    ms.save_checkpoint(items, str(folder / "ms_dtypes.ckpt"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
