"""Programs for the backward primitives of ``ops.operations._grad_ops`` (``G``) named A-L
(:mod:`framework.ops.grad_formulas`, :mod:`framework.ops.grad_transposes`,
:mod:`framework.ops.normalization_grads`, :mod:`framework.ops.pool_grads`): inverse
trigonometric/hyperbolic, the activations, ``LogSoftmaxGrad``, ``FlattenGrad``, ``GluGrad``,
``L2NormalizeGrad``, the loss gradients, the transposes of linear ops (adaptive and 3-d average
pooling, adaptive max pooling, ``affine_grid``, ``gather_d``, ``lu_unpack``) and the
normalizations' (``BatchNormGrad``, ``LRNGrad``), each called inside a Cell (so graph mode
compiles it) on inputs that include the kinks (``|x| == lambd``, the ``eps`` clamp bounds,
repeated argmax positions) and every attribute.
``ms_grad_ops_a_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_grad_ops_a_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
import importlib

G = importlib.import_module(ms.__name__ + ".ops.operations._grad_ops")
P = ms.ops.operations
U = np.array([[-0.9, -0.5, 0.0], [0.25, 0.6, 0.85]], np.float32)
D = np.array([[1.0, 2.0, -3.0], [0.5, -1.5, 2.0]], np.float32)
Y = np.array([[0.3, 0.8, 1.5], [2.0, 0.1, 3.0]], np.float32)
R = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
PR = np.array([[0.05, 0.3, 0.5], [0.7, 0.9, 0.99]], np.float32)
LB = np.array([[0.0, 1.0, 0.0], [1.0, 0.5, 1.0]], np.float32)
W = np.array([[1.0, 0.5, 2.0], [1.5, 1.0, 0.25]], np.float32)
HS = np.array([[-0.5, 0.5, -0.6], [0.2, 0.0, 1.0]], np.float32)
S = np.array(1.5, np.float32)
X4 = np.array([[1.0, -2.0, 0.5, 3.0], [-1.5, 0.25, -0.75, 2.0]], np.float32)
G2 = np.array([[1.0, -0.5], [2.0, 1.5]], np.float32)
G13 = np.array([[1.0, -2.0, 0.5]], np.float32)
AG = np.linspace(-2.0, 3.0, 24, dtype=np.float32).reshape(1, 2, 3, 4)
AG3 = np.array([[[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], [[2.0, 1.0, -0.5], [0.0, 4.0, 1.5]]], np.float32)
G3D = np.linspace(1.0, 6.0, 24, dtype=np.float32).reshape(2, 2, 3, 2)
IX = np.array([[0, 2], [2, 2]], np.int64)
IX0 = np.array([[1, 0, 1], [1, 1, 0]], np.int64)
D2 = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
XL = np.linspace(-2.0, 2.5, 16, dtype=np.float32).reshape(1, 4, 2, 2)
GL = np.cos(np.arange(16, dtype=np.float32)).reshape(1, 4, 2, 2)
XB = np.sin(np.arange(24, dtype=np.float32) * 1.3).reshape(2, 3, 2, 2) * 2.0
GB = np.cos(np.arange(24, dtype=np.float32) * 0.7).reshape(2, 3, 2, 2)
SC = np.array([1.0, 2.0, 0.5], np.float32)
MB, VB = XB.mean((0, 2, 3)), XB.var((0, 2, 3))
RM, RV = np.array([0.1, -0.2, 0.3], np.float32), np.array([0.5, 2.0, 1.0], np.float32)
Z3 = np.zeros(3, np.float32)
X2 = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-2.0, 1.0, 0.25], [0.0, 3.0, 1.0]], np.float32)
GX2 = np.array([[1.0, -0.5, 0.3], [0.2, 0.8, -1.0], [-0.6, 0.4, 0.9], [1.1, -0.2, 0.5]], np.float32)
M2, V2 = X2.mean(0), X2.var(0)
XM = np.linspace(-1.0, 2.0, 32, dtype=np.float32).reshape(1, 2, 4, 4)
AM = np.array([[[[1, 7], [13, 11]], [[5, 5], [8, 10]]]], np.int64)
GM = np.array([[[[0.5, -1.0], [2.0, 0.25]], [[1.5, -0.5], [3.0, 1.0]]]], np.float32)
YG = np.sin(np.arange(24, dtype=np.float32)).reshape(2, 2, 3, 2)
X5 = np.linspace(-1.0, 1.0, 16, dtype=np.float32).reshape(1, 1, 2, 2, 4)
G5 = np.array([1.0, 2.0, 3.0, 4.0], np.float32).reshape(1, 1, 1, 2, 2)
A5 = np.array([1, 1, 9, 14], np.int64).reshape(1, 1, 1, 2, 2)
LG = np.sin(np.arange(12, dtype=np.float32) + 0.5).reshape(4, 3)
UG = np.cos(np.arange(9, dtype=np.float32) * 1.7).reshape(3, 3)
LU = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)
LGW, UGW, LUW = LG[:3], UG.T @ np.ones((3, 4), np.float32), LU.reshape(3, 4)
LGB = np.stack([LG[:3], -LG[1:]]).astype(np.float32)
UGB = np.stack([UG, UG * 2.0]).astype(np.float32)
LUB = np.stack([LU[:3], LU[1:]]).astype(np.float32)
GP = np.arange(1.0, 9.0, dtype=np.float32).reshape(1, 1, 2, 2, 2)
GP2 = np.linspace(-1.0, 2.0, 16, dtype=np.float32).reshape(1, 2, 2, 2, 2)
YG3 = np.cos(np.arange(36, dtype=np.float32) * 0.4).reshape(1, 2, 2, 3, 3)
'''

PROGRAMS: dict[str, str] = {}

_ARRAYS = ("U", "D", "Y", "R", "PR", "LB", "W", "HS", "S", "X4", "G2", "G13", "AG", "AG3", "G3D", "IX",
           "IX0", "D2", "XL", "GL", "XB", "GB", "SC", "MB", "VB", "RM", "RV", "Z3", "X2", "GX2", "M2", "V2",
           "XM", "AM", "GM", "YG", "YG3", "X5", "G5", "A5", "LG", "UG", "LU", "LGW", "UGW", "LUW",
           "LGB", "UGB", "LUB", "GP", "GP2")


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    arrays = sorted(used_arrays(_ARRAYS, forward))
    PROGRAMS[name] = family_source(_PRELUDE, arrays, forward, grads)


_family("inverse_trig_grads", [
    "G.ACosGrad()(u, d)", "G.AsinGrad()(u, d)", "G.AtanGrad()(r, d)",
    "G.AcoshGrad()(y, d)", "G.AsinhGrad()(r, d)", "G.InvGrad()(r, d)",
])

_family("activation_grads", [
    "G.GeLUGrad()(d, r, r)", "G.FastGeLUGrad()(d, r)", "G.HShrinkGrad()(d, hs)",
    "G.HShrinkGrad(lambd=0.55)(d, hs)", "G.LogitGrad()(d, pr)", "G.LogitGrad(eps=0.3)(d, pr)",
    "G.LogitGrad(0.05)(d, pr)",
])

_family("softmax_shape_glu_grads", [
    "G.LogSoftmaxGrad()(ops.log_softmax(r, -1), d)",
    "G.LogSoftmaxGrad(axis=0)(ops.log_softmax(r, 0), d)",
    "G.FlattenGrad()(d, (3, 2))", "G.FlattenGrad()(d, (6,))",
    "G.GluGrad(-1)(g2, x4)", "G.GluGrad(axis=0)(g13, r)",
    "G.L2NormalizeGrad()(r, P.L2Normalize(axis=0)(r), d)",
    "G.L2NormalizeGrad(axis=1, epsilon=4.0)(u, P.L2Normalize(axis=1, epsilon=4.0)(u), d)",
])

_family("loss_grads", [
    "G.BinaryCrossEntropyGrad()(pr, lb, s)", "G.BinaryCrossEntropyGrad('sum')(pr, lb, s, w)",
    "G.BinaryCrossEntropyGrad(reduction='none')(pr, lb, d, w)",
    "G.BinaryCrossEntropyGrad('none')(pr, lb, d)",
    "G.KLDivLossGrad()(s, r, pr)", "G.KLDivLossGrad('sum')(s, r, pr)",
    "G.KLDivLossGrad(reduction='none')(d, r, pr)", "G.KLDivLossGrad('batchmean')(s, r, pr)",
])

_family("linear_transpose_grads", [
    "G.AdaptiveAvgPool2DGrad()(ag, (1, 2, 5, 7))", "G.AdaptiveAvgPool2DGrad()(ag, (1, 2, 3, 4))",
    "G.AdaptiveAvgPool2DGrad()(ag3, (2, 3, 4))",
    "G.AdaptiveAvgPool3DGrad()(g3d, Tensor([2, 3, 4, 5], ms.int32))",
    "G.GatherDGradV2()(r, 1, ix, d2)", "G.GatherDGradV2()(r, 0, ix0, d)",
    "G.AdaptiveMaxPool2DGrad()(gm, xm, am)", "G.AdaptiveMaxPool3DGrad()(g5, x5, a5)",
    "G.LuUnpackGrad(True, True)(lg, ug, lu)",
    "G.LuUnpackGrad(L_grad_flag=False, U_grad_flag=True)(lgw, ugw, luw)",
    "G.LuUnpackGrad(True, False)(lgb, ugb, lub)",
    "G.AffineGridGrad()(yg, (2, 1, 2, 3))", "G.AffineGridGrad(align_corners=True)(yg, (2, 1, 2, 3))",
    "G.AffineGridGrad(False)(yg3, (1, 1, 2, 2, 3))",
])

_family("normalization_grads", [
    "G.LRNGrad(2, 1.0, 0.5, 0.75)(gl, xl, P.LRN(2, 1.0, 0.5, 0.75)(xl))",
    "G.LRNGrad()(gl, xl, P.LRN()(xl))",
    "G.LRNGrad(depth_radius=1, bias=2.0, alpha=0.1, beta=0.5)(gl, xl, xl)",
    "G.BatchNormGrad(is_training=True)(gb, xb, sc, mb, vb, z3)",
    "G.BatchNormGrad()(gb, xb, sc, rm, rv, z3)",
    "G.BatchNormGrad(True, 0.01)(gx2, x2, sc, m2, v2, z3)",
])

_family("avg_pool3d_grads", [
    "G.AvgPool3DGrad(kernel_size=2, strides=1)((1, 1, 3, 3, 3), gp)",
    "G.AvgPool3DGrad(2, 2, 1, count_include_pad=False)((1, 1, 3, 3, 3), gp)",
    "G.AvgPool3DGrad(2, 2, 1)((1, 1, 3, 3, 3), gp)",
    "G.AvgPool3DGrad(kernel_size=2, strides=2, ceil_mode=True)((1, 1, 3, 3, 3), gp)",
    "G.AvgPool3DGrad(2, 1, divisor_override=3)((1, 1, 3, 3, 3), gp)",
    "G.AvgPool3DGrad(kernel_size=(1, 2, 2), strides=(1, 2, 1), pad_mode='valid')((1, 2, 2, 4, 3), gp2)",
])


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_grad_ops_a_expected.json"))
