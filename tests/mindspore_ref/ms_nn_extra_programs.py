"""Programs for issue 25's second batch of names (losses, 1-d and adaptive pooling, padding
and shuffle cells, distances, group norm, cumulative ops, products, array and math
functions), a few names per program so that one MindSpore failure costs one program.

Each program has a forward cell (``ops.f(...)`` and the ``nn`` cells) and, for the
differentiable ones, a loss cell summing each op on fresh inputs, differentiated with
``ops.grad`` at every input. Both run as Cells, so graph mode compiles them. Inputs keep
off the kinks (no ties in pooling windows, no ``|d| == beta``). ``ms_nn_extra_expected.json``
holds MindSpore 2.10's answers on CPU.
"""

from __future__ import annotations

import re

_PRELUDE = '''
X = np.array([[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, -2.2, 0.05], [-0.6, 1.1, 0.45, -1.7]], np.float32)
Y = np.array([[0.1, 0.4, 1.2, 0.2], [-1.0, 0.35, -0.9, 1.3], [0.8, 1.15, -0.5, 0.6]], np.float32)
P = np.array([[0.2, 0.7, 0.45, 0.9], [0.05, 0.6, 0.3, 0.85], [0.55, 0.15, 0.95, 0.4]], np.float32)
Q = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]], np.float32)
V = np.array([[0.5, 1.5, 0.2, 2.0], [1.1, 0.3, 0.9, 0.7], [0.25, 1.2, 0.6, 0.05]], np.float32)
LOGP = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1], [0.7, 0.1, 0.1, 0.1]], np.float32))
T = np.array([3, 0, 2], np.int32)
T64 = T.astype(np.int64)
S = np.array([1.0, -1.0, 1.0], np.float32)
W4 = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
W34 = np.tile(W4, (3, 1))
L = np.array([[[0.3, -1.2, 2.5, 0.7, 1.9, -0.4, -2.2], [0.05, -0.6, 1.1, 0.45, -1.7, 0.9, 1.4]],
              [[0.8, 1.15, -0.5, 0.6, -1.0, 0.35, -0.9], [1.3, 0.1, 0.4, 1.2, 0.2, 2.1, -0.3]]],
             np.float32)
IMG = np.arange(2 * 4 * 5 * 6, dtype=np.float32).reshape(2, 4, 5, 6) % 7 * 0.37 - \\
    np.arange(2 * 4 * 5 * 6, dtype=np.float32).reshape(2, 4, 5, 6) * 0.011
IMG3 = IMG[:, :, :3, :4].copy()
M3 = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0]], np.float32)
M34 = np.array([[0.5, -1.0, 2.0, 0.1], [1.5, 0.2, -0.3, 0.7], [0.9, -0.8, 0.4, 1.1]], np.float32)
B23 = np.array([[[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0]], [[0.2, -0.4, 1.0], [0.6, 1.5, -2.0]]], np.float32)
B34 = np.array([M34, M34[::-1] * 0.5], np.float32)
M24 = M34[:2].copy()
C3S = M34[:, :3].copy()
I4 = np.array([1, -2, 0, 3], np.int32)
L6 = L[:, :, :6].copy()
V3 = np.array([0.3, -1.2, 2.0], np.float32)
V4 = np.array([1.0, 0.5, -0.25, 2.0], np.float32)
C3 = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.3, 0.0, -2.0], [1.5, 1.0, 0.25]], np.float32)
D3 = np.array([[0.5, -1.0, 2.0], [2.0, 1.0, 0.1], [-0.7, 0.6, 1.2], [0.0, 2.5, 1.0]], np.float32)
SP = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.5, 2.0, 0.5], np.float32)
INF = float("inf")
TIE = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, -4.0], [0.0, 2.5, 0.0, 1.0]], np.float32)
'''

_ARRAYS = ("X", "Y", "P", "Q", "V", "LOGP", "T", "T64", "W34", "M24", "C3S", "I4", "L6", "S", "W4", "L",
           "IMG",
           "IMG3", "M3", "M34",
           "B23", "B34", "V3", "V4", "C3", "D3", "SP", "TIE")

PROGRAMS: dict[str, str] = {}


def _names(expr: str) -> set[str]:
    return set(re.findall(r"[a-z_0-9]+", expr))


_CELL = re.compile(r"nn\.[A-Z]\w*\((?:[^()]|\([^()]*\))*\)")


