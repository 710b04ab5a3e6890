"""schedule/early_contractions.py: a contraction fused with a late epilogue runs where its
operands are ready (the amp O2 weight gradient and its unscaling), results unchanged."""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax, te, topi
from tvm.script import tirx as T

from framework.backend.tvm.schedule.early_contractions import contracts, hoist_contractions

N = 16


def _scaled_matmul(x, w, r):
    """``(x @ w) * r``: a contraction and its elementwise epilogue in one kernel."""
    k = te.reduce_axis((0, N), name="k")
    c = te.compute((N, N), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name="matmul")
    return te.compute((N, N), lambda i, j: c[i, j] * r(), name="scaled")


def _reciprocal(s):
    return te.compute((), lambda: 1.0 / s(), name="reciprocal")


@T.prim_func(private=True, s_tir=True)
def _double(a: T.Buffer((N, N), "float32")):
    for i, j in T.grid(N, N):
        with T.sblock("double"):
            vi, vj = T.axis.remap("SS", [i, j])
            a[vi, vj] = a[vi, vj] * T.float32(2.0)


def _module(barrier: bool) -> tvm.IRModule:
    """``u = exp(x)``; ``v = u + 1``; (optionally an in-place write into ``v``); ``r = 1 / s``;
    ``y = (x @ w) * r``: the order FuseOps leaves an amp weight gradient in."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((N, N), "float32"))
    w = relax.Var("w", relax.TensorType((N, N), "float32"))
    s = relax.Var("s", relax.TensorType((), "float32"))
    with bb.function("main", [x, w, s]):
        with bb.dataflow():
            u = bb.emit_te(topi.exp, x)
            v = bb.emit_te(topi.add, u, relax.const(1.0, "float32"))
            if barrier:
                writer = bb.add_func(_double, "double")
                v = bb.emit(relax.op.call_tir_inplace(writer, [v], [0], [v.ty]))
            r = bb.emit_te(_reciprocal, s)
            y = bb.emit_te(_scaled_matmul, x, w, r)
            out = bb.emit_output(relax.Tuple([v, y]))
        bb.emit_func_output(out)
    return bb.get()


def _callees(mod: tvm.IRModule) -> list[str]:
    return [b.value.args[0].name_hint for b in mod["main"].body.blocks[0].bindings
            if isinstance(b.value, relax.Call) and isinstance(b.value.args[0], relax.GlobalVar)]


def _run(mod: tvm.IRModule, *arrays):
    ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](*[tvm.runtime.tensor(a) for a in arrays])
    return [o.numpy() for o in out]


def _inputs():
    rng = np.random.default_rng(0)
    return (rng.uniform(-1, 1, (N, N)).astype(np.float32), rng.uniform(-1, 1, (N, N)).astype(np.float32),
            np.asarray(4.0, np.float32))


def test_the_contraction_and_the_scalar_it_waits_for_move_up_and_compute_the_same():
    mod = _module(barrier=False)
    assert contracts(mod[_callees(mod)[-1]]) and not contracts(mod[_callees(mod)[0]])
    hoisted = hoist_contractions(mod)
    before, after = _callees(mod), _callees(hoisted)
    assert before[-2:] == ["_reciprocal", "_scaled_matmul"]
    assert after == ["_reciprocal", "_scaled_matmul", *before[:-2]]  # first: its operands are inputs
    x, w, s = _inputs()
    want_v, want_y = np.exp(x) + 1, (x.astype(np.float64) @ w) / 4.0
    for got in (_run(mod, x, w, s), _run(hoisted, x, w, s)):
        np.testing.assert_allclose(got[0], want_v, rtol=1e-6)
        np.testing.assert_allclose(got[1], want_y, rtol=1e-5, atol=1e-6)


def test_nothing_moves_above_an_in_place_write():
    mod = _module(barrier=True)
    hoisted = hoist_contractions(mod)
    assert _callees(hoisted) == _callees(mod)  # r and y already sit right after the write
    x, w, s = _inputs()
    got = _run(hoisted, x, w, s)
    np.testing.assert_allclose(got[0], (np.exp(x) + 1) * 2, rtol=1e-6)
