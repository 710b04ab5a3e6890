"""``ops.vmap``'s batching transform (framework/autograd/batching.py): the traced graph does
not grow with the batch, results equal a per-example NumPy loop (and the other mode),
gradients through and inside vmap equal the per-example path and finite differences, and
what has no rule falls back to the per-example path."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, ops
from framework.autograd import batching

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((6, 8)).astype(np.float32) * 0.5
B1 = RNG.standard_normal(8).astype(np.float32) * 0.1
W2 = RNG.standard_normal((8, 3)).astype(np.float32) * 0.5


def mlp(x, w1, b1, w2):
    return ops.softmax(ops.matmul(ops.relu(ops.matmul(x, w1) + b1), w2), -1)


def np_mlp(x, w1, b1, w2):
    logits = np.maximum(x @ w1 + b1, 0) @ w2
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def vmapped_mlp(x, w1, b1, w2):
    return ops.vmap(mlp, in_axes=(0, None, None, None))(x, w1, b1, w2)


def _nodes(fn, *args) -> int:
    return len(ms.jit(fn).trace(tuple(Tensor(a) for a in args)).graph.nodes)


@pytest.fixture
def per_example():
    batching.ENABLED = False
    yield
    batching.ENABLED = True


def test_graph_size_does_not_grow_with_the_batch():
    small = _nodes(vmapped_mlp, RNG.standard_normal((2, 6)).astype(np.float32), W1, B1, W2)
    assert batching.OUTCOME["path"] == "batched"
    large = _nodes(vmapped_mlp, RNG.standard_normal((64, 6)).astype(np.float32), W1, B1, W2)
    unbatched = _nodes(mlp, RNG.standard_normal(6).astype(np.float32), W1, B1, W2)
    assert small == large <= unbatched + 4  # a reshape around the folded matmuls


def test_the_per_example_path_grows_with_the_batch(per_example):
    small = _nodes(vmapped_mlp, RNG.standard_normal((2, 6)).astype(np.float32), W1, B1, W2)
    large = _nodes(vmapped_mlp, RNG.standard_normal((8, 6)).astype(np.float32), W1, B1, W2)
    assert batching.OUTCOME["path"] == "per-example" and large > 3 * small


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_mlp_matches_a_numpy_loop_in_both_modes(mode):
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    fn = ms.jit(vmapped_mlp) if mode == "graph" else vmapped_mlp
    out = fn(Tensor(x), Tensor(W1), Tensor(B1), Tensor(W2)).asnumpy()
    assert batching.OUTCOME["path"] == "batched"
    want = np.stack([np_mlp(row, W1, B1, W2) for row in x])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


# per-example function, batched inputs (batch axis 0), unbatched extra inputs, NumPy per example
X3 = RNG.standard_normal((4, 3, 5)).astype(np.float32)
IDX = RNG.integers(-3, 3, size=(4, 2)).astype(np.int32)
IMG = RNG.standard_normal((3, 2, 2, 6, 6)).astype(np.float32)
KER = RNG.standard_normal((4, 2, 3, 3)).astype(np.float32)


def _np_conv(x, w):  # valid, stride 1, NCHW
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1), np.float64)
    for i in range(h - kh + 1):
        for j in range(wd - kw + 1):
            out[:, :, i, j] = np.einsum("nckl,ockl->no", x[:, :, i:i + kh, j:j + kw], w)
    return out


def _np_index_add(out, indices, rows):
    np.add.at(out, np.where(indices < 0, indices + out.shape[0], indices), rows)
    return out


def _set_row(a, i):
    b = a * 1.0
    b[i] = 0.0
    return b


def _np_set_row(a, i):
    b = a.copy()
    b[i] = 0.0
    return b


CASES = {
    "transpose_reshape": (lambda a: ops.reshape(ops.transpose(a, (1, 0)), (15,)), (X3,),
                          lambda a: a.T.reshape(15)),
    "expand_squeeze_concat": (lambda a, c: ops.concat([ops.squeeze(ops.expand_dims(a, 0)), c], 1),
                              (X3, None), None),
    "slicing_getitem": (lambda a: a[1:, ::2] * a[0, 1], (X3,), lambda a: a[1:, ::2] * a[0, 1]),
    "reductions": (lambda a: (a.sum(-1), a.mean(0, keep_dims=True), a.max(), ops.argmax(a, 1)),
                   (X3,), lambda a: (a.sum(-1), a.mean(0, keepdims=True), a.max(), a.argmax(1))),
    "broadcasting_select": (lambda a, c: ops.where(a > 0, a, c * 2.0), (X3, None),
                            lambda a, c: np.where(a > 0, a, c * 2)),
    "cast_log_softmax": (lambda a: ops.log_softmax(a.astype(ms.float16).astype(ms.float32), 0),
                         (X3,), None),
    "gather_batched_indices": (lambda a, i: ops.gather(a, i, 1), (X3, IDX),
                               lambda a, i: np.take(a, i, axis=1)),
    "gather_unbatched_data": (lambda t, i: ops.gather(t, i, 0), ("X0", IDX),
                              lambda t, i: np.take(t, i, axis=0)),
    "index_add_per_example_grads": (
        lambda t, i: ops.grad(lambda tt: (ops.gather(tt, i, 0) ** 2).sum())(t), ("X0", IDX),
        lambda t, i: _np_index_add(np.zeros_like(t), i, 2 * np.take(t, i, axis=0))),
    "scatter_update_setitem": (_set_row, (X3, IDX), lambda a, i: _np_set_row(a, i)),
    "one_hot_cumsum": (lambda i: ops.cumsum(ops.one_hot(i + 3, 6, Tensor(1.0), Tensor(0.0)), 0),
                       (IDX,), lambda i: np.cumsum(np.eye(6, dtype=np.float32)[i + 3], 0)),
    "batch_matmul": (lambda a, b: ops.matmul(a, b), (X3, "X3T"), lambda a, b: a @ b),
    "conv_pool": (lambda x, w: ops.max_pool2d(ops.conv2d(x, w), 2, 2), (IMG, "KER"),
                  lambda x, w: _np_conv(x, w).reshape(2, 4, 2, 2, 2, 2).max((3, 5))),
    "special_and_matrix_functions": (
        lambda a, c: (ops.lgamma(a + 4.0), ops.bessel_j1(a), ops.inverse(_square(a)), ops.det(_square(a)),
                      ops.slogdet(_square(a))[1], ops.svd(_square(a), compute_uv=False),
                      ops.matrix_solve(_square(a), _square(a * 2.0)[:, :2])),
        (X3, None), None),
}


def _square(a):  # a well-conditioned 3 x 3 matrix from a (3, 5) example
    return a[:, :3] + ops.eye(3, 3, ms.float32) * 4.0


def _inputs(args: tuple) -> tuple[list, tuple]:
    """Tensors for vmap and the in_axes: None entries are an unbatched (3, 5) tensor,
    strings name unbatched constants."""
    named = {"X0": X3[0].T.copy(), "X3T": X3[0].T.copy(), "KER": KER}
    fixed = RNG.standard_normal((3, 5)).astype(np.float32)
    arrays, axes = [], []
    for a in args:
        if a is None or isinstance(a, str):
            arrays.append(fixed if a is None else named[a])
            axes.append(None)
        else:
            arrays.append(a)
            axes.append(0)
    return arrays, tuple(axes)


def _numpy(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


def _stacked(results: list) -> list[np.ndarray]:
    """Per-example results (each a value or a tuple of them) stacked per output."""
    if isinstance(results[0], tuple):
        return [np.stack([_numpy(r[k]) for r in results]) for k in range(len(results[0]))]
    return [np.stack([_numpy(r) for r in results])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_match_a_per_example_loop(name):
    fn, args, np_fn = CASES[name]
    arrays, axes = _inputs(args)
    out = ops.vmap(fn, in_axes=axes)(*[Tensor(a) for a in arrays])
    assert batching.OUTCOME == {"path": "batched", "reason": ""}, batching.OUTCOME
    size = next(a.shape[0] for a, ax in zip(arrays, axes) if ax == 0)
    rows = [[a if ax is None else a[i] for a, ax in zip(arrays, axes)] for i in range(size)]
    if np_fn is None:  # no NumPy twin written: fn itself, eagerly, on each example
        want = [fn(*[Tensor(r) for r in row]) for row in rows]
    else:
        want = [np_fn(*row) for row in rows]
    outs = out if isinstance(out, tuple) else (out,)
    for got, exp in zip(outs, _stacked(want), strict=True):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["gather_batched_indices", "conv_pool", "broadcasting_select",
                                  "index_add_per_example_grads", "scatter_update_setitem"])
def test_rules_agree_across_modes(name):
    fn, args, _ = CASES[name]
    arrays, axes = _inputs(args)
    tensors = [Tensor(a) for a in arrays]
    eager = ops.vmap(fn, in_axes=axes)(*tensors)
    graph = ms.jit(lambda *t: ops.vmap(fn, in_axes=axes)(*t))(*tensors)
    assert batching.OUTCOME["path"] == "batched"
    np.testing.assert_allclose(graph.asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_batched_index_out_of_range_is_caught_in_both_modes():
    bad = IDX.copy()
    bad[2, 1] = 5  # axis 1 has 5 entries: 5 is out of range for one example only

    def pick(a, i):
        return ops.gather(a, i, 1)

    for fn in (ops.vmap(pick), ms.jit(lambda a, i: ops.vmap(pick)(a, i))):
        with pytest.raises(IndexError, match="index 5 is out of bounds"):
            fn(Tensor(X3), Tensor(bad))


# -- gradients ---------------------------------------------------------------------------------
def _loss(x, w1, b1, w2):
    return (vmapped_mlp(x, w1, b1, w2) * Tensor(np.arange(3, dtype=np.float32))).sum()


def _grads(mode):
    x = np.linspace(-1, 1, 4 * 6, dtype=np.float32).reshape(4, 6)
    grad = ops.grad(_loss, grad_position=(0, 1, 2, 3))
    fn = ms.jit(grad) if mode == "graph" else grad
    return [g.asnumpy() for g in fn(Tensor(x), Tensor(W1), Tensor(B1), Tensor(W2))], x


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradients_through_vmap_equal_the_per_example_path(mode, per_example):
    want, _ = _grads(mode)
    assert batching.OUTCOME["path"] == "per-example"
    batching.ENABLED = True
    got, _ = _grads(mode)
    assert batching.OUTCOME["path"] == "batched"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_gradients_through_vmap_match_finite_differences():
    grads, x = _grads("pynative")
    weights = np.arange(3)
    arrays = [x.astype(np.float64), W1.astype(np.float64), B1.astype(np.float64),
              W2.astype(np.float64)]

    def f(*a):
        return float((np_mlp(*a) * weights).sum())

    eps = 1e-4
    for k, g in enumerate(grads):
        for flat in (0, arrays[k].size // 2, arrays[k].size - 1):
            plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
            plus[k].flat[flat] += eps
            minus[k].flat[flat] -= eps
            np.testing.assert_allclose(g.flat[flat], (f(*plus) - f(*minus)) / (2 * eps),
                                       rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_per_example_gradients_inside_vmap(mode):
    """vmap(grad(loss)) with unbatched weights: one weight gradient per example."""
    x = RNG.standard_normal((3, 6)).astype(np.float32)

    def example_loss(w1, xi):
        return (ops.matmul(xi, w1) ** 2).sum()

    per_example_grad = ops.vmap(ops.grad(example_loss), in_axes=(None, 0))
    fn = ms.jit(per_example_grad) if mode == "graph" else per_example_grad
    got = fn(Tensor(W1), Tensor(x)).asnumpy()
    assert batching.OUTCOME["path"] == "batched"
    want = np.stack([2 * np.outer(xi, xi @ W1) for xi in x])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# -- fallbacks ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_primitive_without_a_rule_falls_back(mode):
    """Conv2D's rule needs an unbatched weight; with per-example weights vmap runs per example."""
    x = IMG[:, 0]  # (3, 2, 6, 6): one image per example

    def conv(img, w):
        return ops.conv2d(ops.expand_dims(img, 0), w)

    weights = np.stack([KER, KER * 2, -KER])
    run = ops.vmap(conv)
    fn = ms.jit(run) if mode == "graph" else run
    out = fn(Tensor(x), Tensor(weights)).asnumpy()
    assert batching.OUTCOME["path"] == "per-example"
    assert "Conv2D" in batching.OUTCOME["reason"]
    want = np.stack([_np_conv(x[i:i + 1], weights[i]) for i in range(3)])
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_a_branch_on_a_batched_value_falls_back():
    def clip_row(r):
        if r.sum() > 3:
            return r * 0
        return r

    out = ops.vmap(clip_row)(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
    assert batching.OUTCOME["path"] == "per-example"
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 2], [0, 0, 0]])

