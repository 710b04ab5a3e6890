"""Gradients through graph-mode control flow (issue 9): graph gradients == PyNative
gradients == central finite differences in float64, wrt inputs and wrt Parameters, for
branches, loops with data-dependent trip counts (0, 1, several), jumps and nestings."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops

from .control_flow_cases import assert_same, check_grad, f32, f64, i32, numeric_grad, run_in, to_np


def branches(x, y):
    if x.sum() > y.sum():
        z = x * y + ops.sigmoid(x)
    elif x.sum() < -1:
        z = ops.exp(y) * x
    else:
        z = x * x * y
    return z


def test_grad_through_if_elif_else():
    cases = [(f64([1.0, 2.0]), f64([0.3, -0.2])), (f64([-1.0, -2.0]), f64([0.3, 0.7])),
             (f64([0.2, -0.5]), f64([0.5, 0.4]))]
    check_grad(branches, cases, positions=(0, 1))


def while_data_dependent(x):
    y = x
    while y.sum() < 10:
        y = y * 1.5 + x
    return y * y


def test_grad_through_while_with_data_dependent_trip_count():
    # 0, 1 and several iterations, far from the points where the trip count changes
    check_grad(while_data_dependent, [(f64([6.0, 5.0]),), (f64([3.0, 2.0]),), (f64([0.3, 0.2]),)])


def range_loop(x, w, n):
    h = x
    for _ in range(n):
        h = ops.tanh(h * w + x)
    return h


def test_grad_through_for_range_of_a_tensor_bound():
    x, w = f64([0.5, -0.3]), f64([0.8, 1.2])
    # odd and even counts (the backend runs two iterations per step) and counts around
    # the points where its saved-state buffers grow (16, 32 rows)
    check_grad(range_loop, [(x, w, i32(n)) for n in (0, 1, 4, 15, 16, 17, 33)], positions=(0, 1))


def if_in_while(x, n):
    i = 0
    s = x * 0
    while i < n:
        if s.sum() > 3:
            s = s + x * 2
        else:
            s = s + x * x
        i += 1
    return s


def test_grad_through_if_inside_while():
    check_grad(if_in_while, [(f64([1.0, 2.0]), i32(n)) for n in (0, 1, 4)])


def jumps(x, n):
    i = Tensor(np.array(0), ms.int32)
    acc = x * 0
    while i < n:
        i += 1
        if acc.sum() > 20:
            break
        if ops.reduce_sum(x * ops.cast(i, ms.float64)) < 0:
            continue
        acc = acc + x * x * ops.cast(i, ms.float64)
    return acc


def test_grad_through_break_and_continue():
    check_grad(jumps, [(f64([1.0, 2.0]), i32(5)), (f64([-1.0, 0.5]), i32(3)), (f64([1.0, 2.0]), i32(0))])


def early_return(x, y):
    if x.sum() > 0:
        return x * y
    z = ops.exp(x)
    if z.sum() > 1:
        return z * y * y
    return x - y


def ternary_and_logic(x, y):
    z = x * y if (x.sum() > 0 and not y.sum() > 0) else x + y * y
    if x[0] > 0 or y[0] > 0:
        z = z * x
    return z


def test_grad_through_early_return_ternary_and_logic():
    cases = [(f64([1.0, 2.0]), f64([0.5, -3.0])), (f64([-1.0, 0.3]), f64([2.0, 1.5])),
             (f64([-3.0, -2.0]), f64([-0.5, -1.0]))]
    check_grad(early_return, cases, positions=(0, 1))
    check_grad(ternary_and_logic, cases, positions=(0, 1))


def tuple_carry(x, n):
    state = (x, x * 0)
    i = 0
    while i < n:
        a, b = state
        if a.sum() > 0:
            state = (a * 0.5, b + a * a)
        else:
            state = (a + 1, b - a)
        i += 1
    return state[0] + state[1]


def test_grad_through_a_tuple_carried_by_a_loop():
    check_grad(tuple_carry, [(f64([1.0, 2.0]), i32(n)) for n in (0, 1, 3)] + [(f64([-2.0, 1.5]), i32(3))])


def rotating(x):
    a = x
    b = x * 2.0
    while (a * b).sum() < 30.0:
        a, b = b, a * 1.5 + ops.sin(b)
    return (a * b).sum()


def test_grad_through_a_loop_that_passes_a_carried_value_through():
    # the body's output ``a`` is its input ``b`` itself: its gradient must still reach ``b``
    check_grad(rotating, [(f64([0.5, 0.4, 0.3]),), (f64([2.0, 1.0, 0.5]),)])


def sin_scaled_loop(x):
    y = x
    while (y * y).sum() < 30.0:
        y = y * 1.5 + ops.sin(x) * y
    return y.sum()


@pytest.mark.slow
def test_grad_at_a_closure_tensor_inside_jit_reaches_a_loop_body():
    # x is a constant of the compiled graph; the loop body reads it as an operand
    x = f64([1.2, 1.19, 1.03])
    compiled = ms.jit(lambda scale: ms.grad(sin_scaled_loop)(x) * scale)(f64(1.0)).asnumpy()
    np.testing.assert_allclose(compiled, numeric_grad(sin_scaled_loop, (x,), 0), rtol=1e-6)


def three_levels(x, n):
    i = 0
    while i < n:
        for w in (0.5, -1.0):
            if (x * w).sum() > 0:
                j = 0
                while j < 2:
                    x = ops.sigmoid(x) + x * w
                    j += 1
            else:
                x = x * 0.9
        i += 1
    return x


def test_grad_through_three_nested_levels():
    check_grad(three_levels, [(f64([0.3, 0.7]), i32(n)) for n in (0, 2)] + [(f64([-0.3, 0.1]), i32(2))])


class Gated(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.5], np.float64)), name="w")
        self.b = Parameter(Tensor(np.array([0.1, 0.2], np.float64)), name="b")

    def construct(self, x, n):
        h = x
        i = 0
        while i < n:
            if (h * self.w).sum() > 0:
                h = ops.tanh(h * self.w + self.b)
            else:
                h = h * self.b - self.w
            i += 1
        return (h * h).sum()


def weight_fd(net, args, param, eps=1e-6):
    base = param.asnumpy().copy()
    grad = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        vals = []
        for sign in (1, -1):
            v = base.copy()
            v[idx] += sign * eps
            param.set_data(Tensor(v))
            vals.append(float(run_in(ms.PYNATIVE_MODE, lambda: net(*args)).asnumpy()))
        grad[idx] = (vals[0] - vals[1]) / (2 * eps)
    param.set_data(Tensor(base))
    return grad


def test_grad_wrt_parameters_and_inputs_of_a_cell():
    net = Gated()
    grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
    for x, n in ((f64([1.0, 0.5]), 3), (f64([-1.0, 0.5]), 2), (f64([1.0, 0.5]), 0)):
        args = (x, i32(n))
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda args=args: grad(*args)))
        graph = to_np(run_in(ms.GRAPH_MODE, lambda args=args: grad(*args)))
        assert_same(graph, eager, 1e-6, 1e-8, f"n={n}")
        for k, p in enumerate((net.w, net.b)):
            np.testing.assert_allclose(eager[1][k], weight_fd(net, args, p), rtol=1e-5, atol=1e-7)


class PiecewiseCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.5], np.float64)), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 0:
            y = ops.tanh(x * self.w)
        else:
            y = x * self.w * self.w
        return y.sum()


def test_grad_wrt_parameters_through_an_if():
    net = PiecewiseCell()
    grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
    for x in (f64([1.0, -0.5]), f64([1.0, 0.5])):  # both branches
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda x=x: grad(x)))
        graph = to_np(run_in(ms.GRAPH_MODE, lambda x=x: grad(x)))
        assert_same(graph, eager, 1e-6, 1e-8)
        np.testing.assert_allclose(eager[1][0], weight_fd(net, (x,), net.w), rtol=1e-5, atol=1e-7)


class GradNet(nn.Cell):
    """The MindSpore tutorial wrapper: GradOperation of a network, as a Cell."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.params = ms.ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x, n):
        return self.grad_op(self.net, self.params)(x, n)


