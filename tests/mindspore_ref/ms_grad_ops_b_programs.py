"""Programs for the backward primitives of ``mindspore.ops.operations._grad_ops`` (``G``) for
losses, PReLU, slicing and trace: ``SigmoidCrossEntropyWithLogitsGrad``,
``SmoothL1LossGrad``, ``SoftShrinkGrad``, ``PReLUGrad``, ``SliceGrad``, ``TraceGrad``,
``StridedSliceGrad`` (without masks, positive strides), ``MirrorPadGrad``, ``NLLLossGrad``,
``MvlgammaGrad``, ``ResizeNearestNeighborGrad``, ``PdistGrad``, ``MultiMarginLossGrad``,
``MedianGrad``, ``PadV3Grad``, ``ResizeNearestNeighborV2Grad``, ``SparseSegmentMeanGrad``,
``SparseSegmentSqrtNGrad``, ``MaxPoolGradWithArgmax``, ``MaxPoolGradWithArgmaxV2`` and
``ResizeLinear1DGrad``.

Each program is one Cell applying the classes with MindSpore's argument order and attributes;
graph mode compiles it. Module paths are imported as ``importlib.import_module(ms.__name__ +
".ops.operations._grad_ops")`` so one source runs on both engines.
``ms_grad_ops_b_expected.json`` holds MindSpore 2.10's answers on CPU per mode; ``python -m
tests.mindspore_ref.ms_grad_ops_b_programs`` re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
import importlib

G = importlib.import_module(ms.__name__ + ".ops.operations._grad_ops")
X = Tensor(np.array([[-1.5, 0.2, 0.7], [2.0, -0.3, 0.4]], np.float32))
Y = Tensor(np.array([[0.5, -0.2, 1.7], [1.0, 0.3, -0.4]], np.float32))
D = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, 0.25, 3.0]], np.float32))
'''

PROGRAMS: dict[str, str] = {}

PROGRAMS["losses"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sce = G.SigmoidCrossEntropyWithLogitsGrad()
        self.l1_none = G.SmoothL1LossGrad()
        self.l1_mean = G.SmoothL1LossGrad(beta=0.5, reduction="mean")
        self.l1_sum = G.SmoothL1LossGrad(0.5, "sum")

    def construct(self, x, y, d, s):
        return (self.sce(x, y.abs() * 0.5, d), self.l1_none(x, y, d), self.l1_mean(x, y, s),
                self.l1_sum(x, y, s), self.sce(x.astype(ms.float16), y.abs().astype(ms.float16),
                                               d.astype(ms.float16)))


def main():
    return Net()(X, Y, D, Tensor(np.float32(2.0)))
'''

PROGRAMS["activations"] = _PRELUDE + '''
X4 = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) - 10.0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.shrink = G.SoftShrinkGrad()
        self.shrink_wide = G.SoftShrinkGrad(lambd=0.35)
        self.prelu = G.PReLUGrad()

    def construct(self, x, d, x4):
        one = Tensor(np.array([0.25], np.float32))
        per_channel = Tensor(np.array([0.25, 0.5, 2.0], np.float32))
        return (self.shrink(d, x), self.shrink_wide(d, x), self.prelu(d, x, one),
                self.prelu(d, x, per_channel), self.prelu(x4 * 0.5 + 1.0, x4, per_channel))


def main():
    return Net()(X, D, X4)
'''

PROGRAMS["slice_trace"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.slice_grad = G.SliceGrad()
        self.trace_grad = G.TraceGrad()
        self.wide = Tensor(np.array([2, 3], np.int64))  # shapes: constants while compiling
        self.tall = Tensor(np.array([3, 2], np.int64))

    def construct(self, x, d, d64, x64, s):
        a = self.slice_grad(d[:1, 1:], x, (1, 1), (1, 2))
        b = self.slice_grad(d[:, :2], x, (0, 0), (2, 2))
        c = self.slice_grad(d64, x64, (0, 0), (2, 3))
        return a, b, c, self.trace_grad(s, self.wide), self.trace_grad(s * 3.0, self.tall)


def main():
    as64 = Tensor(D.asnumpy().astype(np.float64)), Tensor(X.asnumpy().astype(np.float64))
    return Net()(X, D, *as64, Tensor(np.float32(2.0)))
'''

PROGRAMS["strided_mirror"] = _PRELUDE + '''
P20 = Tensor(np.arange(20, dtype=np.float32).reshape(4, 5) * 0.5 - 3.0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.strided = G.StridedSliceGrad()
        self.reflect = G.MirrorPadGrad()
        self.symmetric = G.MirrorPadGrad(mode="SYMMETRIC")
        self.pads = Tensor(np.array([[1, 1], [1, 1]], np.int64))
        self.wide = Tensor(np.array([[0, 2], [2, 0]], np.int64))

    def construct(self, d, p20):
        a = self.strided(d[:, ::2], (2, 3), (0, 0), (2, 3), (1, 2))
        b = self.strided(d[1:, 1:], (3, 4), (1, 2), (2, 4), (1, 1))
        c = self.strided(p20[:2, :2], (6, 5), (0, 1), (4, 5), (2, 2))
        return (a, b, c, self.reflect(p20, self.pads), self.symmetric(p20, self.pads),
                self.symmetric(p20, self.wide))


def main():
    return Net()(D, P20)
'''

PROGRAMS["nll_mvlgamma"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mean = G.NLLLossGrad()
        self.total = G.NLLLossGrad(reduction="sum")
        self.each = G.NLLLossGrad("none", ignore_index=1)
        self.skip = G.NLLLossGrad("mean", ignore_index=0)
        self.mvlgamma = G.MvlgammaGrad(2)
        self.mvlgamma3 = G.MvlgammaGrad(p=3)

    def construct(self, logits, labels, weight, g, rows, x, d):
        tw = weight.sum()
        return (self.mean(logits, g, labels, weight, tw), self.total(logits, g, labels, weight, tw),
                self.each(logits, rows, labels, weight, tw), self.skip(logits, g, labels, weight, tw),
                self.mvlgamma(d, x.abs() + 2.0), self.mvlgamma3(d, x.abs() + 1.5))


def main():
    logits = Tensor(np.array([[0.1, -0.4, 0.3], [1.0, 0.2, -0.5], [0.0, 0.7, -0.2]], np.float32))
    labels = Tensor(np.array([2, 0, 1], np.int32))
    weight = Tensor(np.array([0.5, 1.0, 2.0], np.float32))
    rows = Tensor(np.array([1.0, 2.0, -0.5], np.float32))
    return Net()(logits, labels, weight, Tensor(np.float32(1.5)), rows, X, D)
'''

PROGRAMS["resize_nearest"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = G.ResizeNearestNeighborGrad()
        self.corners = G.ResizeNearestNeighborGrad(align_corners=True)
        self.half = G.ResizeNearestNeighborGrad(half_pixel_centers=True)

    def construct(self, g, h):
        return (self.plain(g, (2, 3)), self.plain(g, (3, 2)), self.corners(g, (3, 4)),
                self.half(g, (3, 2)), self.plain(h, (4, 6)), self.corners(h, (2, 2)))


def main():
    g = Tensor(np.arange(40, dtype=np.float32).reshape(1, 2, 4, 5) * 0.25 - 2.0)
    h = Tensor(np.arange(18, dtype=np.float32).reshape(2, 1, 3, 3))
    return Net()(g, h)
'''

PROGRAMS["pdist"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.grads = [G.PdistGrad(), G.PdistGrad(p=1.0), G.PdistGrad(3.0), G.PdistGrad(float("inf")),
                      G.PdistGrad(1.5)]
        self.powers = [2.0, 1.0, 3.0, float("inf"), 1.5]

    def construct(self, x, twin, g, g6):
        out = []
        for grad, p in zip(self.grads, self.powers):
            out.append(grad(g, x, ops.pdist(x, p)))
            out.append(grad(g6, twin, ops.pdist(twin, p)))  # rows 0 and 2 coincide
        return out


def main():
    x = Tensor(np.array([[-1.5, 2.0], [0.2, -0.3], [0.7, 0.4]], np.float32))
    twin = Tensor(np.array([[1.0, -0.5, 2.0], [0.3, 0.3, -1.0], [1.0, -0.5, 2.0], [0.0, 2.0, 0.5]],
                           np.float32))
    g = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g6 = Tensor(np.array([1.0, -2.0, 0.5, 1.5, 3.0, -1.0], np.float32))
    return Net()(x, twin, g, g6)
'''

PROGRAMS["margin_median"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.margin = G.MultiMarginLossGrad()
        self.margin_sq = G.MultiMarginLossGrad(p=2, margin=0.5, reduction="sum")
        self.margin_each = G.MultiMarginLossGrad(1, 1.0, "none")
        self.median_all = G.MedianGrad(global_median=True)
        self.median_rows = G.MedianGrad(False, 1, False)
        self.median_cols = G.MedianGrad(axis=0, keep_dims=True)

    def construct(self, x, target, weight, g, rows, xm, ties):
        a = self.margin(g, x, target, None)
        b = self.margin_sq(g * 1.5, x, target, weight)
        c = self.margin_each(rows, x, target, weight)
        y_all = ties.reshape(-1).sort()[0][2]
        d = self.median_all(g * 2.0, ties, y_all, Tensor(np.int64(0)))
        y_rows, i_rows = ops.median(xm, axis=1)
        y_cols, i_cols = ops.median(xm, axis=0, keepdims=True)
        e = self.median_rows(rows, xm, y_rows, i_rows)
        f = self.median_cols(rows[:1].reshape(1, 1) * xm[:1], xm, y_cols, i_cols)
        return a, b, c, d, e, f


def main():
    x = Tensor(np.array([[0.1, 0.2, 0.4], [0.3, -0.2, 0.5]], np.float32))
    xm = Tensor(np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], np.float32))
    ties = Tensor(np.array([[2.0, 1.0, 2.0], [2.0, 5.0, 4.0]], np.float32))
    return Net()(x, Tensor(np.array([2, 0], np.int64)), Tensor(np.array([0.5, 1.0, 2.0], np.float32)),
                 Tensor(np.float32(1.0)), Tensor(np.array([1.0, -2.0], np.float32)), xm, ties)
'''

PROGRAMS["pad_v3_nearest_v2"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reflect = G.PadV3Grad()
        self.edge = G.PadV3Grad(mode="edge")
        self.circular = G.PadV3Grad("circular")
        self.split = G.PadV3Grad("reflect", paddings_contiguous=False)
        self.square = Tensor(np.array([1, 1, 1, 1], np.int64))
        self.uneven = Tensor(np.array([1, 0, 2, 0], np.int64))
        self.wide = Tensor(np.array([1, 2], np.int64))
        self.befores_afters = Tensor(np.array([1, 1, 0, 1], np.int64))
        self.nearest = G.ResizeNearestNeighborV2Grad()
        self.corners = G.ResizeNearestNeighborV2Grad(align_corners=True)
        self.half = G.ResizeNearestNeighborV2Grad(half_pixel_centers=True)
        self.size = Tensor(np.array([3, 2], np.int32))

    def construct(self, g, row, h):
        return (self.reflect(g, self.square), self.edge(g, self.uneven),
                self.circular(g, self.uneven), self.split(g, self.befores_afters),
                self.reflect(row, self.wide), self.circular(row, self.wide),
                self.nearest(h, self.size), self.corners(h, self.size), self.half(h, self.size))


def main():
    g = Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) * 0.5 - 4.0)
    row = Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 6))
    h = Tensor(np.arange(40, dtype=np.float32).reshape(2, 1, 4, 5) - 7.0)
    return Net()(g, row, h)
'''

PROGRAMS["sparse_segments"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mean = G.SparseSegmentMeanGrad()
        self.root = G.SparseSegmentSqrtNGrad()
        self.rows = Tensor(np.int32(4))
        self.rows64 = Tensor(np.int32(5))  # MindSpore takes output_dim0 as int32 only

    def construct(self, g, idx, seg, g3, idx64, seg64, idx2, seg2):
        return (self.mean(g, idx, seg, self.rows), self.root(g, idx, seg, self.rows),
                self.mean(g3, idx64, seg64, self.rows64), self.root(g3, idx2, seg2, self.rows64))


def main():
    g = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    idx, seg = Tensor(np.array([0, 1, 2, 1], np.int32)), Tensor(np.array([0, 0, 1, 1], np.int32))
    g3 = Tensor(np.arange(12, dtype=np.float32).reshape(3, 2, 2) - 5.0)
    idx64 = Tensor(np.array([4, 0, 4, 2, 1], np.int64))
    seg64 = Tensor(np.array([0, 0, 0, 2, 2], np.int64))  # segment 1 holds no row
    idx2, seg2 = idx64.astype(ms.int32), seg64.astype(ms.int32)  # SqrtN: one index type
    return Net()(g, idx, seg, g3, idx64, seg64, idx2, seg2)
'''

PROGRAMS["argmax_linear"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = G.MaxPoolGradWithArgmax(kernel_size=2, strides=2)
        self.pool_same = G.MaxPoolGradWithArgmax(2, 1, "SAME")
        self.pool_v2 = G.MaxPoolGradWithArgmaxV2(kernel_size=2, strides=2)
        self.corners = G.ResizeLinear1DGrad()
        self.half = G.ResizeLinear1DGrad(coordinate_transformation_mode="half_pixel")

    def construct(self, x, d, argmax, d3, argmax3, g, small, g_down):
        return (self.pool(x, d, argmax), self.pool_same(x[:, :, :3, :3], d3, argmax3),
                self.pool_v2(x, d * 2.0, argmax.astype(ms.int64)),
                self.corners(g, small), self.half(g, small), self.corners(g_down, small),
                self.half(g_down, small))


def main():
    x = Tensor(np.array([[[[1.0, 3.0, 2.0, 0.5], [4.0, -1.0, 0.0, 2.5], [1.5, 2.0, 5.0, 1.0],
                           [0.0, 3.5, -2.0, 6.0]]]], np.float32))
    d = Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    argmax = Tensor(np.array([[[[4, 7], [13, 10]]]], np.int32))
    d3 = Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3) - 3.0)
    argmax3 = Tensor(np.array([[[[3, 1, 2], [3, 8, 8], [6, 7, 8]]]], np.int64))
    g = Tensor(np.arange(14, dtype=np.float32).reshape(2, 1, 7) * 0.5 - 1.0)
    small = Tensor(np.zeros((2, 1, 3), np.float32))
    g_down = Tensor(np.array([[[1.0, -2.0]], [[0.5, 3.0]]], np.float32))
    return Net()(x, d, argmax, d3, argmax3, g, small, g_down)
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_grad_ops_b_expected.json"))
