"""Programs for the names of issue 25 (elementwise math, logical/bitwise, reductions, array
ops, activations, their ``P.*`` classes, Tensor methods and nn cells), one per family.

Each program has a forward cell (every form of each op: ``ops.f(x)``, ``P.F()(x)``,
``x.f()``) and, for the differentiable ops, a loss cell summing each op applied to its
own input, differentiated with ``ops.grad`` at every input: each input's gradient is one
op's. Both run as Cells, so graph mode compiles them. Inputs include the kinks (0, the
clamp bounds, ties, .5 for rounding) where MindSpore's gradient conventions show.
``ms_math_expected.json`` holds MindSpore 2.10's answers on CPU.
"""

from __future__ import annotations

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
P = ms.ops.operations
U = np.array([[-0.9, -0.5, 0.0], [0.25, 0.6, 0.85]], np.float32)
G = np.array([[1.1, 1.5, 2.0], [3.0, 4.5, 10.0]], np.float32)
R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
POS = np.array([[0.2, 0.5, 1.0], [2.0, 4.0, 9.0]], np.float32)
TINY = np.array([[-1e-6, 1e-7, 0.0], [3e-5, -0.5, 2.0]], np.float32)
HALF = np.array([[-2.5, -1.5, -0.5], [0.5, 1.5, 2.7]], np.float32)
KINK = np.array([[-3.0, -1.0, 0.0, 0.5], [1.0, 3.0, 6.0, 7.5]], np.float32)
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0], np.float32)
I = np.array([[-7, -2, 0], [3, 5, 12]], np.int32)
J = np.array([[3, 5, 2], [-2, 3, 7]], np.int32)
B = np.array([[True, False, True], [False, False, True]])
C = np.array([[True, True, False], [False, True, True]])
TIE = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, -4.0], [0.0, 2.5, 0.0, 1.0]], np.float32)
'''

PROGRAMS: dict[str, str] = {}


_ARRAYS = ("U", "G", "R", "POS", "TINY", "HALF", "KINK", "SPECIAL", "I", "J", "B", "C", "TIE")


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
            extra: str = "") -> None:
    """A family program (:mod:`tests.mindspore_ref.families`) over the arrays above."""
    arrays = sorted(used_arrays(_ARRAYS, forward, r"[a-z_]+"))
    PROGRAMS[name] = family_source(_PRELUDE, arrays, forward, grads, extra)


_family("inverse_trig", [
    "ops.acos(u)", "P.ACos()(u)", "u.acos()", "ops.arccos(u)",
    "ops.asin(u)", "P.Asin()(u)", "u.arcsin()", "ops.atan(r)", "P.Atan()(r)", "r.arctan()",
    "ops.atanh(u)", "P.Atanh()(u)", "u.atanh()", "ops.acosh(g)", "P.Acosh()(g)", "g.arccosh()",
    "ops.asinh(r)", "P.Asinh()(r)", "r.asinh()",
], [("ops.acos({})", ["U"]), ("ops.asin({})", ["U"]), ("ops.atan({})", ["R"]),
    ("ops.atanh({})", ["U"]), ("ops.acosh({})", ["G"]), ("ops.asinh({})", ["R"])])

_family("hyperbolic_exp_log", [
    "ops.cosh(r)", "P.Cosh()(r)", "r.cosh()", "ops.sinh(r)", "P.Sinh()(r)", "r.sinh()",
    "ops.tan(u)", "P.Tan()(u)", "u.tan()", "ops.expm1(tiny)", "P.Expm1()(tiny)", "tiny.expm1()",
    "ops.log1p(tiny)", "P.Log1p()(tiny)", "tiny.log1p()", "ops.erfc(r)", "P.Erfc()(r)", "r.erfc()",
    "ops.reciprocal(r)", "P.Reciprocal()(r)", "r.reciprocal()", "ops.rsqrt(pos)",
    "P.Rsqrt()(pos)", "pos.rsqrt()", "P.Square()(r)", "P.Square()(i)",
    "ops.log2(pos)", "pos.log2()", "ops.log10(pos)", "pos.log10()", "ops.exp2(r)",
    "ops.deg2rad(r)", "r.deg2rad()", "ops.rad2deg(r)", "r.rad2deg()",
], [("ops.cosh({})", ["R"]), ("ops.sinh({})", ["R"]), ("ops.tan({})", ["U"]),
    ("ops.expm1({})", ["R"]), ("ops.log1p({})", ["POS"]), ("ops.erfc({})", ["R"]),
    ("ops.reciprocal({})", ["R"]), ("ops.rsqrt({})", ["POS"]), ("P.Square()({})", ["R"]),
    ("ops.log2({})", ["POS"]), ("ops.log10({})", ["POS"]), ("ops.exp2({})", ["R"]),
    ("ops.deg2rad({})", ["R"]), ("ops.rad2deg({})", ["R"])])

_family("rounding_sign", [
    "ops.floor(half)", "P.Floor()(half)", "half.floor()", "ops.ceil(half)", "P.Ceil()(half)",
    "half.ceil()", "ops.round(half)", "P.Round()(half)", "half.round()", "ops.trunc(half)",
    "P.Trunc()(half)", "half.trunc()", "ops.sign(half)", "P.Sign()(half)", "half.sign()",
    "ops.sign(i)", "ops.frac(half)", "half.frac()", "P.Rint()(half)",
], [("ops.floor({})", ["HALF"]), ("ops.round({})", ["HALF"]), ("ops.trunc({})", ["HALF"]),
    ("ops.sign({})", ["HALF"]), ("ops.frac({})", ["HALF"]), ("ops.ceil({})", ["HALF"])])

_family("predicates_logical_bitwise", [
    "ops.isnan(special)", "P.IsNan()(special)", "special.isnan()", "ops.isinf(special)",
    "P.IsInf()(special)", "special.isinf()", "ops.isfinite(special)", "P.IsFinite()(special)",
    "special.isfinite()", "ops.isfinite(i)", "ops.isnan(i)",
    "ops.logical_and(b, c)", "P.LogicalAnd()(b, c)", "b.logical_and(c)", "ops.logical_or(b, c)",
    "P.LogicalOr()(b, c)", "ops.logical_xor(b, c)", "P.LogicalXor()(b, c)", "b.logical_xor(c)",
    "ops.logical_not(b)", "P.LogicalNot()(b)", "b.logical_not()",
    "ops.bitwise_and(i, j)", "P.BitwiseAnd()(i, j)", "i.bitwise_and(j)", "ops.bitwise_or(i, j)",
    "P.BitwiseOr()(i, j)", "ops.bitwise_xor(i, j)", "P.BitwiseXor()(i, j)", "i.bitwise_xor(j)",
    "ops.invert(i)", "P.Invert()(i)", "i.invert()",
])

_family("binary_math", [
    "ops.atan2(r, half)", "P.Atan2()(r, half)", "r.atan2(half)", "ops.arctan2(u, r)",
    "ops.xlogy(tiny, pos)", "P.Xlogy()(tiny, pos)", "tiny.xlogy(pos)",
    "ops.hypot(r, half)", "P.Hypot()(r, half)", "r.hypot(half)",
    "ops.lerp(r, half, 0.3)", "P.Lerp()(r, half, u)", "r.lerp(half, u)",
    "ops.logaddexp(r, half)", "r.logaddexp(half)", "ops.logaddexp2(r, half)",
    "ops.fmod(r, half)", "r.fmod(half)", "ops.fmod(i, j)", "ops.remainder(r, half)",
    "ops.remainder(i, j)", "r.remainder(half)", "ops.true_divide(r, half)",
    "ops.floor_divide(r, half)", "ops.floor_divide(i, j)", "ops.divide(r, half)",
    "ops.divide(r, half, rounding_mode='floor')", "ops.divide(r, half, rounding_mode='trunc')",
    "ops.divide(i, j, rounding_mode='trunc')", "ops.subtract(r, half)", "ops.multiply(r, half)",
    "ops.absolute(r)", "ops.negative(r)", "ops.positive(r)", "P.SquaredDifference()(r, half)",
    "P.DivNoNan()(r, u)", "P.TruncateDiv()(i, j)", "P.TruncateMod()(i, j)",
], [("ops.atan2({}, {})", ["R", "HALF"]), ("ops.xlogy({}, {})", ["TINY", "POS"]),
    ("ops.hypot({}, {})", ["R", "HALF"]), ("ops.lerp({}, {}, {})", ["R", "HALF", "U"]),
    ("ops.logaddexp({}, {})", ["R", "HALF"]), ("ops.logaddexp2({}, {})", ["R", "HALF"]),
    ("ops.fmod({}, {})", ["R", "HALF"]), ("ops.remainder({}, {})", ["R", "HALF"]),
    ("P.SquaredDifference()({}, {})", ["R", "HALF"])])

_family("clamp", [
    "ops.clamp(kink, 0.0, 3.0)", "ops.clip(kink, -1.0, 1.0)", "kink.clamp(0.5, 6.0)",
    "kink.clip(None, 1.0)", "ops.clamp(kink, min=0.0)", "ops.clamp(i, -2, 5)",
    "ops.clamp(kink, 4.0, 1.0)",
], [("ops.clamp({}, 0.0, 3.0)", ["KINK"]), ("ops.clip({}, -1.0, 1.0)", ["KINK"])])

_family("activations", [
    "ops.relu6(kink)", "P.ReLU6()(kink)", "ops.hardtanh(kink)", "ops.hardtanh(kink, 0.0, 3.0)",
    "ops.hardsigmoid(kink)", "P.HSigmoid()(kink)", "ops.hardswish(kink)", "P.HSwish()(kink)",
    "ops.softsign(r)", "P.Softsign()(r)", "ops.mish(r)", "P.Mish()(r)", "ops.logsigmoid(r)",
    "ops.elu(r)", "P.Elu()(r)", "ops.selu(r)", "P.SeLU()(r)",
    "ops.celu(r)", "ops.celu(r, 2.0)", "P.CeLU(2.0)(r)", "ops.leaky_relu(kink)",
    "ops.leaky_relu(kink, 0.1)", "ops.softshrink(r)", "ops.softshrink(r, 1.0)",
    "ops.hardshrink(r)", "P.HShrink(1.0)(r)", "r.hardshrink()", "ops.tanhshrink(r)",
    "ops.threshold(r, 0.4, -9.0)", "ops.softmin(r)", "ops.softmin(r, 0)",
    "ops.prelu(r, Tensor(np.array([0.1, 0.2, 0.3], np.float32)))",
    "P.PReLU()(r, Tensor(np.array([0.25], np.float32)))",
], [("ops.relu6({})", ["KINK"]), ("ops.hardtanh({})", ["KINK"]), ("ops.hardsigmoid({})", ["KINK"]),
    ("ops.hardswish({})", ["KINK"]), ("ops.softsign({})", ["R"]), ("ops.mish({})", ["R"]),
    ("ops.logsigmoid({})", ["R"]), ("ops.elu({})", ["KINK"]),
    ("ops.celu({}, 2.0)", ["R"]), ("ops.leaky_relu({}, 0.1)", ["KINK"]),
    ("ops.softshrink({})", ["R"]), ("ops.hardshrink({})", ["R"]), ("ops.tanhshrink({})", ["R"]),
    ("ops.threshold({}, 0.4, -9.0)", ["R"]), ("ops.softmin({}) * {}", ["R", "U"]),
    ("ops.prelu({}, {})", ["R", "W3"])],
    extra="W3 = np.array([0.1, 0.2, 0.3], np.float32)\n")

_family("reductions", [
    "ops.amax(tie)", "ops.amax(tie, 1)", "tie.amax(0, True)", "ops.amin(tie)", "ops.amin(tie, 1)",
    "tie.amin((0, 1))", "ops.argmin(tie)", "ops.argmin(tie, 1)", "tie.argmin(0)",
    "ops.max(tie, 1)", "ops.min(tie, 0, True)", "tie.min()",
    "P.ReduceMin()(tie, 1)", "P.ReduceMin(True)(tie)", "P.Argmin()(tie)", "P.Argmin(0)(tie)",
    "P.ArgMaxWithValue(1)(tie)", "P.ArgMinWithValue(0, True)(tie)",
    "ops.prod(tie)", "ops.prod(tie, 1)", "tie.prod(0, True)", "P.ReduceProd()(tie, 0)",
    "ops.var(tie)", "ops.var(tie, 1, 1)", "tie.var(0, 0, True)", "ops.std(tie, 0)",
    "tie.std(1, 1)", "ops.logsumexp(tie, 1)", "tie.logsumexp(0, True)", "ops.norm(tie)",
    "ops.norm(tie, 1, 1)", "ops.norm(tie, float('inf'), 0)", "ops.norm(tie, 3.0, 1, True)",
    "tie.norm()", "ops.count_nonzero(tie)", "ops.count_nonzero(tie, 1)",
], [("ops.amax({}, 1)", ["TIE"]), ("ops.amin({}, 0)", ["TIE"]), ("ops.prod({}, 1)", ["TIE"]),
    ("ops.prod({}, 0)", ["TIE"]), ("ops.var({}, 1, 1)", ["TIE"]), ("ops.std({}, 0)", ["TIE"]),
    ("ops.logsumexp({}, 1)", ["TIE"]), ("ops.norm({})", ["TIE"]), ("ops.norm({}, 3.0, 1)", ["TIE"]),
    ("ops.max({}, 0)[0]", ["TIE"]), ("P.ReduceMin()({}, 1)", ["TIE"])])

_family("array_ops", [
    "ops.flip(tie, (0, 1))", "ops.flip(tie, (1,))", "tie.flip((0,))", "ops.fliplr(tie)",
    "ops.flipud(tie)", "P.ReverseV2((1,))(tie)", "ops.repeat_interleave(tie, 2, 0)",
    "ops.repeat_interleave(r, 2)", "tie.repeat_interleave(3, 1)",
    "ops.movedim(tie, 0, 1)", "ops.moveaxis(tie, 1, 0)", "ops.swapaxes(tie, 0, 1)",
    "ops.swapdims(tie, 1, 0)", "tie.swapaxes(0, 1)", "ops.t(tie)", "tie.t()",
    "ops.narrow(tie, 1, 1, 2)", "tie.narrow(0, 1, 2)", "ops.unbind(tie, 1)", "ops.unsqueeze(tie, 1)",
    "ops.ravel(tie)", "ops.eye(3)", "ops.eye(2, 4, ms.int32)", "P.Eye()(3, 2, ms.float32)",
    "ops.full_like(tie, 2.5)", "ops.full_like(i, 7)", "ops.diag(pos[0])", "P.Diag()(pos[0])",
    "ops.trace(tie)", "tie.trace()", "ops.diff(tie)", "ops.diff(tie, 1, 0)", "tie.diff()",
    "ops.meshgrid(pos[0], pos[1, :2])", "ops.meshgrid(pos[0], pos[1, :2], indexing='ij')",
    "ops.outer(pos[0], pos[1])", "pos[0].outer(pos[1])",
], [("ops.flip({}, (0, 1)) * {}", ["TIE", "TIE"]),
    ("ops.repeat_interleave({}, 2, 0) * {}", ["TIE", "TIE2"]), ("ops.diag({})[0] * {}", ["G0", "G0"]),
    ("ops.trace({})", ["TIE3"]), ("ops.diff({}) * {}", ["TIE", "TIE_D"]),
    ("ops.movedim({}, 0, 1) * {}", ["TIE", "TIE_T"])],
    extra="TIE2 = np.repeat(TIE, 2, 0) * 0.5\nG0 = G[0]\nTIE3 = TIE[:3, :3].copy()\n"
          "TIE_D = TIE[:, 1:] * 2\nTIE_T = TIE.T * 3\n")

PROGRAMS["tensor_methods"] = _PRELUDE + '''
class Fwd(nn.Cell):
    def construct(self, r, half, i):
        return (r.eq(half), r.ne(r), r.gt(half), r.ge(half), r.lt(half), r.le(half), r.float(),
                i.float(), r.half(), r.int(), i.long(), r.double(), r.bool(), r.view(3, 2),
                r.view((6,)), r.expand_as(Tensor(np.ones((4, 2, 3), np.float32))),
                r.reshape_as(Tensor(np.ones((3, 2), np.float32))), r.type_as(i), r.sgn(),
                r.inv(), r.where(r > 0, half), r.argmax_with_value(1), r.argmin_with_value(0),
                r.absolute(), r.negative(), r.square(), r.multiply(half), r.subtract(half),
                r.true_divide(half), r.floor_divide(half), r.clip(-1.0, 1.0))