def _hoist(exprs: list[str], inits: list[str]) -> list[str]:
    """Cells built once in ``__init__`` (``self.cell_0`` ...), not inside ``construct``; an array
    named in a cell's arguments becomes its tensor."""
    def cell(match: re.Match) -> str:
        ctor = re.sub(r"\b(" + "|".join(a.lower() for a in _ARRAYS) + r")\b",
                      lambda m: f"Tensor({m.group(1).upper()})", match.group(0))
        inits.append(f"        self.cell_{len(inits)} = {ctor}")
        return f"self.cell_{len(inits) - 1}"

    return [_CELL.sub(cell, e) for e in exprs]


def _program(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
             extra: str = "", plain: list[str] | None = None) -> None:
    """``forward``: expressions over the arrays (as tensors, lower-case names: ``x`` is
    ``Tensor(X)``); ``grads``: ``(template, arrays)``, each ``{}`` a fresh input;
    ``plain``: expressions evaluated outside any Cell (Python answers)."""
    inits: list[str] = []
    forward = _hoist(forward, inits)
    arrays = sorted(a for a in _ARRAYS if any(a.lower() in _names(e) for e in forward))
    args = ", ".join(a.lower() for a in arrays)
    body = [extra, "class Fwd(nn.Cell):", "    def __init__(self):", "        super().__init__()",
            *inits, "        self.set_train(False)", f"    def construct(self, {args}):",
            "        return (" + ",\n                ".join(forward) + ",)", ""]
    call = [f"Fwd()({', '.join(f'Tensor({a})' for a in arrays)})"]
    if grads:
        params, terms, feeds, inits = [], [], [], []
        grads = list(zip(_hoist([t for t, _ in grads], inits), [a for _, a in grads]))
        for template, inputs in grads:
            names = [f"a{len(params) + i}" for i in range(len(inputs))]
            params += names
            feeds += [f"Tensor({a})" for a in inputs]
            terms.append("(" + template.format(*names) + ").sum()")
        body += ["class Loss(nn.Cell):", "    def __init__(self):", "        super().__init__()",
                 *inits, f"    def construct(self, {', '.join(params)}):",
                 "        return (" + "\n                + ".join(terms) + ")", ""]
        positions = tuple(range(len(params))) if len(params) > 1 else 0
        call.append(f"ops.grad(Loss(), grad_position={positions})({', '.join(feeds)})")
    call += plain or []
    body += ["def main():", f"    return {', '.join(call)}"]
    PROGRAMS[name] = _PRELUDE + "\n".join(body) + "\n"


# -- losses -------------------------------------------------------------------------------
_program("l1_mse_smooth_huber", [
    "ops.l1_loss(x, y)", "ops.l1_loss(x, y, 'none')", "ops.mse_loss(x, y, 'sum')",
    "ops.smooth_l1_loss(x, y)", "ops.smooth_l1_loss(x, y, 0.5, 'mean')",
    "ops.huber_loss(x, y)", "ops.huber_loss(x, y, 'none', 0.7)",
    "nn.SmoothL1Loss(0.5)(x, y)", "nn.HuberLoss('sum', 2.0)(x, y)", "nn.MAELoss()(x, y)",
    "nn.MAELoss('none')(x, y)", "nn.RMSELoss()(x, y)",
], [("ops.l1_loss({}, {})", ["X", "Y"]), ("ops.mse_loss({}, {})", ["X", "Y"]),
    ("ops.smooth_l1_loss({}, {}, 0.5)", ["X", "Y"]), ("ops.huber_loss({}, {}, 'sum', 0.7)", ["X", "Y"]),
    ("nn.RMSELoss()({}, {})", ["X", "Y"])])

_program("gaussian_nll", [
    "ops.gaussian_nll_loss(x, y, v)", "ops.gaussian_nll_loss(x, y, v, True, 0.1, 'none')",
    "nn.GaussianNLLLoss(reduction='sum')(x, y, v)",
], [("ops.gaussian_nll_loss({}, {}, {})", ["X", "Y", "V"])])

_program("binary_cross_entropy", [
    "ops.binary_cross_entropy(p, q)", "ops.binary_cross_entropy(p, q, w34, 'none')",
    "nn.BCELoss(reduction='sum')(p, q)", "nn.BCELoss(w34)(p, q)",
], [("ops.binary_cross_entropy({}, {}, None, 'sum')", ["P", "Q"])])

