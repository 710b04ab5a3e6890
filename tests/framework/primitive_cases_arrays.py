"""Harness cases (see primitive_cases.py) of the index-driven array primitives: element-wise
gathers and scatters along an axis (ops/scatter_elements.py), N-d scatters
(ops/tensor_scatter.py), segment reductions and their gradient (ops/segment.py), binary
search (ops/search.py), SparseSliceGrad's index matching (ops/selection_backprops.py) and
the CTC loss (ops/ctc.py, references in primitive_cases_ctc.py).
References loop over the elements as each op's definition reads. These primitives have no
TVM lowering: graph mode runs their kernels on the host (test_lowering checks that path).
Inputs are valid ones: indices in range, positions unique where an overwrite's winner is
unspecified, distinct values where a max/min's gradient would hit a tie.
"""

from __future__ import annotations

import numpy as np

from framework.ops.scatter_elements import GatherElements, ScatterElements
from framework.ops.search import SearchSorted
from framework.ops.segment import SegmentGrad, UnsortedSegment
from framework.ops.selection_backprops import SparseSliceMatches
from framework.ops.tensor_scatter import TensorScatter

from .primitive_cases import Case, separated


# -- GatherElements / ScatterElements: out[i][j] = x[index[i][j]][j] (axis 0) ----------------
def _element_position(where: tuple[int, ...], index: np.ndarray, axis: int, size: int
                      ) -> tuple[int, ...]:
    """The input element ``index[where]`` names: ``where`` with its ``axis`` entry replaced."""
    pos = list(where)
    pos[axis] = int(index[where]) % size  # negative positions count from the end
    return tuple(pos)


def _gather_elements_ref(axis: int):
    def ref(x, index):
        ax = axis % x.ndim
        out = np.empty(index.shape, x.dtype)
        for where in np.ndindex(index.shape):
            out[where] = x[_element_position(where, index, ax, x.shape[ax])]
        return out
    return ref


def _scatter_elements_ref(axis: int, reduction: str):
    def ref(x, index, updates):
        ax = axis % x.ndim
        out = x.copy()
        for where in np.ndindex(index.shape):
            pos = _element_position(where, index, ax, x.shape[ax])
            out[pos] = out[pos] + updates[where] if reduction == "add" else updates[where]
        return out
    return ref


def _gather_inputs(r):
    # index smaller than x off the axis (3 of 4 columns), negative positions among them
    return [r.standard_normal((3, 4)), np.array([[0, -1, 2], [2, 1, -3]])]


def _scatter_add_inputs(r):  # repeated positions accumulate
    return [r.standard_normal((2, 5)), np.array([[4, 0, 4], [-1, 2, 2]]),
            r.standard_normal((2, 3))]


def _scatter_none_inputs(r):  # each column's positions distinct: the overwrite is defined
    return [r.standard_normal((4, 3)), np.array([[3, 0], [1, -3], [0, 2]]),
            r.standard_normal((3, 2))]


# -- TensorScatter: x[indices[i][:K]] (a slice of x.shape[K:]) written or added -----------
def _tensor_scatter_ref(mode: str):
    def ref(x, indices, updates):
        out = x.copy()
        for lead in np.ndindex(indices.shape[:-1]):
            pos = tuple(int(i) for i in indices[lead])
            out[pos] = out[pos] + updates[lead] if mode == "add" else updates[lead]
        return out
    return ref


def _tensor_update_inputs(r):  # K=1 of a (5, 3) input: whole rows, distinct, 2-d leading
    return [r.standard_normal((5, 3)), np.array([[[2], [0]], [[4], [1]]]),
            r.standard_normal((2, 2, 3))]


def _tensor_add_inputs(r):  # K=2 of a (3, 4, 2) input: pairs, one repeated
    return [r.standard_normal((3, 4, 2)), np.array([[0, 3], [2, 1], [0, 3], [1, 0]]),
            r.standard_normal((4, 2))]


# -- UnsortedSegment: per segment the reduction of its slices; SegmentGrad its gradient ----
_IDENTITY = {"sum": lambda dt: 0.0, "prod": lambda dt: 1.0,
             "max": lambda dt: np.finfo(dt).min, "min": lambda dt: np.finfo(dt).max}
