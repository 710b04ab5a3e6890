"""The ``P.*`` classes over our functional ops (:mod:`tests.mindspore_ref.ms_primitives_programs`)
in both modes, values, dtypes and gradients: against MindSpore 2.10's recorded answers
(``ms_primitives_expected.json``, CI), our two modes against each other, and MindSpore
itself where ``MINDSPORE_PYTHON`` names its venv. Then NumPy-derived checks, including the
gradients MindSpore 2.10 gets wrong or lacks on CPU (``Inplace*`` give zeros, ``Cummin``
has none, ``Mod``'s to ``y`` uses floor instead of trunc, ``CumProd``'s is nan at a zero)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from framework import Tensor, nn, ops
from framework import dtype as mstype
from framework.ops import operations as P
from tests.mindspore_ref.ms_primitives_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_primitives_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-5, "atol": 2e-6}},
                    mode_dependent=("dropout_channels", "hook_backward"))
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()

X = np.array([[-2.5, -1.2, -0.3], [0.4, 1.7, 3.1]], np.float32)
Y = np.array([[0.5, -2.0, 1.5], [2.5, -0.7, 0.0]], np.float32)


def _grad(fn, *arrays):
    grads = ops.grad(fn, grad_position=tuple(range(len(arrays))))(*[Tensor(a) for a in arrays])
    return [g.asnumpy() for g in (grads if isinstance(grads, tuple) else (grads,))]


# -- layouts, from their definitions ------------------------------------------------------
def test_depth_to_space_follows_the_dcr_layout():
    n, c, h, w, b = 2, 8, 3, 2, 2
    x = np.random.default_rng(0).normal(size=(n, c, h, w)).astype(np.float32)
    out = P.DepthToSpace(b)(Tensor(x)).asnumpy()
    co = c // (b * b)
    expected = np.zeros((n, co, h * b, w * b), np.float32)
    for ch in range(c):
        i, j, k = ch // (b * co), (ch // co) % b, ch % co
        expected[:, k, i::b, j::b] = x[:, ch]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(P.SpaceToDepth(b)(Tensor(expected)).asnumpy(), x)


@pytest.mark.parametrize("make,shape,match", [
    (lambda: P.DepthToSpace(2), (1, 3, 2, 2), "multiple of block_size"),
    (lambda: P.SpaceToDepth(2), (1, 1, 3, 2), "multiples of block_size"),
    (lambda: P.DepthToSpace(1), (1, 4, 2, 2), "block_size must be an int >= 2"),
    (lambda: P.Dropout2D(), (2, 3, 4), "needs a 4-D input"),
])
def test_bad_shapes_are_refused_by_name(make, shape, match):
    with pytest.raises(ValueError, match=match):
        make()(Tensor(np.zeros(shape, np.float32)))


# -- gradients MindSpore 2.10 does not give on CPU ----------------------------------------
def test_inplace_row_updates_and_their_gradients():
    w = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    add = P.InplaceAdd((1,))(Tensor(X), Tensor(Y[:1])).asnumpy()
    expected = X.copy()
    expected[1] += Y[0]
    np.testing.assert_allclose(add, expected)
    gx, gv = _grad(lambda x, v: (P.InplaceAdd((1,))(x, v) * Tensor(w)).sum(), X, Y[:1])
    np.testing.assert_allclose(gx, w)
    np.testing.assert_allclose(gv, w[1:])
    gx, gv = _grad(lambda x, v: (P.InplaceSub((0,))(x, v) * Tensor(w)).sum(), X, Y[:1])
    np.testing.assert_allclose(gv, -w[:1])
    gx, gv = _grad(lambda x, v: (P.InplaceUpdateV2()(x, (1,), v) * Tensor(w)).sum(), X, Y[:1])
    np.testing.assert_allclose(gx, np.where(np.arange(2)[:, None] == 1, 0, w))
    np.testing.assert_allclose(gv, w[1:])


def test_cummin_gradient_reaches_the_running_minimum():
    (g,) = _grad(lambda x: P.Cummin(1)(x)[0].sum(), Y)
    values, indices = (t.asnumpy() for t in P.Cummin(1)(Tensor(Y)))
    np.testing.assert_allclose(values, np.minimum.accumulate(Y, axis=1))
    counts = np.zeros_like(Y)
    for row in range(2):
        np.add.at(counts[row], indices[row], 1)
    np.testing.assert_allclose(g, counts)


def test_mod_is_fmod_and_its_gradient_truncates():
    x, y = X * 3, np.abs(Y) + 0.7
    np.testing.assert_allclose(P.Mod()(Tensor(x), Tensor(y)).asnumpy(), np.fmod(x, y), rtol=1e-6, atol=1e-6)
    gx, gy = _grad(lambda a, b: P.Mod()(a, b).sum(), x, y)
    np.testing.assert_allclose(gx, np.ones_like(x))
    np.testing.assert_allclose(gy, -np.trunc(x / y))


def test_cumprod_gradient_is_finite_at_a_zero():
    (g,) = _grad(lambda x: P.CumProd()(x, 1).sum(), Y)
    eps, numeric = 1e-3, np.zeros_like(Y, np.float64)
    for index in np.ndindex(Y.shape):
        up, down = Y.astype(np.float64), Y.astype(np.float64)
        up[index] += eps
        down[index] -= eps
        numeric[index] = (np.cumprod(up, 1).sum() - np.cumprod(down, 1).sum()) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-3, atol=1e-3)


def test_mul_no_nan_zeroes_inf_times_zero_and_keeps_the_y_gradient():
    x = np.array([np.inf, np.nan, 2.0, -3.0], np.float32)
    y = np.array([0.0, 0.0, 0.0, 4.0], np.float32)
    np.testing.assert_array_equal(P.MulNoNan()(Tensor(x), Tensor(y)).asnumpy(), [0, 0, 0, -12])
    gx, gy = _grad(lambda a, b: P.MulNoNan()(a, b).sum(), x, y)
    np.testing.assert_array_equal(gx, y)
    np.testing.assert_array_equal(gy, [0, 0, 2, -3])


# -- against NumPy ------------------------------------------------------------------------
def test_search_sorted_int32_matches_numpy():
    seq = np.sort(X.ravel())
    for right in (False, True):
        out = P.SearchSorted(mstype.int32, right)(Tensor(seq), Tensor(Y.ravel()))
        assert out.dtype == mstype.int32
        side = "right" if right else "left"
        np.testing.assert_array_equal(out.asnumpy(), np.searchsorted(seq, Y.ravel(), side))


def test_bilinear_align_corners_keeps_the_corners_and_matches_numpy():
    x = np.random.default_rng(1).normal(size=(1, 2, 3, 4)).astype(np.float32)
    out = P.ResizeBilinearV2(align_corners=True)(Tensor(x), (5, 7)).asnumpy()
    rows, cols = np.linspace(0, 2, 5), np.linspace(0, 3, 7)
    expected = np.empty((1, 2, 5, 7), np.float64)
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            r0, c0 = min(int(r), 1), min(int(c), 2)
            fr, fc = r - r0, c - c0
            patch = x[..., r0:r0 + 2, c0:c0 + 2]
            expected[..., i, j] = ((1 - fr) * ((1 - fc) * patch[..., 0, 0] + fc * patch[..., 0, 1])
                                   + fr * ((1 - fc) * patch[..., 1, 0] + fc * patch[..., 1, 1]))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_l2_normalize_and_lcm_match_numpy():
    out = P.L2Normalize(axis=1)(Tensor(X)).asnumpy()
    np.testing.assert_allclose(out, X / np.sqrt(np.maximum((X ** 2).sum(1, keepdims=True), 1e-4)), rtol=1e-6)
    a = np.array([4, -6, 0, 21], np.int32)
    b = np.array([6, 4, 5, 6], np.int32)
    np.testing.assert_array_equal(P.Lcm()(Tensor(a), Tensor(b)).asnumpy(), np.lcm(a, b))


def test_graph_mode_cell_uses_the_classes():
    """A compiled Cell holding primitive instances as attributes (the model zoo's style)."""
    import framework as ms

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm, self.cumprod = P.L2Normalize(axis=-1), P.CumProd(exclusive=True)

        def construct(self, x):
            return self.cumprod(self.norm(x), 1)

    eager = Net()(Tensor(X)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = Net()(Tensor(X)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    norm = X / np.linalg.norm(X, axis=-1, keepdims=True)
    expected = np.concatenate([np.ones((2, 1)), np.cumprod(norm, 1)[:, :-1]], 1)
    np.testing.assert_allclose(eager, expected, rtol=1e-6)
    np.testing.assert_allclose(compiled, eager, rtol=1e-6)


# -- the update and index classes -------------------------------------------------------------
def test_apply_momentum_nesterov_follows_the_documented_rule():
    """MindSpore 2.10's CPU kernel ignores ``use_nesterov`` and ``gradient_scale`` (it steps as
    plain momentum); ours follows the documented rule."""
    from framework import Parameter

    v = Parameter(Tensor(np.ones((2, 2), np.float32)), name="v")
    a = Parameter(Tensor(np.full((2, 2), 0.5, np.float32)), name="a")
    g = np.array([[2.0, -1.0], [0.5, 3.0]], np.float32)
    P.ApplyMomentum(use_nesterov=True, gradient_scale=2.0)(v, a, 0.1, Tensor(g), 0.9)
    acc = 0.5 * 0.9 + 2.0 * g
    np.testing.assert_allclose(a.asnumpy(), acc, rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), 1.0 - 0.1 * (g + 0.9 * acc), rtol=1e-6)


def test_scatter_nd_add_accumulates_repeated_indices_like_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    indices = np.array([[0, 1], [1, 2], [0, 1]], np.int32)
    updates = np.random.default_rng(2).normal(size=(3, 4)).astype(np.float32)
    expected = x.copy()
    np.add.at(expected, (indices[:, 0], indices[:, 1]), updates)
    from framework import Parameter

    var = Parameter(Tensor(x), name="var")
    P.ScatterNdAdd()(var, Tensor(indices), Tensor(updates))
    np.testing.assert_allclose(var.asnumpy(), expected, rtol=1e-6)
    out = P.TensorScatterUpdate()(Tensor(x), Tensor(indices[:2]), Tensor(updates[:2])).asnumpy()
    expected = x.copy()
    expected[indices[:2, 0], indices[:2, 1]] = updates[:2]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("mode,np_mode", [("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")])
def test_mirror_pad_matches_numpy(mode, np_mode):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    pads = np.array([[2, 1], [3, 0]], np.int64)
    out = P.MirrorPad(mode)(Tensor(x), Tensor(pads)).asnumpy()
    np.testing.assert_array_equal(out, np.pad(x, pads, np_mode))


def test_unique_keeps_first_appearance_order():
    x = np.array([4.0, -1.0, 4.0, 2.5, -1.0, 7.0, 2.5], np.float32)
    values, index = P.Unique()(Tensor(x))
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first)
    np.testing.assert_array_equal(values.asnumpy(), x[np.sort(first)])
    np.testing.assert_array_equal(values.asnumpy()[index.asnumpy()], x)
    assert index.dtype == mstype.int32 and order.size == values.shape[0] and inverse.size == x.size


def test_histogram_and_bincount_match_numpy():
    x = np.random.default_rng(3).normal(size=50).astype(np.float32)
    counts = P.Histogram(bins=7, min=-1.0, max=1.5)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(counts, np.histogram(x, 7, (-1.0, 1.5))[0].astype(np.float32))
    ints = np.array([0, 3, 3, 5, 1, 3], np.int32)
    weights = np.linspace(0.5, 3.0, 6).astype(np.float32)
    out = P.Bincount()(Tensor(ints), Tensor(5, mstype.int32), Tensor(weights)).asnumpy()
    np.testing.assert_allclose(out, np.bincount(ints, weights, 6)[:5], rtol=1e-6)


def test_values_dependent_shapes_run_in_graph_mode_as_in_pynative():
    """``NonZero`` gives a shape that depends on the values: graph mode splits the compiled
    function there (framework/graph_split.py) and gives PyNative's (and NumPy's) answer."""
    import framework as ms

    class Net(nn.Cell):
        def construct(self, x):
            return P.NonZero()(x) * 2

    x = np.array([0, 2, 0, 1, 5], np.int32)
    want = np.argwhere(x) * 2
    eager = Net()(Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = Net()(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(eager, want)
    np.testing.assert_array_equal(got, want)


def test_conv2d_transpose_checks_the_declared_weight_and_inverts_conv2d_shapes():
    dout = Tensor(np.ones((1, 2, 2, 3), np.float32))
    weight = Tensor(np.ones((2, 3, 2, 2), np.float32))
    with pytest.raises(ValueError, match="out_channel=3"):
        P.Conv2DTranspose(3, 2)(dout, weight, (1, 3, 3, 4))
    out = P.Conv2DTranspose(2, 2)(dout, weight, (1, 3, 3, 4))
    # all-ones: each input position counts the kernel windows covering it
    cover = np.zeros((3, 4))
    for i in range(2):
        for j in range(3):
            cover[i:i + 2, j:j + 2] += 1
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(2 * cover, (1, 3, 3, 4)))


def test_apply_adagrad_without_slot_updates_keeps_the_accumulator():
    """``update_slots=False`` (documented; MindSpore 2.10's CPU kernel updates it anyway)."""
    from framework import Parameter

    var = Parameter(Tensor(X.copy()), name="var")
    accum = Parameter(Tensor(np.full((2, 3), 4.0, np.float32)), name="accum")
    g = Y
    P.ApplyAdagrad(update_slots=False)(var, accum, 0.1, Tensor(g))
    np.testing.assert_allclose(accum.asnumpy(), 4.0)
    np.testing.assert_allclose(var.asnumpy(), X - 0.1 * g / 2.0, rtol=1e-6)


def test_segment_unravel_shift_and_lrn_match_numpy():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(6, 3)).astype(np.float32)
    ids = np.array([2, 0, 2, 3, 0, 2], np.int32)
    out = P.UnsortedSegmentMax()(Tensor(x), Tensor(ids), 5).asnumpy()
    for s in range(5):
        rows = x[ids == s]
        np.testing.assert_array_equal(out[s], rows.max(0) if len(rows) else np.finfo(np.float32).min)
    flat = np.array([0, 7, 23, 11], np.int64)
    np.testing.assert_array_equal(P.UnravelIndex()(Tensor(flat), Tensor(np.array([2, 3, 4]))).asnumpy(),
                                  np.stack(np.unravel_index(flat, (2, 3, 4))))
    a, b = np.array([5, -9, 1, -1], np.int32), np.array([3, 2, 4, 0], np.int32)
    np.testing.assert_array_equal(P.LeftShift()(Tensor(a), Tensor(b)).asnumpy(), np.left_shift(a, b))
    np.testing.assert_array_equal(P.RightShift()(Tensor(a), Tensor(b)).asnumpy(), np.right_shift(a, b))
    img = rng.normal(size=(2, 7, 3, 2)).astype(np.float32)
    out = P.LRN(depth_radius=2, bias=1.5, alpha=0.2, beta=0.6)(Tensor(img)).asnumpy()
    padded = np.pad(img ** 2, ((0, 0), (2, 2), (0, 0), (0, 0)))
    window = sum(padded[:, k:k + 7] for k in range(5))
    np.testing.assert_allclose(out, img / (1.5 + 0.2 * window) ** 0.6, rtol=1e-5)


def test_space_to_batch_moves_blocks_to_the_batch():
    x = np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6)
    out = P.SpaceToBatchND([2, 3], [[0, 0], [0, 0]])(Tensor(x)).asnumpy()
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(out[(i * 3 + j) * 2:(i * 3 + j + 1) * 2], x[:, :, i::2, j::3])