def test_grad_operation_cell_in_both_modes():
    net = Gated()
    wrapper = GradNet(net)
    for x, n in ((f64([1.0, 0.5]), 2), (f64([-1.0, 0.5]), 1)):
        eager, graph = (to_np(v) for v in run_both(lambda x=x, n=n: wrapper(x, i32(n))))
        assert_same(graph, eager, 1e-6, 1e-8)


def run_both(fn):
    return run_in(ms.PYNATIVE_MODE, fn), run_in(ms.GRAPH_MODE, fn)


def test_no_prints_during_backward(capfd):
    def noisy(x):
        if x.sum() > 0:
            print("branch", x)
            x = x * x
        return x

    grad = ms.grad(noisy)
    x = f64([1.0, 2.0])
    capfd.readouterr()
    run_in(ms.GRAPH_MODE, lambda: grad(x))
    run_in(ms.GRAPH_MODE, lambda: grad(x))
    graph_out = capfd.readouterr().out
    run_in(ms.PYNATIVE_MODE, lambda: grad(x))
    eager_out = capfd.readouterr().out
    assert eager_out.count("branch") == 1
    assert graph_out.count("branch") == 2, graph_out  # once per call, none from the backward


def test_float32_gradients_match_pynative():
    cases = [(f32([1.0, 2.0]), f32([0.3, -0.2])), (f32([-1.0, -2.0]), f32([0.3, 0.7])),
             (f32([0.2, -0.5]), f32([0.5, 0.4]))]
    check_grad(branches, cases, positions=(0, 1), fd=False, rtol=1e-5, atol=1e-6)
    check_grad(range_loop, [(f32([0.5, -0.3]), f32([0.8, 1.2]), i32(n)) for n in (0, 3)],
               positions=(0, 1), fd=False, rtol=1e-5, atol=1e-6)


