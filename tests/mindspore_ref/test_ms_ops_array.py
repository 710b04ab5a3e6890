"""The ``ops`` array names of :mod:`tests.mindspore_ref.ms_ops_array_programs` in both modes
(values, dtypes, shapes, gradients): against MindSpore 2.10's recorded answers
(``ms_ops_array_expected.json``, CI), our two modes against each other, and MindSpore
itself where ``MINDSPORE_PYTHON`` names its venv. Then what the recording leaves out:
gradients MindSpore does not take (finite differences), names MindSpore 2.10 cannot run on
CPU (its ``UNTESTABLE``: NumPy), and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from tests.mindspore_ref.ms_ops_array_programs import PROGRAMS, UNTESTABLE  # noqa: F401
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

TOL = {"rtol": 2e-5, "atol": 2e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_ops_array_expected.json", per_mode=True,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


X = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
ROWS = np.array([[7.0, -8.0, 9.0, 1.0], [0.5, 1.5, 2.5, 3.5]], np.float32)
W = np.array([[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -2.0, 1.0], [1.0, 2.0, -0.5, 4.0]], np.float32)


# -- what MindSpore 2.10 cannot answer on CPU: NumPy ------------------------------------
@pytest.mark.parametrize("right", [False, True])
def test_bucketize_matches_numpy(right):
    values = np.array([[3.0, 6.0, 9.0], [0.0, 7.0, 5.0]], np.float32)
    edges = [1.0, 3.0, 5.0, 7.0]
    want = np.searchsorted(edges, values, side="right" if right else "left")
    for got in both_modes(lambda v: ops.bucketize(v, edges, right=right), values):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)
    ints = ops.bucketize(Tensor(values.astype(np.int32)), [1, 3, 5, 7], right=right).asnumpy()
    np.testing.assert_array_equal(ints, want)


def test_searchsorted_out_int32_and_sorter():
    seq, values = np.array([7.0, 1.0, 5.0, 3.0], np.float32), np.array([3.0, 6.0], np.float32)
    order = np.argsort(seq)
    got = ops.searchsorted(Tensor(seq), Tensor(values), sorter=Tensor(order), out_int32=True)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), np.searchsorted(seq, values, sorter=order))


# -- gradients MindSpore does not take: the derivatives ---------------------------------
def _grads(fn, *arrays):
    grads = ops.grad(fn, grad_position=tuple(range(len(arrays))))(*(Tensor(a) for a in arrays))
    return [g.asnumpy() for g in (grads if isinstance(grads, tuple) else (grads,))]


@pytest.mark.parametrize("name,sign", [("inplace_add", 1.0), ("inplace_sub", -1.0)])
def test_inplace_row_ops_differentiate(name, sign):
    """d/dx is the weight everywhere; d/dv the weight of each row v lands on."""
    fn = getattr(ops, name)
    dx, dv = _grads(lambda x, v: (fn(x, v, (0, 2)) * Tensor(W)).sum(), X, ROWS)
    np.testing.assert_array_equal(dx, W)
    np.testing.assert_array_equal(dv, sign * W[[0, 2]])


def test_inplace_update_and_index_fill_differentiate():
    dx, dv = _grads(lambda x, v: (ops.inplace_update(x, v, (0, 2)) * Tensor(W)).sum(), X, ROWS)
    np.testing.assert_array_equal(dx, W * np.array([[0], [1], [0]], np.float32))
    np.testing.assert_array_equal(dv, W[[0, 2]])
    one = Tensor(np.array([1], np.int32))
    (dx,) = _grads(lambda x: (ops.index_fill(x, 1, one, 2.0) * Tensor(W)).sum(), X)
    np.testing.assert_array_equal(dx, W * np.array([1, 0, 1, 1], np.float32))


def test_segment_product_gradient_is_finite_difference():
    y = np.array([[1.5, 0.0, 2.0], [-2.0, 0.0, 0.5], [3.0, 3.0, 0.25]], np.float32)
    ids = Tensor(np.array([0, 0, 1], np.int32))
    (g,) = _grads(lambda a: (ops.unsorted_segment_prod(a, ids, 2) ** 2).sum(), y)
    eps, num = 1e-3, np.zeros_like(y, np.float64)

    def f(v):
        return (np.stack([v[0] * v[1], v[2]]) ** 2).sum()
    for idx in np.ndindex(y.shape):
        up, down = y.astype(np.float64), y.astype(np.float64)
        up[idx] += eps
        down[idx] -= eps
        num[idx] = (f(up) - f(down)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-4)


# -- bad input: one line naming the op ---------------------------------------------------
def test_bad_input_says_what():
    x = Tensor(X)
    with pytest.raises(IndexError, match="TensorScatterUpdate: indices.*out of range"):
        ops.tensor_scatter_update(x, Tensor(np.array([[0, 4]], np.int32)), Tensor(np.ones(1, np.float32)))
    with pytest.raises(ValueError, match="GatherElements: index of shape .* rank 2"):
        ops.gather_elements(x, 0, Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError, match="updates of shape"):
        ops.tensor_scatter_add(x, Tensor(np.array([[0]], np.int32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="segment_ids of shape"):
        ops.unsorted_segment_sum(x, Tensor(np.array([0, 1], np.int32)), 2)
    with pytest.raises(ValueError, match="src of shape"):
        ops.slice_scatter(x, Tensor(np.ones((3, 3), np.float32)), 1, 0, 4, 2)
    with pytest.raises(ValueError, match="reduction"):
        ops.tensor_scatter_elements(x, Tensor(np.zeros((1, 1), np.int32)),
                                    Tensor(np.ones((1, 1), np.float32)), 0, "mul")
    for call in (lambda: ops.bucketize(x, Tensor(np.ones(2, np.float32))),
                 lambda: ops.searchsorted(Tensor(np.ones(3, np.float32)), x, side="middle")):
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        assert "\n" not in str(info.value)


# -- value-dependent shapes: a compiled Cell splits its graph there, PyNative's results ---
@pytest.mark.slow
@pytest.mark.parametrize("call", [
    lambda x: ops.masked_select(x, x > 0), lambda x: ops.nonzero(x), lambda x: ops.argwhere(x),
    lambda x: ops.unique(x)[0], lambda x: ops.unique_consecutive(x)])
def test_value_dependent_shapes_compile_with_pynatives_results(call):
    class Net(ms.nn.Cell):
        def construct(self, x):
            return call(x * 1.0)

    net = Net()
    eager = net(Tensor(X)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = net(Tensor(X)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert graph.dtype == eager.dtype
    np.testing.assert_array_equal(graph, eager)


def test_nonzero_as_tuple_and_unique_gradients():
    """``as_tuple`` (MindSpore's NonZeroExt kernel is unregistered on CPU) is NumPy's
    nonzero; unique's gradient reaches each value's first occurrence (MindSpore has none)."""
    z = np.array([[0.5, 0.0, -1.5], [0.0, 2.0, 0.0]], np.float32)
    for got, want in zip(ops.nonzero(Tensor(z), as_tuple=True), np.nonzero(z)):
        assert got.dtype == ms.int64
        np.testing.assert_array_equal(got.asnumpy(), want)
    rep = np.array([2.5, -1.0, 2.5, 4.0], np.float32)
    (g,) = _grads(lambda a: (ops.unique(a)[0] * Tensor(np.array([1.0, 2.0, 3.0], np.float32))).sum(), rep)
    np.testing.assert_array_equal(g, [1.0, 2.0, 0.0, 3.0])
    (g,) = _grads(lambda a: (ops.unique_consecutive(a) * Tensor(np.array([1.0, 2.0, 3.0], np.float32))).sum(),
                  np.array([1.0, 1.0, 2.0, 1.0], np.float32))
    np.testing.assert_array_equal(g, [1.0, 0.0, 2.0, 3.0])


def test_coalesce_sums_repeated_indices_in_sorted_order():
    indices = np.array([[1, 0, 1, 0, 2], [2, 1, 2, 0, 0]], np.int64)
    values = np.array([1.0, -2.0, 3.0, 0.5, 4.0], np.float32)
    out_indices, out_values, shape = ops.coalesce(Tensor(indices), Tensor(values),
                                                  Tensor(np.array([3, 3], np.int64)))
    dense = np.zeros((3, 3), np.float32)
    np.add.at(dense, tuple(indices), values)
    np.testing.assert_array_equal(out_indices.asnumpy(), [[0, 0, 1, 2], [0, 1, 2, 0]])
    np.testing.assert_array_equal(out_values.asnumpy(), dense[tuple(out_indices.asnumpy())])
    np.testing.assert_array_equal(shape.asnumpy(), [3, 3])
    (g,) = _grads(lambda v: (ops.coalesce(Tensor(indices), v, Tensor(np.array([3, 3], np.int64)))[1]
                             * Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))).sum(), values)
    np.testing.assert_array_equal(g, [3.0, 2.0, 3.0, 1.0, 4.0])


def test_move_to_cpu_copies():
    """MindSpore 2.10's CPU build has no MoveTo kernel for ``ops.move_to(x, 'CPU')``."""
    x = Tensor(X)
    y = ops.move_to(x, "CPU")
    assert y is not x
    np.testing.assert_array_equal(y.asnumpy(), X)
    np.testing.assert_array_equal(x.move_to("CPU").asnumpy(), X)
    with pytest.raises(RuntimeError, match="move_to: .*GPU"):
        ops.move_to(x, "GPU")


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, float("inf")])
def test_clip_by_norm_in_both_modes(norm_type):
    """MindSpore 2.10 compiles no ``clip_by_norm`` in a Cell, and its L1 norm on CPU leaves
    ``x`` unscaled: the documented formula, in both of our modes."""
    norm = np.linalg.norm(X.reshape(-1).astype(np.float64), norm_type)
    want = X * min(1.0, 2.0 / (norm + 1e-6))
    for got in both_modes(lambda x: ops.clip_by_norm(x, 2.0, norm_type), X):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_iou_gradient_is_finite_difference():
    """MindSpore's IOU has no gradient (zeros); ours is the derivative of its formula."""
    anchors = np.array([[0.0, 0.0, 10.0, 10.0], [2.0, 3.0, 8.0, 12.0]], np.float32)
    gt = Tensor(np.array([[1.0, 1.0, 9.0, 11.0], [0.0, 4.0, 9.0, 10.0]], np.float32))
    weights = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)
    (g,) = _grads(lambda a: (ops.iou(a, gt) * Tensor(weights)).sum(), anchors)
    eps, num = 1e-2, np.zeros_like(anchors, np.float64)
    for idx in np.ndindex(anchors.shape):
        up, down = anchors.copy(), anchors.copy()
        up[idx] += eps
        down[idx] -= eps
        f = [(ops.iou(Tensor(v), gt).asnumpy() * weights).sum() for v in (up, down)]
        num[idx] = (f[0] - f[1]) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-3, atol=1e-3)