_program("nll_loss", [
    "ops.nll_loss(logp, t)", "ops.nll_loss(logp, t, w4)", "ops.nll_loss(logp, t, None, 2, 'none')",
    "ops.nll_loss(logp, t, w4, 0, 'sum')", "nn.NLLLoss()(logp, t)", "nn.NLLLoss(w4, 3)(logp, t)",
], [("ops.nll_loss({}, Tensor(T), Tensor(W4))", ["LOGP"])])

_program("nll_loss_smoothing", ["ops.nll_loss(logp, t, None, -100, 'mean', 0.1)"])

_program("kl_div", [
    "ops.kl_div(logp, q)", "ops.kl_div(logp, p, 'sum')", "ops.kl_div(logp, p, 'none')",
    "ops.kl_div(logp, p, 'batchmean')", "nn.KLDivLoss('batchmean')(logp, p)", "nn.KLDivLoss()(logp, p)",
], [("ops.kl_div({}, {}, 'sum')", ["LOGP", "P"])])

_program("multi_margin", [
    "ops.multi_margin_loss(x, t64)", "ops.multi_margin_loss(x, t64, 2, 2)",
    "ops.multi_margin_loss(x, t64, 1, 1, w4, 'none')", "nn.MultiMarginLoss()(x, t64)",
    "nn.MultiMarginLoss(2, 1.0, 'sum')(x, t64)",
], [("ops.multi_margin_loss({}, Tensor(T64))", ["X"])])

_program("multilabel_soft_margin", [
    "ops.multilabel_soft_margin_loss(x, q)", "ops.multilabel_soft_margin_loss(x, q, w4, 'none')",
    "nn.MultiLabelSoftMarginLoss(reduction='sum')(x, q)",
], [("ops.multilabel_soft_margin_loss({}, Tensor(Q))", ["X"])])

_program("pair_losses", [
    "ops.cosine_embedding_loss(x, y, s)", "ops.cosine_embedding_loss(x, y, s, 0.2, 'none')",
    "nn.CosineEmbeddingLoss(0.1, 'sum')(x, y, s)",
    "ops.margin_ranking_loss(x[:, 0], y[:, 0], s)",
    "ops.margin_ranking_loss(x[:, 1], y[:, 1], s, 0.5, 'none')",
    "nn.MarginRankingLoss(0.3)(x[:, 2], y[:, 2], s)",
    "ops.hinge_embedding_loss(x, q * 2 - 1)", "ops.hinge_embedding_loss(x, q * 2 - 1, 0.5, 'none')",
    "nn.HingeEmbeddingLoss(2.0, 'sum')(x, q * 2 - 1)",
], [("ops.cosine_embedding_loss({}, {}, Tensor(S), 0.2)", ["X", "Y"]),
    ("ops.margin_ranking_loss({}, {}, Tensor(W4 - 1.0), 0.1)", ["V4", "W4"]),
    ("ops.hinge_embedding_loss({}, Tensor(Q) * 2 - 1)", ["X"])])

# -- pooling ------------------------------------------------------------------------------
_program("avg_pool1d", [
    "ops.avg_pool1d(l, 3, 2)", "ops.avg_pool1d(l, 3, 2, 1)",
    "ops.avg_pool1d(l, 2, 1, 1, False, False)",
    "nn.AvgPool1d(3, 1)(l)", "nn.AvgPool1d(2, 2, 'same')(l)", "nn.AvgPool1d(4, 2, 'same')(l)",
    "nn.AvgPool1d(3, 2, 'pad', 1)(l)",
], [("ops.avg_pool1d({}, 3, 2, 1)", ["L"]), ("nn.AvgPool1d(4, 2, 'same')({})", ["L"])])

_program("max_pool1d", [
    "nn.MaxPool1d(3, 2)(l)", "nn.MaxPool1d(2, 1)(l)", "nn.MaxPool1d(2, 2, 'same')(l)",
    "nn.MaxPool1d(3, 2, 'pad', 1)(l)",
], [("nn.MaxPool1d(3, 2)({})", ["L"]), ("nn.MaxPool1d(3, 2, 'pad', 1)({})", ["L"])])

