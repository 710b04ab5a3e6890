"""``framework.mint`` against NumPy references, in PyNative and compiled (``ms.jit``), with
gradients where mint's semantics define them; the value-dependent functions in PyNative and
refused with one line in graph mode."""

from __future__ import annotations

import math

import numpy as np
import pytest

import framework as ms
from framework import Tensor, mint
from framework.mint import nn as mnn
from framework.mint.nn import functional as F

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4)).astype(np.float32)
P = RNG.uniform(0.1, 2.0, size=(3, 4)).astype(np.float32)
I = np.arange(12, dtype=np.int32).reshape(3, 4) - 5


def _softmax(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# (id, mint call on tensors, NumPy reference on arrays, inputs)
CASES = [
    ("sum_dim_keepdim", lambda x: mint.sum(x, dim=1, keepdim=True), lambda x: x.sum(1, keepdims=True), (X,)),
    ("sum_int_is_int64", lambda x: mint.sum(x), lambda x: x.sum(dtype=np.int64), (I,)),
    ("mean_dims", lambda x: mint.mean(x, (0, 1)), lambda x: x.mean(), (X,)),
    ("prod_dim", lambda x: mint.prod(x, 1), lambda x: x.prod(1), (P,)),
    ("amax_all", lambda x: mint.amax(x), lambda x: x.max(), (X,)),
    ("max_dim_values", lambda x: mint.max(x, 1)[0], lambda x: x.max(1), (X,)),
    ("max_dim_indices", lambda x: mint.max(x, dim=0, keepdim=True)[1],
     lambda x: x.argmax(0)[None].astype(np.int64), (X,)),
    ("min_other", lambda x, y: mint.min(x, y), np.minimum, (X, P)),
    ("argmax_flat", lambda x: mint.argmax(x), lambda x: np.int64(x.argmax()), (X,)),
    ("cumsum_int", lambda x: mint.cumsum(x, 0), lambda x: x.cumsum(0, dtype=np.int64), (I,)),
    ("var_correction", lambda x: mint.var(x, 1, correction=1), lambda x: x.var(1, ddof=1), (X,)),
    ("std_all", lambda x: mint.std(x, correction=0), lambda x: x.std(), (X,)),
    ("sort_desc", lambda x: mint.sort(x, dim=1, descending=True)[0], lambda x: -np.sort(-x, 1), (X,)),
    ("topk", lambda x: mint.topk(x, 2, dim=1)[0], lambda x: -np.sort(-x, 1)[:, :2], (X,)),
    ("logsumexp", lambda x: mint.logsumexp(x, 1), lambda x: np.log(np.exp(x).sum(1)), (X,)),
    ("add_alpha", lambda x, y: mint.add(x, y, alpha=2), lambda x, y: x + 2 * y, (X, P)),
    ("sub_alpha_scalar", lambda x: mint.sub(x, 1, alpha=3), lambda x: x - 3, (X,)),
    ("div_true_int", lambda x: mint.div(x, 4), lambda x: (x / 4).astype(np.float32), (I,)),
    ("div_trunc", lambda x: mint.div(x, 4, rounding_mode="trunc"),
     lambda x: np.trunc(x / 4).astype(np.int32), (I,)),
    ("div_floor", lambda x: mint.divide(x, 4, rounding_mode="floor"), lambda x: x // 4, (I,)),
    ("sqrt_int_float32", lambda x: mint.sqrt(x), lambda x: np.sqrt(x.astype(np.float32)), (I + 5,)),
    ("clamp", lambda x: mint.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), (X,)),
    ("lerp", lambda x, y: mint.lerp(x, y, 0.25), lambda x, y: x + 0.25 * (y - x), (X, P)),
    ("erfinv", lambda x: mint.erfinv(x),
     lambda y: np.array([_erfinv(v) for v in y.ravel()], np.float32).reshape(y.shape),
     (np.array([[-0.99, -0.5, 0.0], [0.3, 0.9, 0.999]], np.float32),)),
    ("gcd", lambda a, b: mint.gcd(a, b), np.gcd,
     (np.array([12, 18, -7, 0, 1071, 2**30], np.int32), np.array([8, 27, 14, 0, 462, 3 * 2**20], np.int32))),
    ("float_power", lambda x: mint.float_power(x, 2), lambda x: x.astype(np.float64) ** 2, (X,)),
    ("where_scalar", lambda x: mint.where(x > 0, x, 0.0), lambda x: np.where(x > 0, x, 0.0), (X,)),
    ("narrow", lambda x: mint.narrow(x, 1, 1, 2), lambda x: x[:, 1:3], (X,)),
    ("select", lambda x: mint.select(x, 1, -1), lambda x: x[:, -1], (X,)),
    ("transpose", lambda x: mint.transpose(x, 0, 1), lambda x: x.T, (X,)),
    ("permute", lambda x: mint.permute(x[None], (2, 0, 1)), lambda x: x[None].transpose(2, 0, 1), (X,)),
    ("flatten_default", lambda x: mint.flatten(x), lambda x: x.reshape(-1), (X,)),
    ("cat_dim", lambda x, y: mint.cat([x, y], dim=1), lambda x, y: np.concatenate([x, y], 1), (X, P)),
    ("stack", lambda x, y: mint.stack((x, y), 1), lambda x, y: np.stack([x, y], 1), (X, P)),
    ("split_size", lambda x: mint.split(x, 3, dim=1)[1], lambda x: x[:, 3:], (X,)),
    ("tile_short_dims", lambda x: mint.tile(x, (2,)), lambda x: np.tile(x, (1, 2)), (X,)),
    ("gather", lambda x: mint.gather(x, 1, Tensor(np.array([[0, 3], [2, 2], [1, 0]]))),
     lambda x: np.take_along_axis(x, np.array([[0, 3], [2, 2], [1, 0]]), 1), (X,)),
    ("scatter_src", lambda x: mint.scatter(x, 0, Tensor(np.array([[2, 0, 1, 2]])), -x[:1]),
     lambda x: _scatter_rows(x), (X,)),
    ("scatter_add", lambda x: mint.scatter_add(x, 1, Tensor(np.array([[0, 0], [1, 1], [3, 3]])), x[:, :2]),
     lambda x: _scatter_add_cols(x), (X,)),
    ("searchsorted", lambda s, v: mint.searchsorted(s, v, right=True),
     lambda s, v: np.searchsorted(s, v, side="right").astype(np.int64),
     (np.array([1.0, 3.0, 5.0, 7.0], np.float32), np.array([0.0, 3.0, 6.0, 9.0], np.float32))),
    ("einsum", lambda x, y: mint.einsum("ij,kj->ik", x, y), lambda x, y: x @ y.T, (X, P)),
    ("matmul_vec", lambda x: mint.matmul(x, x[0]), lambda x: x @ x[0], (X,)),
    ("softmax", lambda x: mint.softmax(x, 0), lambda x: _softmax(x, 0), (X,)),
    ("F_linear", lambda x, w: F.linear(x, w, w[:, 0]), lambda x, w: x @ w.T + w[:, 0], (X, P)),
    ("F_leaky_relu", lambda x: F.leaky_relu(x), lambda x: np.where(x > 0, x, 0.01 * x), (X,)),
    ("F_log_softmax", lambda x: F.log_softmax(x, dim=1), lambda x: np.log(_softmax(x, 1)), (X,)),
    ("F_mse_sum", lambda x, y: F.mse_loss(x, y, reduction="sum"), lambda x, y: ((x - y) ** 2).sum(), (X, P)),
    ("F_pad", lambda x: F.pad(x, (1, 2), value=9.0),
     lambda x: np.pad(x, ((0, 0), (1, 2)), constant_values=9.0), (X,)),
    ("F_layer_norm", lambda x: F.layer_norm(x, (4,)),
     lambda x: (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5), (X,)),
]


def _erfinv(y: float) -> float:
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2


def _scatter_rows(x):
    out = x.copy()
    for j, i in enumerate([2, 0, 1, 2]):
        out[i, j] = -x[0, j]
    return out


def _scatter_add_cols(x):
    out = x.copy()
    for i, j in enumerate([0, 1, 3]):
        out[i, j] += x[i, 0] + x[i, 1]
    return out


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_mint_matches_numpy(case, mode):
    _, call, reference, inputs = case
    fn = ms.jit(call) if mode == "jit" else call
    out = fn(*(Tensor(a) for a in inputs))
    expected = np.asarray(reference(*inputs))
    got = out.asnumpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_gradients_of_gather_and_narrow_agree_across_modes():
    index = Tensor(np.array([[0, 0], [3, 1], [2, 2]]))

    def loss(x):
        return mint.sum(mint.gather(x, 1, index) * 2) + mint.sum(mint.narrow(x, 0, 1, 2))

    eager = ms.grad(loss)(Tensor(X)).asnumpy()
    compiled = ms.grad(ms.jit(loss))(Tensor(X)).asnumpy()
    expected = np.zeros_like(X)
    for i, row in enumerate([[0, 0], [3, 1], [2, 2]]):
        for j in row:
            expected[i, j] += 2
    expected[1:3] += 1
    np.testing.assert_allclose(eager, expected)
    np.testing.assert_allclose(compiled, expected)


def test_max_forms():
    x = Tensor(X)
    assert float(mint.max(x).asnumpy()) == pytest.approx(float(X.max()))
    values, indices = mint.max(x, 1)
    np.testing.assert_allclose(values.asnumpy(), X.max(1))
    assert indices.dtype == ms.int64 and list(indices.asnumpy()) == list(X.argmax(1))


def test_value_dependent_functions_in_pynative():
    x = Tensor(I)
    np.testing.assert_array_equal(mint.nonzero(x).asnumpy(), np.argwhere(I))
    rows, cols = mint.where(x > 3)
    np.testing.assert_array_equal(np.stack([rows.asnumpy(), cols.asnumpy()]), np.nonzero(I > 3))
    np.testing.assert_array_equal(mint.masked_select(x, x > 3).asnumpy(), I[I > 3])
    values, counts = mint.unique_consecutive(Tensor(np.array([1, 1, 2, 2, 3, 1])), return_counts=True)
    assert values.asnumpy().tolist() == [1, 2, 3, 1] and counts.asnumpy().tolist() == [2, 2, 1, 1]
    assert mint.allclose(x, x) is True and mint.equal(x, x + 1) is False


@pytest.mark.slow
def test_value_dependent_functions_compile_split_with_pynative_results():
    got = ms.jit(lambda t: mint.nonzero(t * 1))(Tensor(I))
    np.testing.assert_array_equal(got.asnumpy(), mint.nonzero(Tensor(I)).asnumpy())
    np.testing.assert_array_equal(got.asnumpy(), np.argwhere(I))


def test_creation_dtypes_follow_mint():
    assert mint.zeros(2, 3).shape == (2, 3) and mint.zeros((2,)).dtype == ms.float32
    assert mint.full((2,), 3).dtype == ms.int64 and mint.full((2,), 3.0).dtype == ms.float32
    assert mint.arange(5).dtype == ms.int64 and mint.arange(0, 1, 0.25).shape == (4,)
    assert mint.ones_like(Tensor(I)).dtype == ms.int32
    np.testing.assert_array_equal(mint.eye(2, 3).asnumpy(), np.eye(2, 3, dtype=np.float32))


class _Mlp(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Linear(4, 5, weight_init="ones", bias_init="zeros")
        self.act = mnn.ReLU()
        self.fc2 = mnn.Linear(5, 2, bias=False)
        self.norm = mnn.LayerNorm(2)

    def construct(self, x):
        return self.norm(self.fc2(self.act(self.fc1(x))))


def test_mint_nn_cells_in_both_modes():
    net = _Mlp()
    assert [p.name.split(".")[-1] for p in net.trainable_params()] == ["weight", "bias", "weight",
                                                                        "weight", "bias"]
    eager = net(Tensor(X)).asnumpy()
    hidden = np.maximum(X @ np.ones((4, 5), np.float32), 0) @ net.fc2.weight.asnumpy().T
    expected = (hidden - hidden.mean(1, keepdims=True)) / np.sqrt(hidden.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(eager, expected, rtol=1e-4, atol=1e-5)
    compiled = ms.jit(net.construct)(Tensor(X)).asnumpy()
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-6)
    assert repr(mnn.Linear(4, 2)) == "Linear(input_features=4, output_features=2, has_bias=True)"


def test_mint_nn_activation_cells():
    x = Tensor(X * 4)
    np.testing.assert_allclose(mnn.Hardsigmoid()(x).asnumpy(), np.clip(X * 4 / 6 + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(mnn.Hardswish()(x).asnumpy(), X * 4 * np.clip(X * 4 / 6 + 0.5, 0, 1),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mnn.Hardshrink(1.0)(x).asnumpy(), np.where(np.abs(X * 4) > 1, X * 4, 0))
    np.testing.assert_allclose(mnn.Identity(3, a=4)(x).asnumpy(), X * 4)
    np.testing.assert_allclose(mnn.Softmax(dim=0)(x).asnumpy(), _softmax(X * 4, 0), rtol=1e-5)


def test_transpose_view_and_assign_on_a_tensor_in_a_compiled_cell():
    """compile/static_graph block 4: a view, then ``Assign`` on it, then a read."""
    from framework.ops import operations as P

    class ViewOut(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.transpose, self.assign = P.TransposeView(), P.Assign()

        @ms.jit
        def construct(self, x):
            x = self.transpose(x, (1, 0))
            self.assign(x, x * 2)
            return x * 3

    np.testing.assert_array_equal(ViewOut()(Tensor(I)).asnumpy(), I.T * 6)


def test_grad_of_a_jit_construct_in_pynative_matches_eager():
    """compile/static_graph block 0: ``grad`` of a Cell whose construct was jit-compiled."""

    class Net(ms.nn.Cell):
        def construct(self, x):
            return mint.narrow(x, 1, 1, 2)

    net = Net()
    x = Tensor(np.arange(9, dtype=np.float32).reshape(3, 3))
    eager = ms.grad(net)(x).asnumpy()
    net.construct = ms.jit(net.construct)
    np.testing.assert_array_equal(ms.grad(net)(x).asnumpy(), eager)
    np.testing.assert_array_equal(eager, np.array([[0, 1, 1]] * 3, np.float32))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_interpolate_known_answers(mode):
    """Nearest by an integer factor repeats; bilinear with align_corners reproduces a linear
    function of the grid exactly, at the scaled coordinates."""
    rows, cols = np.meshgrid(np.arange(4.0), np.arange(5.0), indexing="ij")
    ramp = (2.0 * rows - 3.0 * cols).astype(np.float32)[None, None]

    def both(t):
        return (F.interpolate(t, scale_factor=2),
                F.interpolate(t, size=(7, 9), mode="bilinear", align_corners=True))

    fn = ms.jit(both) if mode == "jit" else both
    nearest, bilinear = fn(Tensor(ramp))
    np.testing.assert_array_equal(nearest.asnumpy(), ramp.repeat(2, 2).repeat(2, 3))
    r, c = np.meshgrid(np.arange(7) * 3 / 6, np.arange(9) * 4 / 8, indexing="ij")
    np.testing.assert_allclose(bilinear.asnumpy()[0, 0], 2.0 * r - 3.0 * c, rtol=1e-5, atol=1e-5)


def test_conv1d_matches_a_numpy_correlation():
    x = RNG.normal(size=(2, 3, 9)).astype(np.float32)
    w = RNG.normal(size=(4, 3, 3)).astype(np.float32)
    bias = np.arange(4, dtype=np.float32)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    expected = np.stack([np.einsum("bck,ock->bo", padded[:, :, s:s + 3], w) for s in range(0, 9, 2)], -1)
    out = F.conv1d(Tensor(x), Tensor(w), Tensor(bias), stride=2, padding=1).asnumpy()
    np.testing.assert_allclose(out, expected + bias[None, :, None], rtol=1e-5, atol=1e-5)
    cell = mnn.Conv1d(3, 4, 3, padding=1)
    assert cell.weight.shape == (4, 3, 3) and cell(Tensor(x)).shape == (2, 4, 9)
    assert np.abs(cell.weight.asnumpy()).max() <= 1 / np.sqrt(9)


@pytest.mark.parametrize("mode,numpy_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                             ("circular", "wrap"), ("constant", "constant")])
def test_pad_modes_match_numpy(mode, numpy_mode):
    x = RNG.normal(size=(1, 2, 4, 5)).astype(np.float32)
    expected = np.pad(x, ((0, 0), (0, 0), (3, 0), (2, 1)), mode=numpy_mode)
    def padded(t):
        return F.pad(t, (2, 1, 3, 0), mode=mode)

    for fn in (padded, ms.jit(padded)):
        np.testing.assert_array_equal(fn(Tensor(x)).asnumpy(), expected)
    if mode == "replicate":
        np.testing.assert_array_equal(mnn.ReplicationPad2d((2, 1, 3, 0))(Tensor(x)).asnumpy(), expected)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_at_pixel_centres_returns_the_input(mode):
    """With align_corners=True, grid points at -1 + 2 * k / (n - 1) are the pixels themselves;
    a grid shifted half a pixel right (bilinear) averages horizontal neighbours."""
    x = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
    gy, gx = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    grid = np.broadcast_to(np.stack([gx, gy], -1), (2, 4, 5, 2)).astype(np.float32)
    out = F.grid_sample(Tensor(x), Tensor(grid), mode=mode, align_corners=True).asnumpy()
    np.testing.assert_allclose(out, x, rtol=1e-5, atol=1e-6)
    if mode == "bilinear":
        shifted = grid[:, :, :4].copy()
        shifted[..., 0] += 0.5 * 2 / 4
        out = ms.jit(lambda a, g: F.grid_sample(a, g, align_corners=True))(Tensor(x), Tensor(shifted))
        np.testing.assert_allclose(out.asnumpy(), (x[..., :4] + x[..., 1:]) / 2, rtol=1e-5, atol=1e-6)


def test_batch_norm_3d_normalizes_each_channel_while_training():
    x = RNG.normal(size=(2, 3, 2, 4, 5)).astype(np.float32) * 3 + 1
    bn = mnn.BatchNorm3d(3)
    bn.set_train(True)
    out = bn(Tensor(x)).asnumpy()
    mean, var = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * mean.ravel(), rtol=1e-5, atol=1e-6)


def test_polar_is_abs_times_the_unit_complex_number():
    r, theta = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 1.5, -3.0], np.float32)
    got = mint.polar(Tensor(r), Tensor(theta)).asnumpy()
    np.testing.assert_allclose(got, r * np.exp(1j * theta), rtol=1e-6)
    assert got.dtype == np.complex64