def main():
    r, half, i = Tensor(R), Tensor(HALF), Tensor(I)
    return (Fwd()(r, half, i), r.numel(), r.nelement(), r.dim(), r.ndimension(),
            r.is_floating_point(), i.is_floating_point(), i.is_signed(), r.tolist())
'''

PROGRAMS["nn_cells"] = _PRELUDE + '''
class Acts(nn.Cell):
    def __init__(self):
        super().__init__()
        self.acts = nn.CellList([nn.ELU(), nn.SeLU(), nn.CELU(2.0), nn.LeakyReLU(0.1), nn.HSwish(),
                                  nn.HSigmoid(), nn.Hardtanh(), nn.Mish(), nn.LogSigmoid(),
                                  nn.Softsign(), nn.SoftShrink(), nn.HShrink(), nn.Tanhshrink(),
                                  nn.Threshold(0.4, -9.0), nn.Softmin(), nn.GLU(), nn.Identity(),
                                  nn.Norm(1), nn.ReduceLogSumExp(1)])

    def construct(self, x):
        out = ()
        for cell in self.acts:
            out = out + (cell(x),)
        return out


class PNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(3, 0.2)

    def construct(self, x):
        return (self.prelu(x) * self.prelu(x)).sum()


class Tri(nn.Cell):
    def __init__(self):
        super().__init__()
        self.tril, self.triu = nn.Tril(), nn.Triu()

    def construct(self, x):
        return self.tril(x), self.triu(x, 1)


def main():
    x = Tensor(KINK.reshape(2, 2, 2) - 0.25)
    net = PNet()
    grads = ops.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(R))
    return (Acts()(x), net(Tensor(R)), grads, [p.name for p in net.trainable_params()],
            Tri()(Tensor(TIE)))
'''