_program("adaptive_pool", [
    "ops.adaptive_avg_pool1d(l[:, :, :6], 3)", "ops.adaptive_avg_pool1d(l, 7)",
    "ops.adaptive_max_pool1d(l[:, :, :6], 3)",
    "ops.adaptive_avg_pool2d(img, (2, 4))", "ops.adaptive_avg_pool2d(img, 3)",
    "ops.adaptive_avg_pool2d(img, (None, 2))", "ops.adaptive_max_pool2d(img, (2, 4))",
    "nn.AdaptiveAvgPool1d(2)(l[:, :, 1:])", "nn.AdaptiveMaxPool1d(3)(l[:, :, 1:])",
    "nn.AdaptiveAvgPool2d((3, 2))(img)",
    "nn.AdaptiveMaxPool2d(2)(img)",
], [("ops.adaptive_avg_pool1d({}, 3)", ["L6"]), ("ops.adaptive_max_pool1d({}, 3)", ["L6"]),
    ("ops.adaptive_avg_pool2d({}, (2, 4))", ["IMG"]), ("ops.adaptive_max_pool2d({}, (2, 4))", ["IMG"])])

# -- padding, shuffles, dropout in evaluation, distances, normalization ---------------------
_program("padding_cells", [
    "nn.ZeroPad2d(1)(img3)", "nn.ZeroPad2d((1, 0, 2, 1))(img3)", "nn.ConstantPad1d(2, 0.5)(l)",
    "nn.ConstantPad1d((0, 3), -1.0)(l)", "nn.ConstantPad2d((1, 2, 0, 1), 3.0)(img3)",
    "nn.ConstantPad3d(1, 0.25)(img3)", "nn.ReflectionPad1d(2)(l)", "nn.ReflectionPad1d((3, 1))(l)",
    "nn.ReflectionPad2d((1, 2, 2, 0))(img3)",
], [("nn.ReflectionPad2d((1, 2, 2, 0))({})", ["IMG3"]), ("nn.ConstantPad3d(1, 0.25)({})", ["IMG3"])])

_program("reflection_pad3d", ["nn.ReflectionPad3d(1)(img3)"])

_program("shuffles", [
    "ops.pixel_shuffle(img, 2)", "ops.pixel_unshuffle(img[:, :, :4, :], 2)",
    "nn.PixelShuffle(2)(img)", "nn.PixelUnshuffle(2)(img[:, :, :4, :])",
    "ops.channel_shuffle(img, 2)", "nn.ChannelShuffle(2)(img)",
    "nn.Unflatten(1, (2, 2))(img)", "nn.Unflatten(-1, (3, 2))(img)", "nn.Softmax2d()(img)",
    "ops.glu(x)", "ops.glu(img, 1)",
], [("ops.pixel_shuffle({}, 2) * Tensor(np.arange(2 * 10 * 12, dtype=np.float32).reshape(2, 1, 10, 12))",
     ["IMG"]), ("nn.Softmax2d()({}) * Tensor(IMG)", ["IMG"]), ("ops.glu({})", ["X"])])

_program("dropout_eval", [
    "ops.dropout1d(l, 0.5, False)", "ops.dropout2d(img, 0.5, False)",
    "nn.Dropout1d(0.3)(l)", "nn.Dropout2d()(img)", "nn.Dropout3d(0.2)(img[None])",
])

_program("distances", [
    "ops.cosine_similarity(x, y)", "ops.cosine_similarity(x, y, 0)",
    "ops.cdist(c3, d3)", "ops.cdist(c3, d3, 1.0)", "ops.cdist(b23, b23 * 0.5 + 1.0)",
    "ops.pdist(c3)", "ops.pdist(c3, 1.0)", "ops.dist(x, y)", "ops.dist(x, y, 1)",
], [("ops.cosine_similarity({}, {})", ["X", "Y"]), ("ops.cdist({}, {})", ["C3", "D3"]),
    ("ops.pdist({})", ["C3"]), ("ops.dist({}, {})", ["X", "Y"])])

_program("group_norm", [
    "ops.group_norm(img, 2)", "ops.group_norm(img, 4, w4, w4 - 1.0)", "nn.GroupNorm(2, 4)(img)",
    "ops.group_norm(l, 1)",
], [("ops.group_norm({}, 2, {}, {})", ["IMG", "W4", "V4"])])

# -- cumulative ops -----------------------------------------------------------------------
_program("cumprod", ["ops.cumprod(x, 0)", "ops.cumprod(x, 1)"], [("ops.cumprod({}, 1)", ["X"])])

