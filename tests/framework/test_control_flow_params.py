"""Parameter assignment inside branches and loops, runtime `print`, and the MindSpore
tutorial LeNet-5 with its `counted` Parameter (issue 9), in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops
from trainer.models import LeNet5

from .control_flow_cases import assert_same, f32, i32, run_in, to_np


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w", requires_grad=False)
        self.count = Parameter(Tensor(np.array(0), ms.int32), name="count", requires_grad=False)

    def construct(self, x, n):
        if x.sum() > 0:
            self.w = self.w + x
        else:
            self.w = self.w - 1
        out = self.w * 2  # read after the if: the assigned value
        i = 0
        while i < n:
            self.count = self.count + 1
            if self.count > 4:
                self.w = self.w * 0.5
            i += 1
        return out


def np_stateful(w, count, x, n):
    w = w + x if x.sum() > 0 else w - np.float32(1)
    for _ in range(n):
        count += 1
        if count > 4:
            w = w * np.float32(0.5)
    return w, count


def test_parameter_assignment_in_branches_and_loops_updates_the_parameter():
    calls = [(np.array([1.0, 2.0], np.float32), 2), (np.array([-1.0, 0.5], np.float32), 0),
             (np.array([0.5, 0.5], np.float32), 3), (np.array([-3.0, 0.0], np.float32), 1)]

    def run():
        net = Stateful()
        w_obj, c_obj = net.w, net.count
        outs = [(to_np(net(Tensor(x), i32(n))), net.w.asnumpy().copy(), net.count.asnumpy().copy())
                for x, n in calls]
        assert net.w is w_obj and net.count is c_obj  # the Parameter objects stay
        return outs

    eager, graph = run_in(ms.PYNATIVE_MODE, run), run_in(ms.GRAPH_MODE, run)
    w, count = np.zeros(2, np.float32), 0
    for k, (x, n) in enumerate(calls):
        after_if = np_stateful(w, count, x, 0)[0]
        w, count = np_stateful(w, count, x, n)
        want = (after_if * 2, w, np.array(count, np.int32))
        assert_same(eager[k], want, msg=f"pynative call {k}")
        assert_same(graph[k], want, msg=f"graph call {k}")


class ReturnsParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.array(0), ms.int32), name="count", requires_grad=False)

    def construct(self, n):
        i = 0
        while i < n:
            self.count = self.count + 1
            i += 1
        return self.count  # the Parameter itself (`return self.count + 0` works)


def test_returning_a_parameter_assigned_in_a_loop():
    def run():
        net = ReturnsParameter()
        return [(to_np(net(i32(n))), net.count.asnumpy().copy()) for n in (2, 0, 3)]

    want = [(np.array(c, np.int32), np.array(c, np.int32)) for c in (2, 2, 5)]
    assert_same(run_in(ms.PYNATIVE_MODE, run), want, msg="pynative")
    assert_same(run_in(ms.GRAPH_MODE, run), want, msg="graph")


class CountTo(nn.Cell):
    """A while whose condition reads a Parameter the body assigns."""

    def __init__(self):
        super().__init__()
        self.step = Parameter(Tensor(np.array(0), ms.int32), name="step", requires_grad=False)

    def construct(self, x, limit):
        while self.step < limit:
            x = x + 1
            self.step = self.step + 1
        return x


def test_while_condition_on_a_parameter_assigned_in_the_body():
    def run():
        net = CountTo()
        return [(to_np(net(f32([0.0]), i32(lim))), net.step.asnumpy().copy()) for lim in (3, 3, 5, 1)]

    eager, graph = run_in(ms.PYNATIVE_MODE, run), run_in(ms.GRAPH_MODE, run)
    want = [(np.array([x], np.float32), np.array(step, np.int32))
            for x, step in ((3, 3), (0, 3), (2, 5), (0, 5))]
    assert_same(eager, want, msg="pynative")
    assert_same(graph, want, msg="graph")


@pytest.mark.skipif(not hasattr(ops, "assign"), reason="ops.assign not provided (yet)")
def test_ops_assign_inside_a_branch_and_a_loop():
    class Assigning(nn.Cell):
        def __init__(self):
            super().__init__()
            self.acc = Parameter(Tensor(np.zeros(2, np.float32)), name="acc", requires_grad=False)

        def construct(self, x, n):
            i = 0
            while i < n:
                if x.sum() > 0:
                    ops.assign(self.acc, self.acc + x)
                else:
                    ops.assign(self.acc, self.acc - x)
                i += 1
            return self.acc * 1

    def run():
        net = Assigning()
        return [(to_np(net(f32(x), i32(n))), net.acc.asnumpy().copy()) for x, n in
                (([1.0, 2.0], 2), ([-1.0, -1.0], 1), ([1.0, 0.0], 0))]

    eager, graph = run_in(ms.PYNATIVE_MODE, run), run_in(ms.GRAPH_MODE, run)
    acc = np.array([2.0, 4.0], np.float32)
    want = [(acc, acc), (acc + 1, acc + 1), (acc + 1, acc + 1)]
    assert_same(eager, want, msg="pynative")
    assert_same(graph, want, msg="graph")


# -- print -------------------------------------------------------------------------------------------
def loop_printer(x, n):
    i = 0
    while i < n:
        print("step", i, x)
        x = x * 2
        if x.sum() > 5:
            x = x - 1
            print("big", x.sum())
        i += 1
    print("done")
    return x


def branch_printer(x):
    if x.sum() > 5:
        print("big", x.sum())
    else:
        print("small")
    return x


def printed_vector(values):
    """A float32 vector as MindSpore's graph-mode print shows it."""
    cells = " ".join(f"{float(v):.8e}".rjust(15) for v in values)
    return f"Tensor(shape=[{len(values)}], dtype=Float32, value=[{cells}])"


