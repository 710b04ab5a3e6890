"""Graph mode on empty and oversized input (issue 35): compiled code returned garbage for
the argmax/amax of nothing, refused a 0-size input (``FromDLPack: Data is not aligned``),
stopped in TVM on the mean of nothing (``Divide by zero``), read uninitialized memory for
a product over an empty axis (the weight gradients of a step on an empty batch), and ended
in ``std::bad_alloc`` on a result larger than the machine. Each case against PyNative: the
same values (NaN where NumPy's kernels give it) or the same one-line error."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops


def _modes(fn, *arrays):
    """``fn``'s results (a list of arrays) or its error (kind, message without the graph
    mode's note), PyNative first, then compiled by ``ms.jit``."""
    out = []
    for run in (fn, ms.jit(fn)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of nothing
                result = run(*(Tensor(a) for a in arrays))
            result = result if isinstance(result, tuple) else (result,)
            out.append([r.asnumpy() for r in result])
        except (ValueError, MemoryError) as error:
            out.append((type(error).__name__, re.sub(r"; the IR traced so far is in .*", "", str(error))))
    return out


def _assert_equal(eager, compiled):
    assert len(eager) == len(compiled)
    for i, (e, c) in enumerate(zip(eager, compiled)):
        assert e.dtype == c.dtype and e.shape == c.shape, (i, e, c)
        np.testing.assert_array_equal(e, c, err_msg=str(i))


@pytest.mark.parametrize("op", [ops.argmax, ops.amax, ops.amin, ops.argmin, lambda x: ops.max(x, 0)[0]])
@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_the_largest_of_nothing_is_the_same_error_in_both_modes(op, shape):
    eager, compiled = _modes(op, np.zeros(shape, np.float32))
    assert isinstance(eager, tuple) and eager == compiled, (eager, compiled)
    assert eager[0] == "ValueError" and "has no entries along axis 0" in eager[1]


def test_the_largest_along_a_non_empty_axis_of_an_empty_tensor():
    eager, compiled = _modes(lambda x: (ops.amax(x, 1), ops.argmax(x, 1)), np.zeros((0, 3), np.float32))
    _assert_equal(eager, compiled)
    assert eager[0].shape == (0,)


def test_reductions_and_products_over_nothing_give_pynatives_values():
    def reduce(x, i, a, b, big_a, big_b):
        return (x.sum(axis=1), x.mean(), ops.mean(x, 1), ops.prod(x, 1), ops.mean(i, 0),
                ops.matmul(a, b), ops.matmul(big_a, big_b), x.sum())

    eager, compiled = _modes(reduce, np.zeros((3, 0), np.float32), np.zeros((0, 2), np.int32),
                             np.zeros((4, 0), np.float32), np.zeros((0, 5), np.float32),
                             np.zeros((300, 0), np.float32), np.zeros((0, 300), np.float32))
    _assert_equal(eager, compiled)
    assert np.isnan(compiled[1]) and np.isnan(compiled[2]).all() and (compiled[3] == 1).all()
    assert not compiled[6].any() and compiled[6].shape == (300, 300)


def test_a_convolution_of_an_empty_batch():
    net = nn.Conv2d(3, 4, 3, weight_init="ones", has_bias=True, bias_init="ones")
    eager, compiled = _modes(lambda x: (net(x), net(x).sum()), np.zeros((0, 3, 8, 8), np.float32))
    _assert_equal(eager, compiled)
    assert compiled[0].shape == (0, 4, 8, 8)


@pytest.mark.slow
def test_a_train_step_on_an_empty_batch_matches_pynative():
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dense(5, 3))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        plain = nn.SequentialCell(nn.Dense(4, 3))
        steps = [nn.TrainOneStepCell(nn.WithLossCell(n, loss), nn.Momentum(n.trainable_params(), 0.1, 0.9))
                 for n in (net, plain)]
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for step, n in zip(steps, (net, plain)):
                step.set_train()
                for size in (0, 2):
                    out = step(Tensor(np.ones((size, 4), np.float32)), Tensor(np.zeros((size,), np.int32)))
                    seen.append([out.asnumpy()] + [p.asnumpy() for p in n.trainable_params()])
        results.append(seen)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for eager, compiled in zip(*results):
        for e, c in zip(eager, compiled):
            np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6, equal_nan=True)
    plain_after_empty = results[1][2]
    assert np.isnan(plain_after_empty[0]) and all(np.isfinite(p).all() for p in plain_after_empty[1:])


def test_a_result_larger_than_the_machine_is_refused_before_allocating():
    eager, compiled = _modes(lambda x: ops.tile(x, (10000, 10000)), np.zeros((1000, 1000), np.float32))
    assert isinstance(eager, tuple) and eager == compiled, (eager, compiled)
    kind, message = eager
    assert kind == "MemoryError" and len(message.splitlines()) == 1
    assert "(10000, 1000, 10000, 1000) float32 would take 363.8 TiB" in message
    assert "ops.tile" in message  # the user's line


EMPTY = np.zeros((2, 0), np.float32)


@pytest.mark.parametrize("fn, arrays", [
    (lambda a: ops.cumsum(a, 1), (EMPTY,)),
    (lambda a: (ops.softmax(a, -1), ops.log_softmax(a, -1)), (EMPTY,)),  # PyNative raised
    (lambda a: ops.sort(a)[0], (EMPTY,)),
    (lambda a: ops.argsort(a), (EMPTY,)),
    (lambda a: a.T * 2, (EMPTY,)),
    (lambda a: ops.topk(a, 0)[0], (np.ones((2, 4), np.float32),)),  # TVM's topk reads k=0 as all
    (lambda a: (a > 0).astype(ms.int64).sum(0), (EMPTY.T,)),
    (lambda a: (a > 0).astype(ms.int32).sum(0), (EMPTY.T,)),  # the same graph text as int64's
], ids=["cumsum", "softmax", "sort", "argsort", "transpose", "topk0", "int64_sum", "int32_sum"])
def test_ops_on_empty_tensors_give_pynatives_results(fn, arrays):
    eager, compiled = _modes(fn, *arrays)
    _assert_equal(eager, compiled)