_program("cummax_cummin", [
    "ops.cummax(tie, 1)", "ops.cummin(tie, 1)", "ops.cummax(x, 0)", "ops.cummin(x, 0)",
])

_program("logcumsumexp", ["ops.logcumsumexp(x, 1)", "ops.logcumsumexp(x, 0)"],
         [("ops.logcumsumexp({}, 1)", ["X"])])

# -- products -----------------------------------------------------------------------------
_program("products", [
    "ops.mm(m3, c3.T)", "ops.bmm(b23, b23.transpose(0, 2, 1))", "ops.mv(m34, v4)", "ops.dot(m3, m34)",
    "ops.dot(b23, b34)",
    "ops.inner(x, y)", "ops.inner(v4, w4)", "ops.ger(v3, v4)", "ops.vecdot(x, y)",
    "ops.kron(m3, v3)", "ops.kron(m3, m34)", "ops.tensor_dot(b23, m34, 1)",
    "ops.tensor_dot(b23, m3, ((1, 2), (0, 1)))", "ops.cross(c3, d3)", "ops.cross(c3.T, d3.T, 0)",
], [("ops.mm({}, {})", ["M3", "M34"]), ("ops.bmm({}, {})", ["B23", "B34"]), ("ops.mv({}, {})", ["M34", "V4"]),
    ("ops.dot({}, {})", ["B23", "M34"]), ("ops.inner({}, {})", ["X", "Y"]), ("ops.ger({}, {})", ["V3", "V4"]),
    ("ops.kron({}, {})", ["M3", "V3"]), ("ops.tensor_dot({}, {}, 1)", ["B23", "M34"]),
    ("ops.cross({}, {})", ["C3", "D3"])])

_program("scaled_products", [
    "ops.addmm(m34[:2], m3, m34, beta=0.5, alpha=2.0)", "ops.addmv(v3, m34, v4)",
    "ops.addr(m34, v3, v4, beta=2.0, alpha=0.5)", "ops.baddbmm(b34[:, :2], b23, b34, 0.5, 2.0)",
    "ops.addbmm(m34[:2], b23, b34, beta=1.5)", "ops.addcmul(x, y, v, 0.5)", "ops.addcdiv(x, y, v, 2.0)",
], [("ops.addmm({}, {}, {}, beta=0.5, alpha=2.0)", ["M24", "M3", "M34"]),
    ("ops.addcmul({}, {}, {}, 0.5)", ["X", "Y", "V"]), ("ops.addcdiv({}, {}, {}, 2.0)", ["X", "Y", "V"]),
    ("ops.baddbmm({}, {}, {}, 0.5, 2.0)", ["M24", "B23", "B34"])])

# -- array functions ----------------------------------------------------------------------
_program("stacks_splits", [
    "ops.atleast_2d(v3)", "ops.atleast_3d(x)", "ops.atleast_1d((v3, x))", "ops.hstack((x, y))",
    "ops.hstack((v3, v4))", "ops.vstack((x, y))", "ops.vstack((v4, w4))", "ops.row_stack((x, v4))",
    "ops.dstack((x, y))", "ops.column_stack((v3, m3.T))", "ops.tensor_split(x, 3, 1)",
    "ops.tensor_split(l, (2, 5), 2)", "ops.hsplit(x, 2)", "ops.vsplit(x, 3)", "ops.dsplit(l, (3,))",
])

_program("rot_diag_select", [
    "ops.rot90(x, 1, (0, 1))", "ops.rot90(x, 2, (0, 1))", "ops.rot90(img3, 3, (2, 3))",
    "ops.rot90(x, -1, (1, 0))", "ops.diagflat(v3)", "ops.diagflat(m3, 1)", "ops.diagflat(v3, -2)",
    "ops.index_select(x, 1, t)", "ops.index_select(img3, 1, t[1:])",
], [("ops.rot90({}, 1, (0, 1)) * Tensor(M34.T)", ["X"]), ("ops.diagflat({}, 1)", ["V4"]),
    ("ops.index_select({}, 1, Tensor(T)) * Tensor(Y[:, :3])", ["X"])])

