"""Tensor methods that are ``ops`` functions with the tensor first (the spec's ``tensor:``
lists, ``framework/api_spec/ops.yaml``), called as MindSpore 2.10 code calls them: positional
arguments and MindSpore's keywords, in both modes (family programs compiled as one Cell, see
:mod:`tests.mindspore_ref.families`), with gradients where the method has them.
``ms_tensor_methods_expected.json`` holds MindSpore 2.10's answers on CPU.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
X = np.array([[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, -2.2, 0.05], [-0.6, 1.1, 0.45, -1.7]], np.float32)
Y = np.array([[0.1, 0.4, 1.2, 0.2], [-1.0, 0.35, -0.9, 1.3], [0.8, 1.15, -0.5, 0.6]], np.float32)
P = np.array([[0.2, 0.7, 0.45, 0.9], [0.05, 0.6, 0.3, 0.85], [0.55, 0.15, 0.95, 0.4]], np.float32)
M = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [0.9, -0.8, 0.4], [1.1, 0.6, -0.2]], np.float32)
S = np.array([[1.0, 0.5, -0.25], [0.3, 2.0, 0.1], [-0.4, 0.2, 1.5]], np.float32)
B = np.array([[[0.3, -1.2], [2.5, 0.7], [1.9, -0.4]], [[-2.2, 0.05], [-0.6, 1.1], [0.45, -1.7]]], np.float32)
C = np.array([[[1.0, 0.5, -0.3], [0.2, -0.6, 0.9]], [[0.4, 1.2, -1.0], [-0.7, 0.3, 0.8]]], np.float32)
V3 = np.array([0.3, -1.2, 2.0], np.float32)
V4 = np.array([1.0, 0.5, -0.25, 2.0], np.float32)
SP = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.5, 2.0, 0.5], np.float32)
G = np.array([[[0, 1], [1, 2]], [[1, 0], [0, 2]]], np.int32)
H = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.1 - 1.0
CI = np.array([0, 1, 1], np.int32)
CW = np.array([2, 0, 5], np.int32)
K0 = np.array([0.1, 0.4, 1.2], np.float32)
K1 = np.array([-1.0, 0.35, -0.9], np.float32)
K2 = np.array([0.8, 1.15, -0.5], np.float32)
'''
_ARRAYS = ("X", "Y", "P", "M", "S", "B", "C", "V3", "V4", "SP", "G", "H", "CI", "CW", "K0", "K1", "K2")
PROGRAMS: dict[str, str] = {}
# names MindSpore 2.10's CPU build cannot run (its error), tested against NumPy instead
UNTESTABLE = {"Tensor:addcdiv": "RuntimeError: The kernel AddcdivExt unregistered.",
              "Tensor:index_add": "RuntimeError: Unsupported op [IndexAddExt] on CPU (graph mode; "
                                  "PyNative writes into the tensor, against its docs)",
              "Tensor:set_const_arg": "RuntimeError: the 'Tensor' object's method 'set_const_arg' is not "
                                      "supported in 'construct' (graph mode; PyNative returns the tensor)",
              "Tensor:choose": "graph mode answers zeros for Tensor.choose on CPU (its PyNative "
                               "answer is NumPy's choose)",
              "Tensor:init_data": "TypeError: init_data must be set Tensor.init (a tensor built without "
                                  "init; with init, the initialized tensor)"}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads)


_family("products", [
    "s.addmm(m[:3], s)", "s.addmm(m[:3], s, beta=0.5, alpha=2.0)", "v3.addmv(s, v3)",
    "s.addr(v3, v3)", "c.bmm(b).baddbmm(c, b)", "s[:2, :2].addbmm(c, b)", "c.bmm(b)", "s.mm(s)",
    "s.dot(s)", "v4.ger(v3)", "v4.inner(v4)", "s.matrix_power(3)", "m.cross(m * 0.5 + 1.0, dim=1)",
], [("{}.addmm({}, {})", ["S", "S", "S"]), ("{}.bmm({})", ["C", "B"]), ("{}.mm({})", ["S", "S"]),
    ("{}.ger({})", ["V4", "V3"]), ("{}.matrix_power(2)", ["S"])])

_family("elementwise", [
    "x.addcmul(y, p, value=0.5)", "x.copysign(y)", "p.float_power(y)",
    "x.fmax(y)", "x.heaviside(y)", "x.ldexp(y.astype(ms.int32))", "p.logit()", "p.logit(eps=0.1)",
    "x.sinc()", "x.xdivy(p)", "sp.isneginf()", "sp.isposinf()", "sp.signbit()",
    "sp.nan_to_num()", "sp.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0)", "x.isclose(y)",
    "x.isclose(x + 1e-6, rtol=1e-3)",
], [("{}.addcmul({}, {}, value=0.5)", ["X", "Y", "P"]),
    ("{}.copysign({})", ["X", "Y"]), ("{}.logit()", ["P"]), ("{}.sinc()", ["X"])])

_family("scans_sorts", [
    "x.argsort()", "x.argsort(axis=0, descending=True)", "x.cummax(1)[0]", "x.cummax(1)[1]",
    "x.cummin(0)[0]", "x.cumprod(1)", "x.logcumsumexp(1)", "x.msort()", "x.aminmax(axis=1)[0]",
    "x.aminmax(axis=0, keepdims=True)[1]", "sp.nansum()", "x.nansum(axis=1, keepdims=True)",
    "sp.nanmean()", "x.nanmean(axis=0)",
], [("{}.cumprod(1)", ["X"]), ("{}.logcumsumexp(1)", ["X"]), ("{}.nansum(axis=1)", ["X"])])

_family("shapes", [
    "x.diagflat()", "v3.diagflat(1)", "h.dsplit(2)[1]", "x.hsplit(2)[0]", "x.vsplit(3)[2]",
    "x.tensor_split(3, axis=1)[0]", "x.tensor_split((1, 2))[1]", "h.rot90(1, (1, 2))",
    "h.gather_nd(g)", "x.index_select(1, Tensor(np.array([2, 0], np.int32)))",
], [("{}.rot90(1, (0, 1))", ["X"]), ("{}.diagflat()", ["V3"])])

# Tensor methods with no ops function behind them (framework/ops/tensor_only.py); index_add
# is tested against NumPy (MindSpore's graph mode lacks its CPU kernel, IndexAddExt)
_family("tensor_only", [
    "x.T.H", "x.fill_diagonal(5.0)", "ops.zeros((5, 3), ms.float32).fill_diagonal(1.0, wrap=True)",
    "x.index_put((Tensor(np.array([0, 1], np.int32)), Tensor(np.array([1, 2], np.int32))), y[0, :2])",
    "x.index_put((Tensor(np.array([0, 1], np.int32)), Tensor(np.array([1, 2], np.int32))), y[0, :2], True)",
    "x.masked_scatter(x > 0, y)", "x.new_ones((2, 1))", "x.new_ones((2, 1), dtype=ms.int32)",
    "x.new_zeros((3,))", "x.new_empty((2, 2)).shape", "x.sum_to_size(1, 4)", "x.sum_to_size((3, 1))",
    "x.sum_to_size(4)", "x.to(ms.float16)", "x.type(ms.int32)", "x.view_as(m)", "x.copy()",
    "x.resize(4, 3)", "x.resize((2, 7))", "x.resize(2)", "x.itemset(1, 9.0)", "x.itemset((2, 1), 9.0)",
], [("{}.sum_to_size(1, 4)", ["X"]), ("{}.view_as(Tensor(M)) * Tensor(M)", ["X"]), ("{}.copy() * 2.0", ["Y"]),
    ("{}.masked_scatter(Tensor(X) > 0, {})", ["Y", "P"])])

# random draws (their shapes and dtypes: the values are each engine's generator's), and
# methods whose answer is a Python value
_family("draws_and_values", [
    "x.cauchy().shape", "x.cauchy(1.0, 0.5).dtype == ms.float32", "x.log_normal().shape",
    "x.log_normal(0.0, 0.5).dtype == ms.float32", "len(x.get_bytes())", "x.data_ptr() > 0",
])


if __name__ == "__main__":  # re-record ms_tensor_methods_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_tensor_methods_expected.json"))
