"""Optimizers vs hand-written NumPy updates (MindSpore semantics), and training wrappers."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(2024)
STEPS = 3


def _params():
    """Two plain weights and two normalization-style ones ('gamma', 'beta' in the name)."""
    return [
        Parameter(RNG.standard_normal((3, 2)).astype(np.float32), name="fc.weight"),
        Parameter(RNG.standard_normal((2,)).astype(np.float32), name="fc.bias"),
        Parameter(RNG.standard_normal((4,)).astype(np.float32) + 1, name="bn.gamma"),
        Parameter(RNG.standard_normal((4,)).astype(np.float32), name="bn.beta"),
    ]


def _grads(params):
    return [[RNG.standard_normal(p.shape).astype(np.float32) for p in params]
            for _ in range(STEPS)]


def _run(opt, params, grads):
    for step_grads in grads:
        assert opt(tuple(Tensor(g) for g in step_grads)) is True
    return [p.asnumpy().astype(np.float64) for p in params]


def _decayed(p, g, wd, name):
    return g + wd * p if wd and "beta" not in name and "gamma" not in name else g


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_momentum_three_steps(nesterov, wd):
    params = _params()
    grads = _grads(params)
    p_ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr, mom = 0.1, 0.9
    opt = nn.Momentum(params, learning_rate=lr, momentum=mom, weight_decay=wd,
                      use_nesterov=nesterov)
    got = _run(opt, params, grads)
    accum = [np.zeros_like(p) for p in p_ref]
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = _decayed(p_ref[i], g.astype(np.float64), wd, names[i])
            accum[i] = mom * accum[i] + g
            delta = g + mom * accum[i] if nesterov else accum[i]
            p_ref[i] = p_ref[i] - lr * delta
    for name, a, b in zip(names, got, p_ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    for slot, ref in zip(opt.moments, accum, strict=True):
        np.testing.assert_allclose(slot.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()) == STEPS


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(momentum=0.9),
        dict(momentum=0.8, dampening=0.3),
        dict(momentum=0.9, nesterov=True),
        dict(momentum=0.5, weight_decay=0.05),
    ],
)
def test_sgd_three_steps(kwargs):
    params = _params()
    grads = _grads(params)
    p_ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr = 0.05
    opt = nn.SGD(params, learning_rate=lr, **kwargs)
    got = _run(opt, params, grads)
    mom = kwargs.get("momentum", 0.0)
    damp = kwargs.get("dampening", 0.0)
    wd = kwargs.get("weight_decay", 0.0)
    nesterov = kwargs.get("nesterov", False)
    buf = [None] * len(params)
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = _decayed(p_ref[i], g.astype(np.float64), wd, names[i])
            if mom:
                # PyTorch/MindSpore: the first buffer is the gradient itself
                buf[i] = g.copy() if buf[i] is None else mom * buf[i] + (1 - damp) * g
                g = g + mom * buf[i] if nesterov else buf[i]
            p_ref[i] = p_ref[i] - lr * g
    for name, a, b in zip(names, got, p_ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_adam_three_steps(nesterov, wd):
    params = _params()
    grads = _grads(params)
    p_ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    opt = nn.Adam(params, learning_rate=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=wd,
                  use_nesterov=nesterov)
    got = _run(opt, params, grads)
    m = [np.zeros_like(p) for p in p_ref]
    v = [np.zeros_like(p) for p in p_ref]
    for t, step_grads in enumerate(grads, start=1):
        lr_t = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        for i, g in enumerate(step_grads):
            g = _decayed(p_ref[i], g.astype(np.float64), wd, names[i])
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            direction = b1 * m[i] + (1 - b1) * g if nesterov else m[i]
            p_ref[i] = p_ref[i] - lr_t * direction / (np.sqrt(v[i]) + eps)
    for name, a, b in zip(names, got, p_ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)
    for slot, ref in zip(opt.moment1, m, strict=True):
        np.testing.assert_allclose(slot.asnumpy(), ref, rtol=1e-5, atol=1e-7)
    for slot, ref in zip(opt.moment2, v, strict=True):
        np.testing.assert_allclose(slot.asnumpy(), ref, rtol=1e-5, atol=1e-9)


def test_adam_first_step_is_lr_times_sign():
    # with bias correction the first Adam step is lr * g / (|g| + eps') ~ lr * sign(g)
    p = Parameter(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    opt = nn.Adam([p], learning_rate=0.1)
    opt((Tensor(np.array([0.5, -4.0, 1e-3], np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [0.9, -1.9, 2.9], rtol=1e-4)


def test_weight_decay_skips_beta_and_gamma():
    params = _params()
    before = [p.asnumpy().copy() for p in params]
    opt = nn.SGD(params, learning_rate=1.0, weight_decay=0.5)
    assert opt.decay_flags == (True, True, False, False)
    opt(tuple(Tensor(np.zeros(p.shape, np.float32)) for p in params))
    # zero gradients: only the decayed parameters move, by lr * wd * p
    np.testing.assert_allclose(params[0].asnumpy(), before[0] * 0.5, rtol=1e-6)
    np.testing.assert_allclose(params[1].asnumpy(), before[1] * 0.5, rtol=1e-6)
    np.testing.assert_array_equal(params[2].asnumpy(), before[2])
    np.testing.assert_array_equal(params[3].asnumpy(), before[3])


def test_weight_decay_filter_on_batchnorm_network_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)
            self.bn = nn.BatchNorm1d(2)

        def construct(self, x):
            return self.bn(self.fc(x))

    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4)
    flags = dict(zip([p.name for p in net.trainable_params()], opt.decay_flags, strict=True))
    assert flags == {"fc.weight": True, "fc.bias": True, "bn.gamma": False, "bn.beta": False}


def test_loss_scale_divides_gradients():
    p = Parameter(np.array([1.0, 2.0], np.float32), name="w")
    opt = nn.SGD([p], learning_rate=0.1, loss_scale=4.0)
    opt((Tensor(np.array([8.0, -4.0], np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [1.0 - 0.1 * 2.0, 2.0 + 0.1 * 1.0], rtol=1e-6)


def test_loss_scale_with_weight_decay_decays_the_true_weights():
    # MindSpore: weight_decay is scaled by loss_scale before the gradient is unscaled, so the
    # net effect is  g / loss_scale + wd * p
    p = Parameter(np.array([1.0, -2.0], np.float32), name="w")
    opt = nn.Momentum([p], learning_rate=0.1, momentum=0.0, weight_decay=0.01, loss_scale=8.0)
    g = np.array([8.0, 16.0], np.float32)
    opt((Tensor(g),))
    expected = np.array([1.0, -2.0]) - 0.1 * (g / 8.0 + 0.01 * np.array([1.0, -2.0]))
    np.testing.assert_allclose(p.asnumpy(), expected, rtol=1e-6)


def test_update_is_pure():
    params = _params()
    opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9)
    grads = tuple(Tensor(g) for g in _grads(params)[0])
    state = opt.state_params()
    assert len(state) == 2 + len(params)  # global_step, learning_rate, one moment each
    snapshot = [t.asnumpy().copy() for t in (*params, *grads, *state)]

    new_params, new_state = opt.update(tuple(params), grads, state)

    assert isinstance(new_params, tuple) and isinstance(new_state, tuple)
    assert len(new_params) == len(params) and len(new_state) == len(state)
    for before, t in zip(snapshot, (*params, *grads, *state), strict=True):
        np.testing.assert_array_equal(t.asnumpy(), before)  # nothing was mutated
    assert all(a is not b for a, b in zip(new_params, params, strict=True))
    assert int(new_state[0].asnumpy()) == 1
    assert int(opt.global_step.asnumpy()) == 0
    for p, g, new in zip(params, grads, new_params, strict=True):
        # first step: accum = g, p' = p - lr * g
        np.testing.assert_allclose(new.asnumpy(), p.asnumpy() - 0.1 * g.asnumpy(), rtol=1e-6)
    for g, slot in zip(grads, new_state[2:], strict=True):
        np.testing.assert_allclose(slot.asnumpy(), g.asnumpy(), rtol=1e-6)
    # calling again from the same state gives the same answer
    again, _ = opt.update(tuple(params), grads, state)
    for a, b in zip(new_params, again, strict=True):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_global_step_increments_and_get_lr():
    p = Parameter(np.zeros(2, np.float32), name="w")
    opt = nn.Adam([p], learning_rate=0.003)
    assert int(opt.global_step.asnumpy()) == 0
    assert opt.get_lr() == pytest.approx(0.003)
    for i in range(1, 4):
        opt((Tensor(np.ones(2, np.float32)),))
        assert int(opt.global_step.asnumpy()) == i
    assert opt.global_step.dtype == ms.int32


def test_optimizer_state_parameter_names():
    params = _params()
    opt = nn.Adam(params)
    assert [p.name for p in opt.moment1] == [f"moment1.{p.name}" for p in params]
    assert [p.name for p in opt.moment2] == [f"moment2.{p.name}" for p in params]
    assert all(not p.requires_grad for p in opt.moment1)


def test_optimizer_argument_errors():
    p = Parameter(np.zeros(2, np.float32), name="w")
    with pytest.raises(ValueError, match="empty"):
        nn.SGD([], learning_rate=0.1)
    with pytest.raises(ValueError, match="nesterov"):
        nn.SGD([p], learning_rate=0.1, nesterov=True)
    with pytest.raises(ValueError, match="momentum"):
        nn.Momentum([p], 0.1, -0.5)
    with pytest.raises(TypeError, match="learning_rate"):
        nn.Momentum([p], "fast", 0.9)
    opt = nn.SGD([p], learning_rate=0.1)
    with pytest.raises(ValueError, match="2 gradients for 1 parameters"):
        opt((Tensor(np.zeros(2, np.float32)), Tensor(np.zeros(2, np.float32))))


# -- training wrappers ----------------------------------------------------------------------


def _regression_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3)).astype(np.float32)
    w_true = np.array([[1.5, -2.0, 0.5]], np.float32)
    y = (x @ w_true.T + 0.3).astype(np.float32)
    return x, y


def test_train_one_step_cell_lowers_loss():
    ms.set_seed(0)
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    loss_fn = nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    train.set_train()
    losses = [float(train(Tensor(x), Tensor(y)).asnumpy()) for _ in range(100)]
    assert losses[-1] < 1e-4 * losses[0]
    np.testing.assert_allclose(net.weight.asnumpy(), [[1.5, -2.0, 0.5]], atol=0.02)
    np.testing.assert_allclose(net.bias.asnumpy(), [0.3], atol=0.02)
    assert int(opt.global_step.asnumpy()) == 100


def test_train_one_step_cell_single_step_matches_closed_form():
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    w0, b0 = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=2.0)
    loss = train(Tensor(x), Tensor(y))
    r = x @ w0.T + b0 - y  # residuals (N, 1)
    np.testing.assert_allclose(loss.asnumpy(), np.mean(r**2), rtol=1e-5)
    dw = 2 * r.T @ x / len(x)
    db = 2 * r.sum(0) / len(x)
    # sens=2 doubles the gradient
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.1 * 2 * dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b0 - 0.1 * 2 * db, rtol=1e-5, atol=1e-6)


def test_with_eval_cell_and_loss_cell():
    x, y = _regression_data()
    net = nn.Dense(3, 1)
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(Tensor(x), Tensor(y))
    pred = x @ net.weight.asnumpy().T + net.bias.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), pred, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss.asnumpy(), np.mean((pred - y) ** 2), rtol=1e-5)
    np.testing.assert_array_equal(label.asnumpy(), y)
    with_loss = nn.WithLossCell(net, nn.MSELoss())
    assert with_loss.backbone_network is net
    # the wrapper does not rename the backbone's parameters
    assert [p.name for p in with_loss.trainable_params()] == ["weight", "bias"]


def test_optimizer_update_in_grad_loop_matches_manual_loop():
    # value_and_grad + optimizer, the MindSpore 2.x training-loop style
    x, y = _regression_data()
    ms.set_seed(1)
    net = nn.Dense(3, 1)
    ms.set_seed(1)
    twin = nn.Dense(3, 1)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(twin, nn.MSELoss()),
                                nn.Momentum(twin.trainable_params(), 0.05, 0.9))

    def forward(data, label):
        return ops.reduce_mean(ops.square(net(data) - label))

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    for _ in range(5):
        loss, grads = grad_fn(Tensor(x), Tensor(y))
        opt(grads)
        loss_twin = train(Tensor(x), Tensor(y))
        np.testing.assert_allclose(loss.asnumpy(), loss_twin.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), twin.weight.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("wd", [0.0, 0.05])
def test_adam_weight_decay_three_steps(wd):
    """MindSpore's AdamWeightDecay formula: no bias correction, decay decoupled from the
    gradient (w -= lr * (m / (sqrt(v) + eps) + wd * w)), skipped for gamma/beta."""
    params = _params()
    grads = _grads(params)
    p_ref = [p.asnumpy().astype(np.float64) for p in params]
    names = [p.name for p in params]
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-6
    opt = nn.AdamWeightDecay(params, learning_rate=lr, weight_decay=wd)
    got = _run(opt, params, grads)
    m = [np.zeros_like(p) for p in p_ref]
    v = [np.zeros_like(p) for p in p_ref]
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = g.astype(np.float64)
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            update = m[i] / (np.sqrt(v[i]) + eps)
            if wd and "beta" not in names[i] and "gamma" not in names[i]:
                update = update + wd * p_ref[i]
            p_ref[i] = p_ref[i] - lr * update
    for name, a, b in zip(names, got, p_ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("opt_name", ["momentum", "adamw"])
def test_parameter_groups_decay_only_their_group(opt_name):
    """MindSpore's group params: [{"params": decay, "weight_decay": wd}, {"params": no_decay}]:
    biases and gamma/beta of the second group are not decayed, weights are (no name filter)."""
    params = _params()
    grads = _grads(params)
    p_ref = [p.asnumpy().astype(np.float64) for p in params]
    decay = [params[0], params[2]]  # a weight and a gamma: groups override the name filter
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": [params[1], params[3]]},
              {"order_params": params}]
    if opt_name == "momentum":
        opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.9)
    else:
        opt = nn.AdamWeightDecay(groups, learning_rate=0.01)
    assert opt.decay_values == (0.1, 0.0, 0.1, 0.0)
    got = _run(opt, params, grads)
    acc = [np.zeros_like(p) for p in p_ref]
    v = [np.zeros_like(p) for p in p_ref]
    wds = [0.1, 0.0, 0.1, 0.0]
    for step_grads in grads:
        for i, g in enumerate(step_grads):
            g = g.astype(np.float64)
            if opt_name == "momentum":
                acc[i] = 0.9 * acc[i] + g + wds[i] * p_ref[i]
                p_ref[i] = p_ref[i] - 0.1 * acc[i]
            else:
                acc[i] = 0.9 * acc[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                p_ref[i] = p_ref[i] - 0.01 * (acc[i] / (np.sqrt(v[i]) + 1e-6) + wds[i] * p_ref[i])
    for p, a, b in zip(params, got, p_ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=p.name)


def test_bad_parameter_groups():
    params = _params()
    with pytest.raises(ValueError, match="more than one group"):
        nn.SGD([{"params": params}, {"params": params[:1]}], 0.1)
    with pytest.raises(ValueError, match="unsupported key.*lr"):
        nn.SGD([{"params": params, "lr": 0.1}], 0.1)
    with pytest.raises(TypeError, match="not mixed"):
        nn.SGD([{"params": params[:1]}, params[1]], 0.1)