def nested_loops(x, n):
    i = 0
    while i < n:
        while (x * x).sum() < 4:
            x = x * 1.3 + 0.1
        x = ops.tanh(x) * 0.9
        i += 1
    return x


def list_break(a, b, c):
    acc = a * 0
    for t in [a, b, c]:
        acc = acc + t * t
        if acc.sum() > 3:
            break
    return acc * a


def test_grad_through_while_in_while_and_a_break_in_a_list_loop():
    check_grad(nested_loops, [(f64([0.5, 0.3]), i32(n)) for n in (0, 1, 3)])
    cases = [(f64([1.0, 0.5]), f64([2.0, 1.0]), f64([0.1, 0.2])),
             (f64([0.1, 0.2]), f64([0.3, 0.1]), f64([0.5, 0.4]))]
    check_grad(list_break, cases, positions=(0, 1, 2))


def test_value_and_grad_in_both_modes():
    vg = ms.value_and_grad(while_data_dependent)
    for x in (f64([3.0, 2.0]), f64([0.3, 0.2])):
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda x=x: vg(x)))
        graph = to_np(run_in(ms.GRAPH_MODE, lambda x=x: vg(x)))
        assert_same(graph, eager, 1e-6, 1e-8)


def rnn(xs, h, w_x, w_h, b, n):
    # the backward reads w_h transposed in every iteration (hoisted out of the loop when
    # lowered), sums x^T g and h^T g over iterations, and gathers xs[i] by a tensor index
    i = Tensor(np.array(0, np.int32))
    while i < n:
        h = ops.tanh(ops.matmul(xs[i], w_x) + ops.matmul(h, w_h) + b)
        i = i + 1
    return (h * h).mean()


def test_grad_through_an_rnn_loop_of_matmuls():
    rng = np.random.default_rng(3)
    xs, h = f64(rng.standard_normal((4, 3, 5))), f64(rng.standard_normal((3, 6)) * 0.1)
    w_x, w_h = f64(rng.standard_normal((5, 6)) * 0.4), f64(rng.standard_normal((6, 6)) * 0.4)
    b = f64(rng.standard_normal(6) * 0.1)
    check_grad(rnn, [(xs, h, w_x, w_h, b, i32(n)) for n in (0, 1, 4)], positions=(0, 1, 2, 3, 4))


def test_cuda_code_for_a_loop_gradient_without_running(tmp_path):
    # the saving loop, its row kernels, the hoisted transpose and the reverse loop
    # all generate CUDA code (compile only: no GPU here)
    ms.set_context(device_target="GPU", save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        grad = ms.jit(ms.grad(rnn, grad_position=(2, 3)))
        rng = np.random.default_rng(0)
        args = (f32(rng.standard_normal((4, 3, 5))), f32(np.zeros((3, 6))),
                f32(rng.standard_normal((5, 6))), f32(rng.standard_normal((6, 6))), f32(np.zeros(6)), i32(4))
        report = grad.compile(*args, load=False)
    finally:
        ms.set_context(device_target="CPU", save_graphs=False)
    assert report.target == "cuda"
    kernels = next(tmp_path.rglob("20_kernels.cu")).read_text()
    assert "__global__" in kernels and "read_row" in kernels and "write_row" in kernels
