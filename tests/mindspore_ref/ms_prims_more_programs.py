"""More ``P.*`` classes in both modes against MindSpore 2.10: volume pooling and resampling
(``P.AdaptiveAvgPool3D``, ``P.UpsampleTrilinear3D``, ``P.GridSampler3D``, ``P.FractionalMaxPool``
...; ``framework/ops/operations/prim_volume.py``), CTC, band matrices, triangular and least
squares solves, FFTs (``prim_sequence.py``), ``P.Betainc`` (``prim_special.py``), selection and
sampling (``prim_selection.py``, ``prim_random.py``), summaries and ``P.Assert``
(``prim_summary.py``): values, dtypes, and gradients where MindSpore differentiates them (not
``Lstsq``: "Illegal primitive Lstsq's bprop not defined"). Family programs
(:mod:`tests.mindspore_ref.families`) and a few of their own; random ops compared through
what their draws determine. ``ms_prims_more_expected.json`` holds MindSpore 2.10's answers on
CPU.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays
from tests.mindspore_ref.recorded import ERROR_KIND

# names MindSpore 2.10 cannot run on one CPU process: its error
UNTESTABLE: dict[str, str] = {
    "ops.operations:MoveTo": "RuntimeError: Kernel select failed: Unsupported op [MoveTo] on CPU "
                             "(checked against NumPy in test_ms_prims_more.py)",
    "ops.operations:Coalesce": "wrong entries once other ops ran in the process (PyNative): indices "
                               "[[0, 0, 1], [1, 1, 2]], values [1, 2, 3] gave 3 entries, not the 2 it "
                               "gives alone (checked against NumPy in test_ms_prims_more.py)",
}

_PRELUDE = '''
P = ms.ops.operations
V = np.sin(np.arange(128) * 0.7).reshape(2, 1, 4, 4, 4).astype(np.float32)
OS = np.array([2, 2, 3], np.int32)
U = np.array([1.0, -2.0, 3.0, 0.5, 2.5, -1.0, 4.0, 1.5], np.float32).reshape(1, 1, 2, 2, 2)
IDX = np.array([0, 2, 8, 10, 32, 34, 40, 42], np.int64).reshape(1, 1, 2, 2, 2)
Q = np.sin(np.arange(50) * 1.3).reshape(1, 2, 5, 5).astype(np.float32)
FS2 = np.array([[[0.3, 0.6], [0.8, 0.1]]], np.float32)
FS3 = np.array([[[0.3, 0.6, 0.2]], [[0.9, 0.4, 0.5]]], np.float32)
G = np.sin(np.arange(108) * 0.37).reshape(2, 2, 3, 3, 3).astype(np.float32)
IMG = np.cos(np.arange(32) * 0.45).reshape(1, 4, 4, 2).astype(np.float32)
BOXES = np.array([[0.0, 0.0, 1.0, 1.0], [0.2, 0.1, 0.8, 0.9]], np.float32)
BI = np.array([0, 0], np.int32)
LP = np.log(np.abs(np.sin(np.arange(30) * 0.9)) + 0.1).reshape(5, 2, 3).astype(np.float32)
TG = np.array([[1, 2], [1, 1]], np.int32)
IL = np.array([5, 4], np.int32)
TL = np.array([2, 1], np.int32)
DG = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
M3 = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
LA = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32)
LB = np.array([[1.0, 0.5], [2.0, -1.0], [3.0, 2.0]], np.float32)
S8 = np.cos(np.arange(16) * 0.8).reshape(2, 8).astype(np.float32)
TM = np.array([[2.0, 9.0, -4.0], [1.0, 3.0, 7.0], [-1.0, 0.5, 4.0]], np.float32)
TB = np.array([[1.0, 2.0], [2.0, -1.0], [0.5, 3.0]], np.float32)
BA = np.array([1.0, 2.0, 0.5, 3.5], np.float32)
BB = np.array([2.0, 3.0, 1.5, 0.8], np.float32)
BX = np.array([0.5, 0.3, 0.9, 0.05], np.float32)
BM = np.array([[True, False, True, False], [False, True, False, True], [True, True, False, False]])
'''
_ARRAYS = ("V", "OS", "U", "IDX", "Q", "FS2", "FS3", "G", "IMG", "BOXES", "BI", "LP", "TG", "IL",
           "TL", "DG", "M3", "LA", "LB", "S8", "TM", "TB", "BM", "BA", "BB",
           "BX")
PROGRAMS: dict[str, str] = {}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads)


_family("volume_pool", [
    "P.AdaptiveAvgPool3D((2, 2, 3))(v)", "P.AdaptiveAvgPool3D(output_size=(1, 3, 2))(v)",
    "P.AdaptiveMaxPool3D()(v, Tensor(OS))[0]", "P.AdaptiveMaxPool3D()(v, Tensor(OS))[1]",
    "P.MaxUnpool3D(2, 2)(u, idx)", "P.MaxUnpool3D(ksize=2)(u, idx)",
    "P.MaxUnpool3D(2, 2, 0, (1, 1, 5, 4, 4))(u, idx)",
    "P.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(q, Tensor(FS2))[0]",
    "P.FractionalMaxPoolWithFixedKsize(2, (2, 3))(q, Tensor(FS2))[1]",
    "P.FractionalMaxPool3DWithFixedKsize((2, 2, 2), (2, 2, 2))(v, Tensor(FS3))[0]",
    "P.FractionalMaxPool3DWithFixedKsize(2, (1, 2, 2))(v, Tensor(FS3))[1]",
], [("P.AdaptiveAvgPool3D((2, 2, 3))({})", ["V"]),
    ("P.AdaptiveMaxPool3D()({}, Tensor(OS))[0]", ["V"]),
    ("P.MaxUnpool3D(2, 2)({}, Tensor(IDX)) * 2.0", ["U"]),
    ("P.FractionalMaxPool3DWithFixedKsize((2, 2, 2), (2, 2, 2))({}, Tensor(FS3))[0] * 3.0", ["V"])])

_family("volume_resample", [
    "P.UpsampleNearest3D()(v, (3, 6, 5), None)", "P.UpsampleNearest3D()(v, None, [2.0, 1.5, 1.0])",
    "P.UpsampleTrilinear3D()(v, (3, 6, 5), None)", "P.UpsampleTrilinear3D(True)(v, (3, 6, 5), None)",
    "P.UpsampleTrilinear3D()(v, None, [2.0, 1.5, 1.0])",
    "P.GridSampler3D()(v, g)", "P.GridSampler3D('nearest')(v, g)",
    "P.GridSampler3D('bilinear', 'border', True)(v, g * 1.3)",
    "P.GridSampler3D(padding_mode='reflection')(v, g * 1.3)",
    "P.CropAndResize()(img, boxes, bi, (3, 3))", "P.CropAndResize('nearest')(img, boxes, bi, (3, 2))",
    "P.CropAndResize(extrapolation_value=-1.0)(img, boxes * 1.4 - 0.2, bi, (3, 3))",
], [("P.UpsampleTrilinear3D()({}, (3, 6, 5), None)", ["V"]),
    ("P.UpsampleNearest3D()({}, (3, 6, 5), None) ** 2", ["V"]),
    ("P.UpsampleTrilinear3D()({}, None, [2.0, 1.5, 1.0]) ** 2", ["V"]),
    ("P.GridSampler3D()({}, {})", ["V", "G"]),
    ("P.CropAndResize()({}, Tensor(BOXES), Tensor(BI), (3, 3))", ["IMG"])])

_family("sequence_matrix", [
    "P.CTCLossV2()(lp, tg, il, tl)[0]", "P.CTCLossV2()(lp, tg, il, tl)[1]",
    "P.CTCLossV2(blank=1, reduction='mean')(lp, tg - 1, il, tl)[0]",
    "P.CTCLossV2(0, 'sum', True)(lp, tg, il, tl)[0]",
    "P.MatrixDiagV3()(dg, Tensor(np.array([0, 1], np.int32)), Tensor(np.array(-1, np.int32)), "
    "Tensor(np.array(-1, np.int32)), Tensor(np.array(0.0, np.float32)))",
    "P.MatrixDiagV3('LEFT_RIGHT')(dg, Tensor(np.array([-1, 0], np.int32)), Tensor(np.array(3, np.int32)), "
    "Tensor(np.array(4, np.int32)), Tensor(np.array(9.0, np.float32)))",
    "P.MatrixDiagPartV3()(m3, Tensor(np.array([0, 1], np.int32)), Tensor(np.array(0.0, np.float32)))",
    "P.MatrixDiagPartV3('LEFT_LEFT')(m3, Tensor(np.array([-1, 2], np.int32)), "
    "Tensor(np.array(7.0, np.float32)))",
    "P.Lstsq()(la, lb)", "P.Lstsq(l2_regularizer=0.5)(la, lb)",
    "P.FFTWithSize(1, False, True)(s8)", "P.FFTWithSize(2, False, True, 'ortho')(s8)",
    "P.FFTWithSize(1, False, False)(ops.Complex()(s8, s8 * 0.5))",
    "P.FFTWithSize(2, True, False, 'forward')(ops.Complex()(s8, s8 * 0.5))",
    "P.FFTWithSize(1, True, True, signal_sizes=(8,))(P.FFTWithSize(1, False, True)(s8))",
], [("P.CTCLossV2()({}, Tensor(TG), Tensor(IL), Tensor(TL))[0]", ["LP"]),
    ("P.MatrixDiagV3()({}, Tensor(np.array([0, 1], np.int32)), Tensor(np.array(-1, np.int32)), "
     "Tensor(np.array(-1, np.int32)), Tensor(np.array(0.0, np.float32))) * 2.0", ["DG"]),
    ("ops.abs(P.FFTWithSize(1, False, True)({}))", ["S8"]),
    ("P.MatrixDiagPartV3()({}, Tensor(np.array([0, 1], np.int32)), "
     "Tensor(np.array(0.0, np.float32)))", ["M3"])])

# outside a summary collector a summary op records nothing and returns None, in both modes
PROGRAMS["summaries"] = _PRELUDE + '''
class Net(nn.Cell):
    def construct(self, x, img):
        P.ScalarSummary()("loss", x.sum())
        P.TensorSummary()("x", x)
        P.ImageSummary()("image", img)
        P.HistogramSummary()("hist", x)
        return x * 2.0


def main():
    return Net()(Tensor(S8), Tensor(Q)), P.ScalarSummary()("s", Tensor(S8).sum()) is None
'''

# Betainc: MindSpore differentiates x only (zeros for a and b).
# RandomChoiceWithMask's order is random: compared through the positions one call chose,
# sorted (row-major codes; rows masked off sort last), and the entries they pick
_CHOSEN = '''
def chosen(bm, count):
    index, mask = P.RandomChoiceWithMask(count)(bm)
    codes = index[:, 0] * 4 + index[:, 1] + ops.cast(ops.logical_not(mask), ms.int32) * 100
    return ops.sort(ops.cast(codes, ms.float32))[0], mask, ops.gather_nd(bm, index)

'''
_TRIANGULAR = [
    "P.MatrixTriangularSolve()(tm, tb)", "P.MatrixTriangularSolve(False)(tm, tb)",
    "P.MatrixTriangularSolve(True, True)(tm, tb)",
    "P.MatrixTriangularSolve(lower=False, adjoint=True)(tm, tb)",
    "P.Betainc()(ba, bb, bx)", "P.Betainc()(bb, ba, bx * 0.5)",
    "chosen(bm, 10)", "chosen(bm, 3)[1:]", "P.RandomChoiceWithMask(count=4, seed=1)(bm)[0].shape",
]
PROGRAMS["triangular_choice"] = family_source(
    _PRELUDE, used_arrays(_ARRAYS, _TRIANGULAR), _TRIANGULAR,
    [("P.MatrixTriangularSolve()({}, {})", ["TM", "TB"]),
     ("P.MatrixTriangularSolve(False, True)({}, {}) * 1.5", ["TM", "TB"]),
     ("P.Betainc()({}, {}, {}) * 2.0", ["BA", "BB", "BX"])], _CHOSEN)

# value-dependent output lengths: run eagerly (outside a compiled Cell) in both modes, as
# graph mode needs; the weights are one-hot rows, so the draws are determined
PROGRAMS["decode_sample"] = _PRELUDE + '''
def main():
    x = Tensor(np.abs(LP))
    one_hot = Tensor(np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]], np.float32))
    seed, offset = Tensor(np.array(3, np.int64)), Tensor(np.array(0, np.int64))
    return (P.CTCGreedyDecoder()(x, Tensor(IL)), P.CTCGreedyDecoder(False)(x, Tensor(IL)),
            P.CTCGreedyDecoder(merge_repeated=True)(x, Tensor(np.array([0, 3], np.int32))),
            P.MultinomialWithReplacement(4, True)(one_hot, seed, offset),
            P.MultinomialWithReplacement(numsamples=1)(one_hot, seed, offset),
            P.RaggedRange(ms.int32)(Tensor(np.array([0, 5, 8], np.int32)),
                                    Tensor(np.array([3, 3, 9], np.int32)),
                                    Tensor(np.array([1, -1, 2], np.int32))),
            P.RaggedRange(Tsplits=ms.int64)(Tensor(np.array([0.5, 1.0], np.float32)),
                                            Tensor(np.array([3.0, 3.0], np.float32)),
                                            Tensor(np.array([1.0, 0.7], np.float32))))
'''


# FractionalMaxPool's windows are random: compared through what every draw determines (the
# shapes, the sequences' ends and steps, the per-channel maximum). Its gradient fails in
# MindSpore's PyNative ("Input device address is null for ...FractionalMaxPoolGrad"): checked
# against NumPy in test_ms_prims_more.py
PROGRAMS["fractional"] = _PRELUDE + ERROR_KIND + '''
FX = np.sin(np.arange(2 * 7 * 6 * 3) * 0.77).reshape(2, 7, 6, 3).astype(np.float32)


def checks(y, r, c, x):
    steps = ops.concat([r[1:] - r[:-1], c[1:] - c[:-1]])
    return (y.shape, r.shape, r.dtype == ms.int64, r[0], r[-1], c[0], c[-1], (steps >= 1).all(),
            (steps <= 2).all(), ops.amax(y, (1, 2)) - ops.amax(x, (1, 2)))


class Net(nn.Cell):
    def construct(self, x):
        return (checks(*P.FractionalMaxPool([1.0, 1.5, 1.44, 1.0])(x), x),
                checks(*P.FractionalMaxPool([1.0, 1.5, 1.44, 1.0], True)(x), x),
                checks(*P.FractionalMaxPool(pooling_ratio=[1.0, 1.5, 1.44, 1.0], overlapping=True)(x), x),
                checks(*P.FractionalMaxPool([1.0, 2.0, 1.2, 1.0], True, True)(x), x))


def main():
    x = Tensor(FX)
    return Net()(x), kind(lambda: P.FractionalMaxPool((1.0, 1.5, 1.5, 1.0))(x))
'''

# Assert: a (1,) int32 tensor (its value unset in MindSpore's PyNative) while the condition
# holds; a false one raises RuntimeError when the code reaches it (MindSpore's PyNative
# raises at the next synchronisation: asnumpy)
PROGRAMS["assert"] = _PRELUDE + ERROR_KIND + '''
class Net(nn.Cell):
    def construct(self, c, x):
        P.Assert()(c, [x])
        P.Assert(summarize=2)(c, [x, x * 2.0])
        return x * 2.0, P.Assert(5)(c, [x]) * 0  # its value: uninitialised memory in MindSpore


def main():
    x = Tensor(S8)
    return Net()(Tensor(True), x), kind(lambda: Net()(Tensor(False), x)[0].asnumpy())
'''


if __name__ == "__main__":  # re-record ms_prims_more_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_prims_more_expected.json"))