def test_ctc_zero_infinity_zeroes_the_loss_too():
    """MindSpore's docs: an infinite loss and its gradient become 0 with ``zero_infinity``
    (its CPU kernel zeroes the gradient only, returning ``inf``)."""
    rng = np.random.default_rng(1)
    logp = Tensor(np.log(rng.dirichlet(np.ones(4), (5, 2))).astype(np.float32))
    targets = Tensor(np.array([[1, 1, 1], [3, 1, 0]], np.int32))
    lengths, target_lengths = Tensor(np.array([4, 4], np.int32)), Tensor(np.array([3, 2], np.int32))
    loss = ops.ctc_loss(logp, targets, lengths, target_lengths, 0, "none", True)[0].asnumpy()
    assert loss[0] == 0 and np.isfinite(loss[1]) and loss[1] > 0
    assert np.isinf(ops.ctc_loss(logp, targets, lengths, target_lengths, 0, "none")[0].asnumpy()[0])


def test_fractional_max_pool2d_gradient_reaches_the_maxima():
    """MindSpore 2.10's CPU gradient of ``fractional_max_pool2d`` raises a TypeError: ours
    sends each output's cotangent to the input entry its index names."""
    x = (np.random.default_rng(3).permutation(2 * 2 * 7 * 9) / 10).astype(np.float32).reshape(2, 2, 7, 9)
    samples = Tensor(np.array([[[0.3, 0.7], [0.9, 0.1]], [[0.5, 0.5], [0.05, 0.95]]], np.float32))
    weights = np.arange(1, 49, dtype=np.float32).reshape(2, 2, 3, 4)
    _, index = ops.fractional_max_pool2d(Tensor(x), 2, (3, 4), None, True, samples)
    (g,) = _grads(lambda a: (ops.fractional_max_pool2d(a, 2, (3, 4), None, False, samples)
                             * Tensor(weights)).sum(), x)
    want = np.zeros((2, 2, 63), np.float32)
    where = (np.arange(2)[:, None, None], np.arange(2)[None, :, None], index.asnumpy().reshape(2, 2, -1))
    np.add.at(want, where, weights.reshape(2, 2, -1))
    np.testing.assert_array_equal(g, want.reshape(x.shape))


