"""nn.RNN / GRU / LSTM and the cells without PyTorch: finite differences in float64, both
modes equal (a Cell under GRAPH_MODE, ``@ms.jit``, a compiled train step), ``seq_length``
against running each row alone on its valid prefix, MindSpore's parameter names, shapes and
initial range, and one-line errors. (Against PyTorch: test_rnn_torch.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn


@pytest.fixture(autouse=True)
def _pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _weighted_loss(net, lstm):
    def loss(x, seq, w_out, w_h):
        out, state = net(x, None, seq)
        h_n = state[0] + state[1] if lstm else state  # c_n enters the loss too
        return (out * w_out).sum() + (h_n * w_h).sum()
    return loss


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_gradients_match_finite_differences_in_float64(kind):
    ms.set_seed(1)
    net = getattr(nn, kind)(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2, 2))
    seq = Tensor(np.array([4, 2], np.int32))
    w_out, w_h = rng.standard_normal((4, 2, 6)), rng.standard_normal((4, 2, 3))
    fn = _weighted_loss(net, kind == "LSTM")
    params = net.trainable_params()
    _, (gx, gparams) = ms.value_and_grad(fn, 0, params)(Tensor(x), seq, Tensor(w_out), Tensor(w_h))

    def value():
        return float(fn(Tensor(x), seq, Tensor(w_out), Tensor(w_h)).asnumpy())

    eps = 1e-6
    checks = [(x, gx.asnumpy(), "x")]
    checks += [(p, g.asnumpy(), p.name) for p, g in zip(params, gparams)]
    for target, analytic, name in checks:
        array = target if isinstance(target, np.ndarray) else target.asnumpy().copy()
        numeric = np.zeros_like(array)
        for idx in np.ndindex(array.shape):
            saved = array[idx]
            for sign in (1, -1):
                array[idx] = saved + sign * eps
                if not isinstance(target, np.ndarray):
                    target.set_data(Tensor(array.copy()))
                numeric[idx] += sign * value() / (2 * eps)
            array[idx] = saved
            if not isinstance(target, np.ndarray):
                target.set_data(Tensor(array.copy()))
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8, err_msg=name)
        if name == "x":  # the padded steps of row 1 do not matter
            assert np.all(analytic[2:, 1] == 0)


def _lstm_lm(seed=0):
    ms.set_seed(seed)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 8, num_layers=2, batch_first=True)
            self.head = nn.Dense(8, 3)

        def construct(self, x, y):
            out, (h, c) = self.lstm(x)
            return ((self.head(out) - y) ** 2).mean() + (h * c).mean()

    return Net()


def test_cell_and_jit_function_in_graph_mode_equal_pynative():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((3, 6, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((3, 6, 3)).astype(np.float32))
    net = _lstm_lm()
    eager = net(x, y).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(x, y).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    jitted = ms.jit(lambda a, b: net.lstm(a)[1][0] * 1.0)(x, y).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    np.testing.assert_allclose(jitted, net.lstm(x)[1][0].asnumpy(), rtol=1e-5, atol=1e-6)


def test_compiled_train_step_equals_pynative():
    """value_and_grad + Adam in one jit function, three steps, against the same in PyNative."""
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((3, 6, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((3, 6, 3)).astype(np.float32))

    def train(jit):
        net = _lstm_lm(seed=3)
        opt = nn.Adam(net.trainable_params(), 0.01)
        grad_fn = ms.value_and_grad(net, None, opt.parameters)

        def step(a, b):
            loss, grads = grad_fn(a, b)
            opt(grads)
            return loss

        step = ms.jit(step) if jit else step
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy() for p in net.trainable_params()]

    (l_graph, p_graph), (l_eager, p_eager) = train(True), train(False)
    np.testing.assert_allclose(l_graph, l_eager, rtol=1e-5)
    assert l_graph[2] < l_graph[0]
    for a, b in zip(p_graph, p_eager):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_seq_length_equals_each_row_run_alone_on_its_prefix(kind, mode):
    ms.set_seed(2)
    net = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(2)
    lengths = [5, 3, 1]
    x = rng.standard_normal((5, 3, 3)).astype(np.float32)
    ms.set_context(mode=mode)
    out, state = net(Tensor(x), None, Tensor(np.array(lengths, np.int32)))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = out.asnumpy()
    states = [s.asnumpy() for s in (state if kind == "LSTM" else (state,))]
    for b, n in enumerate(lengths):
        ref_out, ref_state = net(Tensor(x[:n, b:b + 1]))
        ref_states = ref_state if kind == "LSTM" else (ref_state,)
        np.testing.assert_allclose(out[:n, b], ref_out.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        assert np.all(out[n:, b] == 0)
        for got, want in zip(states, ref_states):
            np.testing.assert_allclose(got[:, b], want.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)


def test_parameter_names_shapes_and_initial_range():
    net = nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    shapes = {name: p.shape for name, p in net.parameters_and_names()}
    # MindSpore 2.10's order: every weight_ih (by layer, then direction), then weight_hh ...
    assert list(shapes) == [f"{w}_l{k}{s}" for w in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
                            for k in (0, 1) for s in ("", "_reverse")]
    assert shapes["weight_ih_l0"] == (64, 3) and shapes["weight_ih_l1_reverse"] == (64, 32)
    assert shapes["weight_hh_l1"] == (64, 16) and shapes["bias_hh_l0_reverse"] == (64,)
    values = np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()])
    assert np.abs(values).max() <= 0.25 and np.abs(values).max() > 0.2  # U(-1/sqrt(16), ..)
    assert [n for n, _ in nn.GRU(3, 5, has_bias=False).parameters_and_names()] == \
        ["weight_ih_l0", "weight_hh_l0"]
    assert {n: p.shape for n, p in nn.GRUCell(3, 5).parameters_and_names()} == {
        "weight_ih": (15, 3), "weight_hh": (15, 5), "bias_ih": (15,), "bias_hh": (15,)}

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(3, 4)

    assert [p.name for p in Model().trainable_params()][0] == "rnn.weight_ih_l0"


def test_lstm_cell_returns_h_and_c_and_layer_of_one_step_agrees():
    ms.set_seed(4)
    layer = nn.LSTM(3, 4)
    cell = nn.LSTMCell(3, 4)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        getattr(cell, name).set_data(Tensor(getattr(layer, name + "_l0").asnumpy()))
    x = Tensor(np.random.default_rng(0).standard_normal((1, 2, 3)).astype(np.float32))
    out, (h_n, c_n) = layer(x)
    h, c = cell(x[0])
    np.testing.assert_allclose(h.asnumpy(), h_n.asnumpy()[0], rtol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), c_n.asnumpy()[0], rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy()[0], h.asnumpy(), rtol=1e-6)


def test_dropout_between_layers_only_in_training():
    ms.set_seed(5)
    net = nn.GRU(3, 8, num_layers=2, dropout=0.5)
    x = Tensor(np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32))
    eval_out = net(x)[0].asnumpy()
    np.testing.assert_array_equal(net(x)[0].asnumpy(), eval_out)
    net.set_train(True)
    assert not np.allclose(net(x)[0].asnumpy(), eval_out)


@pytest.mark.parametrize("make, call, match", [
    (lambda: nn.LSTM(3, 4), lambda n: n(Tensor(np.zeros((2, 2, 5), np.float32))), r"x must be"),
    (lambda: nn.GRU(3, 4), lambda n: n(Tensor(np.zeros((2, 2, 3), np.float32)),
                                       Tensor(np.zeros((2, 2, 4), np.float32))), r"hx must be"),
    (lambda: nn.LSTM(3, 4), lambda n: n(Tensor(np.zeros((2, 2, 3), np.float32)),
                                        Tensor(np.zeros((1, 2, 4), np.float32))), r"tuple \(h_0, c_0\)"),
    (lambda: nn.RNN(3, 4), lambda n: n(Tensor(np.zeros((2, 2, 3), np.float32)), None,
                                       Tensor(np.zeros(3, np.int32))), r"seq_length must be"),
    (lambda: nn.RNN(3, 4, nonlinearity="gelu"), None, r"nonlinearity must be"),
    (lambda: nn.LSTM(3, 4, dropout=1.0), None, r"dropout must be"),
    (lambda: nn.LSTM(3, 0), None, r"hidden_size must be >= 1"),
    (lambda: nn.GRUCell(3, 4), lambda n: n(Tensor(np.zeros((2, 3), np.float32)),
                                           Tensor(np.zeros((3, 4), np.float32))), r"hx must be \(2, 4\)"),
])
def test_bad_arguments_raise_one_line(make, call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        net = make()
        call(net)


def test_rnn_positional_arguments_in_both_orders():
    documented = nn.RNN(3, 4, 2, "relu", False, True)  # nonlinearity fourth, as the docs list it
    assert (documented.nonlinearity, documented.has_bias, documented.batch_first) == ("relu", False, True)
    mindspore = nn.RNN(3, 4, 2, False, True, nonlinearity="relu")  # MindSpore's RNN(*args, **kwargs)
    assert (mindspore.nonlinearity, mindspore.has_bias, mindspore.batch_first) == ("relu", False, True)
    assert [n for n, _ in mindspore.parameters_and_names()] == ["weight_ih_l0", "weight_ih_l1",
                                                               "weight_hh_l0", "weight_hh_l1"]


def test_layers_are_exported():
    assert {"RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell"} <= set(nn.__all__)


def test_seq_length_zero_keeps_the_initial_state():
    ms.set_seed(6)
    net = nn.LSTM(3, 4, bidirectional=True)
    rng = np.random.default_rng(6)
    x = Tensor(rng.standard_normal((3, 2, 3)).astype(np.float32))
    h0, c0 = (rng.standard_normal((2, 2, 4)).astype(np.float32) for _ in range(2))
    out, (h_n, c_n) = net(x, (Tensor(h0), Tensor(c0)), Tensor(np.array([0, 2], np.int32)))
    assert np.all(out.asnumpy()[:, 0] == 0) and np.all(out.asnumpy()[2:, 1] == 0)
    np.testing.assert_array_equal(h_n.asnumpy()[:, 0], h0[:, 0])
    np.testing.assert_array_equal(c_n.asnumpy()[:, 0], c0[:, 0])
    assert not np.allclose(h_n.asnumpy()[:, 1], h0[:, 1])
