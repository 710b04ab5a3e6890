"""Primitives with a NumPy kernel and no TVM lowering run their kernel from compiled code
(``framework/backend/tvm/runtime/host_kernels.py``): graph mode equals PyNative, through
gradients and several outputs, and a CUDA build refuses them with one line."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import ops
from framework.backend.tvm.lower.lowerings import LOWERINGS
from framework.backend.tvm.runtime import host_kernels
from framework.primitive import Primitive, Spec
from tests.framework import library_primitives as lib

_CALLS: list[tuple[int, ...]] = []


class _CumMaxPair(Primitive, abstract=True):  # not registered: a test-only primitive
    """A test primitive no backend lowers: the running maximum along the last axis and,
    as a second output, the row sums of the input's cube."""

    num_outputs = 2

    def infer(self, x):
        return Spec(tuple(x.shape), x.dtype), Spec(tuple(x.shape[:-1]), x.dtype)

    def kernel(self, x):
        _CALLS.append(x.shape)
        return np.maximum.accumulate(x, axis=-1), (x ** 3).sum(-1)

    def bprop(self, x, out, dout, needs):
        # d(sum x^3)/dx = 3 x^2; the running maximum's gradient goes to where it was taken
        running, _ = out
        first = ops.cast(ops.equal(x, running), x.dtype)
        return (dout[0] * first * self.scale + dout[1].expand_dims(-1) * 3 * x * x,)

    scale = 1.0


def _fn(x):
    a, b = _CumMaxPair()(x * 2.0)
    return ops.reduce_sum(a * a) + ops.reduce_sum(b)


def test_the_primitive_has_no_lowering():
    assert _CumMaxPair not in LOWERINGS and host_kernels.has_kernel(_CumMaxPair())


def test_graph_mode_runs_the_kernel_as_pynative_does():
    x = ms.Tensor(np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32))
    want = _fn(x).asnumpy()
    want_grad = ms.grad(_fn)(x).asnumpy()
    _CALLS.clear()
    got = ms.jit(_fn)(x).asnumpy()
    got_grad = ms.jit(ms.grad(_fn))(x).asnumpy()
    assert _CALLS == [(3, 5), (3, 5)]  # once per compiled call: the kernel ran inside each
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)
    # the reference: NumPy's formulas
    y = 2 * x.asnumpy()
    run = np.maximum.accumulate(y, -1)
    np.testing.assert_allclose(want, (run ** 2).sum() + (y ** 3).sum(), rtol=1e-5)


def test_names_follow_the_identity():
    a, b = _CumMaxPair(), _CumMaxPair()
    assert host_kernels.name_of(a) == host_kernels.name_of(b)
    assert host_kernels.name_of(lib.ReduceSum(keep_dims=True)) != host_kernels.name_of(lib.ReduceSum())


def test_cuda_refuses_with_one_line():
    from framework.backend.tvm.lower.lowerings.base import LowerContext
    from framework.backend.tvm.lower.lowerings.host import lower_on_host

    tvm = pytest.importorskip("tvm")
    from tvm import relax

    spec = Spec((2, 3), np.dtype(np.float32))
    ctx = LowerContext(_CumMaxPair(), relax.BlockBuilder(), (spec,), (spec, Spec((2,), spec.dtype)))
    with tvm.target.Target({"kind": "cuda", "arch": "sm_90"}), \
            pytest.raises(NotImplementedError, match="_CumMaxPair runs as a host kernel"):
        lower_on_host(ctx, relax.Var("x", relax.TensorType((2, 3), "float32")))
