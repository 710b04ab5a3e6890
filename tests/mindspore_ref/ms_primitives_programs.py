"""Programs for the ``P.*`` primitive classes added over our functional ops (issue 25:
``framework/ops/operations/prim_*.py``), one per family.

Each family has a forward Cell applying every class with MindSpore's argument order and
attributes (several attribute settings where they change the result) and, for the
differentiable ones, a loss Cell summing each class applied to its own input,
differentiated with ``ops.grad`` at every input. Both run as Cells, so graph mode compiles
them; :mod:`tests.mindspore_ref.ms_primitives_stateful` adds the programs that update
Parameters, sample, or build constants. ``ms_primitives_expected.json`` holds MindSpore
2.10's answers on CPU per mode; ``python -m tests.mindspore_ref.ms_primitives_programs``
re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays
from tests.mindspore_ref.ms_primitives_stateful import stateful_programs

_PRELUDE = '''
P = ms.ops.operations
R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
S = np.array([[0.5, -2.0, 1.5], [2.5, -0.7, 0.0]], np.float32)
POS = np.array([[0.2, 0.5, 1.0], [2.0, 4.0, 9.0]], np.float32)
PROB = np.array([[0.1, 0.35, 0.8], [0.55, 0.9, 0.25]], np.float32)
LAB = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.3]], np.float32)
Z = np.array([[0.0, 2.0, -3.0], [4.0, 0.0, 1.5]], np.float32)
I = np.array([[-7, 4, 0], [12, 9, 6]], np.int32)
J = np.array([[3, 6, 5], [8, 0, -4]], np.int32)
V3 = np.array([[1.0, -2.0, 0.5], [0.3, 2.0, -1.0]], np.float32)
W3 = np.array([[2.0, 0.5, -1.5], [-1.0, 1.0, 4.0]], np.float32)
M = np.array([[[2.0, 1.0], [0.5, 3.0]], [[1.0, -1.0], [2.0, 0.5]]], np.float32)
IMG = (np.arange(2 * 8 * 4 * 4, dtype=np.float32).reshape(2, 8, 4, 4) % 7 - 3) / 3
SMALL = (np.arange(1 * 2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4) % 5 - 2) / 2
def ints(*values, dtype=np.int32):
    return Tensor(np.array(values, dtype))


def floats(*values):
    return Tensor(np.array(values, np.float32))


def scalar(value):
    return Tensor(value, ms.float32)


UNPOOL = np.array([[[[1, 7], [8, 14]], [[0, 5], [11, 15]]]], np.int64)


LOGITS = np.array([[1.0, -0.5, 2.0, 0.3], [0.2, 0.1, -1.0, 1.5], [-0.3, 2.2, 0.0, 0.7]], np.float32)
'''

_ARRAYS = ("R", "S", "POS", "PROB", "LAB", "Z", "I", "J", "V3", "W3", "M", "IMG", "SMALL", "LOGITS")

PROGRAMS: dict[str, str] = {}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
            extra: str = "") -> None:
    """A family program (:mod:`tests.mindspore_ref.families`) over the arrays above."""
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads, extra)


_family("math_binary", [
    "P.Addcdiv()(r, s, pos, Tensor(0.5, ms.float32))", "P.Addcmul()(r, s, pos, Tensor(2.0, ms.float32))",
    "P.Fmax()(r, s)", "P.Heaviside()(z, r)", "P.Xdivy()(z, pos)", "P.Mod()(r, s + 3.0)",
    "P.Mod()(i, j + 10)", "P.MulNoNan()(r, z)", "P.Inv()(pos)", "P.IsClose()(r, r + 1e-6)",
    "P.IsClose(rtol=0.0, atol=0.5, equal_nan=True)(r, s)", "P.Logit()(prob)", "P.Logit(eps=0.2)(prob)",
    "P.Lcm()(i, j)", "P.Ger()(r[0], s[1])", "P.Cross()(v3, w3)", "P.Cross(dim=1)(v3, w3)",
], [("P.Addcdiv()({}, {}, {}, Tensor(0.5, ms.float32))", ["R", "S", "POS"]),
    ("P.Addcmul()({}, {}, {}, Tensor(2.0, ms.float32))", ["R", "S", "POS"]),
    ("P.Xdivy()({}, {})", ["Z", "POS"]), ("P.Mod()({} + 3.0, {})", ["R", "POS"]),
    ("P.MulNoNan()({}, {})", ["R", "Z"]), ("P.Inv()({})", ["POS"]), ("P.Logit()({})", ["PROB"]),
    ("P.Ger()({}[0], {}[1])", ["R", "S"]), ("P.Cross()({}, {})", ["V3", "W3"])])

_family("complex", ["ops.real(P.Polar()(pos, r))", "P.Imag()(P.Polar()(pos, r))",
                    "ops.real(P.Complex()(r, s))", "P.Imag()(P.Complex()(r, s))",
                    "P.ComplexAbs()(P.Complex()(r, s))"],
        [("P.Imag()(P.Polar()({}, {}))", ["POS", "R"])])

_family("scans", [
    "P.CumProd()(r, 1)", "P.CumProd(exclusive=True)(r, 1)", "P.CumProd(reverse=True)(r, 0)",
    "P.CumProd(True, True)(r, 1)", "P.CumulativeLogsumexp()(r, Tensor(1))",
    "P.CumulativeLogsumexp(exclusive=True)(r, Tensor(1))",
    "P.CumulativeLogsumexp(reverse=True)(r, Tensor(0))", "P.Cummin(axis=1)(s)", "P.Cummin(0)(i)",
], [("P.CumProd(True, True)({}, 1)", ["R"]), ("P.CumProd()({}, 0)", ["R"]),
    ("P.CumulativeLogsumexp()({}, Tensor(1))", ["R"]),
    ("P.CumulativeLogsumexp(reverse=True)({}, Tensor(1))", ["S"])])

_family("reductions", [
    "P.CountNonZero()(z)", "P.CountNonZero(dims=[1])(z)", "P.ReduceStd()(r)",
    "P.ReduceStd(axis=1, unbiased=False, keep_dims=True)(r)", "P.ReduceStd(axis=[0])(r)",
    "P.EqualCount()(i, j)", "P.SquareSumAll()(r, s)", "P.L2Loss()(r)",
    "P.LpNorm(axis=1)(r)", "P.LpNorm(axis=[0, 1], p=1, keep_dims=True)(r)", "P.MatrixPower(3)(m)",
    "P.MatrixPower(-1)(m)", "P.Pdist()(r)", "P.Pdist(p=1.0)(logits)", "P.MatrixInverse()(m)",
    "P.MatrixInverse(adjoint=True)(m)",
], [("P.ReduceStd(axis=1)({})[0]", ["R"]), ("P.ReduceStd()({})[1]", ["S"]),
    ("P.SquareSumAll()({}, {})[1]", ["R", "S"]), ("P.L2Loss()({})", ["R"]), ("P.LpNorm(axis=1)({})", ["S"]),
    ("P.MatrixPower(2)({})", ["M"]), ("P.Pdist()({})", ["R"]), ("P.MatrixInverse()({})", ["M"])])

_family("losses", [
    "P.BinaryCrossEntropy()(prob, lab)", "P.BinaryCrossEntropy('none')(prob, lab, pos)",
    "P.BinaryCrossEntropy('sum')(prob, lab, pos)",
    "P.BCEWithLogitsLoss()(r, lab, pos, Tensor(np.array([1.0, 2.0, 0.5], np.float32)))",
    "P.BCEWithLogitsLoss('none')(r, lab, pos, Tensor(np.ones(3, np.float32)))",
    "P.SigmoidCrossEntropyWithLogits()(r, lab)", "P.KLDivLoss()(r, prob)", "P.KLDivLoss('sum')(r, prob)",
    "P.KLDivLoss('none')(r, prob)",
    "P.MultiMarginLoss()(logits, Tensor(np.array([2, 0, 3], np.int64)))",
    "P.MultiMarginLoss(p=2, margin=0.5, reduction='none')(logits, Tensor(np.array([2, 0, 3], np.int64)), "
    "Tensor(np.array([1.0, 2.0, 0.5, 1.5], np.float32)))",
    "P.NLLLoss()(logits, ints(1, 3, 0), floats(1.0, 2.0, 0.5, 1.5))",
    "P.NLLLoss('sum', ignore_index=3)(logits, Tensor(np.array([1, 3, 0], np.int32)), "
    "Tensor(np.ones(4, np.float32)))",
    "P.NLLLoss('none')(logits, Tensor(np.array([1, 3, 0], np.int32)), Tensor(np.ones(4, np.float32)))",
    "P.SoftmaxCrossEntropyWithLogits()(logits, ops.softmax(logits * 2, -1))",
    "P.SparseSoftmaxCrossEntropyWithLogits()(logits, Tensor(np.array([1, 3, 0], np.int32)))",
    "P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, Tensor(np.array([1, 3, 0], np.int32)))",
], [("P.BinaryCrossEntropy()({}, {})", ["PROB", "LAB"]),
    ("P.BCEWithLogitsLoss()({}, {}, Tensor(np.ones(3, np.float32)), Tensor(np.ones(3, np.float32)))",
     ["R", "LAB"]),
    ("P.SigmoidCrossEntropyWithLogits()({}, {})", ["S", "LAB"]),
    ("P.KLDivLoss('sum')({}, {})", ["R", "PROB"]),
    ("P.MultiMarginLoss()({}, Tensor(np.array([2, 0, 3], np.int64)))", ["LOGITS"]),
    ("P.NLLLoss()({}, Tensor(np.array([1, 3, 0], np.int32)), Tensor(np.ones(4, np.float32)))[0]", ["LOGITS"]),
    ("P.SoftmaxCrossEntropyWithLogits()({}, ops.stop_gradient(ops.softmax({} * 2, -1)))[0]",
     ["R", "PROB"]),
    ("P.SparseSoftmaxCrossEntropyWithLogits()({}, Tensor(np.array([1, 3, 0], np.int32)))", ["LOGITS"])])

_family("nn_shapes", [
    "P.GLU()(logits)", "P.GLU(axis=0)(img)", "P.ChannelShuffle(group=4)(img)",
    "P.AdaptiveAvgPool2D((2, 2))(img)", "P.AdaptiveAvgPool2D((None, 3))(small)",
    "P.AdaptiveMaxPool2D((2, 2))(img)", "P.L2Normalize()(r)", "P.L2Normalize(axis=1, epsilon=1.0)(r)",
    "P.L2Normalize(axis=-1)(logits)", "P.DepthToSpace(2)(img)", "P.SpaceToDepth(2)(img)",
    "P.SpaceToDepth(2)(P.DepthToSpace(2)(img))",
], [("P.GLU()({})", ["LOGITS"]), ("P.AdaptiveAvgPool2D((2, 3))({})", ["SMALL"]),
    ("P.AdaptiveMaxPool2D((2, 2))({})", ["SMALL"]), ("P.L2Normalize(axis=1)({}) * {}", ["R", "S"]),
    ("P.DepthToSpace(2)({}) * {}", ["IMG", "SMALL"]), ("P.SpaceToDepth(2)({})", ["SMALL"])])

_family("dropout", [
    "P.Dropout2D(keep_prob=1.0)(img)", "P.Dropout3D(keep_prob=1.0)(img.reshape(1, 2, 8, 4, 4))",
    "P.Dropout2D(0.0)(img)",
])

_family("creation", [
    "P.LinSpace()(Tensor(1.0, ms.float32), Tensor(10.0, ms.float32), 5)",
    "P.LogSpace()(Tensor(0.0, ms.float32), Tensor(2.0, ms.float32))",
    "P.LogSpace(steps=4, base=2)(Tensor(-1.0, ms.float32), Tensor(2.0, ms.float32))",
    "P.TrilIndices(3, 4)()", "P.TrilIndices(4, 3, -1, ms.int64)()", "P.TriuIndices(3, 4, 1)()",
    "P.TriuIndices(row=2, col=3, dtype=ms.int64)()", "P.IdentityN()((r, i))",
])

_family("search", [
    "P.SearchSorted()(ops.sort(r.reshape(-1))[0], s.reshape(-1))",
    "P.SearchSorted(right=True)(ops.sort(r.reshape(-1))[0], r.reshape(-1))",
    "P.SearchSorted()(ops.sort(r, 1)[0], s)", "P.Bucketize([-1.0, 0.0, 1.5])(r)",
    "P.Bucketize(boundaries=[0.4, 1.7])(r)",
])

_family("scatter_rows", [
    "P.TensorScatterElements()(r, Tensor(np.array([[1, 0, 1]], np.int32)), s[:1])",
    "P.TensorScatterElements(axis=1, reduction='add')(r, ints([2, 2], [0, 1]), s[:, :2])",
    "P.InplaceAdd((1,))(r, s[:1])", "P.InplaceAdd(indices=(0, 1))(r, s)", "P.InplaceSub((0,))(r, s[1:])",
    "P.InplaceAdd(1)(i, j[:1])",
    "P.InplaceUpdateV2()(r, (1,), s[:1])", "P.InplaceUpdateV2()(r, Tensor(np.array([1, 0], np.int32)), s)",
    "P.IndexFill()(r, 1, Tensor(np.array([0, 2], np.int32)), Tensor(5.0, ms.float32))",
    "P.IndexFill()(i, 0, Tensor(np.array([1], np.int32)), Tensor(-3, ms.int32))",
], [("P.TensorScatterElements()({}, Tensor(np.array([[1, 0, 1]], np.int32)), {}[:1])", ["R", "S"]),
    ("P.IndexFill()({}, 1, Tensor(np.array([0, 2], np.int32)), Tensor(5.0, ms.float32)) * {}", ["R", "S"])])

_family("resize", [
    "P.ResizeNearestNeighbor((5, 7))(small)", "P.ResizeNearestNeighbor((2, 2))(small)",
    "P.ResizeNearestNeighbor((5, 7), align_corners=True)(small)",
    "P.ResizeNearestNeighbor((5, 6), half_pixel_centers=True)(small)",
    "P.ResizeBilinearV2()(small, (5, 7))", "P.ResizeBilinearV2(align_corners=True)(small, (5, 7))",
    "P.ResizeBilinearV2(half_pixel_centers=True)(small, (5, 7))", "P.ResizeBilinearV2()(small, (2, 3))",
    "P.GridSampler2D()(small, ops.tanh(small[:, :2].transpose(0, 2, 3, 1)))",
    "P.GridSampler2D('nearest', 'border', True)(small, ops.tanh(small[:, :2].transpose(0, 2, 3, 1)) * 1.3)",
], [("P.ResizeNearestNeighbor((5, 7))({}) * P.ResizeNearestNeighbor((5, 7))({})", ["SMALL", "SMALL"]),
    ("P.ResizeBilinearV2()({}, (5, 7))", ["SMALL"]),
    ("P.ResizeBilinearV2(half_pixel_centers=True)({}, (5, 7))", ["SMALL"]),
    ("P.GridSampler2D()({}, ops.tanh({}[:, :2].transpose(0, 2, 3, 1)))", ["SMALL", "SMALL"])])

_family("scatter_nd", [
    "P.TensorScatterUpdate()(r, ints([0, 1], [1, 2]), floats(7.0, 8.0))",
    "P.TensorScatterUpdate()(r, Tensor(np.array([[1]], np.int32)), s[:1])",
    "P.TensorScatterUpdate()(i, ints([1, 0], [0, 2], dtype=np.int64), ints(5, 6))",
    "P.ReverseSequence(seq_dim=1)(r, Tensor(np.array([2, 3], np.int32)))",
    "P.ReverseSequence(seq_dim=0, batch_dim=1)(r, Tensor(np.array([1, 2, 2], np.int64)))",
    "P.EmbeddingLookup()(r, Tensor(np.array([[3, 2], [1, 4]], np.int32)), 2)",
    "P.DiagPart()(m[0])", "P.DiagPart()(ops.reshape(img[0, :4], (2, 2, 2, 2)))",
    "P.FillDiagonal(5.0)(r)", "P.FillDiagonal(-1.0, True)(ops.reshape(img[0, 0], (8, 2)))",
    "P.FillDiagonal(3.0)(ops.ones((3, 3, 3), ms.float32))",
    "P.Renorm(p=2, dim=0, maxnorm=2.0)(r)", "P.Renorm(1, 1, 1.5)(s)",
    "P.MirrorPad()(r, Tensor(np.array([[1, 1], [2, 1]], np.int64)))",
    "P.MirrorPad('SYMMETRIC')(r, Tensor(np.array([[2, 1], [0, 3]], np.int64)))",
    "P.PadV3()(small, Tensor(np.array([1, 2], np.int64)), Tensor(9.0, ms.float32))",
    "P.PadV3(paddings_contiguous=False)(small, ints(1, 2, 0, 1, dtype=np.int64), Tensor(9.0, ms.float32))",
    "P.PadV3('reflect')(small, Tensor(np.array([1, 2, 1, 1], np.int64)))",
    "P.PadV3('edge')(small, Tensor(np.array([2, 0, 0, 1], np.int64)))",
], [("P.TensorScatterUpdate()({}, Tensor(np.array([[1]], np.int32)), {}[:1]) * {}", ["R", "S", "POS"]),
    ("P.ReverseSequence(seq_dim=1)({}, Tensor(np.array([2, 3], np.int32))) * {}", ["R", "S"]),
    ("P.EmbeddingLookup()({}, Tensor(np.array([[3, 2], [1, 4]], np.int32)), 2)", ["R"]),
    ("P.DiagPart()({}[0])", ["M"]), ("P.FillDiagonal(5.0)({}) * {}", ["R", "S"]),
    ("P.MirrorPad()({}, ints([1, 1], [2, 1])) * P.MirrorPad()({}, ints([1, 1], [2, 1], dtype=np.int64))",
     ["R", "S"]),
    ("P.PadV3('reflect')({}, Tensor(np.array([1, 2, 1, 1], np.int64)))", ["SMALL"])])

_CONV_WEIGHTS = """
W1 = Tensor(np.linspace(-1, 1, 24).reshape(2, 3, 2, 2).astype(np.float32))
W2 = Tensor(np.linspace(-0.5, 1, 54).reshape(2, 3, 3, 3).astype(np.float32))
W3 = Tensor(np.linspace(1, -1, 36).reshape(2, 2, 3, 3).astype(np.float32))
"""

_family("conv_transpose", [
    "P.Conv2DTranspose(2, 2)(small[:, :2, :2, :3], W1, (1, 3, 3, 4))",
    "P.Conv2DTranspose(2, 3, pad_mode='same', stride=2)(small[:, :2, :2, :2], W2, (1, 3, 3, 4))",
    "P.Conv2DTranspose(2, 3, pad_mode='pad', pad=1)(small, W3, (1, 2, 3, 4))",
], [("P.Conv2DTranspose(2, 2)({}[:, :2, :2, :3], {}[:2, :3].reshape(2, 3, 1, 1) * W1, (1, 3, 3, 4))",
     ["SMALL", "POS"])], extra=_CONV_WEIGHTS)

_family("segments_and_indices", [
    "P.UnsortedSegmentMax()(r, ints(1, 1), 3)", "P.UnsortedSegmentMin()(r.T, ints(0, 2, 0), 4)",
    "P.UnsortedSegmentProd()(r.T, ints(0, 2, 0), 4)", "P.UnsortedSegmentMax()(i.T, ints(2, 0, 2), 3)",
    "P.UnsortedSegmentMax()(img[0, :3, :2, :2], ints([0, 1], [1, 0], [2, 2]), 3)",
    "P.SparseToDense()(ints([0, 1], [1, 2]), floats(1.5, 2.5), (2, 3))",
    "P.SparseToDense()(ints([1], [0]), ints(4, 5), (3,))",
    "P.UnravelIndex()(ints(7, 5, 0), ints(3, 4))",
    "P.UnravelIndex()(ints(22, 5, dtype=np.int64), ints(2, 3, 4, dtype=np.int64))",
    "P.IOU()(floats([0, 0, 2, 2], [1, 1, 3, 4]),"
    " floats([0, 0, 1, 1], [1, 0, 3, 3], [0, 0, 2, 2], [5, 5, 6, 6]))",
    "P.IOU('iof')(floats([0, 0, 2, 2], [1, 1, 3, 4]), floats([0, 0, 1, 1], [1, 0, 3, 3], [0, 0, 2, 2]))",
    "P.LeftShift()(ints(1, -3, 2 ** 30, 7), ints(2, 1, 2, 0))",
    "P.RightShift()(ints(8, -7, 5, -1), ints(2, 1, 0, 3))",
    "P.RightShift()(ints(8, 7, 255, dtype=np.uint8), ints(2, 1, 3, dtype=np.uint8))",
    "P.LeftShift()(ints(3, -2, dtype=np.int64), ints(40, 3, dtype=np.int64))",
], [("P.UnsortedSegmentMax()({}.T, ints(0, 1, 0), 2)", ["R"]),
    ("P.UnsortedSegmentProd()({}.T, ints(0, 2, 0), 4)", ["S"])])

_family("image_ops", [
    "P.ResizeNearestNeighborV2()(small, ints(5, 7))",
    "P.ResizeNearestNeighborV2(half_pixel_centers=True)(small, ints(5, 6))",
    "P.ResizeNearestNeighborV2(align_corners=True)(small, ints(5, 7))",
    "P.ResizeNearestNeighborV2()(small, ints(2, 2))",
    "P.ResizeLinear1D()(small[0], ints(7, dtype=np.int64))",
    "P.ResizeLinear1D('half_pixel')(small[0], ints(6, dtype=np.int64))",
    "P.ResizeLinear1D('half_pixel')(small[0], ints(3, dtype=np.int64))",
    "P.SpaceToBatchND([2, 2], [[0, 0], [0, 0]])(img[:1, :2])",
    "P.SpaceToBatchND([2, 2], [[1, 1], [0, 2]])(small)",
    "P.SpaceToBatchND((3, 1), ((0, 0), (1, 1)))(small)",
    "P.LRN()(img)", "P.LRN(depth_radius=1, bias=2.0, alpha=0.5, beta=0.75)(img)",
    "P.MaxUnpool2D(ksize=2, strides=2)(small[:, :, :2, :2], Tensor(UNPOOL))",
    "P.MaxUnpool2D(ksize=3, strides=1, pads=0)(small[:, :1, :1, :2], ints([[[[0, 8]]]], dtype=np.int64))",
    "P.MaxPoolWithArgmaxV2(2, 2)(img)", "P.MaxPoolWithArgmaxV2(3, 2, 1)(img)",
    "P.MaxPoolWithArgmaxV2(kernel_size=2, strides=2, ceil_mode=True)(img[:, :, :3, :])",
    "P.MaxPoolWithArgmaxV2((2, 3), (1, 2), dilation=(2, 1), argmax_type=ms.int32)(img)",
    "P.Im2Col(ksizes=2)(small)", "P.Im2Col((2, 3), (2, 1), 1, 1)(small)",
    "P.Im2Col(3, 2, 2, (1, 2))(img[:1])",
    "P.Col2Im(2, 1, 0, 1)(img[:, :, :, :12].reshape(2, 8, 4, 12)[:, :2], ints(4, 5))",
    "P.Col2Im((2, 3), 1, 1, (2, 1))(P.Im2Col((2, 3), (2, 1), 1, 1)(small), ints(3, 4))",
], [("P.ResizeLinear1D()({}[0], ints(7, dtype=np.int64))", ["SMALL"]),
    ("P.ResizeNearestNeighborV2(half_pixel_centers=True)({}, ints(5, 6)) ** 2", ["SMALL"]),
    ("P.SpaceToBatchND([2, 2], [[1, 1], [0, 2]])({})", ["SMALL"]), ("P.LRN(2, 1.0, 0.3, 0.75)({})", ["IMG"]),
    ("P.MaxPoolWithArgmaxV2(3, 2, 1)({} * {})[0]", ["IMG", "IMG"]),
    ("P.Im2Col((2, 3), (2, 1), 1, 1)({})", ["SMALL"]),
    ("P.Col2Im(2, 1, 0, 1)({}.reshape(1, 2, 4, 3), ints(3, 3))", ["SMALL"]),
    ("P.MaxUnpool2D(ksize=2, strides=2)({}[:, :, :2, :2], Tensor(UNPOOL))",
     ["SMALL"])])


_BOXES = """
ANCHORS = floats([0, 0, 4, 6], [2, 3, 5, 4], [1, 1, 8, 2])
TRUTHS = floats([1, 1, 5, 8], [2, 2, 7, 6], [0, 1, 8, 3])
DELTAS = floats([0.1, -0.2, 0.3, 0.05], [0.0, 0.5, -2.0, 5.0], [-0.3, 0.2, 0.1, -0.1])
THETA = floats([[1.0, 0.2, 0.1], [0.0, 0.8, -0.3]], [[0.5, -0.4, 0.0], [0.3, 1.1, 0.2]])
"""

_family("boxes_grids_windows", [
    "P.BoundingBoxEncode()(ANCHORS, TRUTHS)",
    "P.BoundingBoxEncode(means=(0.1, 0.0, 0.0, 0.2), stds=(0.5, 1.0, 2.0, 1.0))(ANCHORS, TRUTHS)",
    "P.BoundingBoxDecode(max_shape=(7, 9))(ANCHORS, DELTAS)",
    "P.BoundingBoxDecode((7, 9), (0.1, 0.0, 0.0, 0.2), (0.5, 1.0, 2.0, 1.0), 0.2)(ANCHORS, DELTAS)",
    "P.AffineGrid()(THETA, (2, 1, 2, 3))", "P.AffineGrid(align_corners=True)(THETA, (2, 3, 3, 4))",
    "P.PopulationCount()(ints(0, 7, -1, 256, -32768, dtype=np.int16))",
    "P.PopulationCount()(ints(0, 255, 65535, 4660, dtype=np.uint16))",
    "P.IndexPut()(r, floats(1.0, 2.0), (ints(0, 1), ints(1, 2)))",
    "P.IndexPut(1)(r, floats(5.0), [ints(0, 0, 1, dtype=np.int64)])",
    "P.IndexPut(1)(r, s[0], [ints(1, 1)])",
], [("P.BoundingBoxEncode()(ANCHORS, {}.reshape(3, 2).repeat(2, 1) + TRUTHS)", ["POS"]),
    ("P.AffineGrid()({}.reshape(2, 1, 3).repeat(2, 1), (2, 1, 2, 3))", ["R"]),
    ("P.IndexPut(1)({}, {}[0], [ints(1, 1)])", ["R", "S"])], extra=_BOXES)

PROGRAMS.update(stateful_programs(_PRELUDE))

if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_primitives_expected.json"))
