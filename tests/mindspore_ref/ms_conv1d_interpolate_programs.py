"""``nn.Conv1d``, ``nn.Conv1dTranspose``, ``ops.interpolate`` and ``ops.scatter_nd`` /
``P.ScatterNd`` as MindSpore 2.10 computes them on CPU, eagerly and in a compiled
``construct``, with gradients: ``Conv1d``'s and ``Conv1dTranspose``'s pad modes, stride,
dilation, group and bias with weights given from NumPy (and their parameters' names and
shapes: ``(out, in / group, 1, k)``, ``(in, out / group, 1, k)``); ``interpolate``'s nearest (3-d,
4-d), linear (3-d), bilinear and bicubic (4-d) modes with and without ``align_corners``,
upsampling and downsampling, and the arguments its CPU modes refuse; ``scatter_nd`` with
repeated positions, positions of several axes and integer updates (out-of-range positions
and mismatched updates are left out: MindSpore's PyNative reports them on a later call).

``EXPECTED`` (``ms_conv1d_interpolate_expected.json``) holds MindSpore's answers per mode;
``python -m tests.mindspore_ref.ms_conv1d_interpolate_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
P = ops.operations
X3 = Tensor((np.arange(2 * 4 * 9, dtype=np.float32).reshape(2, 4, 9) % 7 - 3) / 4)
X4 = Tensor((np.arange(2 * 3 * 5 * 4, dtype=np.float32).reshape(2, 3, 5, 4) % 11 - 5) / 6)


def weight(*shape):
    return Tensor((np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 5 - 2) / 7)


class Summed(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, *xs):
        out = self.net(*xs)
        if isinstance(out, tuple):
            total = 0
            for o in out:
                total = total + (o * o).sum()
            return total
        return (out * out).sum()
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + ERROR_KIND + body


_program("conv1d_cells", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.same = nn.Conv1d(4, 3, 3, has_bias=True, weight_init=weight(3, 4, 3),
                              bias_init=Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
        self.pad = nn.Conv1d(4, 2, 4, stride=2, pad_mode="pad", padding=2, weight_init=weight(2, 4, 4))
        self.valid = nn.Conv1d(4, 6, 2, pad_mode="valid", dilation=3, group=2, weight_init=weight(6, 2, 2))

    def construct(self, x):
        return self.same(x), self.pad(x), self.valid(x)


def main():
    net = Net()
    grads = ops.grad(Summed(net), grad_position=0, weights=net.trainable_params())(X3)
    return net(X3), grads
''')

_program("conv1d_transpose_cells", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.same = nn.Conv1dTranspose(4, 3, 3, stride=2, has_bias=True, weight_init=weight(4, 3, 3),
                                       bias_init=Tensor(np.array([0.1, -0.2, 0.3], np.float32)))
        self.valid = nn.Conv1dTranspose(4, 2, 4, stride=3, pad_mode="valid", dilation=2,
                                        weight_init=weight(4, 2, 4))
        self.pad = nn.Conv1dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1, group=2,
                                      weight_init=weight(4, 3, 3))

    def construct(self, x):
        return self.same(x), self.valid(x), self.pad(x)


def main():
    net = Net()
    grads = ops.grad(Summed(net), grad_position=0, weights=net.trainable_params())(X3)
    cell = nn.Conv1dTranspose(4, 6, 5, has_bias=True, group=2)
    shapes = [(p.name, tuple(p.shape)) for p in cell.get_parameters()]
    return net(X3), grads, shapes
''')

_program("conv1d_parameters", '''
def main():
    cells = [nn.Conv1d(4, 6, 3), nn.Conv1d(4, 6, 5, has_bias=True, group=2),
             nn.Conv1d(2, 2, 1, pad_mode="valid")]
    shapes = [[(p.name, tuple(p.shape), str(p.dtype)) for p in c.get_parameters()] for c in cells]
    out = [c(Tensor(np.ones((1, c.in_channels, 7), np.float32))).shape for c in cells]
    return (shapes, out, kind(lambda: nn.Conv1d(4, 6, 3, group=4)), kind(lambda: nn.Conv1d(4, 6, 3)(X4)),
            kind(lambda: nn.Conv1d(4, 6, 3, weight_init=weight(6, 4, 1, 3))),
            kind(lambda: nn.Conv1d(4, 6, 3, weight_init=weight(6, 4, 2))))
''')

_program("interpolate_modes", '''
def main():
    out = [ops.interpolate(X3, size=13), ops.interpolate(X3, size=5), ops.interpolate(X4, size=(7, 9)),
           ops.interpolate(X4, size=(3, 2))]
    for ac in (None, False, True):
        out += [ops.interpolate(X3, size=14, mode="linear", align_corners=ac),
                ops.interpolate(X3, size=4, mode="linear", align_corners=ac),
                ops.interpolate(X4, size=(8, 7), mode="bilinear", align_corners=ac),
                ops.interpolate(X4, size=(2, 3), mode="bilinear", align_corners=ac),
                ops.interpolate(X4, size=(9, 6), mode="bicubic", align_corners=ac),
                ops.interpolate(X4, size=(3, 3), mode="bicubic", align_corners=ac)]
    return out
''')

_program("interpolate_in_construct_with_gradients", '''
class Net(nn.Cell):
    def construct(self, x3, x4):
        return (ops.interpolate(x3, size=12, mode="linear"), ops.interpolate(x4, size=(7, 6), mode="bilinear",
                                                                            align_corners=True),
                ops.interpolate(x4, size=(8, 5), mode="bicubic"), ops.interpolate(x4, size=(10, 8)))


def main():
    return Net()(X3, X4), ops.grad(Summed(Net()), grad_position=(0, 1))(X3, X4)
''')

_program("interpolate_refused", '''
def main():
    ints = Tensor(np.arange(8, dtype=np.int32).reshape(1, 2, 4))
    return [kind(lambda: ops.interpolate(X3, scale_factor=2.0)),
            kind(lambda: ops.interpolate(X4, scale_factor=(2.0, 2.0), mode="bilinear")),
            kind(lambda: ops.interpolate(X3, size=8, align_corners=True)),
            kind(lambda: ops.interpolate(X4, size=(5, 5), mode="linear")),
            kind(lambda: ops.interpolate(X3, size=5, mode="bilinear")),
            kind(lambda: ops.interpolate(X3, size=5, mode="bicubic")),
            kind(lambda: ops.interpolate(ints, size=8)),
            kind(lambda: ops.interpolate(X3)),
            kind(lambda: ops.interpolate(X4, size=(5, 5), mode="cubic"))]
''')

_program("scatter_nd_values", '''
def main():
    idx = Tensor(np.array([[0], [2], [0], [3]], np.int32))
    upd = Tensor(np.array([1.5, 2.0, 3.0, -1.0], np.float32))
    pos = Tensor(np.array([[0, 1], [1, 2], [0, 1]], np.int64))
    rows = Tensor((np.arange(3 * 4, dtype=np.float32).reshape(3, 4) - 5) / 3)
    deep = Tensor(np.array([[[1, 0, 1]], [[0, 2, 0]]], np.int32))
    return (ops.scatter_nd(idx, upd, (5,)), ops.scatter_nd(pos, rows, (2, 3, 4)),
            ops.scatter_nd(idx, Tensor(np.array([1, 2, 3, 4], np.int32)), (4,)),
            ops.scatter_nd(deep, Tensor(np.array([[5.0], [7.0]], np.float32)), (2, 3, 2)),
            kind(lambda: ops.scatter_nd(deep, Tensor(np.array([[5.0], [7.0]], np.float32)), [2, 3, 2])),
            P.ScatterNd()(idx, upd, (4,)),
            kind(lambda: ops.scatter_nd(idx, upd, Tensor(np.array([4])))))
''')

_program("scatter_nd_in_construct_with_gradients", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scatter = P.ScatterNd()

    def construct(self, indices, updates, scale):
        out = ops.scatter_nd(indices, updates * scale, (4, 3))
        return out * ops.arange(12).reshape(4, 3).astype(ms.float32) + self.scatter(indices, updates, (4, 3))


def main():
    indices = Tensor(np.array([[1], [3], [1]], np.int32))
    updates = Tensor((np.arange(9, dtype=np.float32).reshape(3, 3) - 4) / 2)
    scale = Tensor(np.array([2.0, -1.0, 0.5], np.float32))
    net = Net()
    return net(indices, updates, scale), ops.grad(Summed(net), grad_position=(1, 2))(indices, updates, scale)
''')


if __name__ == "__main__":  # re-record ms_conv1d_interpolate_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_conv1d_interpolate_expected.json"))