def test_stft_gradient_is_its_linear_map():
    """MindSpore's STFT has no gradient; ours is the transpose of the (linear) transform."""
    wave = np.sin(np.arange(20, dtype=np.float32) * 0.7)
    weights = np.random.default_rng(2).normal(size=(5, 11, 2)).astype(np.float32)

    def f(v):
        return (ops.stft(v, 8, return_complex=False) * Tensor(weights)).sum()
    (g,) = _grads(f, wave)
    basis = np.eye(20, dtype=np.float32)
    want = [f(Tensor(row)).asnumpy() for row in basis]  # linear: the gradient is f at each basis vector
    np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)


V5 = np.zeros((1, 1, 2, 3, 3), np.float32)
IMG4 = np.zeros((1, 2, 4, 4), np.float32)


@pytest.mark.parametrize("name,call", [
    ("diagonal", lambda: ops.diagonal(Tensor(X), 0, 1, 1)),
    ("mirror_pad", lambda: ops.mirror_pad(Tensor(X), Tensor(np.array([[3, 0], [0, 0]])), "REFLECT")),
    ("mirror_pad", lambda: ops.mirror_pad(Tensor(X), Tensor(np.zeros((2, 2), np.int32)), "EDGE")),
    ("unfold", lambda: ops.unfold(Tensor(IMG4), 5)),
    ("fold", lambda: ops.fold(Tensor(np.zeros((1, 8, 5), np.float32)), (4, 4), 2, 1, 0, 2)),
    ("space_to_batch_nd", lambda: ops.space_to_batch_nd(Tensor(IMG4), (3, 3), ((0, 0), (0, 0)))),
    ("matrix_diag_part", lambda: ops.matrix_diag_part(Tensor(X), Tensor(np.array([1, -1], np.int32)), 0.0)),
    ("reverse_sequence", lambda: ops.reverse_sequence(Tensor(X), Tensor(np.array([5, 1, 1], np.int32)), 1)),
    ("combinations", lambda: ops.combinations(Tensor(X))),
    ("range", lambda: ops.range(0, 5, 0)),
    ("max_pool3d", lambda: ops.max_pool3d(Tensor(V5), 4)),
    ("avg_pool3d", lambda: ops.avg_pool3d(Tensor(IMG4[0, 0]), 2)),
    ("fractional_max_pool2d", lambda: ops.fractional_max_pool2d(Tensor(IMG4), 2)),
    ("crop_and_resize", lambda: ops.crop_and_resize(Tensor(np.zeros((1, 4, 4, 1), np.float32)),
                                                    Tensor(np.zeros((1, 4), np.float32)),
                                                    Tensor(np.zeros(1, np.int32)), (2, 2), "bilinear_v2")),
    ("grid_sample", lambda: ops.grid_sample(Tensor(IMG4), Tensor(np.zeros((1, 2, 2, 3), np.float32)))),
    ("conv3d_transpose", lambda: ops.conv3d_transpose(Tensor(V5), Tensor(np.zeros((2, 1, 2, 2, 2),
                                                                                       np.float32)))),
    ("deformable_conv2d", lambda: ops.deformable_conv2d(
        Tensor(IMG4), Tensor(np.zeros((1, 2, 2, 2), np.float32)), Tensor(np.zeros((1, 12, 2, 2), np.float32)),
        (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))),
    ("ctc_loss", lambda: ops.ctc_loss(
        Tensor(np.zeros((3, 1, 4), np.float32)), Tensor(np.ones((1, 2), np.int32)),
        Tensor(np.array([5], np.int32)), Tensor(np.array([2], np.int32)))),
    ("stft", lambda: ops.stft(Tensor(np.zeros(4, np.float32)), 8, center=False)),
    ("sequence_mask", lambda: ops.sequence_mask(Tensor(np.array([1, 2], np.int32)), -1)),
])
def test_bad_input_of_the_new_names_is_one_line(name, call):
    with pytest.raises((TypeError, ValueError, IndexError, RuntimeError)) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and name.split("_")[0].lower() in message.lower(), message