# -- math ---------------------------------------------------------------------------------
_program("compare_logic", [
    "ops.eq(x, y)", "ops.ne(x, tie)", "ops.gt(x, y)", "ops.ge(tie, 2.0)", "ops.le(x, y)",
    "ops.all(ops.gt(x, -3.0))", "ops.all(ops.gt(x, 0.0), 1)", "ops.any(ops.gt(x, 2.0), 0, True)",
    "ops.any(x)", "ops.all(t)",
])

_program("sign_special", [
    "ops.signbit(sp)", "ops.copysign(v4, -v4)", "ops.copysign(sp, sp * -1.0)",
    "ops.heaviside(tie - 2.0, w4)", "ops.sgn(x)", "ops.isneginf(sp)", "ops.isposinf(sp)",
    "ops.nan_to_num(sp)", "ops.nan_to_num(sp, 1.0, 100.0, -100.0)", "ops.isclose(x, x + 1e-6)",
    "ops.isclose(sp, sp, equal_nan=True)", "ops.isclose(x, y, 0.5, 0.5)",
], [("ops.copysign({}, Tensor(-V4))", ["W4"])])

_program("nan_reductions", [
    "ops.nansum(sp[3:])", "ops.nansum(sp[:1])", "ops.nanmean(x, 1)",
    "ops.nansum(x, 0, True)",
], [("ops.nansum({}, 1)", ["X"]), ("ops.nanmean({}, 0)", ["Y"])])

_program("elementwise_more", [
    "ops.sinc(x)", "ops.sinc(tie)", "ops.logit(p)", "ops.logit(q, 0.1)", "ops.fmax(x, y)",
    "ops.xdivy(tie, w4)", "ops.truncate_div(x, y)", "ops.truncate_mod(x, y)",
    "ops.float_power(x, 2)", "ops.float_power(p, y)",
], [("ops.sinc({})", ["X"]), ("ops.logit({})", ["P"]), ("ops.logit({}, 0.1)", ["P"]),
    ("ops.xdivy({}, {})", ["X", "V"]), ("ops.fmax({}, {})", ["X", "Y"])])

_program("reductions_more", [
    "ops.std_mean(x)", "ops.std_mean(x, 1, 1, True)", "ops.var_mean(x, 0)", "ops.aminmax(x)",
    "ops.aminmax(x, axis=1, keepdims=True)", "ops.argsort(x)", "ops.argsort(x, 0, True)",
    "ops.clip_by_value(x, -1.0, 1.0)", "ops.vector_norm(x)", "ops.vector_norm(x, 1, 1)",
    "ops.vector_norm(x, INF, 0)", "ops.vector_norm(x, 3.0, (0, 1), True)",
    "ops.trapz(x)", "ops.trapz(x, dx=0.5, dim=0)", "ops.trapz(x, v, dim=1)",
], [("ops.std_mean({}, 1)[0]", ["X"]), ("ops.var_mean({}, 0)[0]", ["Y"]),
    ("ops.vector_norm({}, 3.0)", ["X"]), ("ops.trapz({}, Tensor(V))", ["X"]),
    ("ops.clip_by_value({}, -1.0, 1.0)", ["X"])])

_program("python_answers", ["x * 1.0"], plain=[
    "ops.numel(Tensor(X))", "ops.is_tensor(Tensor(X))", "ops.is_tensor(X)",
    "ops.is_floating_point(Tensor(X))", "ops.is_floating_point(Tensor(T))",
])

_program("creation_assembly", [
    "ops.linspace(-1.0, 2.0, 7)", "ops.logspace(0.0, 2.0, 5)", "ops.logspace(-1.0, 1.0, 3, 2)",
    "ops.tril_indices(3, 4)", "ops.triu_indices(4, 3, 1)", "ops.tril_indices(3, 3, -1)",
    "ops.cartesian_prod(v3, w4)", "ops.block_diag(m3, m34, v3)", "ops.msort(x)",
    "ops.matrix_power(m34[:, :3], 3)", "ops.matrix_power(b34[:, :, :3], 2)", "ops.ldexp(x, i4)",
], [("ops.matrix_power({}, 3)", ["C3S"]), ("ops.block_diag({}, {})", ["M3", "V3"]),
    ("ops.msort({}) * Tensor(Y)", ["X"]), ("ops.cartesian_prod({}, {}) * 2.0", ["V3", "W4"])],
    plain=["ops.tuple_to_array((1, 2, 3))", "ops.tuple_to_array((0.5, 1.5))"])
