"""float16 in graph mode on the CPU (lowerings.lower_node): the kernels read and write
float16 and compute each operation in float32 in registers, rounding its result to float16
as NumPy's float16 arithmetic (PyNative's, MindSpore's) does, so graph mode equals
PyNative exactly. An explicit cast to float16 rounds (amp O1's outputs). The generated code
converts with F16C vector instructions where the target has them, and stays correct
(through library calls) where it has not."""

from __future__ import annotations

import re

import numpy as np
import pytest
import tvm

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.compiler import make_target, to_relax
from framework.backend.tvm.runtime import amx
from framework.backend.tvm.schedule.schedules import apply_schedules, build_pipeline
from framework.graph_mode import JitFunction

needs_f16c = pytest.mark.skipif("f16c" not in amx.cpu_flags(), reason="this CPU has no F16C")
# LLVM's scalar float16 conversions (TVM defines the first two, weak, in every module)
LIBCALLS = re.compile(r"^\s*(call|jmp)\w*\s+(__extendhfsf2|__truncsfhf2|__gnu_h2f_ieee|__gnu_f2h_ieee)",
                      re.MULTILINE)


def chain(x, y):
    """Four elementwise operations: one fused kernel."""
    return ops.relu((x * y + x) * (y - x))


def _chain_rounded_per_op(x, y):
    """NumPy's float16 arithmetic (PyNative's): every result rounded to float16."""
    return np.maximum((x * y + x) * (y - x), np.float16(0))


def _inputs(seed: int = 0, shape=(64, 96)):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-3, 3, shape).astype(np.float16), rng.uniform(-3, 3, shape).astype(np.float16))


def _graph(fn, *arrays):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = ms.jit(fn)(*[Tensor(a) for a in arrays])
        return out.asnumpy() if not isinstance(out, tuple) else tuple(o.asnumpy() for o in out)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _ulps(got, want):
    return np.abs(got.astype(np.float32) - want.astype(np.float32)) / np.spacing(np.abs(want))


def test_an_elementwise_chain_rounds_each_result_as_pynative():
    x, y = _inputs()
    got = _graph(chain, x, y)
    assert got.dtype == np.float16
    want = _chain_rounded_per_op(x, y)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    once = np.maximum((x32 * y32 + x32) * (y32 - x32), 0).astype(np.float16)
    assert (once != want).mean() > 0.05  # these inputs tell the two roundings apart
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, chain(Tensor(x), Tensor(y)).asnumpy())  # PyNative


def test_an_explicit_cast_to_float16_and_back_still_rounds():
    x, y = _inputs(3)
    x32, y32 = x.astype(np.float32), y.astype(np.float32)

    def fn(a, b):
        return ops.cast(ops.cast(a * b, ms.float16), ms.float32) + a

    got = _graph(fn, x32, y32)
    want = (x32 * y32).astype(np.float16).astype(np.float32) + x32
    np.testing.assert_array_equal(got, want)


def _scheduled(fn, *arrays) -> tvm.IRModule:
    traced = JitFunction(fn).trace(tuple(Tensor(a) for a in arrays))
    graph = traced.graph
    graph.outputs = [leaf._data for leaf in traced.out_leaves]
    target = make_target("CPU")
    with target:
        mod = to_relax(graph)
    return apply_schedules(mod, target)[0]


def _assembly(fn, *arrays) -> str:
    mod = _scheduled(fn, *arrays)
    target = make_target("CPU")
    executable = tvm.compile(mod, target, relax_pipeline=build_pipeline(target))
    return "\n".join(m.inspect_source("asm") for m in executable.mod.imports if m.kind == "llvm")


@needs_f16c
def test_the_kernels_convert_with_vector_f16c_instructions_and_call_no_library():
    assembly = _assembly(chain, *_inputs())
    assert re.search(r"vcvtph2ps\s+[^\n]*[xyz]mm", assembly)
    assert re.search(r"vcvtps2ph\s+[^\n]*[xyz]mm", assembly)
    assert not LIBCALLS.search(assembly)


@pytest.mark.slow
def test_a_cpu_without_f16c_converts_through_library_calls_and_agrees(monkeypatch):
    """What the start warning says for such a CPU (trainer/precision.py): correct, slower."""
    monkeypatch.setenv("TWINMODE_CPU", "sandybridge")  # AVX, no F16C
    x, y = _inputs(1)
    assert LIBCALLS.search(_assembly(chain, x, y))
    got = _graph(chain, x, y)
    np.testing.assert_array_equal(got, _chain_rounded_per_op(x, y))


@pytest.mark.slow
def test_max_pool_and_its_gradient_in_float16_are_numpys():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float16)
    g = rng.standard_normal((2, 3, 4, 4)).astype(np.float16)
    pool = ops.MaxPool(kernel_size=2, strides=2)

    def loss(a):
        return (pool(a) * Tensor(g)).sum()

    y = _graph(lambda a: pool(a), x)
    want = x.reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(y, want)  # a maximum is exact in any precision
    dx = _graph(ms.grad(loss), x)
    assert dx.dtype == np.float16
    # the gradient goes to each window's maximum (these inputs have no ties)
    windows = x.reshape(2, 3, 4, 2, 4, 2)
    is_max = windows == want[:, :, :, None, :, None]
    expect = np.where(is_max, g[:, :, :, None, :, None], np.float16(0)).reshape(x.shape)
    np.testing.assert_array_equal(dx, expect)


def _conversion_calls(mod: tvm.IRModule) -> list[str]:
    """The names of the called PrimFuncs that only convert their input (schedule/shared_casts.py)."""
    from tvm import relax

    from framework.backend.tvm.schedule.shared_casts import _is_conversion

    names = {gv.name_hint for gv, f in mod.functions.items()
             if isinstance(f, tvm.tirx.PrimFunc) and _is_conversion(f)}
    calls = []

    def visit(expr):
        if isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op) \
                and expr.op.name == "relax.call_tir" and expr.args[0].name_hint in names:
            calls.append(expr.args[0].name_hint)

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return calls


def two_products(x, w, v):
    """``x`` read by two matmuls: each converts its float16 operands to float32."""
    return ops.matmul(x, w) + ops.matmul(x, v)


def test_a_value_read_by_two_matmuls_is_converted_once_and_agrees():
    rng = np.random.default_rng(5)
    x, w, v = (rng.uniform(-2, 2, s).astype(np.float16) for s in ((64, 48), (48, 32), (48, 32)))
    calls = _conversion_calls(_scheduled(two_products, x, w, v))
    assert len(calls) == 3, calls  # x once (not twice), w and v
    got = _graph(two_products, x, w, v)
    np.testing.assert_array_equal(got, two_products(Tensor(x), Tensor(w), Tensor(v)).asnumpy())