_REDUCE = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


def _members(ids: np.ndarray, segment: int) -> list[tuple[int, ...]]:
    return [where for where in np.ndindex(ids.shape) if ids[where] == segment]


def _segment_ref(kind: str, num: int):
    def ref(x, ids):
        rest = x.shape[ids.ndim:]
        out = np.empty((num,) + rest, x.dtype)
        for s in range(num):  # ids outside [0, num) belong to no segment: dropped
            rows = [x[where] for where in _members(ids, s)]
            out[s] = _REDUCE[kind](rows, axis=0) if rows else _IDENTITY[kind](x.dtype)
        return out
    return ref


def _segment_grad_ref(kind: str, num: int):
    """d(sum(out * dout))/dx entry by entry, from the definition of each reduction."""
    def ref(x, ids, out, dout):
        grad = np.zeros_like(x)
        for s in range(num):
            members = _members(ids, s)
            for k in np.ndindex(x.shape[ids.ndim:]):
                values = [x[m + k] for m in members]
                for j, m in enumerate(members):
                    if kind == "sum":
                        d = 1.0
                    elif kind == "prod":
                        d = np.prod(values[:j] + values[j + 1:])
                    else:  # the extreme's cotangent split evenly among the entries reaching it
                        hits = sum(v == out[(s,) + k] for v in values)
                        d = float(values[j] == out[(s,) + k]) / hits
                    grad[m + k] = d * dout[(s,) + k]
        return grad
    return ref


# segment 1 of 5 is empty; ids -1 and 5 are dropped
_IDS = np.array([3, 0, -1, 3, 2, 0, 5, 3])


def _segment_inputs(r):
    return [r.standard_normal((8, 2)), _IDS]


# of 4 segments none empty (an empty max/min holds the dtype's extreme: its finite
# differences, and its cast to float32, overflow); ids -1 and 4 dropped
_FULL_IDS = np.array([3, 0, -1, 3, 2, 0, 4, 1])


def _segment_extreme_inputs(r):  # distinct values: no ties under finite differences
    return [separated((8, 2))(r)[0], _FULL_IDS]


def _segment_full_inputs(r):
    return [r.standard_normal((8, 2)), _FULL_IDS]


def _segment_prod_inputs(r):
    # zeros: one in a column of segment 3 (its own gradient is the others' product), two in
    # a column of segment 0 (every gradient there 0); the product is multilinear, so finite
    # differences stay exact at the zeros
    x = r.uniform(0.5, 1.5, (8, 2)) * r.choice([-1, 1], (8, 2))
    x[3, 0] = 0.0
    x[1, 1] = x[5, 1] = 0.0
    return [x, _IDS]


def _segment_2d_ids_inputs(r):  # ids spanning two leading axes
    return [r.standard_normal((2, 3, 2)), np.array([[1, 0, 2], [1, 1, -2]])]


def _segment_grad_inputs(kind: str, num: int, make, ties: bool = False):
    def inputs(r):
        x, ids = make(r)
        if ties:  # two maxima of segment 3's first column: each gets half the cotangent
            x = x.copy()
            x[0, 0] = x[3, 0] = x[[0, 3], 0].max() + 1.0
        out = _segment_ref(kind, num)(x, ids)
        return [x, ids, out, r.standard_normal(out.shape)]
    return inputs


# -- SearchSorted: the first (last) insertion position keeping each row sorted --------------
def _search_ref(right: bool, dtype: str):
    def ref(seq, values):
        rows = seq.reshape(-1, seq.shape[-1])
        out = np.empty(values.shape, dtype)
        for where in np.ndindex(values.shape):
            row = rows[0] if seq.ndim == 1 else rows[np.ravel_multi_index(where[:-1], seq.shape[:-1])]
            v = values[where]
            out[where] = sum(1 for e in row if (e <= v if right else e < v))
        return out
    return ref


