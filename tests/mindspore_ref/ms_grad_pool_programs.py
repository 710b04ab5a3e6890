"""Programs for the pooling and dilation backward primitives of
``mindspore.ops.operations._grad_ops`` (``G``): ``AvgPoolGrad``, ``MaxPoolGradGrad``,
``MaxPoolGradGradWithArgmax``, ``MaxPool3DGrad``, ``MaxPool3DGradGrad``,
``MaxPool3DGradWithArgmax``, ``MaxUnpool2DGrad``, ``MaxUnpool3DGrad``,
``FractionalMaxPoolGrad`` and ``FractionalMaxPoolGradWithFixedKsize``.

Each program is one Cell applying the classes with MindSpore's argument order and attributes;
graph mode compiles it. Module paths are imported as ``importlib.import_module(ms.__name__ +
".ops.operations._grad_ops")`` so one source runs on both engines. MindSpore 2.10's CPU
build cannot run ``AvgPoolGradV1``, ``MaxPoolGradV1`` and the ``Dilation2DBackprop*`` pair
(``UNTESTABLE``, its errors); ``test_ms_grad_pool.py`` checks those against the forward's
finite differences or our own forward's gradient instead.
``ms_grad_pool_expected.json`` holds MindSpore 2.10's answers on CPU per mode; ``python -m
tests.mindspore_ref.ms_grad_pool_programs`` re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_UNSUPPORTED = "RuntimeError: Kernel select failed: Unsupported op [{}] on CPU"
_DILATION = ("RuntimeError: Cast failed, original value: {}, type: StringImm (MindSpore's CPU "
             "build fails on every Dilation2D primitive, forward included)")
UNTESTABLE: dict[str, str] = {
    "ops.operations._grad_ops:AvgPoolGradV1": _UNSUPPORTED.format("AvgPoolGradV1"),
    "ops.operations._grad_ops:MaxPoolGradV1": _UNSUPPORTED.format("MaxPoolGradV1"),
    "ops.operations._grad_ops:Dilation2DBackpropInput": _DILATION.format("SAME"),
    "ops.operations._grad_ops:Dilation2DBackpropFilter": _DILATION.format("SAME"),
}

_PRELUDE = '''
import importlib

G = importlib.import_module(ms.__name__ + ".ops.operations._grad_ops")
P = ops.operations
RNG = np.random.default_rng(7)
# distinct values: no window holds two maxima
X = Tensor((RNG.permutation(2 * 2 * 5 * 6).reshape(2, 2, 5, 6) * 0.25 - 7.0).astype(np.float32))
GX = Tensor(RNG.normal(size=(2, 2, 5, 6)).astype(np.float32))
X3 = Tensor((RNG.permutation(2 * 5 * 4 * 5).reshape(1, 2, 5, 4, 5) * 0.5 - 20.0).astype(np.float32))
G3 = Tensor(RNG.normal(size=(1, 2, 5, 4, 5)).astype(np.float32))
'''

PROGRAMS: dict[str, str] = {}

PROGRAMS["avg_pool_grad"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.valid = G.AvgPoolGrad(kernel_size=2, strides=1)
        self.strided = G.AvgPoolGrad((3, 2), (2, 2), "VALID")
        self.same = G.AvgPoolGrad(3, 2, pad_mode="SAME")
        self.same_even = G.AvgPoolGrad(2, 2, "same")

    def construct(self, x, d1, d2, d3, d4):
        # (MindSpore's CPU kernel takes NCHW only)
        return (self.valid(x, d1, d1), self.strided(x, d2, d2), self.same(x, d3, d3),
                self.same_even(x, d4, d4))


def main():
    d = [Tensor(RNG.normal(size=s).astype(np.float32))
         for s in ((2, 2, 4, 5), (2, 2, 2, 3), (2, 2, 3, 3), (2, 2, 3, 3))]
    return Net()(X, *d)
'''

PROGRAMS["max_pool_grad_grad"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.valid = G.MaxPoolGradGrad(kernel_size=2, strides=2)
        self.overlap = G.MaxPoolGradGrad((3, 2), (1, 2), "valid")
        self.same = G.MaxPoolGradGrad(3, 2, pad_mode="SAME")
        self.pool = P.MaxPool(kernel_size=2, strides=2)
        self.pool_same = P.MaxPool(kernel_size=3, strides=2, pad_mode="SAME")
        self.pool_overlap = P.MaxPool(kernel_size=(3, 2), strides=(1, 2))

    def construct(self, x, g):
        return (self.valid(x, self.pool(x), g), self.overlap(x, self.pool_overlap(x), g),
                self.same(x, self.pool_same(x), g), self.same(x * -1.0, self.pool_same(x * -1.0), g))


def main():
    return Net()(X, GX)
'''

PROGRAMS["max_pool_grad_grad_with_argmax"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.grad_grad = G.MaxPoolGradGradWithArgmax(kernel_size=2, strides=2)
        self.pool = P.MaxPoolWithArgmaxV2(kernel_size=2, strides=2)

    def construct(self, x, g, flat):
        _, argmax = self.pool(x)
        # argmax counts over the whole batch entry: a plane's own positions read channel 0
        return self.grad_grad(x, g, argmax.astype(ms.int32)), self.grad_grad(x, g, flat)


def main():
    flat = Tensor(np.array([[[[0, 9], [25, 31]], [[16, 21], [3, 30]]],
                            [[[7, 1], [14, 20]], [[28, 6], [12, 19]]]], np.int32))
    return Net()(X[:, :, :4, :4], GX[:, :, :4, :4] * 1.0, flat)
'''

PROGRAMS["max_pool3d_grad"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.valid = G.MaxPool3DGrad(kernel_size=2, strides=2)
        self.overlap = G.MaxPool3DGrad((1, 1, 3, 2, 2), (1, 1, 1, 2, 1), "VALID")
        self.same = G.MaxPool3DGrad(3, 2, pad_mode="SAME")
        self.pad = G.MaxPool3DGrad(2, 2, pad_mode="PAD", pad_list=(1, 1, 0, 0, 1, 1))
        self.pool = P.MaxPool3D(kernel_size=2, strides=2)
        self.pool_overlap = P.MaxPool3D((3, 2, 2), (1, 2, 1))
        self.pool_same = P.MaxPool3D(3, 2, pad_mode="SAME")
        self.pool_pad = P.MaxPool3D(2, 2, pad_mode="PAD", pad_list=(1, 1, 0, 0, 1, 1))

    def construct(self, x):
        y1, y2, y3, y4 = self.pool(x), self.pool_overlap(x), self.pool_same(x), self.pool_pad(x)
        return (self.valid(x, y1, y1 * 0.5 + 1.0), self.overlap(x, y2, y2 - 3.0),
                self.same(x, y3, y3 * 2.0), self.pad(x, y4, y4 + 0.5))


def main():
    return Net()(X3)
'''

PROGRAMS["max_pool3d_grad_grad"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.valid = G.MaxPool3DGradGrad(kernel_size=2, strides=2)
        self.overlap = G.MaxPool3DGradGrad((3, 2, 2), (1, 2, 1), "valid")
        self.same = G.MaxPool3DGradGrad((1, 1, 3, 3, 3), 2, pad_mode="SAME")
        self.pool = P.MaxPool3D(kernel_size=2, strides=2)
        self.pool_overlap = P.MaxPool3D((3, 2, 2), (1, 2, 1))
        self.pool_same = P.MaxPool3D(3, 2, pad_mode="SAME")

    def construct(self, x, g):
        return (self.valid(x, self.pool(x), g), self.overlap(x, self.pool_overlap(x), g),
                self.same(x, self.pool_same(x), g))


def main():
    return Net()(X3, G3)
'''

PROGRAMS["max_pool3d_grad_with_argmax"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = P.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0)
        self.grad = G.MaxPool3DGradWithArgmax(ksize=2, strides=2, pads=0)
        self.pool_overlap = P.MaxPool3DWithArgmax((3, 2, 2), (1, 1, 2), 1)
        self.grad_overlap = G.MaxPool3DGradWithArgmax((3, 2, 2), (1, 1, 2), 1)

    def construct(self, x):
        y, argmax = self.pool(x)
        y2, argmax2 = self.pool_overlap(x)
        return self.grad(x, y * 0.5 - 1.0, argmax), self.grad_overlap(x, y2 + 2.0, argmax2)


def main():
    return Net()(X3)
'''

PROGRAMS["max_unpool_grad"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = P.MaxPoolWithArgmaxV2(kernel_size=2, strides=2)
        self.unpool_grad = G.MaxUnpool2DGrad(ksize=(1, 1, 2, 2), strides=(1, 1, 2, 2),
                                             pads=(1, 1, 0, 0))
        self.pool3 = P.MaxPool3DWithArgmax(ksize=2, strides=2, pads=0)
        self.unpool3_grad = G.MaxUnpool3DGrad(ksize=(1, 1, 2, 2, 2), strides=(1, 1, 2, 2, 2),
                                              pads=(1, 1, 0, 0, 0))

    def construct(self, x, g, x3, g3):
        y, argmax = self.pool(x)
        y3, argmax3 = self.pool3(x3)
        return self.unpool_grad(y, g, argmax), self.unpool3_grad(y3, g3, argmax3)


def main():
    return Net()(X[:, :, :4, :4], GX[:, :, :4, :4] * 1.0, X3[:, :, :4, :4, :4] * 1.0,
                 G3[:, :, :4, :4, :4] * 1.0)
'''

PROGRAMS["fractional_max_pool_grad"] = _PRELUDE + '''
def pooled(x, rows, cols, over):
    """The forward's output (NHWC): each window's maximum, ``over`` rows/columns past its end."""
    return np.stack([np.stack([x[:, r0:r1 + over, c0:c1 + over].max(axis=(1, 2))
                               for c0, c1 in zip(cols[:-1], cols[1:])], 1)
                     for r0, r1 in zip(rows[:-1], rows[1:])], 1)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.apart = G.FractionalMaxPoolGrad()
        self.overlapping = G.FractionalMaxPoolGrad(overlapping=True)
        self.fixed = G.FractionalMaxPoolGradWithFixedKsize()
        self.fixed_default = G.FractionalMaxPoolGradWithFixedKsize(data_format="NCHW")

    def construct(self, x, y, y_over, dy, rows, cols, origin, d, argmax):
        return (self.apart(x, y, dy, rows, cols), self.overlapping(x, y_over, dy * 2.0, rows, cols),
                self.fixed(origin, d, argmax), self.fixed_default(origin, d * -1.0, argmax))


def main():
    # NHWC (1, 5, 6, 2): MindSpore's CPU kernel mixes the batch entries' gradients when N > 1
    # (test_ms_grad_pool.py checks ours there against the definition)
    x = X.transpose(0, 2, 3, 1)[:1] * 1.0
    rows = Tensor(np.array([0, 2, 3, 5], np.int64))
    cols = Tensor(np.array([0, 1, 3, 4, 6], np.int64))
    y, y_over = (Tensor(pooled(x.asnumpy(), rows.asnumpy(), cols.asnumpy(), over)) for over in (0, 1))
    dy = Tensor(RNG.normal(size=(1, 3, 4, 2)).astype(np.float32))
    origin = Tensor(np.zeros((2, 2, 5, 6), np.int32))
    d = Tensor(RNG.normal(size=(2, 2, 2, 3)).astype(np.float32))
    argmax = Tensor(np.array([[[[0, 2, 4], [13, 15, 29]], [[6, 8, 11], [19, 27, 29]]],
                              [[[1, 3, 5], [25, 26, 27]], [[0, 0, 7], [18, 20, 22]]]], np.int64))
    return Net()(x, y, y_over, dy, rows, cols, origin, d, argmax)
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_grad_pool_expected.json"))
