"""Programs for the long-standing ``P.*`` classes (``mindspore.ops.operations``) that no
other differential program spelled (issue 25, ``api_tested``'s ``ops.operations`` list):
elementwise math, comparisons, reductions, shape and indexing classes, the nn classes
(pooling, normalisation, conv backprop), Parameter updates, constants and sampling.

Each family is a forward Cell applying its classes with MindSpore's argument order and
attributes and, for the differentiable ones, a loss Cell summing each class applied to its
own inputs, differentiated with ``ops.grad`` at every input; graph mode compiles both.
Parameter updates read the state back after the step; sampling classes return shapes,
dtypes and properties only. ``ms_prims_cover_expected.json`` holds MindSpore 2.10's answers
on CPU per mode; ``python -m tests.mindspore_ref.ms_prims_cover_programs`` re-records them
(needs ``MINDSPORE_PYTHON``). ``UNTESTABLE``: classes MindSpore 2.10 cannot run on CPU.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

UNTESTABLE = {
    "ops.operations:AllReduce": "Segmentation fault: P.AllReduce()(x) without "
                                "mindspore.communication.init(), and init() on CPU raises "
                                "RuntimeError: ... without using 'mpirun' ...",
}

_PRELUDE = '''
P = ms.ops.operations
R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
S = np.array([[0.5, -2.0, 1.5], [2.5, -0.7, 0.1]], np.float32)
POS = np.array([[0.2, 0.5, 1.0], [2.0, 4.0, 9.0]], np.float32)
I = np.array([[-7, 4, 0], [12, 9, 6]], np.int32)
J = np.array([[3, -5, 5], [8, 2, -4]], np.int32)
M = np.array([[[2.0, 1.0, 0.5], [0.5, 3.0, -1.0]], [[1.0, -1.0, 0.2], [2.0, 0.5, 1.5]]], np.float32)
IMG = (np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4) % 7 - 3) / 3
IMG_REV = np.ascontiguousarray(IMG[::-1])
SQ = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0], [4.0, 0.0, 1.5]], np.float32)
'''

_ARRAYS = ("R", "S", "POS", "I", "J", "M", "IMG", "SQ")

PROGRAMS: dict[str, str] = {}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
            extra: str = "") -> None:
    """A family program (:mod:`tests.mindspore_ref.families`) over the arrays above."""
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads, extra)


_family("math_functions", [
    "P.Abs()(r)", "P.Abs()(i)", "P.Neg()(r)", "P.Neg()(i)", "P.Exp()(r)", "P.Log()(pos)", "P.Sqrt()(pos)",
    "P.Sin()(r)", "P.Cos()(r)", "P.Tanh()(r)", "P.Sigmoid()(r)", "P.Erf()(r)", "P.Softplus()(r)",
    "P.SoftShrink()(r)", "P.SoftShrink(lambd=1.5)(r)", "P.FastGeLU()(r)", "P.GeLU()(r)",
], [("P.Abs()({})", ["S"]), ("P.Neg()({})", ["R"]), ("P.Exp()({})", ["R"]), ("P.Log()({})", ["POS"]),
    ("P.Sqrt()({})", ["POS"]), ("P.Sin()({})", ["R"]), ("P.Cos()({})", ["S"]), ("P.Tanh()({})", ["R"]),
    ("P.Sigmoid()({})", ["S"]), ("P.Erf()({})", ["R"]), ("P.Softplus()({})", ["S"]),
    ("P.SoftShrink(0.8)({})", ["R"]), ("P.FastGeLU()({})", ["R"]), ("P.GeLU()({})", ["S"])])

_family("binary_math", [
    "P.Add()(r, s)", "P.Add()(i, j)", "P.Add()(r, 2.0)", "P.TensorAdd()(r, s)", "P.Sub()(r, s)",
    "P.Sub()(i, j)", "P.Mul()(r, s)", "P.Mul()(i, 3)", "P.Div()(r, s)", "P.Div()(i, j)", "P.RealDiv()(r, s)",
    "P.FloorDiv()(r, s)", "P.FloorDiv()(i, j)", "P.FloorMod()(r, s)", "P.FloorMod()(i, j)",
    "P.Pow()(pos, s)", "P.Pow()(r, 2.0)", "P.Pow()(i, 2)", "P.Maximum()(r, s)", "P.Maximum()(i, j)",
    "P.Minimum()(r, s)", "P.Minimum()(i, j)",
], [("P.Add()({}, {})", ["R", "S"]), ("P.TensorAdd()({}, {}) * {}", ["R", "S", "POS"]),
    ("P.Sub()({}, {}) ** 2", ["R", "S"]), ("P.Mul()({}, {})", ["R", "S"]), ("P.Div()({}, {})", ["R", "POS"]),
    ("P.RealDiv()({}, {})", ["S", "POS"]), ("P.Pow()({}, {})", ["POS", "S"]),
    ("P.Maximum()({}, {})", ["R", "S"]), ("P.Minimum()({}, {})", ["R", "S"]),
    ("P.FloorMod()({}, {})", ["R", "POS"])])

_family("compare_select_cast", [
    "P.Equal()(i, j * 0 + 4)", "P.Equal()(r, s)", "P.NotEqual()(i, 0)", "P.Greater()(r, s)",
    "P.Greater()(i, j)", "P.GreaterEqual()(i, 6)", "P.Less()(r, s)", "P.LessEqual()(i, j)",
    "P.LessEqual()(r, 0.4)", "P.Select()(P.Greater()(r, s), r, s)", "P.Select()(P.Less()(i, j), i, j)",
    "P.MaskedFill()(r, P.Less()(r, 0.0), Tensor(9.0, ms.float32))",
    "P.MaskedFill()(i, P.Greater()(i, j), Tensor(-1, ms.int32))",
    "P.Cast()(r, ms.int32)", "P.Cast()(i, ms.float16)", "P.Cast()(r, ms.bool_)", "P.Cast()(i, ms.float32)",
], [("P.Select()(P.Greater()({}, 0.0), {}, {})", ["S", "R", "S"]),
    ("P.MaskedFill()({}, P.Less()({}, 0.0), Tensor(9.0, ms.float32)) * {}", ["R", "S", "POS"]),
    ("P.Cast()({}, ms.float16) * 2", ["R"])])

_family("reductions_scans", [
    "P.ReduceAll()(P.Greater()(r, -3.0))", "P.ReduceAll(keep_dims=True)(P.Greater()(r, 0.0), 1)",
    "P.ReduceAny()(P.Greater()(r, 3.0), 0)", "P.ReduceAny(True)(P.Greater()(s, 2.0), (0, 1))",
    "P.ReduceMax()(r)", "P.ReduceMax()(r, 1)", "P.ReduceMax(keep_dims=True)(i, 0)",
    "P.ReduceMax()(m, (0, 2))",
    "P.Argmax()(r)", "P.Argmax(axis=0)(s)", "P.Argmax(output_type=ms.int32)(i)",
    "P.CumSum()(r, 1)", "P.CumSum(exclusive=True)(r, 1)", "P.CumSum(reverse=True)(i, 0)",
    "P.CumSum(True, True)(s, 1)", "P.Trace()(sq)", "P.Trace()(r)",
], [("P.ReduceMax()({}, 1)", ["R"]), ("P.ReduceMax(True)({}, (0, 2)) * {}[0, :1]", ["M", "M"]),
    ("P.CumSum()({}, 1) * {}", ["R", "S"]), ("P.CumSum(True, True)({}, 0) * {}", ["S", "POS"]),
    ("P.Trace()({}) * 2", ["SQ"])])

_family("shapes", [
    "P.Reshape()(r, (3, 2))", "P.Reshape()(m, (-1,))", "P.ExpandDims()(r, 1)", "P.ExpandDims()(i, -1)",
    "P.Squeeze()(P.ExpandDims()(r, 0))", "P.Squeeze(2)(P.Reshape()(r, (2, 3, 1)))",
    "P.Squeeze((0, 2))(P.Reshape()(s, (1, 6, 1)))", "P.Transpose()(m, (2, 0, 1))", "P.Transpose()(i, (1, 0))",
    "P.TransposeView()(m, (1, 2, 0))", "P.TransposeExtView()(m, 0, 2)", "P.TransposeExtView()(r, -1, 0)",
    "P.BroadcastTo((2, 2, 3))(r)", "P.BroadcastTo((-1, 4, 3))(r[:, None, :1])",
    "P.Concat()((r, s))", "P.Concat(1)((r, s, pos))", "P.Concat(axis=-1)([i, j])",
    "P.Stack()([r, s])", "P.Stack(axis=2)((r, s, pos))", "P.Unstack()(r)", "P.Unstack(axis=1)(i)",
    "P.Split()(m)", "P.Split(1, 2)(m)", "P.Split(axis=2, output_num=3)(m)",
    "P.Slice()(m, (0, 1, 1), (2, 1, 2))", "P.Slice()(i, (1, 0), (-1, 2))",
    "P.Pad(((1, 0), (0, 2)))(r)", "P.Pad(((0, 0), (1, 1), (2, 0)))(m)",
    "P.Tril()(sq)", "P.Tril(-1)(r)", "P.Tril(diagonal=1)(i)", "P.Triu()(sq)", "P.Triu(1)(r)", "P.Triu(-1)(m)",
    "P.Meshgrid()((r[0], s[1, :2]))", "P.Meshgrid(indexing='ij')((r[0], s[1, :2], pos[0, :1]))",
], [("P.Reshape()({}, (3, 2)) * P.Reshape()({}, (3, 2))", ["R", "S"]),
    ("P.ExpandDims()({}, 1) * {}", ["R", "S"]), ("P.Squeeze(0)(P.ExpandDims()({}, 0)) ** 2", ["S"]),
    ("P.Transpose()({}, (2, 0, 1)) * P.Transpose()({}, (2, 0, 1))", ["M", "M"]),
    ("P.TransposeExtView()({}, 0, 2) * P.TransposeView()({}, (2, 1, 0))", ["M", "M"]),
    ("P.BroadcastTo((2, 2, 3))({}) * {}", ["R", "M"]), ("P.Concat(1)(({}, {})) ** 2", ["R", "S"]),
    ("P.Stack(axis=1)([{}, {}]) ** 2", ["R", "S"]), ("P.Unstack()({})[1] * 3", ["R"]),
    ("P.Split(2, 3)({})[2] ** 2", ["M"]), ("P.Slice()({}, (0, 1), (2, 2)) ** 2", ["R"]),
    ("P.Pad(((1, 0), (0, 2)))({}) ** 2", ["S"]), ("P.Tril()({}) * {}", ["SQ", "SQ"]),
    ("P.Triu(1)({}) * {}", ["R", "S"]), ("P.Meshgrid()(({}[0], {}[1]))[0] * 2", ["R", "S"])])

_family("gather_sort", [
    "P.Gather()(r, Tensor(np.array([2, 0, 2], np.int32)), 1)",
    "P.Gather()(m, Tensor(np.array([1], np.int32)), 0)",
    "P.Gather()(i, Tensor(np.array([[1, 0], [0, 1]], np.int32)), 0)",
    "P.TopK()(r, 2)", "P.TopK(sorted=True)(i, 3)", "P.TopK()(m, 1)", "P.Sort()(s)", "P.Sort(axis=0)(r)",
    "P.Sort(descending=True)(i)", "P.Sort(0, True)(m)",
], [("P.Gather()({}, Tensor(np.array([2, 0, 2], np.int32)), 1) * {}", ["R", "S"]),
    ("P.TopK()({}, 2)[0] * Tensor(np.array([1.0, 3.0], np.float32))", ["R"]),
    ("P.Sort(descending=True)({})[0] * {}", ["S", "POS"])])

_family("nn_classes", [
    "P.BiasAdd()(img, Tensor(np.array([0.5, -1.0, 2.0], np.float32)))", "P.BiasAdd()(r, s[0])",
    "P.BatchMatMul()(m, P.Transpose()(m, (0, 2, 1)))", "P.BatchMatMul(transpose_b=True)(m, m)",
    "P.BatchMatMul(True, False)(m, m)", "P.LogSoftmax()(r)", "P.LogSoftmax(axis=0)(s)",
    "P.MaxPool(2, 2)(img)", "P.MaxPool(kernel_size=3, strides=1, pad_mode='same')(img)",
    "P.MaxPool((2, 3), (1, 2), 'valid')(img)", "P.AvgPool(2, 2)(img)",
    "P.AvgPool(kernel_size=3, strides=1, pad_mode='same')(img)", "P.AvgPool((3, 2), 1)(img)",
    "P.Dropout(keep_prob=1.0)(r)",
], [("P.BiasAdd()({}, {}[0]) ** 2", ["R", "S"]), ("P.BatchMatMul(transpose_b=True)({}, {})", ["M", "M"]),
    ("P.LogSoftmax()({}) * {}", ["R", "POS"]), ("P.MaxPool(2, 2)({} * {})", ["IMG", "IMG"]),
    ("P.AvgPool(kernel_size=3, strides=1, pad_mode='same')({}) ** 2", ["IMG"])])

_CONV = """
W_NP = np.linspace(-1, 1, 3 * 2 * 2 * 2).reshape(3, 2, 2, 2).astype(np.float32)
DY_NP = np.linspace(1, -1, 2 * 3 * 3 * 3).reshape(2, 3, 3, 3).astype(np.float32)
W, DY = Tensor(W_NP), Tensor(DY_NP)
W3 = Tensor(np.linspace(-0.5, 1, 3 * 2 * 3 * 3).reshape(3, 2, 3, 3).astype(np.float32))
DY2 = Tensor(np.linspace(0.5, -1, 2 * 3 * 2 * 2).reshape(2, 3, 2, 2).astype(np.float32))
"""

_family("conv_backprop_input", [
    "P.Conv2DBackpropInput(3, 2)(DY, W, (2, 2, 4, 4))",
    "P.Conv2DBackpropInput(out_channel=3, kernel_size=3, pad_mode='same', stride=2)(DY2, W3, (2, 2, 4, 4))",
    "P.Conv2DBackpropInput(3, 3, pad_mode='pad', pad=1)(DY, W3, (2, 2, 3, 3))",
    "P.Conv2DBackpropInput(3, (3, 3), pad_list=(1, 0, 0, 1), pad_mode='pad')(DY[:, :, :2], W3, (2, 2, 3, 4))",
], [("P.Conv2DBackpropInput(3, 2)({}, {}, (2, 2, 4, 4)) ** 2", ["DY_NP", "W_NP"])], extra=_CONV)

_STATS = """
MEAN, VAR = Tensor(POS[1]), Tensor(POS[0])
"""

_family("normalisation", [
    "P.LayerNorm()(r, s[0], pos[0])", "P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)(m, r[0], s[1])",
    "P.LayerNorm(1, 1, epsilon=0.1)(m, P.Reshape()(pos, (2, 3)) * 0 + 1, P.Reshape()(s, (2, 3)))",
    "P.BatchNorm()(img, s[0], r[1], MEAN, VAR)[0]",
    "P.BatchNorm(is_training=True, epsilon=0.01)(img, s[0], r[1], MEAN, VAR)[0]",
], [("P.LayerNorm()({}, {}[0], {}[1])[0] * {}", ["R", "S", "S", "POS"]),
    ("P.BatchNorm(True)({}, {}[0], {}[1], MEAN, VAR)[0] * {}", ["IMG", "S", "R", "IMG_REV"])],
        extra=_STATS)

PROGRAMS["parameter_updates"] = _PRELUDE + '''
class Step(nn.Cell):
    def __init__(self, which, p, q):
        super().__init__()
        self.which, self.p, self.q = which, p, q

    def construct(self, x):
        if self.which == 0:
            return P.Assign()(self.p, x * 2)
        if self.which == 1:
            return P.ScatterUpdate()(self.p, Tensor(np.array([1], np.int32)), x[:1] - 1)
        if self.which == 2:
            return P.ScatterUpdate()(self.q, Tensor(np.array([[0, 2]], np.int32)),
                                     Tensor(np.array([[[7, 8, 9], [1, 2, 3]]], np.int32)))
        if self.which == 3:
            out = P.IndexAdd(axis=1)(self.p, Tensor(np.array([0, 2], np.int32)), x[:, :2])
            return P.Depend()(out, out)
        y = P.Depend()(x + 1, P.Assign()(self.p, x))
        return y * self.p


def main():
    p = ms.Parameter(Tensor(np.zeros((2, 3), np.float32)), name='p')
    q = ms.Parameter(Tensor(np.zeros((3, 3), np.int32)), name='q')
    seen = []
    for which in range(5):
        out = Step(which, p, q)(Tensor(R))
        seen.append([Tensor(out.asnumpy().copy()), Tensor(p.asnumpy().copy()), Tensor(q.asnumpy().copy())])
    return seen
'''

PROGRAMS["constants_and_info"] = _PRELUDE + '''
class Net(nn.Cell):
    def construct(self, r, i):
        return (P.Fill()(ms.float32, (2, 2), 3.5), P.Fill()(ms.int32, (3,), 7), P.Ones()((2, 3), ms.int32),
                P.Ones()(4, ms.float16), P.Zeros()((1, 2), ms.float32), P.Zeros()(3, ms.int64),
                P.OnesLike()(r), P.OnesLike()(i), P.ZerosLike()(r), P.ZerosLike()(i),
                P.Cast()(i, P.DType()(r)), P.Rank()(r), P.Rank()(P.ExpandDims()(i, 0)), P.Size()(r),
                P.Size()(i[0]), P.StopGradient()(r) * 2)


class Loss(nn.Cell):
    def construct(self, a, b):
        return (P.StopGradient()(a * b) * b + a * P.ZerosLike()(b) + P.OnesLike()(a) * b).sum()


def main():
    return (Net()(Tensor(R), Tensor(I)), ops.grad(Loss(), grad_position=(0, 1))(Tensor(R), Tensor(S)),
            str(P.DType()(Tensor(I))), [P.ReduceOp.SUM, P.ReduceOp.MAX, P.ReduceOp.MIN, P.ReduceOp.PROD])
'''

PROGRAMS["sampling"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = P.Dropout(keep_prob=0.6)
        self.draw = P.Multinomial(seed=3)
        self.draw64 = P.Multinomial(dtype=ms.int64)

    def construct(self, x, probs):
        return self.drop(x), self.draw(probs, 400), self.draw64(probs[0], 5)


def main():
    probs = np.array([[0.0, 1.0, 3.0, 0.0], [2.0, 0.0, 0.0, 2.0]], np.float32)
    (out, mask), draws, d64 = Net()(Tensor(np.full((64, 50), 3.0, np.float32)), Tensor(probs))
    o, m, d = out.asnumpy(), mask.asnumpy(), draws.asnumpy()
    share = [float(np.mean(d[0] == 2)), float(np.mean(d[1] == 0))]
    return (str(out.dtype), list(out.shape), str(mask.dtype), list(mask.shape),
            bool(np.allclose(o, np.where(m != 0, 5.0, 0.0))), bool(0.5 < float((m != 0).mean()) < 0.7),
            sorted(set(np.unique(m).tolist())), str(draws.dtype), list(draws.shape),
            sorted(set(d[0].tolist())), sorted(set(d[1].tolist())), bool(0.65 < share[0] < 0.85),
            bool(0.4 < share[1] < 0.6), str(d64.dtype), list(d64.shape),
            bool(set(d64.asnumpy().tolist()) <= {1, 2}))
'''

# GatherV2: MindSpore 2.10 runs it compiled only (PyNative: "For Operator[Gather], the inputs
# number should be 4 but got 3"), so both modes call it through ms.jit.
PROGRAMS["gather_v2_jit"] = _PRELUDE + '''
@ms.jit
def forward(r, i):
    return (P.GatherV2()(r, Tensor(np.array([1, 1, 0], np.int64)), 1),
            P.GatherV2()(i, Tensor(np.array([1], np.int32)), 0))


@ms.jit
def loss(a, b):
    return (P.GatherV2()(a, Tensor(np.array([1, 1], np.int32)), 0) * b).sum()


def main():
    return forward(Tensor(R), Tensor(I)), ops.grad(loss, grad_position=(0, 1))(Tensor(S), Tensor(POS[:1]))
'''

if __name__ == "__main__":  # re-record ms_prims_cover_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_prims_cover_expected.json"))