def _search_1d_inputs(r):
    # repeated entries, values equal to entries (left and right differ there), beyond both ends
    seq = np.array([-1.5, 0.0, 0.0, 0.5, 2.0, 2.0, 2.0, 3.5])
    values = np.concatenate([seq[[0, 1, 4, 7]], [-4.0, 9.0], r.uniform(-2, 4, 6)]).reshape(3, 4)
    return [seq, values]


def _search_rows_inputs(r):  # one sorted row per leading position
    seq = np.sort(r.integers(-3, 4, (2, 3, 5)).astype(np.float64), axis=-1)
    values = np.concatenate([seq[..., :2], r.integers(-4, 5, (2, 3, 2)).astype(np.float64)], -1)
    return [seq, values]



# -- SparseSliceMatches: m[i][j] = 1 where indices[i] - start == new_indices[j] ----------------
def _sparse_slice_inputs(r):
    indices = np.array([[0, 1], [1, 2], [2, 2], [3, 0], [1, 1]], np.int64)
    start = np.array([1, 1], np.int64)
    new_indices = np.array([[0, 1], [1, 1], [0, 0], [2, 5]], np.int64)  # the last matches nothing
    return [indices, start, new_indices]


def _sparse_slice_ref(indices, start, new_indices):
    out = np.zeros((len(indices), len(new_indices)), np.float32)
    for i, row in enumerate(indices):
        for j, new in enumerate(new_indices):
            out[i, j] = float(all(int(a) - int(s) == int(b) for a, s, b in zip(row, start, new)))
    return out


ARRAY_CASES: list[Case] = [
    Case(GatherElements(0), _gather_inputs, _gather_elements_ref(0)),
    Case(GatherElements(-1), lambda r: [r.standard_normal((2, 3, 4)),
                                        r.integers(-4, 4, (2, 2, 5))], _gather_elements_ref(-1)),
    Case(ScatterElements(1, "add"), _scatter_add_inputs, _scatter_elements_ref(1, "add")),
    Case(ScatterElements(0, "none"), _scatter_none_inputs, _scatter_elements_ref(0, "none")),
    Case(TensorScatter("update"), _tensor_update_inputs, _tensor_scatter_ref("update")),
    Case(TensorScatter("add"), _tensor_add_inputs, _tensor_scatter_ref("add")),
    Case(UnsortedSegment("sum", 5), _segment_inputs, _segment_ref("sum", 5)),
    Case(UnsortedSegment("prod", 5), _segment_prod_inputs, _segment_ref("prod", 5)),
    Case(UnsortedSegment("max", 4), _segment_extreme_inputs, _segment_ref("max", 4)),
    Case(UnsortedSegment("min", 4), _segment_extreme_inputs, _segment_ref("min", 4)),
    # an empty segment: the dtype's lowest (highest) value
    Case(UnsortedSegment("max", 5), _segment_inputs, _segment_ref("max", 5), diff=()),
    Case(UnsortedSegment("min", 5), _segment_inputs, _segment_ref("min", 5), diff=()),
    Case(UnsortedSegment("sum", 3), _segment_2d_ids_inputs, _segment_ref("sum", 3)),
    Case(SegmentGrad("sum", 5), _segment_grad_inputs("sum", 5, _segment_inputs),
         _segment_grad_ref("sum", 5)),
    Case(SegmentGrad("prod", 5), _segment_grad_inputs("prod", 5, _segment_prod_inputs),
         _segment_grad_ref("prod", 5)),
    Case(SegmentGrad("max", 4), _segment_grad_inputs("max", 4, _segment_full_inputs, ties=True),
         _segment_grad_ref("max", 4)),
    Case(SegmentGrad("min", 4), _segment_grad_inputs("min", 4, _segment_full_inputs),
         _segment_grad_ref("min", 4)),
    Case(SearchSorted(False, "int64"), _search_1d_inputs, _search_ref(False, "int64")),
    Case(SearchSorted(True, "int32"), _search_1d_inputs, _search_ref(True, "int32")),
    Case(SearchSorted(True, "int64"), _search_rows_inputs, _search_ref(True, "int64")),
    Case(SparseSliceMatches(np.float32), _sparse_slice_inputs, _sparse_slice_ref),
]
