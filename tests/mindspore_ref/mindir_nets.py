"""Networks for the MindIR tests, written once for both engines: each builder takes the
engine (``framework`` or ``mindspore``, imported as ``ms``), so the same source
builds the same network in twinmode and in MindSpore 2.10 (tests/mindspore_ref/
mindir_script.py). :func:`set_weights` gives every Parameter values drawn from its name, so
both engines hold the same weights. Imports neither engine.
"""

from __future__ import annotations

import zlib

import numpy as np


def mlp(ms):
    nn = ms.nn
    """The quick-start / save_load tutorial's MLP (Flatten, Dense, ReLU)."""
    return nn.SequentialCell(nn.Flatten(), nn.Dense(28 * 28, 512), nn.ReLU(),
                             nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))


def lenet(ms):
    nn = ms.nn
    """The tutorials' LeNet-5 (Conv2D, MaxPool, ReLU, Flatten, Dense)."""
    class LeNet5(nn.Cell):
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
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet5()


def mixed(ms):
    nn, ops = ms.nn, ms.ops
    """More primitives: padded/strided/same convolutions with bias, BatchNorm (eval),
    AvgPool, arithmetic with constants, activations, reshape, transpose, softmaxes, a mean,
    concat, expand/squeeze, a cast; three outputs."""
    class Mixed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, stride=2, has_bias=True)
            self.conv2 = nn.Conv2d(4, 4, 3, pad_mode="same")
            self.bn = nn.BatchNorm2d(4)
            self.avg = nn.AvgPool2d(2, 2)

        def construct(self, x):
            y = self.avg(self.bn(self.conv2(self.conv(x))))
            y = (y * 2.0 - 1.0) / 3.0
            y = ops.sigmoid(y) + ops.tanh(y) + ops.exp(y) - ops.neg(y)
            y = ops.maximum(y, y * 0.5)
            y = ops.reshape(y, (-1, 4))
            z = ops.transpose(y, (1, 0))
            s = ops.softmax(y, -1) + ops.log_softmax(y, -1)
            m = ops.mean(s, 1, True)
            t = ops.squeeze(ops.expand_dims(ops.concat((s, m), 1), 0), 0)
            return ops.cast(t, ms.float16), z, ops.sqrt(ops.abs(t))

    return Mixed()


NETWORKS = {"mlp": (mlp, (1, 28, 28)), "lenet": (lenet, (1, 32, 32)), "mixed": (mixed, (3, 8, 8))}


def set_weights(net, tensor):
    """Every Parameter of ``net`` set from a generator seeded by its name (variances > 0)."""
    for p in net.get_parameters():
        rng = np.random.default_rng(zlib.crc32(p.name.encode()))
        value = (rng.standard_normal(p.shape) * 0.2).astype(np.float32)
        if "variance" in p.name:
            value = np.abs(value) + 0.5
        p.set_data(tensor(value))
    return net


def sample(name, batch, seed=0):
    """The input of network ``name`` at ``batch``."""
    shape = NETWORKS[name][1]
    return np.random.default_rng(seed).standard_normal((batch, *shape)).astype(np.float32)


def extra(ms):
    """Transformer-ish primitives: same-padded max pooling, a spatial mean, LayerNorm, GELU,
    SiLU, batched products, sums, powers, a max, tile, a strided slice, Dense, ReLU6, rsqrt."""
    nn, ops = ms.nn, ms.ops

    class Extra(nn.Cell):
        def __init__(self):
            super().__init__()
            self.pool = nn.MaxPool2d(3, 2, pad_mode="same")
            self.ln = nn.LayerNorm((4,), begin_norm_axis=-1, begin_params_axis=-1)
            self.gelu = nn.GELU()
            self.silu = nn.SiLU()
            self.dense = nn.Dense(4, 4)

        def construct(self, x):
            y = self.pool(x)
            y = ops.reshape(y - ops.mean(y, (2, 3), True), (-1, 12, 4))
            y = self.ln(y)
            y = self.gelu(y) + self.silu(y)
            y = ops.bmm(y, ops.transpose(y, (0, 2, 1)))
            s = ops.sum(y, 2) + ops.pow(y, 2).sum(-1) + ops.square(y).max(-1)
            y = self.dense(ops.tile(s, (1, 2))[:, 1:9:2])
            return ops.relu6(y) + ops.sqrt(ops.abs(y)) * ops.rsqrt(ops.abs(y) + 1)

    return Extra()


NETWORKS["extra"] = (extra, (3, 8, 8))
