"""Parallel loops of kernels with a symbolic size are guarded by the size at run time
(schedule/size_guard.py): below the rules' work threshold the serial copy runs. Checked on
the rules' own schedule of a symbolic elementwise kernel (structure, and both versions against
NumPy), on a static kernel (left alone), and through a While compiled once for every batch size
(the loop's kernels guarded; results equal to PyNative and to per-size compiles on both
sides of the threshold)."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import te, tirx
from tvm.s_tir import SBlockRealize
from tvm.tirx import For, ForKind, IfThenElse, SeqStmt

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.schedule import cpu_rules, size_guard

from .symbolic_context import compiles as _compiles
from .symbolic_context import graph_context  # noqa: F401  (the fixture the slow test uses)


def _walk(stmt, found: list) -> list:
    found.append(stmt)
    if isinstance(stmt, For):
        _walk(stmt.body, found)
    elif isinstance(stmt, SeqStmt):
        for s in stmt.seq:
            _walk(s, found)
    elif isinstance(stmt, IfThenElse):
        _walk(stmt.then_case, found)
        if stmt.else_case is not None:
            _walk(stmt.else_case, found)
    elif isinstance(stmt, SBlockRealize):
        _walk(stmt.block.body, found)
    return found


def _parallel(stmt) -> int:
    return sum(isinstance(s, For) and s.kind == ForKind.PARALLEL for s in _walk(stmt, []))


# The rules pad a symbolic contraction's rows to a multiple of 16 and decide its parallelism
# at that size, so a symbolic matmul needs no guard; an elementwise kernel of (n, W) is
# parallel for the rules' guess of a symbolic size and below PARALLEL_MIN_WORK for n < 32.
W = 1024


def _matmul(rows, width: int = 64) -> tirx.PrimFunc:
    a = te.placeholder((rows, width), "float32", name="a")
    b = te.placeholder((width, width), "float32", name="b")
    k = te.reduce_axis((0, width), name="k")
    c = te.compute((rows, width), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    func = te.create_prim_func([a, b, c]).with_attr("global_symbol", "main")
    return cpu_rules.schedule_func(func, cores=2).with_attr("tirx.is_scheduled", True)


def _scaled_exp(rows) -> tirx.PrimFunc:
    a = te.placeholder((rows, W), "float32", name="a")
    b = te.placeholder((W,), "float32", name="b")
    c = te.compute((rows, W), lambda i, j: te.exp(a[i, j]) * b[j], name="c")
    func = te.create_prim_func([a, b, c]).with_attr("global_symbol", "main")
    return cpu_rules.schedule_func(func, cores=2).with_attr("tirx.is_scheduled", True)


def test_a_symbolic_kernel_runs_serial_below_the_threshold_and_parallel_above():
    n = tirx.Var("n", "int64")
    scheduled = _scaled_exp(n)
    assert _parallel(scheduled.body) >= 1  # the rules assume a large n
    guarded, count = size_guard.guard_func(scheduled)
    assert count == _parallel(scheduled.body)
    guards = [s for s in _walk(guarded.body, []) if isinstance(s, IfThenElse)
              and _parallel(s.then_case) and s.else_case is not None]
    assert len(guards) == count
    for g in guards:  # the serial copy has no parallel loop; the condition reads n
        assert _parallel(g.else_case) == 0
        assert "n" in {str(v) for v in tirx.analysis.undefined_vars(g.condition)}
    assert size_guard.guard_func(guarded) == (guarded, 0)  # once only
    target = make_target("CPU")
    kernels = [tvm.compile(tvm.IRModule({"main": f}), target=target)["main"] for f in (scheduled, guarded)]
    rng = np.random.default_rng(0)
    b = rng.standard_normal(W).astype(np.float32)
    # W * rows >= PARALLEL_MIN_WORK from rows = 32: sizes on both sides of it
    for rows in (1, 7, 31, 32, 130):
        a = rng.standard_normal((rows, W)).astype(np.float32)
        for kernel in kernels:
            out = tvm.runtime.tensor(np.zeros((rows, W), np.float32))
            kernel(tvm.runtime.tensor(a), tvm.runtime.tensor(b), out)
            np.testing.assert_allclose(out.numpy(), np.exp(a) * b, rtol=1e-5, atol=1e-5)


def test_a_static_kernel_is_left_alone():
    scheduled = _matmul(64, 64)
    assert _parallel(scheduled.body) >= 1
    guarded, count = size_guard.guard_func(scheduled)
    assert count == 0 and guarded.same_as(scheduled)


def _loop(x, w):
    i = ops.zeros((), ms.int32)
    h = x
    while i < 5:
        h = ops.tanh(h * w + h)
        i = i + 1
    return h


@pytest.mark.slow
@pytest.mark.usefixtures("graph_context")
def test_a_symbolic_loop_guards_its_kernels_and_equals_pynative_and_per_size(monkeypatch):
    guarded = []
    keep = size_guard.guard_func

    def counting(func):
        out, count = keep(func)
        guarded.append(count)
        return out, count

    monkeypatch.setattr(size_guard, "guard_func", counting)
    signature = (Tensor(shape=[None, W], dtype=ms.float32), Tensor(shape=[W], dtype=ms.float32))
    compiled = ms.jit(_loop, input_signature=signature)
    rng = np.random.default_rng(1)
    w = Tensor((0.1 * rng.standard_normal(W)).astype(np.float32))
    symbolic_compiles = 0
    for n in (1, 3, 40):  # W * 40: above the threshold (the parallel version)
        x = Tensor((0.5 * rng.standard_normal((n, W))).astype(np.float32))
        before = _compiles()
        got = compiled(x, w).asnumpy()
        symbolic_compiles += _compiles() - before
        if n == 1:
            assert sum(guarded) >= 1, "no kernel of the symbolic loop was guarded"
        per_size = ms.jit(_loop)(x, w).asnumpy()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = _loop(x, w).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_allclose(got, per_size, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, eager, rtol=1e-4, atol=1e-5)
    assert symbolic_compiles == 1 and compiled.last_report.symbolic_fallback is None
