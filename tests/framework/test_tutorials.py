"""MindSpore tutorial snippets, run in PyNative mode with ``import framework as ms``.

Only the import line differs from the tutorials; expected values are the tutorials'
printed outputs or NumPy formulas written here.
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, ParameterTuple, Tensor, nn, ops
from framework import dtype as mstype


@pytest.fixture(autouse=True)
def _pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# -- single operators ---------------------------------------------------------------------


def test_functional_add_of_ones():
    x = ms.Tensor(np.ones([1, 3, 5, 5]).astype(np.float32))
    y = ms.Tensor(np.ones([1, 3, 5, 5]).astype(np.float32))
    output = ops.add(x, y)
    out = output.asnumpy()
    assert out.shape == (1, 3, 5, 5)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.full((1, 3, 5, 5), 2.0, np.float32))


def test_add_primitive_and_add_func():
    add = ops.Add()
    x = ms.Tensor(np.array([1, 2]).astype(np.float32))
    y = ms.Tensor(np.array([3, 5]).astype(np.float32))
    z = add(x, y)
    np.testing.assert_array_equal(z.asnumpy(), [4.0, 7.0])
    # inputs are untouched
    np.testing.assert_array_equal(x.asnumpy(), [1.0, 2.0])

    def add_func(x, y):
        z = add(x, y)
        z = add(z, x)
        return z

    output = add_func(x, y)
    np.testing.assert_array_equal(output.asnumpy(), [5.0, 9.0])


def test_add_int32_keeps_dtype():
    x = Tensor(np.array([1, 2], np.int32))
    y = Tensor(np.array([3, 5], np.int32))
    z = ops.Add()(x, y)
    assert z.dtype == ms.int32
    np.testing.assert_array_equal(z.asnumpy(), np.array([4, 7], np.int32))


def test_functional_mul():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    y = Tensor(np.array([4.0, 5.0, 6.0], np.float32))
    np.testing.assert_array_equal(ops.mul(x, y).asnumpy(), [4.0, 10.0, 18.0])
    np.testing.assert_array_equal(ops.Mul()(x, y).asnumpy(), [4.0, 10.0, 18.0])
    np.testing.assert_array_equal((x * y).asnumpy(), [4.0, 10.0, 18.0])


# -- a network of Dense layers ----------------------------------------------------------


class DenseNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(4, 2, weight_init="normal", bias_init="zeros")

    def construct(self, x):
        x = self.fc(x)
        x = self.relu(x)
        return self.fc2(x)


def test_dense_network_forward_matches_numpy():
    ms.set_seed(0)
    net = DenseNet()
    x_np = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    out = net(Tensor(x_np))
    assert out.shape == (5, 2)
    params = {p.name: p.asnumpy() for p in net.trainable_params()}
    assert set(params) == {"fc.weight", "fc.bias", "fc2.weight", "fc2.bias"}
    assert params["fc.weight"].shape == (4, 3)
    h = np.maximum(x_np @ params["fc.weight"].T + params["fc.bias"], 0)
    expected = h @ params["fc2.weight"].T + params["fc2.bias"]
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(params["fc2.bias"], np.zeros(2, np.float32))


def test_single_dense_layer_formula():
    dense = nn.Dense(3, 4)
    x = Tensor(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32))
    out = dense(x).asnumpy()
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    np.testing.assert_allclose(out, x.asnumpy() @ w.T + b, rtol=1e-6)


# -- GradOperation (the "automatic differentiation" tutorial) -----------------------------

X = [[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]]
Y = [[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')

    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation()

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


class GradNetWrtXY(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation(get_all=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


class GradNetWrtZ(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.params = ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_by_list=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net, self.params)
        return gradient_function(x, y)


class GradNetWrtXSens(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation(sens_param=True)
        self.grad_wrt_output = Tensor([[0.1, 0.6, 0.2], [0.8, 1.3, 1.1]], dtype=mstype.float32)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y, self.grad_wrt_output)


def _xy():
    x = Tensor(X, dtype=mstype.float32)
    y = Tensor(Y, dtype=mstype.float32)
    return x, y


def test_grad_operation_wrt_first_input():
    x, y = _xy()
    output = GradNetWrtX(Net())(x, y)
    # the tutorial's printed output: each row is the row sums of y
    np.testing.assert_allclose(output.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-6)


def test_grad_operation_get_all():
    x, y = _xy()
    dx, dy = GradNetWrtXY(Net())(x, y)
    np.testing.assert_allclose(dx.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-6)
    # dy = x^T @ ones(2, 3): column sums of x
    np.testing.assert_allclose(
        dy.asnumpy(), [[2.6, 2.6, 2.6], [1.9, 1.9, 1.9], [1.3, 1.3, 1.3]], rtol=1e-6
    )


def test_grad_operation_get_by_list_wrt_parameter():
    x, y = _xy()
    net = Net()
    grads = GradNetWrtZ(net)(x, y)
    assert isinstance(grads, tuple) and len(grads) == 1
    x_np, y_np = np.array(X, np.float64), np.array(Y, np.float64)
    expected = np.sum((np.ones((2, 3)) @ y_np.T) * x_np)
    np.testing.assert_allclose(expected, 21.536, rtol=1e-9)  # the tutorial's value
    assert grads[0].shape == (1,)
    np.testing.assert_allclose(grads[0].asnumpy(), [expected], rtol=1e-6)


def test_grad_operation_sens_param():
    x, y = _xy()
    output = GradNetWrtXSens(Net())(x, y)
    # the tutorial's printed output, equal to sens @ y^T
    expected = [[2.211, 0.51, 1.49], [5.588, 2.68, 4.07]]
    np.testing.assert_allclose(output.asnumpy(), expected, rtol=1e-6)
    sens = np.array([[0.1, 0.6, 0.2], [0.8, 1.3, 1.1]])
    np.testing.assert_allclose(output.asnumpy(), sens @ np.array(Y).T, rtol=1e-6)


def test_grad_operation_with_z_not_one_scales_dx():
    x, y = _xy()
    net = Net()
    net.z.set_data(np.array([2.5], np.float32))
    out = GradNetWrtX(net)(x, y)
    expected = 2.5 * np.ones((2, 3)) @ np.array(Y).T
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)


def test_grad_operation_get_all_and_get_by_list():
    x, y = _xy()
    net = Net()
    grad_fn = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())
    (dx, dy), (dz,) = grad_fn(x, y)
    np.testing.assert_allclose(dx.asnumpy(), [[4.51, 2.7, 3.6]] * 2, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy()[:, 0], [2.6, 1.9, 1.3], rtol=1e-6)
    np.testing.assert_allclose(dz.asnumpy(), [21.536], rtol=1e-6)


# -- control flow over a Parameter ---------------------------------------------------------


class LoopAddNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="z")

    def construct(self, x):
        for _ in range(3):
            x = x + self.z
        return x


class LoopMulNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = Parameter(Tensor(np.array([2.0, -1.0, 0.5], np.float32)), name="z")

    def construct(self, x):
        for _ in range(3):
            x = x * self.z
        return x


def test_for_loop_add_parameter_forward_and_grad():
    net = LoopAddNet()
    x = Tensor(np.array([[1.0, 1.0, 1.0], [0.0, -1.0, 2.0]], np.float32))
    out = net(x)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() + 3 * net.z.asnumpy())
    grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(x)
    assert isinstance(grads, tuple) and len(grads) == 1
    # d/dz sum(x + 3 z) over a batch of 2 rows = 3 * 2 per entry
    np.testing.assert_allclose(grads[0].asnumpy(), [6.0, 6.0, 6.0])
    dx = ms.grad(net)(x)
    np.testing.assert_allclose(dx.asnumpy(), np.ones((2, 3)))


def test_for_loop_mul_parameter_forward_and_grad():
    net = LoopMulNet()
    x_np = np.array([1.5, 2.0, -3.0], np.float32)
    z = net.z.asnumpy().astype(np.float64)
    out = net(Tensor(x_np))
    np.testing.assert_allclose(out.asnumpy(), x_np * z**3, rtol=1e-6)
    (dz,) = ms.grad(net, grad_position=None, weights=net.trainable_params())(Tensor(x_np))
    np.testing.assert_allclose(dz.asnumpy(), 3 * x_np * z**2, rtol=1e-6)


# -- grad / value_and_grad ------------------------------------------------------------------


def test_value_and_grad_with_aux_and_weights():
    net = Net()
    x, y = _xy()

    def forward(x, y):
        out = net(x, y)
        loss = ops.reduce_sum(out * out)
        return loss, out

    fn = ms.value_and_grad(forward, grad_position=0, weights=net.trainable_params(), has_aux=True)
    (loss, aux), (dx, (dz,)) = fn(x, y)
    x_np, y_np = np.array(X, np.float64), np.array(Y, np.float64)
    z = 1.0
    out = (x_np * z) @ y_np
    np.testing.assert_allclose(loss.asnumpy(), np.sum(out**2), rtol=1e-5)
    np.testing.assert_allclose(aux.asnumpy(), out, rtol=1e-6)
    # the aux output does not contribute: d loss / d out = 2 out
    np.testing.assert_allclose(dx.asnumpy(), z * (2 * out) @ y_np.T, rtol=1e-5)
    np.testing.assert_allclose(dz.asnumpy(), [np.sum(((2 * out) @ y_np.T) * x_np)], rtol=1e-5)


def test_grad_with_aux_returns_grads_and_aux():
    def fn(x, y):
        return x * y, x + y

    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, -4.0], np.float32))
    grads, aux = ms.grad(fn, grad_position=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(grads[0].asnumpy(), [3.0, -4.0])
    np.testing.assert_allclose(grads[1].asnumpy(), [1.0, 2.0])
    assert isinstance(aux, tuple) and len(aux) == 1
    np.testing.assert_allclose(aux[0].asnumpy(), [4.0, -2.0])


def test_grad_tuple_grad_position():
    def fn(x, y, z):
        return x * y * z

    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([-2.0, 3.0], np.float32))
    z = Tensor(np.array([0.5, 4.0], np.float32))
    gx, gz = ms.grad(fn, grad_position=(0, 2))(x, y, z)
    np.testing.assert_allclose(gx.asnumpy(), y.asnumpy() * z.asnumpy())
    np.testing.assert_allclose(gz.asnumpy(), x.asnumpy() * y.asnumpy())
    gy = ms.grad(fn, grad_position=(1,))(x, y, z)  # a one-entry tuple: the gradient itself (MindSpore)
    assert isinstance(gy, Tensor)
    np.testing.assert_allclose(gy.asnumpy(), x.asnumpy() * z.asnumpy())
    single = ms.grad(fn, grad_position=1)(x, y, z)
    assert isinstance(single, Tensor)
    np.testing.assert_allclose(single.asnumpy(), x.asnumpy() * z.asnumpy())


def test_grad_matches_finite_differences():
    def fn(x):
        return ops.reduce_sum(ops.tanh(x) * ops.exp(x * 0.5))

    x_np = np.array([0.3, -0.7, 1.2], np.float64)
    g = ms.grad(fn)(Tensor(x_np)).asnumpy()
    eps = 1e-6
    numeric = np.array([
        (np.sum(np.tanh(x_np + e) * np.exp((x_np + e) * 0.5))
         - np.sum(np.tanh(x_np - e) * np.exp((x_np - e) * 0.5))) / (2 * eps)
        for e in np.eye(3) * eps
    ])
    np.testing.assert_allclose(g, numeric, rtol=1e-6)


def test_value_and_grad_needs_position_or_weights():
    with pytest.raises(ValueError, match="grad_position and weights"):
        ms.value_and_grad(lambda x: x, grad_position=None, weights=None)