def test_print_in_a_loop_runs_each_iteration_in_program_order(capfd):
    jf = ms.jit(loop_printer)
    for start, n in (([1.0, 2.0], 3), ([0.5, 0.25], 1), ([1.0, 2.0], 0)):
        x = np.array(start, np.float32)
        capfd.readouterr()
        out = jf(f32(start), i32(n))
        lines = capfd.readouterr().out.strip().splitlines()
        want = []
        for k in range(n):  # MindSpore's graph-mode print: one line per argument
            want += ["step", str(k), printed_vector(x)]
            x = x * np.float32(2)
            if x.sum() > 5:
                x = x - np.float32(1)
                want += ["big", f"{x.sum():g}"]
        assert lines == want + ["done"]
        np.testing.assert_array_equal(out.asnumpy(), x)


def test_print_alone_in_both_branches(capfd):
    jf = ms.jit(branch_printer)
    capfd.readouterr()
    for v in (1.0, 9.0):
        jf(f32([v, 0.0]))
    assert capfd.readouterr().out.split() == ["small", "big", "9"]  # a 0-d tensor prints as %g


def test_print_under_a_folded_condition_is_a_runtime_print(capfd):
    calls = []

    def fn(x):
        if x.shape[0] == 2:  # a Python condition: folded
            print("two")
        calls.append(1)
        return x + 1

    jf = ms.jit(fn)
    capfd.readouterr()
    jf(f32([1.0, 2.0]))
    jf(f32([3.0, 4.0]))
    out = capfd.readouterr().out
    assert out.count("two") == 2 and len(calls) == 1  # a runtime print each call, one trace


class LoopNet(nn.Cell):
    """A small net whose depth depends on the data, trained with Momentum."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 4)
        self.fc2 = nn.Dense(4, 3)

    def construct(self, x):
        h = self.fc1(x)
        i = 0
        while i < 3 and ops.reduce_sum(h * h) < 20:
            h = ops.tanh(self.fc1(h)) * 2 + h
            i += 1
        if h.sum() > 0:
            h = ops.relu(h)
        return self.fc2(h)


def train_steps(net, xs, ys, steps: int, lr: float) -> list[float]:
    """Momentum steps of softmax cross-entropy on the batches ``xs[k % len(xs)]``."""
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), lr, 0.9))
    return [float(step(Tensor(xs[k % len(xs)]), Tensor(ys[k % len(xs)])).asnumpy())
            for k in range(steps)]


def test_training_a_net_with_data_dependent_depth_matches_pynative():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((3, 8, 4)).astype(np.float32)
    ys = rng.integers(0, 3, (3, 8)).astype(np.int32)

    def train():
        ms.set_seed(2)
        net = LoopNet()
        losses = train_steps(net, xs, ys, 12, 0.05)
        return losses, [p.asnumpy().copy() for p in net.trainable_params()]

    (e_losses, e_params), (g_losses, g_params) = run_in(ms.PYNATIVE_MODE, train), run_in(ms.GRAPH_MODE, train)
    np.testing.assert_allclose(g_losses, e_losses, rtol=1e-4, atol=1e-6)
    assert np.ptp(e_losses) > 1e-3
    for pg, pe in zip(g_params, e_params):
        np.testing.assert_allclose(pg, pe, rtol=1e-4, atol=1e-5)


# -- the MindSpore tutorial LeNet-5 with a `counted` Parameter --------------------------------------
MESSAGE = "This string is only printed in the PYNATIVE_MODE"


class TutorialLeNet(LeNet5):
    def __init__(self):
        super().__init__()
        self.counted = Parameter(Tensor(np.zeros((1))), requires_grad=False)  # noqa: UP034 (tutorial)

    def construct(self, x):
        if self.counted != Tensor(np.ones((1))):  # noqa: UP034
            print("\nThis string is only printed in the PYNATIVE_MODE\n")
            self.counted = Tensor(np.ones((1)))  # noqa: UP034
        return super().construct(x)


def test_tutorial_lenet_trains_equally_in_both_modes_and_prints_once(capfd):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((4, 4, 1, 32, 32)).astype(np.float32)
    ys = rng.integers(0, 10, (4, 4)).astype(np.int32)

    def train():
        ms.set_seed(0)
        net = TutorialLeNet()
        losses = train_steps(net, xs, ys, 50, 0.01)
        return losses, net.counted.asnumpy().copy()

    capfd.readouterr()
    e_losses, e_counted = run_in(ms.PYNATIVE_MODE, train)
    eager_out = capfd.readouterr().out
    g_losses, g_counted = run_in(ms.GRAPH_MODE, train)
    graph_out = capfd.readouterr().out
    np.testing.assert_allclose(g_losses, e_losses, rtol=1e-4)
    assert np.ptp(e_losses) > 0.01
    np.testing.assert_array_equal(e_counted, np.ones(1))
    np.testing.assert_array_equal(g_counted, np.ones(1))
    assert eager_out.count(MESSAGE) == 1
    assert graph_out.count(MESSAGE) == 1, graph_out
