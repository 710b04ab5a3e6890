"""ops.tril / ops.triu / ops.masked_fill / ops.where (scalars) and nn.MultiheadAttention
without PyTorch: NumPy references, MindSpore's documented examples, float64 finite
differences, PyNative against graph mode, the errors, and a fully masked attention row.
(PyTorch comparisons of the attention and Transformer layers: test_transformer_torch.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.finite_differences import numeric_grad

R = np.random.default_rng(3)


def both_modes(fn, *args):
    """``fn(*args)`` in PyNative and compiled (graph mode), as NumPy arrays."""
    eager = fn(*args)
    graph = ms.jit(fn)(*args)
    as_np = lambda out: [t.asnumpy() for t in out] if isinstance(out, tuple) else [out.asnumpy()]  # noqa: E731
    return as_np(eager), as_np(graph)




# -- tril / triu -------------------------------------------------------------------------------
def test_tril_triu_documented_examples():
    x = Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 8], [10, 11, 12, 13], [14, 15, 16, 17]]))
    np.testing.assert_array_equal(ops.tril(x).asnumpy(), [[1, 0, 0, 0], [5, 6, 0, 0], [10, 11, 12, 0],
                                                          [14, 15, 16, 17]])
    np.testing.assert_array_equal(ops.tril(x, diagonal=1).asnumpy(),
                                  [[1, 2, 0, 0], [5, 6, 7, 0], [10, 11, 12, 13], [14, 15, 16, 17]])
    np.testing.assert_array_equal(ops.tril(x, diagonal=-1).asnumpy(),
                                  [[0, 0, 0, 0], [5, 0, 0, 0], [10, 11, 0, 0], [14, 15, 16, 0]])
    np.testing.assert_array_equal(ops.triu(x).asnumpy(), [[1, 2, 3, 4], [0, 6, 7, 8], [0, 0, 12, 13],
                                                          [0, 0, 0, 17]])
    np.testing.assert_array_equal(ops.Triu(-1)(x).asnumpy(), np.triu(x.asnumpy(), -1))
    np.testing.assert_array_equal(ops.Tril(2)(x).asnumpy(), np.tril(x.asnumpy(), 2))
    np.testing.assert_array_equal(x.tril(-2).asnumpy(), np.tril(x.asnumpy(), -2))
    np.testing.assert_array_equal(x.triu(3).asnumpy(), np.triu(x.asnumpy(), 3))
    assert ops.tril(x).dtype == x.dtype


@pytest.mark.parametrize("shape", [(3, 5), (2, 4, 3), (2, 1, 3, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_tril_triu_batches_and_diagonals_match_numpy_in_both_modes(shape, dtype):
    x = R.standard_normal(shape) * 3
    x = (x > 0) if dtype is np.bool_ else x.astype(dtype)
    for k in range(-shape[-2], shape[-1] + 1):
        for op, ref in ((ops.tril, np.tril), (ops.triu, np.triu)):
            want = ref(x, k)  # NumPy applies it to the last two axes too
            (eager,), (graph,) = both_modes(lambda t, op=op, k=k: op(t, k), Tensor(x))
            np.testing.assert_array_equal(eager, want, err_msg=f"{op.__name__} k={k}")
            np.testing.assert_array_equal(graph, want, err_msg=f"{op.__name__} k={k} (graph)")
            assert eager.dtype == want.dtype == graph.dtype


@pytest.mark.parametrize("op", [ops.tril, ops.triu])
def test_tril_triu_gradients_finite_differences_and_graph_mode(op):
    x = R.standard_normal((2, 3, 4))
    w = R.standard_normal((2, 3, 4))
    ref = np.tril if op is ops.tril else np.triu
    grad = ms.grad(lambda t: ops.reduce_sum(op(t, 1) * Tensor(w)))
    fd = numeric_grad(lambda a: float((ref(a, 1) * w).sum()), x)
    np.testing.assert_allclose(grad(Tensor(x)).asnumpy(), fd, rtol=1e-6, atol=1e-8)
    xf = Tensor(x.astype(np.float32))
    eager, graph = grad(xf).asnumpy(), ms.jit(grad)(xf).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    np.testing.assert_allclose(eager, ref(np.ones_like(x), 1) * w, rtol=1e-6)


def test_tril_compiles_to_one_select():
    fn = ms.jit(lambda t: ops.tril(t, -1))
    fn(Tensor(np.ones((2, 5, 5), np.float32)))
    assert fn.last_report.nodes_traced == 1


def test_tril_triu_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"tril: input must have rank >= 2.*\(4,\)"):
        ops.tril(Tensor(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="triu: diagonal must be an int, got float"):
        ops.triu(Tensor(np.ones((2, 2), np.float32)), 1.0)
    with pytest.raises(TypeError, match="tril: input must be a Tensor, got ndarray"):
        ops.tril(np.ones((2, 2)))


# -- masked_fill / where ------------------------------------------------------------------------
def test_masked_fill_documented_example_and_forms():
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    mask = Tensor(np.array([True, True, False, True]))
    want = [0.5, 0.5, 3.0, 0.5]
    np.testing.assert_array_equal(ops.masked_fill(x, mask, 0.5).asnumpy(), want)
    np.testing.assert_array_equal(ops.MaskedFill()(x, mask, Tensor(np.float32(0.5))).asnumpy(), want)
    np.testing.assert_array_equal(x.masked_fill(mask, 0.5).asnumpy(), want)
    ints = Tensor(np.array([1, 2, 3, 4], np.int32))
    out = ops.masked_fill(ints, mask, -7)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [-7, -7, 3, -7])
    # a 0-d tensor of another dtype is cast to the input's
    assert ops.masked_fill(x, mask, Tensor(np.int32(2))).dtype == ms.float32


def test_masked_fill_broadcasts_and_its_gradients_match_finite_differences():
    x = R.standard_normal((2, 3, 4))
    mask = R.uniform(size=(3, 1)) < 0.5
    mask[0, 0], mask[1, 0] = True, False
    value = np.float64(0.7)
    w = R.standard_normal((2, 3, 4))

    def ref(a, v):
        return np.where(mask, v, a)

    def loss(t, v):
        return ops.reduce_sum(ops.masked_fill(t, Tensor(mask), v) * Tensor(w))

    gx, gv = ms.grad(loss, (0, 1))(Tensor(x), Tensor(value))
    np.testing.assert_allclose(gx.asnumpy(), numeric_grad(lambda a: float((ref(a, value) * w).sum()), x),
                               rtol=1e-6, atol=1e-8)
    fd_v = numeric_grad(lambda v: float((ref(x, v) * w).sum()), np.array(value))
    np.testing.assert_allclose(gv.asnumpy(), fd_v, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), np.where(mask, 0.0, w))  # dout where mask is False
    # float32, both modes: values and gradients
    args = (Tensor(x.astype(np.float32)), Tensor(np.float32(value)))
    fwd = lambda t, v: ops.masked_fill(t, Tensor(mask), v)  # noqa: E731
    (e,), (g,) = both_modes(fwd, *args)
    np.testing.assert_allclose(e, ref(x, value).astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(g, e)
    grad32 = ms.grad(loss, (0, 1))
    for a, b in zip(grad32(*args), ms.jit(grad32)(*args), strict=True):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)


def test_masked_fill_errors_name_the_argument():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="masked_fill: mask must be a bool tensor, got Float32"):
        ops.masked_fill(x, Tensor(np.ones((2, 3), np.float32)), 0.0)
    with pytest.raises(ValueError, match=r"masked_fill: value must be .* 0-d tensor, got .*\(3,\)"):
        ops.masked_fill(x, Tensor(np.ones((2, 3), bool)), Tensor(np.zeros(3, np.float32)))
    with pytest.raises(TypeError, match="masked_fill: value 0.5 .* does not fit input_x's dtype Int32"):
        ops.masked_fill(Tensor(np.ones(3, np.int32)), Tensor(np.ones(3, bool)), 0.5)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ops.masked_fill(x, Tensor(np.ones((4,), bool)), 0.0)


def test_where_documented_example_scalars_and_broadcasting():
    a = Tensor(np.arange(4).reshape((2, 2)).astype(np.float32))
    b = Tensor(np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(ops.where(a < 3, a, b).asnumpy(), [[0, 1], [2, 1]])
    cond = Tensor(np.array([[True], [False]]))
    out = ops.where(cond, Tensor(np.array([1.0, 2.0, 3.0], np.float16)), 0.5)  # (2, 1) x (3,) x ()
    assert out.dtype == ms.float16 and out.shape == (2, 3)
    np.testing.assert_array_equal(out.asnumpy(), [[1, 2, 3], [0.5, 0.5, 0.5]])
    assert ops.where(cond, Tensor(np.ones(3, np.int32)), 2).dtype == ms.int32
    assert ops.where(cond, Tensor(np.ones(3, np.int32)), 2.5).dtype == ms.float32
    both = ops.where(cond, 2, 0)  # ints stay ints (they used to become bools)
    assert both.dtype == ms.int64
    np.testing.assert_array_equal(both.asnumpy(), [[2], [0]])
    assert ops.where(cond, 1.5, 0).dtype == ms.float32
    (e,), (g,) = both_modes(lambda c, x: ops.where(c, x, -1.0), cond, Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(e, [[1, 1, 1], [-1, -1, -1]])
    np.testing.assert_array_equal(g, e)
    with pytest.raises(TypeError, match="where: condition must be a bool tensor, got Int32"):
        ops.where(Tensor(np.ones(2, np.int32)), 1.0, 0.0)
    with pytest.raises(TypeError, match="where: cannot use str"):
        ops.where(cond, "a", 0.0)


# -- MultiheadAttention without PyTorch -------------------------------------------------------------
def numpy_mha(net, q, k, v, attn_mask, key_padding_mask):
    """An independent float64 reference, seq-first (L, N, E), bool masks (True = masked)."""
    e, h = net.embed_dim, net.num_heads
    w = net.in_proj_weight.asnumpy().astype(np.float64)
    b = net.in_proj_bias.asnumpy().astype(np.float64)
    qp, kp, vp = q @ w[:e].T + b[:e], k @ w[e:2 * e].T + b[e:2 * e], v @ w[2 * e:].T + b[2 * e:]
    length, n, _ = q.shape
    out = np.zeros((length, n, e))
    weights = np.zeros((n, h, length, k.shape[0]))
    d = e // h
    for i in range(n):
        for j in range(h):
            cols = slice(j * d, (j + 1) * d)
            s = qp[:, i, cols] @ kp[:, i, cols].T / np.sqrt(d)
            s = np.where(attn_mask | key_padding_mask[i][None, :], -np.inf, s)
            p = np.exp(s - s.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            weights[i, j] = p
            out[:, i, cols] = p @ vp[:, i, cols]
    wo, bo = net.out_proj.weight.asnumpy(), net.out_proj.bias.asnumpy()
    return out @ wo.T + bo, weights.mean(1)


def test_multihead_attention_matches_a_numpy_reference_in_both_modes():
    ms.set_seed(4)
    net = nn.MultiheadAttention(12, 3, kdim=None)
    net.in_proj_bias.set_data(Tensor(R.standard_normal(36).astype(np.float32) * 0.1))
    q, k, v = (R.standard_normal(s).astype(np.float32) for s in ((4, 2, 12), (6, 2, 12), (6, 2, 12)))
    attn = R.uniform(size=(4, 6)) < 0.3
    attn[:, 0] = False
    pad = np.array([[False] * 5 + [True], [False] * 3 + [True] * 3])
    want_out, want_w = numpy_mha(net, q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
                                 attn, pad)

    def run(q, k, v, m, p):
        return net(q, k, v, key_padding_mask=p, attn_mask=m)

    eager, graph = both_modes(run, *(Tensor(a) for a in (q, k, v, attn, pad)))
    for got in (eager, graph):
        np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got[1], want_w, rtol=1e-5, atol=1e-6)


def test_multihead_attention_parameters_and_shapes():
    net = nn.MultiheadAttention(16, 4, kdim=8, vdim=6, add_bias_kv=True, batch_first=True)
    shapes = {p.name: p.shape for p in net.trainable_params()}
    assert shapes == {"q_proj_weight": (16, 16), "k_proj_weight": (16, 8), "v_proj_weight": (16, 6),
                      "in_proj_bias": (48,), "bias_k": (1, 1, 16), "bias_v": (1, 1, 16),
                      "out_proj.weight": (16, 16), "out_proj.bias": (16,)}
    assert net.in_proj_weight is None
    np.testing.assert_array_equal(net.in_proj_bias.asnumpy(), 0.0)
    q = Tensor(R.standard_normal((2, 3, 16)).astype(np.float32))
    k = Tensor(R.standard_normal((2, 5, 8)).astype(np.float32))
    v = Tensor(R.standard_normal((2, 5, 6)).astype(np.float32))
    out, w = net(q, k, v, average_attn_weights=False)
    assert out.shape == (2, 3, 16) and w.shape == (2, 4, 3, 6)  # one more key: bias_k
    plain = nn.MultiheadAttention(16, 2)
    out, w = plain(Tensor(np.ones((5, 16), np.float32)), Tensor(np.ones((7, 16), np.float32)),
                   Tensor(np.ones((7, 16), np.float32)))
    assert out.shape == (5, 16) and w.shape == (5, 7)  # unbatched
    assert plain(q.transpose(1, 0, 2), q.transpose(1, 0, 2), q.transpose(1, 0, 2),
                 need_weights=False)[1] is None


def test_multihead_attention_errors_are_one_clear_line():
    with pytest.raises(ValueError, match=r"embed_dim \(10\) must be divisible by num_heads \(4\)"):
        nn.MultiheadAttention(10, 4)
    net = nn.MultiheadAttention(8, 2)
    x = Tensor(np.ones((3, 2, 8), np.float32))
    with pytest.raises(ValueError, match=r"key has shape \(3, 2, 6\), expected .*E = 8"):
        net(x, Tensor(np.ones((3, 2, 6), np.float32)), x)
    with pytest.raises(ValueError, match=r"attn_mask has shape \(3, 4\), expected \(L, S\) = \(3, 3\)"):
        net(x, x, x, attn_mask=Tensor(np.ones((3, 4), bool)))
    padding = r"key_padding_mask has shape \(3, 2\), expected \(N, S\) = \(2, 3\)"
    with pytest.raises(ValueError, match=padding):
        net(x, x, x, key_padding_mask=Tensor(np.ones((3, 2), bool)))
    with pytest.raises(TypeError, match="attn_mask must be a bool or float tensor, got Int32"):
        net(x, x, x, attn_mask=Tensor(np.ones((3, 3), np.int32)))
    with pytest.raises(ValueError, match="same batch size"):
        net(x, Tensor(np.ones((3, 4, 8), np.float32)), Tensor(np.ones((3, 4, 8), np.float32)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_fully_masked_row_gives_zero_weights_the_bias_and_no_nan_anywhere(mode):
    ms.set_seed(5)
    net = nn.MultiheadAttention(8, 2, batch_first=True)
    net.out_proj.bias.set_data(Tensor(R.standard_normal(8).astype(np.float32)))
    x = Tensor(R.standard_normal((2, 4, 8)).astype(np.float32))
    mask = np.zeros((4, 4), bool)
    mask[1] = True  # query 1 may attend to nothing
    params = net.trainable_params()

    def loss(x, m):
        out, w = net(x, x, x, attn_mask=m)
        return ops.reduce_sum(out * out) + ops.reduce_sum(w * w), out, w

    fn = ms.value_and_grad(loss, 0, params, has_aux=True)
    fn = ms.jit(fn) if mode == "graph" else fn
    (_, out, w), (gx, gp) = fn(x, Tensor(mask))
    out, w = out.asnumpy(), w.asnumpy()
    np.testing.assert_array_equal(w[:, 1], 0.0)
    np.testing.assert_allclose(out[:, 1], np.broadcast_to(net.out_proj.bias.asnumpy(), (2, 8)), rtol=1e-6)
    np.testing.assert_allclose(np.delete(w, 1, axis=1).sum(-1), 1.0, rtol=1e-5)
    for g in (gx, *gp):
        assert np.isfinite(g.asnumpy()).all()
    # out_proj.bias gets 2 * out summed over every position, the masked row's included
    gb = gp[-1].asnumpy()
    np.testing.assert_allclose(gb, 2 * out.sum((0, 1)), rtol=1e-5)


def test_transformer_layer_dropout_draws_alike_in_both_modes():
    # training: the attention-weight, feed-forward and residual dropouts take the same host
    # draws in PyNative and compiled; evaluation: no dropout
    ms.set_seed(0)
    layer = nn.TransformerDecoderLayer(16, 2, 24, dropout=0.3).set_train(True)
    x = Tensor(R.standard_normal((5, 2, 16)).astype(np.float32))
    memory = Tensor(R.standard_normal((4, 2, 16)).astype(np.float32))
    ms.set_seed(1)
    eager = layer(x, memory).asnumpy()
    ms.set_seed(1)
    graph = ms.jit(lambda x, m: layer(x, m))(x, memory).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-5)
    layer.set_train(False)
    assert np.abs(layer(x, memory).asnumpy() - eager).max() > 0.1
