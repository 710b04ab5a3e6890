"""Tensor indexing and item assignment: NumPy's results, graph mode == PyNative, and
gradients against central finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn
from framework.common import dtype as mstype

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3, 5))


def t32(value):
    return Tensor(np.asarray(value), mstype.int32)


# (name, index built from framework tensors, the same index for NumPy)
GET_CASES = [
    ("0d-tensor", lambda: t32(2), 2),
    ("negative-0d-tensor", lambda: t32(-1), -1),
    ("index-tensor", lambda: t32([3, 0, 3]), [3, 0, 3]),
    ("index-tensor-2d", lambda: t32([[1, 2], [0, 0]]), np.array([[1, 2], [0, 0]])),
    ("mixed-0d-slice", lambda: (t32(1), slice(None), slice(1, 3)), (1, slice(None), slice(1, 3))),
    ("middle-tensor", lambda: (slice(None), t32([2, 0])), (slice(None), [2, 0])),
    ("non-adjacent-advanced", lambda: (0, slice(None), t32([4, 1])), (0, slice(None), [4, 1])),
    ("adjacent-advanced", lambda: (slice(None), 1, t32([4, 1])), (slice(None), 1, [4, 1])),
    ("two-0d-tensors", lambda: (t32(3), slice(None), t32(2)), (3, slice(None), 2)),
    ("strided", lambda: (slice(None, None, 2), slice(None, None, -1), 1),
     (slice(None, None, 2), slice(None, None, -1), 1)),
    ("none-ellipsis", lambda: (None, Ellipsis, t32(0)), (None, Ellipsis, 0)),
    ("list", lambda: [1, 1, 2], [1, 1, 2]),
]


@pytest.mark.parametrize("name,make,np_index", GET_CASES, ids=[c[0] for c in GET_CASES])
def test_getitem_matches_numpy(name, make, np_index):
    got = Tensor(X)[make()].asnumpy()
    want = X[np_index]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_bool_mask_getitem_in_pynative():
    x = Tensor(X)
    np.testing.assert_array_equal(x[x > 0.5].asnumpy(), X[X > 0.5])
    mask = X[:, 0, 0] > 0
    np.testing.assert_array_equal(x[Tensor(mask)].asnumpy(), X[mask])


SET_CASES = [
    ("0d-tensor-row", lambda: t32(2), 2, (3, 5)),
    ("tensor-slice-mix", lambda: (t32([3, 0]), slice(None), slice(0, 2)),
     ([3, 0], slice(None), slice(0, 2)), (2, 3, 2)),
    ("broadcast-scalar", lambda: (slice(1, 3), t32(1)), (slice(1, 3), 1), ()),
    ("broadcast-row", lambda: (Ellipsis, slice(0, 5, 2)), (Ellipsis, slice(0, 5, 2)), (3,)),
    ("int-and-slice", lambda: (1, 2), (1, 2), (5,)),
]


@pytest.mark.parametrize("name,make,np_index,vshape", SET_CASES, ids=[c[0] for c in SET_CASES])
def test_setitem_matches_numpy(name, make, np_index, vshape):
    value = RNG.standard_normal(vshape)
    x = Tensor(X.copy())
    x[make()] = Tensor(value)
    want = X.copy()
    want[np_index] = value
    np.testing.assert_array_equal(x.asnumpy(), want)


def test_setitem_mask_and_casts():
    x = Tensor(X.copy())
    x[x < 0] = 0
    np.testing.assert_array_equal(x.asnumpy(), np.where(X < 0, 0, X))
    counts = Tensor(np.zeros(4, np.int32))
    counts[t32(1)] = 2.7  # cast to the tensor's dtype, as NumPy does
    np.testing.assert_array_equal(counts.asnumpy(), [0, 2, 0, 0])
    assert counts.dtype == mstype.int32


def test_setitem_on_an_alias_is_seen_through_both_names():
    x = Tensor(X.copy())
    y = x
    y[0] = 0.0
    assert np.all(x.asnumpy()[0] == 0)


# -- graph mode == PyNative ------------------------------------------------------------------


def _index_program(x, i, idx, v):
    """getitem and setitem with tensors in one program (a loop-counter style ``i``)."""
    y = x * 1.0
    y[idx, :, 0:2] = v
    y[i] = y[i] * 2.0
    return y[i, :, 1:3] + y[:, t32(1)].sum(), y[0, :, idx], y


def test_graph_mode_equals_pynative_for_indexing():
    args = (Tensor(X), t32(1), t32([3, 0]), Tensor(RNG.standard_normal((2, 3, 2))))
    eager = _index_program(*args)
    graph = ms.jit(_index_program)(*args)
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12)
    # a different counter value reuses the compiled function and still matches
    args2 = (args[0], t32(3), args[2], args[3])
    for e, g in zip(_index_program(*args2), ms.jit(_index_program)(*args2)):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12)


def test_graph_mode_mask_assignment_and_parameter_item_update():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.table = Parameter(Tensor(np.zeros((3, 2))), name="table")

        def construct(self, x, i):
            self.table[i] = x[i]  # a state update of the compiled function
            y = x * 1.0
            y[y < 0] = 0.0
            return y

    x, i = Tensor(RNG.standard_normal((3, 2))), t32(2)
    eager_net, graph_net = Net(), Net()
    eager = eager_net(x, i)
    graph = ms.jit(graph_net.construct)(x, i)
    np.testing.assert_allclose(graph.asnumpy(), eager.asnumpy())
    np.testing.assert_allclose(graph_net.table.asnumpy(), eager_net.table.asnumpy())
    assert np.all(eager_net.table.asnumpy()[2] == x.asnumpy()[2])


# -- gradients ---------------------------------------------------------------------------------


W = RNG.standard_normal((4, 3, 5))


def _loss(x, v):
    """Reads of x before and after an item assignment of v; both get gradients."""
    before = (x[t32([2, 2, 0])] * 3.0).sum()
    y = x * x
    y[t32(1), :, 0:2] = v * v
    y[t32([3, 0]), t32(2)] = v[0:2, 0:1] * 2.0
    return (y * Tensor(W)).sum() + before + x[t32(-1), 1:3, ::2].sum()


def _numeric(fn, arrays, pos, eps=1e-6):
    grad = np.zeros_like(arrays[pos])
    for idx in np.ndindex(arrays[pos].shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[pos][idx] += eps
        minus[pos][idx] -= eps
        grad[idx] = (float(fn(*map(Tensor, plus)).asnumpy())
                     - float(fn(*map(Tensor, minus)).asnumpy())) / (2 * eps)
    return grad


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_indexing_gradients_match_finite_differences(compiled):
    arrays = [X.copy(), RNG.standard_normal((3, 2))]
    grad_fn = ms.grad(_loss, grad_position=(0, 1))
    grad_fn = ms.jit(grad_fn) if compiled else grad_fn
    gx, gv = grad_fn(Tensor(arrays[0]), Tensor(arrays[1]))
    np.testing.assert_allclose(gx.asnumpy(), _numeric(_loss, arrays, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gv.asnumpy(), _numeric(_loss, arrays, 1), rtol=1e-6, atol=1e-7)


def test_gradient_of_an_input_assigned_in_place():
    def f(x):
        x[0] = 0.0  # the input's old row 0 no longer reaches the output
        return (x * x).sum()

    x = RNG.standard_normal((3, 2))
    grad = ms.grad(f)(Tensor(x)).asnumpy()
    want = 2 * x
    want[0] = 0
    np.testing.assert_allclose(grad, want)


# -- errors -------------------------------------------------------------------------------------


def test_out_of_bounds_index_tensor_names_op_and_line():
    with pytest.raises(IndexError, match=r"Gather: index 7 is out of bounds for axis 0 of size "
                                         r"4 \(at .*test_indexing.py"):
        Tensor(X)[t32([1, 7])]


@pytest.mark.slow
def test_bool_mask_getitem_in_graph_mode_selects_as_numpy():
    """(it compiles split around the mask, tests/framework/test_value_shapes_graph.py)"""
    np.testing.assert_array_equal(ms.jit(lambda x: x[x > 0])(Tensor(X)).asnumpy(), X[X > 0])


def test_mask_not_matching_the_leading_axes_names_both_shapes():
    x = np.zeros((3, 4, 2), np.float32)
    with pytest.raises(IndexError, match=r"getitem: mask of shape \(4, 3\) does not match the "
                                         r"leading axes of \(3, 4, 2\) \(at .*test_indexing.py"):
        Tensor(x)[Tensor(np.ones((4, 3), bool))]


def test_two_nd_index_tensors_are_refused():
    with pytest.raises(IndexError, match="at most one index tensor"):
        Tensor(X)[t32([0, 1]), t32([1, 2])]


def test_value_that_does_not_broadcast_is_refused():
    x = Tensor(X.copy())
    with pytest.raises(IndexError, match=r"setitem: value of shape \(4,\) cannot be broadcast"):
        x[t32(0)] = Tensor(np.ones(4))


def test_indexing_program_generates_cuda_code_without_a_gpu(tmp_path):
    ms.set_context(device_target="GPU")
    grad_fn = ms.jit(ms.grad(_loss, grad_position=(0, 1)), ir_dir=str(tmp_path))
    grad_fn.compile(Tensor(X.astype(np.float32)), Tensor(np.ones((3, 2), np.float32)),
                    load=False)
    assert (tmp_path / "20_kernels.cu").read_text().count("__global__") > 0


def test_gradient_reaches_a_float32_tensor_through_a_float64_product():
    def f(x):
        y = x[t32([0, 0])] * Tensor(np.ones((2, 3, 5)))  # promoted to float64
        x2 = x * 1.0
        x2[t32(1)] = y[0]
        return (x2 * Tensor(W)).sum() + y.sum()

    x = X.astype(np.float32)
    grad = ms.grad(f)(Tensor(x)).asnumpy()
    want = W.copy()
    want[1] = 0
    want[0] += 2 + W[1]
    np.testing.assert_allclose(grad, want, rtol=1e-6)


def test_augmented_item_assignment_and_in_place_parameter_forms():
    def program(x, i):
        y = x * 1.0
        y[i] += 1.0
        y[i + 1] = y[i] * 2.0
        return y

    x, i = Tensor(X), t32(1)
    want = X.copy()
    want[1] += 1.0
    want[2] = want[1] * 2.0
    eager, graph = program(x, i), ms.jit(program)(x, i)
    np.testing.assert_allclose(eager.asnumpy(), want)
    np.testing.assert_allclose(graph.asnumpy(), want)
    table = Parameter(Tensor(np.zeros((3, 2))), name="table")
    assert ms.ops.ScatterUpdate()(table, t32([2]), Tensor(np.ones((1, 2)))) is table
    assert ms.ops.IndexAdd(1)(table, t32([0, 0]), Tensor(np.ones((3, 2)))) is table
    np.testing.assert_array_equal(table.asnumpy(), [[2, 0], [2, 0], [3, 1]])


def test_counter_loop_reading_and_writing_rows_has_exact_gradients():
    """An RNN-style PyNative loop over a 0-d int32 counter: xs[i] reads, hs[i] = h writes."""
    def run(xs, h):
        i = Tensor(np.array(0), mstype.int32)
        hs = ms.ops.zeros((xs.shape[0], 3), mstype.float64)
        while i < xs.shape[0]:
            h = ms.ops.tanh(h * 0.5 + xs[i])
            hs[i] = h
            i += 1
        return (hs * Tensor(W[:, 0, :3])).sum()

    arrays = [RNG.standard_normal((4, 3)), RNG.standard_normal(3)]
    gxs, gh = ms.grad(run, grad_position=(0, 1))(*map(Tensor, arrays))
    np.testing.assert_allclose(gxs.asnumpy(), _numeric(run, arrays, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gh.asnumpy(), _numeric(run, arrays, 1), rtol=1e-6, atol=1e-8)


# -- item assignment inside compiled control flow ---------------------------------------------


def _assign_in_branch(x, flag):
    y = x
    if flag > 0:  # a tensor condition: staged as an If region
        y[0] = 0.0
    return y


def test_item_assignment_in_a_compiled_branch_leaves_the_argument_unchanged():
    x, compiled = Tensor(X.copy()), ms.jit(_assign_in_branch)
    for flag in (1, 0):
        want = X.copy()
        if flag:
            want[0] = 0.0
        np.testing.assert_array_equal(compiled(x, t32(flag)).asnumpy(), want)
        np.testing.assert_array_equal(x.asnumpy(), X)  # graph mode: tensors are values


def test_counter_loop_writing_rows_compiles_with_the_same_values_and_gradients():
    def run(xs, h):
        i = Tensor(np.array(0), mstype.int32)
        hs = ms.ops.zeros((xs.shape[0], 3), mstype.float64)
        while i < xs.shape[0]:  # a While region carrying hs
            h = ms.ops.tanh(h * 0.5 + xs[i])
            hs[i] = h
            i += 1
        return (hs * Tensor(W[:, 0, :3])).sum()

    args = tuple(Tensor(RNG.standard_normal(s)) for s in ((4, 3), (3,)))
    np.testing.assert_allclose(ms.jit(run)(*args).asnumpy(), run(*args).asnumpy(), rtol=1e-12)
    eager = ms.grad(run, grad_position=(0, 1))(*args)
    graph = ms.jit(ms.grad(run, grad_position=(0, 1)))(*args)
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-9, atol=1e-12)
