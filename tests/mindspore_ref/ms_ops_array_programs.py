"""Programs for the ``ops`` array names of issue 34 (indexing and scatters, segment
reductions, binary search, diagonals and slices written in place, value-dependent shapes,
array manipulation) and their Tensor methods.

Each family runs its forward expressions inside a Cell (so graph mode compiles them) and,
for the differentiable ones, ``ops.grad`` of a loss weighting each op's output by ``W``-like
constants, at every input. Not differentiated here: what MindSpore 2.10 does not
differentiate (``scatter_nd_add``/``scatter_add`` have no bprop; the ``inplace_*`` row ops
and ``index_fill``'s value get zero gradients there; ours are the derivatives, checked
against finite differences in ``test_ms_ops_array.py``). Names with Parameter in-place forms
run on Parameters of a Cell. Ops whose output shape depends on values (``masked_select``,
``nonzero``, ``unique`` ...) run eagerly in ``main()`` in both modes (graph mode compiles
Cells only); inside a compiled Cell ours stop with one line, which the test module checks.
``ms_ops_array_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_ops_array_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

# names MindSpore 2.10 cannot run on one CPU process: its error
UNTESTABLE: dict[str, str] = {
    "ops:move_to": "RuntimeError: Kernel select failed: Unsupported op [MoveTo] on CPU "
                   "(Tensor.move_to('CPU') works: recorded)",
    "ops:coalesce": "wrong entries once other ops ran in the process: indices [[0, 0, 1], [1, 1, 2]], "
                    "values [1, 2, 3] gave indices [[0, 1, 0], [1, 2, 0]], values [2, 4, 3] "
                    "(alone it gives [[0, 1], [1, 2]], [3, 3])",
    "ops:bucketize": "RuntimeError: For 'SearchSorted', the dimension of `v` and output must be "
                     "equal, but got the dimension of `v` 24 and the dimension of output 24 "
                     "(any int32 output: searchsorted(out_int32=True) fails alike)",
}

_PRELUDE = '''
P = ms.ops.operations
X = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
XB = X.copy()  # scatter_nd_add, scatter_add, inplace_index_add write their input in MindSpore
XC = X.copy()
Y = np.array([[1.0, 5.0, 2.0], [5.0, 0.0, 2.0], [3.0, 3.0, 0.0]], np.float32)
XI = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
W = np.array([[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -2.0, 1.0], [1.0, 2.0, -0.5, 4.0]], np.float32)
W3 = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0], [1.0, 2.0, -0.5]], np.float32)
CUBE = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 8 - 1
VEC = np.array([0.5, -1.5, 2.0], np.float32)
IDX = np.array([[0, 3], [2, 1], [1, 1]], np.int32)
NEG = np.array([[0, -1], [-2, 1], [3, -4]], np.int32)
IDX0 = np.array([[2, 0, 1, 1], [0, 0, 2, 1]], np.int32)
SRC = np.array([[-1.0, -2.0], [-3.0, -4.0], [-5.0, -6.0]], np.float32)
SRC0 = np.array([[10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0]], np.float32)
ND = np.array([[0, 1], [2, 3], [1, 0]], np.int32)
ND1 = np.array([[2], [0]], np.int32)
NDREP = np.array([[0, 1], [0, 1], [2, 2]], np.int32)
UPD = np.array([7.0, -8.0, 9.0], np.float32)
ROWS = np.array([[7.0, -8.0, 9.0, 1.0], [0.5, 1.5, 2.5, 3.5]], np.float32)
SEG = np.array([0, 0, 2], np.int32)
SEGX = np.array([2, -1, 0], np.int32)
SEG2 = np.array([[0, 1, 0, 1], [1, 1, 3, 1], [0, 0, 0, 4]], np.int32)
SORTED = np.array([1.0, 3.0, 5.0, 7.0], np.float32)
SORTED2 = np.array([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]], np.float32)
VALS = np.array([[3.0, 6.0, 9.0], [0.0, 7.0, 5.0]], np.float32)
SORTEDI = np.array([1, 3, 5, 7], np.int32)
VALSI = np.array([[3, 6, 9], [0, 7, 5]], np.int32)
FILL = np.array([0, -1], np.int32)
FILLB = np.array([-1, 0], np.int32)  # MindSpore's IndexFill wraps negative indices in its input
DIAG = np.array([9.0, 8.0, 7.0], np.float32)
DIAG2 = np.array([9.0, 8.0], np.float32)
DUP = np.array([0, 0], np.int32)
ROW02 = np.array([0, 2], np.int32)
ONE = np.array([1], np.int32)
ROWV = np.array([7.0, -8.0, 9.0, 1.0], np.float32)
ROW1 = np.array([[7.0, -8.0, 9.0, 1.0]], np.float32)
Z = np.array([[0.5, 0.0, -1.5], [0.0, 2.0, 0.0]], np.float32)
MASK = np.array([[True, False, True], [False, True, True]])
ROWMASK = np.array([True, False, True])
REP = np.array([3, 1, 3, 2, 1, 1, 5], np.int32)
RUNS = np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32)
RUNS2 = np.array([[1, 1, 2], [1, 1, 2], [3, 0, 0], [1, 1, 2]], np.float32)
W4 = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
LENS = np.array([1, 3, 0], np.int32)
LENS4 = np.array([2, 3, 1, 0], np.int64)
LENS2 = np.array([[1, 3], [2, 0]], np.int32)
COMPLEX = np.array([1 + 2j, 3 - 1j, -0.5j], np.complex64)
LINE = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
IMG = (np.arange(2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4) % 7 - 3) / 2
IMG5 = (np.arange(1 * 2 * 5 * 5, dtype=np.float32).reshape(1, 2, 5, 5) % 5 - 2) / 2
BATCH = np.arange(16, dtype=np.float32).reshape(8, 1, 1, 2) / 4 - 1
COLS = (np.arange(1 * 8 * 4, dtype=np.float32).reshape(1, 8, 4) % 6 - 2) / 3
COLS9 = (np.arange(1 * 2 * 9 * 9, dtype=np.float32).reshape(1, 2, 9, 9) % 5 - 2) / 3
WB = np.arange(6, dtype=np.float32).reshape(2, 1, 1, 3) + 0.5
WM = np.arange(35, dtype=np.float32).reshape(5, 7)
WU = np.arange(18 * 9, dtype=np.float32).reshape(1, 18, 9) % 5
WF = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3)
WD = np.arange(12, dtype=np.float32).reshape(3, 4)
WC = np.arange(12, dtype=np.float32).reshape(4, 3)
PADS = np.array([[1, 1], [2, 1]], np.int32)
PADS64 = np.array([[2, 0], [1, 3]], np.int64)
K = np.array([-1, 1], np.int32)
ANCH = np.array([[0.0, 0.0, 10.0, 10.0], [2.0, 3.0, 8.0, 12.0], [5.0, 5.0, 6.0, 6.0]], np.float32)
GTB = np.array([[1.0, 1.0, 9.0, 11.0], [0.0, 4.0, 9.0, 10.0], [4.0, 4.0, 7.0, 9.0]], np.float32)
DELTA = np.array([[0.1, -0.2, 0.3, 0.05], [-0.5, 0.4, -0.1, 0.2], [0.0, 0.0, 5.0, -5.0]], np.float32)
BOXES = np.array([[0.0, 0.0, 10.0, 10.0], [-1.0, 3.0, 8.0, 12.0], [5.0, 5.0, 60.0, 6.0], [5, 5, 6, 40]],
                 np.float32)
META = np.array([40.0, 61.0, 1.0], np.float32)
HALVE = np.array([0.5, 0.5, 2.0], np.float32)
THETA = np.array([[[1.0, 0.2, -0.1], [0.3, 0.8, 0.5]], [[0.5, -0.4, 0.0], [0.1, 1.2, -0.3]]], np.float32)
THETA3 = np.array([[[1.0, 0.2, -0.1, 0.0], [0.3, 0.8, 0.5, 0.1], [0.0, 0.1, 0.9, -0.2]]], np.float32)
BI1 = np.array([[1.0, -0.5, 2.0], [0.3, 0.7, -1.2]], np.float32)
BI2 = np.array([[0.5, 1.5], [-2.0, 0.25]], np.float32)
BIW = (np.arange(4 * 3 * 2, dtype=np.float32).reshape(4, 3, 2) % 5 - 2) / 4
BIB = np.array([0.1, -0.2, 0.3, 0.0], np.float32)
LRNX = (np.arange(2 * 7 * 2 * 2, dtype=np.float32).reshape(2, 7, 2, 2) % 9 - 4) / 5
VOL = (np.random.default_rng(0).permutation(200).reshape(2, 2, 2, 5, 5) / 40 - 2).astype(np.float32)
VOL = np.concatenate([VOL, VOL[:, :, ::-1] + 0.0125], 2)  # (2, 2, 4, 5, 5), no ties in a window
POSV = np.abs(VOL[:, :, 0]) + 0.1
POS1 = POSV[:, :, 0].copy()
UNX1 = np.array([[[1.0, 2.0, 3.0]]], np.float32)
UNI1 = np.array([[[1, 2, 5]]], np.int64)
WUN = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
UNX = np.array([[[[1.0, -2.0], [3.0, 4.0]]]], np.float32)
UNI = np.array([[[[0, 3], [9, 15]]]], np.int64)
LOGP = np.log(np.random.default_rng(1).dirichlet(np.ones(4), (5, 2))).astype(np.float32)
TGT = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
INLEN = np.array([5, 4], np.int32)
TGLEN = np.array([3, 2], np.int32)
TGREP = np.array([[1, 1, 1], [3, 1, 0]], np.int32)
SHORT = np.array([4, 4], np.int32)
IMGH = ((np.arange(2 * 5 * 6 * 2) * 37 % 23) / 4).astype(np.float32).reshape(2, 5, 6, 2)
CROPS = np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [-0.2, 0.5, 0.6, 1.3], [0.5, 0.5, 0.5, 0.5]],
                 np.float32)
CROPI = np.array([0, 1, 1, 0], np.int32)
VX = ((np.arange(1 * 2 * 2 * 3 * 3) % 7 - 3) / 3).astype(np.float32).reshape(1, 2, 2, 3, 3)
VW = ((np.arange(2 * 3 * 2 * 2 * 2) % 5 - 2) / 4).astype(np.float32).reshape(2, 3, 2, 2, 2)
FRX = (np.random.default_rng(3).permutation(2 * 2 * 7 * 9) / 10).astype(np.float32).reshape(2, 2, 7, 9)
FRS = np.array([[[0.3, 0.7], [0.9, 0.1]], [[0.5, 0.5], [0.05, 0.95]]], np.float32)
FRX3 = (np.random.default_rng(4).permutation(420) / 10).astype(np.float32).reshape(1, 2, 5, 6, 7)
FRS3 = np.array([[[0.3, 0.7, 0.2], [0.9, 0.1, 0.6]]], np.float32)
_RNG = np.random.default_rng(5)
DCX = _RNG.normal(size=(2, 4, 5, 6)).astype(np.float32)
DCW = _RNG.normal(size=(6, 4, 2, 3)).astype(np.float32)
DCWG = _RNG.normal(size=(6, 2, 2, 3)).astype(np.float32)
DCB = _RNG.normal(size=(6,)).astype(np.float32)


def _offsets(groups, ho, wo, seed):
    o = np.random.default_rng(seed).uniform(-1.3, 1.3, (2, 3 * groups * 6, ho, wo)).astype(np.float32)
    o[:, 2 * groups * 6:] = np.abs(o[:, 2 * groups * 6:]) / 1.3
    return o


DCO = _offsets(1, 4, 4, 1)
DCO3 = _offsets(1, 3, 3, 2)
DCO32 = _offsets(1, 3, 2, 3)
DCO2 = _offsets(2, 4, 4, 5)
_STEPS = np.arange(40, dtype=np.float32).reshape(2, 20)
WAVE = np.sin(_STEPS * 0.7) + _STEPS / 40
WAVE1 = WAVE[0].copy()
HANN = np.hanning(6).astype(np.float32)
_RNG7 = np.random.default_rng(7)
GSX = _RNG7.normal(size=(2, 3, 4, 5)).astype(np.float32)
GSG = _RNG7.uniform(-1.3, 1.3, (2, 3, 4, 2)).astype(np.float32)
GSX5 = _RNG7.normal(size=(1, 2, 3, 4, 5)).astype(np.float32)
GSG5 = _RNG7.uniform(-1.2, 1.2, (1, 2, 3, 2, 3)).astype(np.float32)
BAND = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0], [6.0, 0.0, 0.0]], np.float32)
PLANE = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
'''
_ARRAYS = ("X", "XB", "XC", "Y", "XI", "W", "W3", "CUBE", "VEC", "IDX", "NEG", "IDX0", "SRC", "SRC0", "ND",
           "ND1", "NDREP", "UPD", "ROWS", "SEG", "SEGX", "SEG2", "SORTED", "SORTED2", "VALS",
           "SORTEDI", "VALSI", "FILL", "FILLB", "DIAG", "DIAG2", "DUP", "ROW02", "ONE", "ROWV", "ROW1",
           "PLANE", "Z", "MASK", "ROWMASK", "REP", "RUNS", "RUNS2", "W4", "LENS",
           "LENS4", "LENS2", "COMPLEX", "LINE", "IMG", "IMG5", "BATCH", "COLS", "COLS9", "BAND", "ANCH",
           "GTB", "DELTA", "BOXES", "META", "THETA", "THETA3", "BI1", "BI2", "BIW", "BIB", "LRNX", "VOL",
           "POSV", "POS1", "UNX", "UNI", "UNX1", "UNI1", "WUN", "LOGP",
           "TGT", "INLEN", "TGLEN", "TGREP", "SHORT", "IMGH",
           "CROPS", "CROPI", "VX", "VW", "FRX", "FRS",
           "FRX3", "FRS3", "DCX", "DCW",
           "DCWG", "DCB", "DCO", "DCO3", "DCO32", "DCO2", "WAVE",
           "WAVE1", "HANN", "GSX", "GSG",
           "GSX5", "GSG5")

PROGRAMS: dict[str, str] = {}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
            extra: str = "") -> None:
    """A family program (:mod:`tests.mindspore_ref.families`) over the arrays above."""
    arrays = used_arrays(_ARRAYS, forward, r"[a-z0-9_]+")
    PROGRAMS[name] = family_source(_PRELUDE, arrays, forward, grads, extra)


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + body


_family("scatter_elements", [
    "ops.scatter(x, 1, idx, src)", "x.scatter(0, idx0, src0)", "ops.scatter(x, 1, neg, src)",
    "ops.gather_d(x, 1, idx)", "ops.gather_d(x, 0, idx0)", "ops.gather_d(xi, 1, neg)",
    "ops.gather_elements(x, 1, idx)", "x.gather_elements(0, idx0)",
    "ops.tensor_scatter_elements(x, idx, src, 1)", "ops.tensor_scatter_elements(x, idx0, src0)",
    "ops.tensor_scatter_elements(x, idx, src, 1, 'add')",
    "ops.tensor_scatter_elements(x, idx0, src0, 0, 'add')",
], [("ops.tensor_scatter_elements({}, Tensor(IDX), {}, 1) * Tensor(W)", ["X", "SRC"]),
    ("ops.tensor_scatter_elements({}, Tensor(IDX0), {}, 0, 'add') * Tensor(W)", ["X", "SRC0"]),
    ("ops.scatter({}, 1, Tensor(IDX), {}) * Tensor(W)", ["X", "SRC"]),
    ("ops.gather_d({}, 1, Tensor(IDX)) * Tensor(SRC)", ["X"]),
    ("ops.gather_elements({}, 0, Tensor(IDX0)) * Tensor(SRC0)", ["X"])])

_family("tensor_scatter_nd", [
    "ops.tensor_scatter_update(x, nd, upd)", "ops.tensor_scatter_update(x, nd1, rows)",
    "ops.tensor_scatter_add(x, ndrep, upd)", "ops.tensor_scatter_add(x, nd1, rows)",
    "ops.tensor_scatter_update(xi, nd, ops.cast(upd, ms.int32))",
    "ops.scatter_nd_add(xb, ndrep, upd)", "ops.scatter_add(xc, dup, rows)",
], [("ops.tensor_scatter_update({}, Tensor(ND), {}) * Tensor(W)", ["X", "UPD"]),
    ("ops.tensor_scatter_update({}, Tensor(ND1), {}) * Tensor(W)", ["X", "ROWS"]),
    ("ops.tensor_scatter_add({}, Tensor(NDREP), {}) * Tensor(W)", ["X", "UPD"])])

_program("scatter_parameters", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(Tensor(X), name="a")
        self.b = ms.Parameter(Tensor(X), name="b")
        self.c = ms.Parameter(Tensor(X), name="c")

    def construct(self, nd, nd1, upd, rows, seg):
        ops.scatter_nd_update(self.a, nd, upd)
        ops.scatter_nd_add(self.b, nd1, rows)
        ops.scatter_add(self.c, seg, rows)
        return self.a + 0, self.b + 0, self.c + 0


def main():
    net = Net()
    out = net(Tensor(ND), Tensor(ND1), Tensor(UPD), Tensor(ROWS), Tensor(np.array([1, 1], np.int32)))
    return out, net.a.value(), net.b.value(), net.c.value()
''')

_family("diagonals", [
    "ops.diagonal(x)", "ops.diagonal(x, 1)", "ops.diagonal(x, -1)", "x.diagonal(2)",
    "ops.diagonal(cube, 0, 1, 2)", "ops.diagonal(cube, 1, -1, 0)",
    "ops.diag_embed(vec)", "ops.diag_embed(vec, 1)", "ops.diag_embed(x, -1)",
    "ops.diag_embed(vec, 0, 0, 1)", "ops.diag_embed(x, 1, 0, 2)",
    "ops.diagonal_scatter(x, diag)", "ops.diagonal_scatter(x, diag, 1)",
    "x.diagonal_scatter(diag2, -1)", "ops.diagonal_scatter(cube, plane, 0, 1, 2)",
], [("ops.diagonal({}, 1) * Tensor(VEC)", ["X"]), ("ops.diagonal({}, 0, 1, 2) * Tensor(PLANE)", ["CUBE"]),
    ("ops.diag_embed({}, 1) * Tensor(np.arange(16, dtype=np.float32).reshape(4, 4))", ["VEC"]),
    ("ops.diag_embed({}, -1) * 1.5", ["X"]),
    ("ops.diagonal_scatter({}, {}, 1) * Tensor(W)", ["X", "DIAG"])])

_family("rows_and_slices", [
    "ops.select_scatter(x, vec, 1, 2)", "x.select_scatter(vec, 1, -1)",
    "ops.select_scatter(x, rowv, 0, 1)",
    "ops.slice_scatter(x, src, 1, 0, 4, 2)", "x.slice_scatter(src0, 0, 1)",
    "ops.slice_scatter(x, x * 2)", "ops.slice_scatter(x, src, 1, 1, 3)",
    "ops.index_fill(x, 1, fill, 7.5)", "x.index_fill(0, fillb, ops.cast(Tensor(2.5), ms.float32))",
    "ops.index_fill(xi, 0, one, 3)",
    "ops.inplace_update(x, rows, (0, 2))", "x.inplace_update(row1, 1)",
    "ops.inplace_update(x, rows, row02)",
    "ops.inplace_add(x, rows, (0, 2))", "ops.inplace_add(x, row1, 1)",
    "ops.inplace_sub(x, rows, (1, 1))",
    "ops.inplace_index_add(xb, seg, w, 0)",
    "ops.inplace_index_add(xc, row02, src, 1)",
], [("ops.select_scatter({}, {}, 1, 2) * Tensor(W)", ["X", "VEC"]),
    ("ops.slice_scatter({}, {}, 1, 0, 4, 2) * Tensor(W)", ["X", "SRC"]),
    ("ops.index_fill({}, 1, Tensor(FILL), 7.5) * Tensor(W)", ["X"]),
    ("ops.inplace_index_add({}, Tensor(ROW02), {}, 1) * Tensor(W)", ["X", "SRC"])])

_family("segments", [
    "ops.unsorted_segment_sum(x, seg, 4)", "ops.unsorted_segment_sum(x, segx, 3)",
    "ops.unsorted_segment_sum(x, seg2, 5)", "ops.unsorted_segment_sum(xi, seg, 3)",
    "ops.unsorted_segment_max(y, seg, 4)", "y.unsorted_segment_max(segx, 3)",
    "ops.unsorted_segment_max(xi, seg, 3)", "ops.unsorted_segment_min(y, seg, 4)",
    "y.unsorted_segment_min(seg, 3)", "ops.unsorted_segment_min(xi, seg2, 5)",
    "ops.unsorted_segment_prod(y, seg, 4)", "y.unsorted_segment_prod(segx, 3)",
    "ops.unsorted_segment_prod(xi, seg, 3)",
], [("ops.unsorted_segment_sum({}, Tensor(SEGX), 3) * Tensor(W3)", ["Y"]),
    ("ops.unsorted_segment_sum({}, Tensor(SEG2), 5)", ["X"]),
    ("ops.unsorted_segment_max({}, Tensor(SEG), 3) * Tensor(W3)", ["Y"]),
    ("ops.unsorted_segment_min({}, Tensor(SEG), 3) * Tensor(W3)", ["Y"]),
    ("ops.unsorted_segment_prod({}, Tensor(SEG), 3) * Tensor(W3)", ["Y"])])

_family("search", [
    "ops.searchsorted(sorted, vals)",
    "ops.searchsorted(sorted2, vals, side='right')", "ops.searchsorted(sorted2, vals)",
    "ops.searchsorted(sortedi, valsi)", "ops.searchsorted(sortedi, valsi, side='left')",
    "ops.searchsorted(sorted, ops.reduce_max(vals))",
])

_family("masked_select_constant_mask", [
    "ops.masked_select(z, Tensor(MASK))", "z.masked_select(Tensor(ROWMASK))",
], [("ops.masked_select({}, Tensor(MASK)) * Tensor(W4)", ["Z"])])

_program("value_shaped", '''
def main():
    z, runs, runs2 = Tensor(Z), Tensor(RUNS), Tensor(RUNS2)
    return (ops.masked_select(z, Tensor(MASK)), ops.masked_select(z, Tensor(ROWMASK)),
            ops.masked_select(Tensor(XI), Tensor(XI) > 0),
            ops.nonzero(z), z.nonzero(), ops.nonzero(Tensor(REP) - 3), ops.argwhere(z), z.argwhere(),
            ops.argwhere(Tensor(MASK)), ops.unique(Tensor(REP)), ops.unique(Tensor(Z)),
            ops.unique(Tensor(RUNS2)), ops.unique_consecutive(runs), runs.unique_consecutive(True, True),
            ops.unique_consecutive(runs2, True, True, 0), ops.unique_consecutive(runs2, False, True, 1),
            ops.unique_consecutive(runs2, True), ops.is_nonzero(Tensor(np.array([0.0], np.float32))),
            ops.is_nonzero(Tensor(np.array([[3]], np.int32))), ops.is_nonzero(Tensor(True)))
''')

_family("sequences", [
    "ops.reverse(x, (1,))", "ops.reverse(cube, (0, 2))", "ops.reverse_sequence(x, seg, 1)",
    "x.reverse_sequence(lens4, 0, 1)", "ops.reverse_sequence(cube, lens, 2, 1)",
    "ops.repeat_elements(x, 2, 1)", "ops.repeat_elements(xi, 3)",
    "ops.combinations(line)", "ops.combinations(line, 3)",
    "ops.combinations(ops.cast(line, ms.int32), 2, True)",
    "ops.sequence_mask(lens, 4)", "ops.sequence_mask(lens2, 3)",
    "ops.slice(x, (1, 1), (2, 2))", "ops.slice(x, (1, 0), (-1, 3))",
    "ops.tensor_slice(cube, (0, 1, 1), (2, 2, 3))",
    "ops.view_as_real(complex)",
], [("ops.reverse_sequence({}, Tensor(LENS4), 0, 1) * Tensor(W)", ["X"]),
    ("ops.repeat_elements({}, 2, 1)[:, ::3] * Tensor(W3)", ["X"]),
    ("ops.combinations({}, 3) * Tensor(WC)", ["LINE"]),
    ("ops.slice({}, (1, 1), (2, 2)) * Tensor(W[:2, :2])", ["X"]),
    ("ops.reverse({}, (0,)) * Tensor(W)", ["X"])])

_family("block_layout", [
    "ops.space_to_batch_nd(img, (2, 2), ((0, 0), (0, 0)))",
    "ops.space_to_batch_nd(img5, 2, ((1, 0), (0, 1)))",
    "ops.batch_to_space_nd(batch, (2, 2), ((0, 0), (0, 0)))",
    "ops.batch_to_space_nd(batch, (2, 2), ((1, 0), (0, 1)))",
    "ops.mirror_pad(x, Tensor(PADS), 'REFLECT')",
    "ops.mirror_pad(x, Tensor(PADS64), 'SYMMETRIC')",
    "ops.unfold(img, 2, 1, 0, 2)", "ops.unfold(img5, 3, 1, 1, 2)", "img.unfold((2, 3), 1, 1, 1)",
    "ops.fold(cols, Tensor(np.array([4, 4], np.int32)), 2, 1, 0, 2)",
    "ops.fold(cols, Tensor(np.array([3, 3], np.int32)), 2, 1, 0, 1)",
    "ops.col2im(cols9, Tensor(np.array([5, 5], np.int32)), 3, 1, 1, 2)",
], [("ops.space_to_batch_nd({}, 2, ((1, 0), (0, 1))) * 1.5", ["IMG5"]),
    ("ops.batch_to_space_nd({}, (2, 2), ((1, 0), (0, 1))) * Tensor(WB)", ["BATCH"]),
    ("ops.mirror_pad({}, Tensor(PADS), 'REFLECT') * Tensor(WM)", ["X"]),
    ("ops.unfold({}, 3, 1, 1, 2) * Tensor(WU)", ["IMG5"]),
    ("ops.fold({}, Tensor(np.array([3, 3], np.int32)), 2, 1, 0, 1) * Tensor(WF)", ["COLS"]),
    ("ops.col2im({}, Tensor(np.array([5, 5], np.int32)), 3, 1, 1, 2) * Tensor(IMG5)", ["COLS9"])])

_family("matrix_diagonals", [
    "ops.matrix_diag(vec)", "ops.matrix_diag(vec, Tensor(np.int32(1)))",
    "ops.matrix_diag(band, Tensor(K), -1, -1, Tensor(np.float32(0)), 'LEFT_RIGHT')",
    "ops.matrix_diag(band, Tensor(K), 3, 4, Tensor(np.float32(9)))",
    "ops.matrix_diag_part(x, Tensor(np.int32(1)), Tensor(np.float32(0)))",
    "ops.matrix_diag_part(x, Tensor(K), Tensor(np.float32(9)))",
    "ops.matrix_diag_part(cube, Tensor(np.array([-2, 0], np.int32)), Tensor(np.float32(-1)),"
    " 'LEFT_LEFT')",
], [("ops.matrix_diag({}, Tensor(K), 3, 4, Tensor(np.float32(9))) * Tensor(WD)", ["BAND"]),
    ("ops.matrix_diag_part({}, Tensor(K), Tensor(np.float32(9))) * Tensor(BAND)", ["X"])])

_family("tensor_facts", [
    "ops.eps(x)", "ops.eps(ops.cast(x, ms.float16))", "ops.dyn_shape(cube)", "ops.deepcopy(x)",
    "ops.shape_(cube)", "ops.shape_(x)[1] + x",
], [("ops.deepcopy({}) * Tensor(W)", ["X"])])

_program("eager_arrays", '''
def main():
    return (ops.range(Tensor(1, ms.int32), Tensor(10, ms.int32), Tensor(3, ms.int32)),
            ops.range(Tensor(1.0, ms.float32), Tensor(2.0, ms.float32), Tensor(0.3, ms.float32)),
            ops.range(10, 1, -4),
            ops.range(Tensor(5, ms.int64), Tensor(0, ms.int64), Tensor(-1, ms.int64)),
            ops.sequence_mask(Tensor(LENS)), ops.sequence_mask(Tensor(LENS2)),
            ops.mixed_precision_cast(ms.float16, (Tensor(X), Tensor(XI))), Tensor(X).move_to("CPU"))
''')

_family("boxes", [
    "ops.iou(anch, gtb)", "ops.iou(anch, gtb, 'iof')", "ops.iou(gtb, anch[:2])",
    "ops.bounding_box_encode(anch, gtb)",
    "ops.bounding_box_encode(anch, gtb, (0.1, 0.0, 0.2, 0.0), (0.5, 1.0, 2.0, 1.0))",
    "ops.bounding_box_decode(anch, delta, (11, 9))",
    "ops.bounding_box_decode(anch, delta, (20, 20), (0.1, 0.0, 0.2, 0.0), (0.5, 1.0, 2.0, 1.0), 0.5)",
    "ops.check_valid(boxes, meta)", "ops.check_valid(boxes, meta * Tensor(HALVE))",
])

_family("layer_functions", [
    "ops.bidense(bi1, bi2, biw)", "ops.bidense(bi1, bi2, biw, bib)",
    "ops.lrn(lrnx)", "ops.lrn(lrnx, 2, 1.0, 0.5, 0.75)",
    "ops.affine_grid(theta, (2, 1, 3, 4))", "ops.affine_grid(theta, (2, 3, 2, 3), True)",
    "ops.affine_grid(theta3, (1, 1, 2, 3, 2))",
], [("ops.bidense({}, {}, {}, {}) * Tensor(W[:2, :4])", ["BI1", "BI2", "BIW", "BIB"]),
    ("ops.lrn({}, 2, 1.0, 0.5, 0.75) * Tensor(LRNX + 1)", ["LRNX"]),
    ("ops.affine_grid({}, (2, 1, 3, 4)) * 2.0", ["THETA"])])

_family("cast_in_cell", ["ops.mixed_precision_cast(ms.float16, x)", "ops.mixed_precision_cast(ms.int32, xi)"])

# MindSpore 2.10 cannot compile clip_by_norm in a Cell ("Cannot join the return values of
# different branches"): eager in both modes; our graph mode is checked in the test module
_program("clip_eager", '''
def main():
    x = Tensor(X)
    return (ops.clip_by_norm(x, 2.0), ops.clip_by_norm(x, 100.0), ops.clip_by_norm(x, 0.5, float("inf")),
            ops.clip_by_norm((x, Tensor(CUBE)), 3.0))
''')

_family("pooling_3d", [
    "ops.avg_pool3d(vol, 2, 2)", "ops.avg_pool3d(vol, 3, 2, 1)",
    "ops.avg_pool3d(vol, 3, 2, 1, False, False)",
    "ops.avg_pool3d(vol, 2, 2, 0, True)", "ops.avg_pool3d(vol, (2, 3, 3), (1, 2, 2), 1, False, True, 5)",
    "ops.max_pool3d(vol, 2, 2)", "ops.max_pool3d(vol, 2, 1, 1, 2)",
    "ops.max_pool3d(vol, 2, 2, 0, 1, True, True)",
    "ops.adaptive_max_pool3d(vol, (2, 3, 2))", "ops.adaptive_max_pool3d(vol, (3, 2, 4), True)",
    "ops.adaptive_avg_pool3d(vol, (3, 2, 4))", "ops.adaptive_avg_pool3d(vol, (None, 2, 3))",
], [("ops.avg_pool3d({}, 3, 2, 1, True, False)", ["VOL"]),
    ("ops.max_pool3d({}, 2, 1, 1, 2) * 1.5", ["VOL"]),
    ("ops.adaptive_avg_pool3d({}, (3, 2, 4)) * 2.0", ["VOL"]),
    ("ops.adaptive_max_pool3d({}, (3, 2, 4))", ["VOL"])])

_family("lp_pool_and_unpool", [
    "ops.lp_pool1d(pos1, 2, 2)", "ops.lp_pool1d(pos1, 3, 2, 1, True)",
    "ops.lp_pool2d(posv, 2, 2, 2)", "ops.lp_pool2d(posv, 1, (2, 3), (2, 1), True)",
    "ops.max_unpool2d(unx, uni, 2, 2)", "ops.max_unpool2d(unx, uni, 2, 2, 0, (5, 5))",
    "ops.max_unpool1d(unx1, uni1, 2)", "ops.max_unpool3d(ops.reshape(unx, (1, 1, 1, 2, 2)), "
    "ops.reshape(uni, (1, 1, 1, 2, 2)), 2, (1, 2, 2))",
], [("ops.lp_pool2d({}, 2, 2, 2) * 1.5", ["POSV"]), ("ops.lp_pool1d({}, 3, 2, 1, True)", ["POS1"]),
    ("ops.max_unpool2d({}, Tensor(UNI), 2, 2) * Tensor(WUN)", ["UNX"])])

_family("ctc", [
    "ops.ctc_loss(logp, tgt, inlen, tglen, 0, 'none')", "ops.ctc_loss(logp, tgt, inlen, tglen)",
    "ops.ctc_loss(logp, tgt, inlen, tglen, 0, 'sum')",
    "ops.ctc_loss(logp, tgrep, inlen, tglen, 0, 'none', True)",
    "ops.ctc_loss(logp, tgrep, short, tglen, 0, 'none')",
    "ops.ctc_loss(logp, tgt, inlen, tglen, 3, 'mean')",
], [("ops.ctc_loss({}, Tensor(TGT), Tensor(INLEN), Tensor(TGLEN), 0, 'sum')[0]", ["LOGP"]),
    ("ops.ctc_loss({}, Tensor(TGT), Tensor(INLEN), Tensor(TGLEN))[0] * 3.0", ["LOGP"]),
    ("ops.ctc_loss({}, Tensor(TGREP), Tensor(SHORT), Tensor(TGLEN), 0, 'none', True)[0]", ["LOGP"])])

_program("ctc_greedy", '''
def main():
    x, lengths = Tensor(LOGP), Tensor(INLEN)
    return (ops.ctc_greedy_decoder(x, lengths), ops.ctc_greedy_decoder(x, lengths, False),
            ops.ctc_greedy_decoder(x, Tensor(np.array([0, 3], np.int32))))
''')

_family("crop_and_resize", [
    "ops.crop_and_resize(imgh, crops, cropi, (3, 4))",
    "ops.crop_and_resize(imgh, crops, cropi, (3, 4), 'nearest', 0.5)",
    "ops.crop_and_resize(imgh, crops, cropi, (1, 1))",
    "ops.crop_and_resize(imgh, crops, cropi, (2, 5), 'bilinear', -1.0)",
], [("ops.crop_and_resize({}, Tensor(CROPS), Tensor(CROPI), (3, 4)) * 2.0", ["IMGH"])])

_family("conv3d_transpose", [
    "ops.conv3d_transpose(vx, vw)", "ops.conv3d_transpose(vx, vw, stride=2)",
    "ops.conv3d_transpose(vx, vw, 'pad', 1, 2)", "ops.conv3d_transpose(vx, vw, 'same', stride=2)",
    "ops.conv3d_transpose(vx, vw, 'pad', (1, 0, 0, 1, 1, 0), (1, 2, 2))",
    "ops.conv3d_transpose(vx, vw, 'pad', 0, 2, output_padding=1)",
    "ops.conv3d_transpose(vx, vw, 'pad', (0, 1, 1, 0, 0, 1), (1, 2, 3), (1, 2, 1))",
], [("ops.conv3d_transpose({}, {}, 'pad', 1, 2) * 1.5", ["VX", "VW"]),
    ("ops.conv3d_transpose({}, {}, 'pad', (1, 0, 0, 1, 1, 0), (1, 2, 2))", ["VX", "VW"])])

_family("fractional_max_pool", [
    "ops.fractional_max_pool2d(frx, 2, (3, 4), None, True, Tensor(FRS))",
    "ops.fractional_max_pool2d(frx, (2, 3), None, (0.5, 0.5), True, Tensor(FRS))",
    "ops.fractional_max_pool3d(frx3, 2, (3, 3, 4), None, True, Tensor(FRS3))",
    "ops.fractional_max_pool3d(frx3, (1, 2, 3), (4, 3, 3), None, False, Tensor(FRS3))",
], [("ops.fractional_max_pool3d({}, 2, (3, 3, 4), None, False, Tensor(FRS3))", ["FRX3"])])

_family("deformable_conv2d", [
    "ops.deformable_conv2d(dcx, dcw, dco, (2, 3), (1, 1, 1, 1), (0, 0, 0, 0))",
    "ops.deformable_conv2d(dcx, dcw, dco3, (2, 3), (1, 1, 2, 2), (1, 0, 0, 1), dcb)",
    "ops.deformable_conv2d(dcx, dcw, dco32, (2, 3), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 2, 2))",
    "ops.deformable_conv2d(dcx, dcwg, dco, (2, 3), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 2)",
    "ops.deformable_conv2d(dcx, dcw, dco2, (2, 3), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 1, 2)",
], [("ops.deformable_conv2d({}, {}, {}, (2, 3), (1, 1, 1, 1), (0, 0, 0, 0))", ["DCX", "DCW", "DCO"]),
    ("ops.deformable_conv2d({}, {}, {}, (2, 3), (1, 1, 2, 2), (1, 0, 0, 1), {}) * 0.5",
     ["DCX", "DCW", "DCO3", "DCB"])])

_family("stft", [
    "ops.stft(wave, 8)", "ops.stft(wave, 8, 3, 6, hann)",
    "ops.stft(wave, 8, 2, None, None, False, 'REFLECT', True)",
    "ops.stft(wave1, 8, return_complex=False)", "ops.stft(wave, 8, center=True, pad_mode='CONSTANT')",
    "ops.view_as_real(ops.stft(wave, 8, onesided=False, return_complex=True))",
    "ops.view_as_real(ops.stft(wave1, 8, 3, return_complex=True))",
])

_family("grid_sample", [
    *(f"ops.grid_sample(gsx, gsg, '{m}', '{p}', {a})" for m in ("bilinear", "nearest")
      for p in ("zeros", "border", "reflection") for a in (False, True)),
    *(f"ops.grid_sample(gsx5, gsg5, '{m}', '{p}', False)" for m in ("bilinear", "nearest")
      for p in ("zeros", "border", "reflection")),
], [("ops.grid_sample({}, {}, 'bilinear', 'zeros', False) * 1.5", ["GSX", "GSG"]),
    ("ops.grid_sample({}, {}, 'bilinear', 'border', True)", ["GSX", "GSG"])])


if __name__ == "__main__":  # re-record ms_ops_array_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_ops_array_expected.json"))
