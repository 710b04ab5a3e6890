"""Programs for the backward primitives of ``ops.operations._grad_ops`` (``G``) of the layers,
the resizes and the selections (:mod:`framework.ops.layer_backprops`,
:mod:`framework.ops.resize_backprops`, :mod:`framework.ops.selection_backprops`,
``IgammaGradA`` of :mod:`framework.ops.special_math`): ``Conv2DBackpropFilter`` (every pad
mode, stride, dilation, groups), the second-order ``LayerNormGradGrad`` and
``BatchNormGradGrad`` (training and inference), ``IgammaGradA`` (broadcast, float64),
``SparseSliceGrad``, ``UpsampleNearest3DGrad`` and ``UpsampleTrilinear3DGrad`` (by output
size and by scales that do not divide, and as the gradients of ``P.UpsampleNearest3D``/
``P.UpsampleTrilinear3D`` by scales), ``ResizeV2Grad`` (each mode and coordinate mode), each
called inside a Cell (so graph mode compiles it), with ``ops.grad`` through
``Conv2DBackpropFilter`` (MindSpore defines no bprop for the others).

``SoftmaxGrad`` and ``UniqueGrad`` MindSpore 2.10 cannot run on CPU (``UNTESTABLE``, its
error): ``test_ms_grad_misc.py`` checks ours against NumPy and finite differences instead.
``ms_grad_misc_expected.json`` holds MindSpore 2.10's answers on CPU per mode; ``python -m
tests.mindspore_ref.ms_grad_misc_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_UNSUPPORTED = "Kernel select failed: Unsupported op [{}] on CPU (MindSpore 2.10, both modes)"
UNTESTABLE = {f"ops.operations._grad_ops:{n}": _UNSUPPORTED.format(n) for n in ("SoftmaxGrad", "UniqueGrad")}

_PRELUDE = '''
import importlib

G = importlib.import_module(ms.__name__ + ".ops.operations._grad_ops")
P = ms.ops.operations
_r = np.random.default_rng(7)


def _n(*shape, scale=1.0):
    return (_r.standard_normal(shape) * scale).astype(np.float32)


IA = np.array([0.5, 2.0, 4.0, 6.0, 8.0, 1.0], np.float32)
IX = np.array([0.3, 2.0, 3.0, 4.0, 5.0, 0.01], np.float32)
IA2 = np.array([[0.7], [3.5]], np.float32)
IX2 = np.array([[0.2, 1.0, 2.5, 6.0]], np.float32)
IA64 = IA.astype(np.float64)
IX64 = IX.astype(np.float64)
CX = _n(2, 4, 6, 6)
CD1 = _n(2, 3, 4, 4)
CD2 = _n(2, 3, 2, 3)
CD3 = _n(2, 3, 6, 6)
CD4 = _n(2, 3, 3, 3)
CD5 = _n(2, 4, 5, 5)
LX = _n(2, 3, 4)
LD = _n(2, 3, 4)
LM, LV = LX.mean((1, 2), keepdims=True), LX.var((1, 2), keepdims=True)
LG = _n(3, 4)
LU = _n(2, 3, 4)
LW, LB = _n(3, 4), _n(3, 4)
LM2, LV2 = LX.mean(2, keepdims=True), LX.var(2, keepdims=True)
LG2, LW2, LB2 = _n(4), _n(4), _n(4)
LXS = _n(2, 3, 4, scale=3e-5)  # variance near 1e-9: the epsilon MindSpore adds shows
LMS, LVS = LXS.mean((1, 2), keepdims=True), LXS.var((1, 2), keepdims=True)
BX = _n(2, 3, 2, 2) * 2.0 + 0.5
BD, BU = _n(2, 3, 2, 2), _n(2, 3, 2, 2)
BS, BW, BB = _n(3), _n(3), _n(3)
BM, BV = BX.mean((0, 2, 3)), BX.var((0, 2, 3))
RM, RV = np.array([0.1, -0.2, 0.3], np.float32), np.array([0.5, 2.0, 1.0], np.float32)
BX2, BD2, BU2 = _n(5, 3), _n(5, 3), _n(5, 3)
BM2, BV2 = BX2.mean(0), BX2.var(0)
SG = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
SI = np.array([[0, 0], [0, 2], [1, 2], [1, 3], [2, 3], [2, 4]], np.int64)
SS = np.array([0, 0], np.int64)
SN = np.array([[0, 2], [1, 2], [1, 3], [2, 4]], np.int64)
SI2 = np.array([[1, 1, 0], [2, 0, 1], [2, 1, 1], [3, 2, 2]], np.int64)
SS2 = np.array([2, 0, 1], np.int64)
SN2 = np.array([[0, 0, 0], [0, 1, 0]], np.int64)
SG2 = np.array([-1.5, 2.5], np.float32)
UD = _n(1, 2, 4, 4, 6)
UD2 = _n(2, 1, 5, 4, 3)
UX = _n(1, 2, 3, 2, 2)
RG = _n(2, 3, 1, 7)
RG2 = _n(1, 2, 5, 6)
RZ = np.zeros(0, np.float32)
RS = np.array([1.0, 1.0, 1.0, 1.75], np.float32)
RS2 = np.array([1.0, 1.0, 1.67, 2.0], np.float32)
RO = np.array([2, 3, 1, 4], np.int64)
RO2 = np.array([1, 2, 3, 3], np.int64)
'''

PROGRAMS: dict[str, str] = {}

_ARRAYS = ("IA", "IX", "IA2", "IX2", "IA64", "IX64", "CX", "CD1", "CD2", "CD3", "CD4", "CD5", "LX", "LD",
           "LM", "LV", "LG", "LU", "LW", "LB", "LM2", "LV2", "LG2", "LW2", "LB2", "LXS", "LMS", "LVS",
           "BX", "BD", "BU", "BS",
           "BW", "BB", "BM", "BV", "RM", "RV", "BX2", "BD2", "BU2", "BM2", "BV2", "SG", "SI", "SS", "SN",
           "SI2", "SS2", "SN2", "SG2", "UD", "UD2", "UX", "RG", "RG2", "RZ", "RS", "RS2", "RO", "RO2")


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    arrays = sorted(used_arrays(_ARRAYS, forward))
    PROGRAMS[name] = family_source(_PRELUDE, arrays, forward, grads)


_family("igamma_grad_a", [
    "G.IgammaGradA()(ia, ix)", "G.IgammaGradA()(ia2, ix2)", "G.IgammaGradA()(ia64, ix64)",
])

_family("conv2d_backprop_filter", [
    "G.Conv2DBackpropFilter(3, 3)(cd1, cx, (3, 4, 3, 3))",
    "G.Conv2DBackpropFilter(3, (3, 2), stride=(2, 2))(cd2, cx, (3, 4, 3, 2))",
    "G.Conv2DBackpropFilter(3, 3, pad_mode='pad', pad=1, pad_list=(1, 1, 1, 1))(cd3, cx, (3, 4, 3, 3))",
    "G.Conv2DBackpropFilter(3, 3, 'pad', 0, (2, 0, 1, 1), stride=2)(cd4, cx, (3, 4, 3, 3))",
    "G.Conv2DBackpropFilter(3, 3, pad_mode='same')(cd3, cx, (3, 4, 3, 3))",
    "G.Conv2DBackpropFilter(3, 2, dilation=(1, 1, 2, 2))(cd1, cx, (3, 4, 2, 2))",
    "G.Conv2DBackpropFilter(4, 2, group=2)(cd5, cx, (4, 2, 2, 2))",
], [("G.Conv2DBackpropFilter(3, 3, pad_mode='same')({}, {}, (3, 4, 3, 3)) * 0.5", ["CD3", "CX"])])

_family("layer_norm_grad_grad", [
    "G.LayerNormGradGrad()(lx, ld, lv, lm, lg, lu, lw, lb)",
    "G.LayerNormGradGrad(1, 1)(lx, ld, lv, lm, lg, lu * 0.0, lw, lb * 0.0)",
    "G.LayerNormGradGrad(begin_norm_axis=-1, begin_params_axis=-1)(lx, ld, lv2, lm2, lg2, lu, lw2, lb2)",
])

_family("layer_norm_grad_grad_tiny_variance", [
    "G.LayerNormGradGrad()(lxs, ld, lvs, lms, lg, lu, lw, lb)",
])

_family("batch_norm_grad_grad", [
    "G.BatchNormGradGrad(True)(bx, bd, bs, bm, bv, bu, bw, bb)",
    "G.BatchNormGradGrad()(bx, bd, bs, rm, rv, bu, bw, bb)",
    "G.BatchNormGradGrad(is_training=True, epsilon=0.1)(bx2, bd2, bs, bm2, bv2, bu2, bw, bb)",
    "G.BatchNormGradGrad(False, 0.01)(bx2, bd2, bs, rm, rv, bu2, bw, bb)",
])

_family("sparse_slice_grad", [
    "G.SparseSliceGrad()(sg, si, ss, sn)", "G.SparseSliceGrad()(sg2, si2, ss2, sn2)",
    "G.SparseSliceGrad()(ops.cast(sg, ms.int64), si, ss, sn)",
])

_family("upsample_3d_grads", [
    "G.UpsampleNearest3DGrad()(ud, (1, 2, 2, 2, 3), (4, 4, 6))",
    "G.UpsampleNearest3DGrad()(ud, (1, 2, 3, 3, 4), [4, 4, 6], None)",
    "G.UpsampleNearest3DGrad()(ud2, (2, 1, 3, 2, 2), None, (1.7, 2.0, 1.5))",
    "G.UpsampleTrilinear3DGrad()(ud, (1, 2, 2, 3, 4), (4, 4, 6))",
    "G.UpsampleTrilinear3DGrad(True)(ud, (1, 2, 2, 3, 4), (4, 4, 6))",
    "G.UpsampleTrilinear3DGrad(align_corners=False)(ud2, (2, 1, 3, 2, 2), None, [1.7, 2.0, 1.5])",
    "G.UpsampleTrilinear3DGrad(align_corners=True)(ud2, (2, 1, 3, 2, 2), None, (1.7, 2.0, 1.5))",
])

# the forwards by scales that do not divide (an output reads the input at o / scale; an axis
# whose size stays is copied), and
# their gradients (MindSpore's are UpsampleTrilinear3DGrad/UpsampleNearest3DGrad by scales)
_family("upsample_3d_by_scales", [
    "P.UpsampleTrilinear3D()(ux, None, (1.7, 2.0, 1.5))",
    "P.UpsampleTrilinear3D(True)(ux, None, [1.7, 2.0, 1.5])",
    "P.UpsampleNearest3D()(ux, None, (1.7, 2.5, 1.4))",
    "P.UpsampleTrilinear3D()(ux, None, (1.7, 1.4, 1.0))",
], [("P.UpsampleTrilinear3D()({}, None, (1.7, 2.0, 1.5)) * 2.0", ["UX"]),
    ("P.UpsampleTrilinear3D()({}, None, (1.7, 1.4, 1.0)) * 0.5", ["UX"]),
    ("P.UpsampleNearest3D()({}, None, (1.7, 2.5, 1.4)) * 3.0", ["UX"])])

_family("resize_v2_grad", [
    "G.ResizeV2Grad()(rg, rz, rs, ro)",
    "G.ResizeV2Grad('align_corners', 'nearest')(rg, rz, rs, ro)",
    "G.ResizeV2Grad(mode='linear')(rg, rz, rs, ro)",
    "G.ResizeV2Grad('align_corners', 'linear')(rg, rz, rs, ro)",
    "G.ResizeV2Grad(mode='cubic')(rg, rz, rs, ro)",
    "G.ResizeV2Grad(coordinate_transformation_mode='align_corners', mode='cubic')"
    "(rg2, rz, rs2, ro2)",
    "G.ResizeV2Grad(mode='cubic')(rg2, rz, rs2, ro2)",
])


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_grad_misc_expected.json"))
