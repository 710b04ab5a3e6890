"""A reshape of a symbolic shape (lower/symbolic_reshape.py): a kernel with per-group
indices, so the GPT's strided_slice + reshape + transpose fuse into one kernel as in a
per-length compile; a split left alone becomes a view; a merge by a symbolic extent stays
``R.reshape``. Values against NumPy at several sizes, one build."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import relax, tirx

import framework as ms
from framework import Tensor
from framework.backend.tvm import compiler
from framework.backend.tvm.lower.symbolic_reshape import group_axes
from framework.backend.tvm.schedule import schedules
from trainer.models.gpt import GPT
from trainer.tasks.language_model import TokenCrossEntropy

from .symbolic_context import graph_context  # noqa: F401  (the fixture below uses)

N, T = tirx.Var("n", "int64"), tirx.Var("t", "int64")


def _c(v: int) -> tirx.IntImm:
    return tirx.IntImm("int64", v)


def test_axes_are_grouped_by_equal_products():
    assert group_axes([N, T, _c(192)], [N, T, _c(4), _c(48)]) == [([0], [0]), ([1], [1]), ([2], [2, 3])]
    assert group_axes([N, T, _c(4), _c(16)], [N, T, _c(64)]) == [([0], [0]), ([1], [1]), ([2, 3], [2])]
    assert group_axes([N * T, _c(8)], [N, T, _c(8)]) == [([0], [0, 1]), ([1], [2])]
    assert group_axes([N, _c(1), _c(6)], [N, _c(2), _c(3)]) == [([0], [0]), ([1], []), ([2], [1, 2])]
    assert group_axes([N, _c(6)], [_c(6), N]) == [([0, 1], [0, 1])]  # one group: n * 6
    assert group_axes([N, _c(6)], [N, _c(4)]) is None  # products never meet


def _module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([N, T, _c(192)], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            q = bb.emit(relax.op.strided_slice(x, [2], [64], [128]))
            heads = bb.emit(relax.op.permute_dims(bb.emit(relax.op.reshape(q, [N, T, 4, 16])), [0, 2, 1, 3]))
            merged = bb.emit(relax.op.reshape(bb.emit(relax.op.permute_dims(heads, [0, 2, 1, 3])), [N, T, 64]))
            rows = bb.emit(relax.op.reshape(x, [N * T, 192]))  # merge by t: stays a view
            back = bb.emit(relax.op.add(bb.emit(relax.op.reshape(rows, [N, T, 192])), x))  # split: a view
            out = bb.emit_output(relax.Tuple([heads, merged, back]))
        bb.emit_func_output(out)
    target = tvm.target.Target("llvm")
    with target:
        mod = tvm.transform.Sequential(schedules._legalize_passes(target))(bb.get())
    return relax.transform.RewriteDataflowReshape()(mod), target


def _called(mod) -> list[str]:
    names, call_tir = [], tvm.ir.Op.get("relax.call_tir")

    def visit(expr):
        if isinstance(expr, relax.Call) and expr.op.same_as(call_tir):
            names.append(expr.args[0].name_hint)

    relax.analysis.post_order_visit(mod["main"].body, visit)
    return names


def test_slice_reshape_transpose_fuse_and_splits_become_views():
    mod, target = _module()
    called = _called(mod)
    assert any("strided_slice" in k and "reshape" in k and "transpose" in k for k in called), called
    assert not any(k.startswith("reshape") for k in called), called  # the split: a view
    assert "R.reshape(x, R.shape([n * t, 192]))" in mod["main"].script()  # the merge by t
    vm = relax.VirtualMachine(relax.build(mod, target), tvm.cpu())
    for n, t in ((3, 5), (1, 1), (2, 64)):
        x = np.random.default_rng(n * t).random((n, t, 192), dtype=np.float32)
        heads, merged, back = (o.numpy() for o in vm["main"](tvm.runtime.tensor(x)))
        want = x[:, :, 64:128].reshape(n, t, 4, 16).transpose(0, 2, 1, 3)
        np.testing.assert_array_equal(heads, want)
        np.testing.assert_array_equal(merged, x[:, :, 64:128])
        np.testing.assert_array_equal(back, 2 * x)


def _called_kernels(mod) -> list[str]:
    mod = relax.transform.RewriteDataflowReshape()(mod)  # views, as the build makes them
    names, call_tir = [], tvm.ir.Op.get("relax.call_tir")

    def visit(expr):
        if isinstance(expr, relax.Call) and expr.op.same_as(call_tir):
            names.append(expr.args[0].name_hint)

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return names


def _gpt_step():
    ms.set_seed(0)
    net = GPT(11, block_size=8, n_layer=1, n_head=2, n_embd=16)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, TokenCrossEntropy()),
                                  ms.nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train()
    return step


@pytest.mark.usefixtures("graph_context")
def test_gpt_step_symbolic_has_the_per_length_slice_transpose_kernels(monkeypatch):
    modules = []
    schedule = compiler.apply_schedules

    def keep(mod, target, *args, **kwargs):  # the scheduled module, kept for inspection
        out = schedule(mod, target, *args, **kwargs)
        modules.append(out[0])
        return out

    monkeypatch.setattr(compiler, "apply_schedules", keep)
    rng = np.random.default_rng(0)
    x, y = (Tensor(rng.integers(0, 11, (3, 8)).astype(np.int32)) for _ in "xy")
    dynamic, special = _gpt_step(), _gpt_step()
    spec = Tensor(shape=[None, None], dtype=ms.int32)
    dynamic.set_inputs(spec, spec)
    got = dynamic(x, y).asnumpy()
    assert dynamic._graph_runner.last_report.symbolic_fallback is None
    want = special(x, y).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5)
    sym, per = (_called_kernels(m) for m in modules[-2:])

    def fused(names):
        return sorted(k for k in names if "strided_slice" in k and "transpose" in k)

    assert len(fused(sym)) == len(fused(per)) == 3  # q, k, v: slice + reshape + transpose each
    assert not [k for k in sym if k.startswith("reshape")]  # no reshape copies
    assert len(sym) <= len(per) + 8  # (per-length: 1 layer; a few unfused elementwise left)
