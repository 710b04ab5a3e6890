"""The README's control-flow example in both modes, and long data-dependent loops: many
iterations run inside the compiled code (forward and backward)."""

from __future__ import annotations

import time

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops

from .control_flow_cases import check_grad, f32, f64, i32, run_in, to_np


class ReadmeNet(nn.Cell):
    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        while i < n:                      # a While region, trip count from data
            x = ops.tanh(x) if x.sum() > 0 else x * 2    # an If region
            if x.max() > 10:
                break
            i += 1
        print("result:", x)               # printed by the compiled code, each call
        return x


def test_readme_example_in_both_modes(capfd):
    net = ReadmeNet()
    for start, n in (([0.5, -0.2], 3), ([-1.0, -2.0], 10), ([-1.0, -2.0], 0)):
        want = np.array(start, np.float32)
        for _ in range(n):
            want = np.tanh(want) if want.sum() > 0 else want * np.float32(2)
            if want.max() > 10:
                break
        capfd.readouterr()
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda start=start, n=n: net(f32(start), i32(n))))
        capfd.readouterr()
        graph = to_np(run_in(ms.GRAPH_MODE, lambda start=start, n=n: net(f32(start), i32(n))))
        cells = " ".join(f"{float(v):.8e}".rjust(15) for v in graph)  # MindSpore's graph print
        assert capfd.readouterr().out.strip() == f"result:\nTensor(shape=[2], dtype=Float32, value=[{cells}])"
        np.testing.assert_allclose(eager, want, rtol=1e-6)
        np.testing.assert_allclose(graph, eager, rtol=1e-6)


def count_up(x, n):
    i = Tensor(np.array(0), ms.int32)
    while i < n:
        x = x + 1.0
        i = i + 1
    return x, i


def test_a_long_loop_runs_inside_the_compiled_code():
    jf = ms.jit(count_up)
    jf(f32([0.0]), i32(1))  # compile
    start = time.perf_counter()
    x, i = jf(f32([0.0]), i32(100_000))
    elapsed = time.perf_counter() - start
    assert float(x.asnumpy()[0]) == 100_000.0 and int(i.asnumpy()) == 100_000
    assert not jf.last_call_compiled
    assert elapsed < 20, f"100k iterations took {elapsed:.1f}s"


def decay(x, n):
    i = 0
    while i < n:
        x = x * 0.999 + ops.tanh(x) * 0.001
        i += 1
    return x


def test_gradient_of_a_loop_with_many_iterations():
    check_grad(decay, [(f64([0.5, -1.0]), i32(2000))], fd=True)


def endless(x):
    while x > 0:
        x = x + 1
    return x


def test_a_loop_that_never_ends_stops_with_a_clear_error():
    from framework.backend.tvm.lower.loops import MAX_ITERATIONS

    message = f"a while loop ran {MAX_ITERATIONS} iterations without finishing"
    with pytest.raises(AssertionError, match=message):
        run_in(ms.GRAPH_MODE, lambda: ms.jit(endless)(f32(1.0)))
