"""Our CPU schedules on larger, awkward shapes (strides, dilation, padding, tails) against
the NumPy kernels, and a check that every heavy kernel of a LeNet step gets scheduled."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tvm
import tvm_ffi
from tvm import relax, s_tir
from tvm.relax.analysis import has_reshape_pattern

from framework import ops
from framework.backend.tvm.compiler import make_target, to_relax
from framework.backend.tvm.schedule.schedules import apply_schedules, build_pipeline
from tests.framework import library_primitives as lib

rng = np.random.default_rng(0)


def rand(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def _cases() -> list[tuple[str, Any, list[np.ndarray]]]:
    cases = []
    for n, c, h, w, o, k, st, dl, mode, pad in [
            (8, 3, 32, 32, 16, 3, 1, 1, "same", 0), (4, 16, 17, 19, 8, 3, 2, 1, "pad", (1, 2, 0, 1)),
            (4, 8, 20, 20, 12, 5, 1, 2, "valid", 0), (2, 32, 9, 9, 32, 1, 1, 1, "valid", 0),
            (16, 6, 14, 14, 16, 5, 1, 1, "valid", 0), (3, 5, 31, 29, 7, 4, 3, 1, "same", 0),
            # rows shorter than a vector: vectors along the channels (channel_vectors)
            (4, 32, 8, 8, 32, 3, 1, 1, "same", 0), (3, 16, 15, 15, 48, 3, 2, 1, "same", 0),
            (2, 16, 16, 16, 32, 1, 2, 1, "valid", 0), (2, 48, 6, 7, 16, 3, 1, 1, "pad", (1, 0, 2, 1)),
            # strided input gradients by phases (input divisible by the stride)
            (4, 16, 16, 16, 32, 3, 2, 1, "same", 0), (2, 8, 18, 12, 8, 3, 2, 1, "pad", (1, 1, 1, 1)),
            (2, 4, 12, 12, 6, 5, 3, 1, "pad", (2, 1, 0, 2)), (2, 8, 8, 8, 16, 4, 2, 1, "valid", 0),
            (2, 3, 12, 8, 5, 3, (3, 2), 1, "pad", (4, 0, 3, 1))]:
        attrs = dict(stride=st, dilation=dl, pad_mode=mode, pad=pad)
        x, wt = rand(n, c, h, w), rand(o, c, k, k)
        y = lib.Conv2D(**attrs).kernel(x, wt)
        tag = f"{n}x{c}x{h}x{w}-o{o}k{k}s{st}d{dl}-{mode}"
        cases += [(f"conv {tag}", lib.Conv2D(**attrs), [x, wt]),
                  (f"dgrad {tag}", ops.Conv2DBackpropInput(input_shape=(n, c, h, w), **attrs),
                   [rand(*y.shape), wt]),
                  (f"wgrad {tag}", ops.Conv2DBackpropFilter(filter_shape=(o, c, k, k), **attrs),
                   [x, rand(*y.shape)])]
    for shape, k, s, mode in [((8, 16, 28, 28), 2, 2, "valid"), ((4, 8, 15, 17), 3, 2, "same"),
                              ((4, 8, 15, 17), 2, 3, "valid"), ((2, 4, 9, 9), 3, 3, "same")]:
        x = rand(*shape)
        out = ops.MaxPool(k, s, mode).kernel(x)
        cases += [(f"maxpool {shape} k{k} s{s} {mode}", ops.MaxPool(k, s, mode), [x]),
                  (f"maxpoolgrad {shape} k{k} s{s} {mode}", ops.MaxPoolGrad(k, s, mode),
                   [x, out, rand(*out.shape)]),
                  (f"avgpool {shape} k{k} s{s} {mode}", ops.AvgPool(k, s, mode), [x])]
    for m, kk, n, ta, tb in [(64, 256, 96, False, False), (33, 70, 17, True, False),
                             (128, 40, 200, False, True)]:
        a = rand(kk, m) if ta else rand(m, kk)
        b = rand(n, kk) if tb else rand(kk, n)
        cases.append((f"matmul {m}x{kk}x{n} ta={ta} tb={tb}", ops.MatMul(ta, tb), [a, b]))
    cases += [("reduce_sum", lib.ReduceSum(False, (0, 2)), [rand(64, 33, 40)]),
              ("softmax", ops.Softmax(-1), [rand(128, 100)])]
    # BatchNorm's per-channel statistics of NCHW data: partial sums in vector lanes
    cases += [("reduce_sum nchw (0,2,3)", lib.ReduceSum(False, (0, 2, 3)), [rand(16, 16, 32, 32)]),
              ("reduce_mean nchw (0,2,3)", lib.ReduceMean(False, (0, 2, 3)), [rand(8, 32, 16, 48)]),
              ("reduce_sum nchw 8-wide rows", lib.ReduceSum(False, (0, 2, 3)), [rand(16, 64, 8, 8)])]
    # weight gradients whose operands exceed the cache: 16 channels take channel vectors,
    # 24 and 18 (not whole vectors) lane_rows' schedule
    attrs = dict(stride=1, dilation=1, pad_mode="same", pad=0)
    x = rand(48, 16, 32, 32)
    cases.append(("wgrad big 48x16x32x32-o16k3-same",
                  ops.Conv2DBackpropFilter(filter_shape=(16, 16, 3, 3), **attrs),
                  [x, rand(48, 16, 32, 32)]))
    cases.append(("wgrad rows 40x24x32x32-o24k3-same",
                  ops.Conv2DBackpropFilter(filter_shape=(24, 24, 3, 3), **attrs),
                  [rand(40, 24, 32, 32), rand(40, 24, 32, 32)]))
    cases.append(("wgrad rows 56x18x30x30-o19k3-same (awkward extents)",
                  ops.Conv2DBackpropFilter(filter_shape=(19, 18, 3, 3), **attrs),
                  [rand(56, 18, 30, 30), rand(56, 19, 30, 30)]))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def vm() -> Any:
    from .test_lowering import build_case_module

    target = make_target("CPU")
    mod, _ = apply_schedules(build_case_module(CASES), target)
    return relax.VirtualMachine(tvm.compile(mod, target, relax_pipeline=build_pipeline(target)),
                                tvm.cpu())


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0] for c in CASES])
def test_scheduled_kernel_matches_numpy(vm, index):
    _, prim, arrays = CASES[index]
    got = vm[f"case_{index}"](*[tvm.runtime.tensor(a) for a in arrays]).numpy()
    want = np.asarray(prim.kernel(*arrays))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


def test_every_kernel_of_a_lenet_step_is_scheduled():
    from framework import Tensor, nn
    from framework.graph_mode import JitFunction
    from trainer.models import LeNet5

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x = Tensor(np.zeros((8, 1, 32, 32), np.float32))
    traced = JitFunction(step.construct, cell=step).trace((x, Tensor(np.zeros(8, np.int32))))
    graph, outs = traced.graph, traced.out_leaves
    graph.outputs = [outs[0]._data]
    mod, _ = apply_schedules(to_relax(graph), make_target("CPU"))
    unscheduled = [gv.name_hint for gv, f in mod.functions.items()
                   if isinstance(f, tvm.tirx.PrimFunc) and not f.attrs.get("tirx.is_scheduled", False)
                   and not has_reshape_pattern(f)]
    assert not unscheduled, f"kernels left to TVM's naive loops: {unscheduled}"


def _te_func(fte, *shapes) -> tvm.tirx.PrimFunc:
    bb = relax.BlockBuilder()
    params = [relax.Var(f"a{i}", relax.TensorType(shape, "float32")) for i, shape in enumerate(shapes)]
    with bb.function("main", params):
        out = bb.emit(bb.call_te(fte, *params))
        bb.emit_func_output(out)
    return next(f for f in bb.get().functions.values() if isinstance(f, tvm.tirx.PrimFunc))


def _vector_extents_and_buffers(func: tvm.tirx.PrimFunc) -> tuple[set, list]:
    nodes: list = []
    tvm_ffi.structural_walk(func.body, ((tvm.tirx.For, s_tir.SBlock), nodes.append), order="post")
    extents = {int(n.extent) for n in nodes
               if isinstance(n, tvm.tirx.For) and n.kind == tvm.tirx.ForKind.VECTORIZED}
    shapes = [tuple(int(d) for d in b.shape) for n in nodes if isinstance(n, s_tir.SBlock)
              for b in n.alloc_buffers]
    return extents, shapes


@pytest.mark.parametrize("rows", [8, 32])
def test_short_rows_get_vectors_along_the_output_channels(rows):
    # 8-wide rows of a 64-channel conv: the 16-lane vector runs along the output channels,
    # the weights re-laid out as [c, i, j, f]; 32-wide rows keep the vector along the row
    from tvm import topi

    from framework.backend.tvm.schedule import cpu_rules

    conv = _te_func(lambda x, w: topi.nn.conv2d_nchw(x, w, 1, 1, 1), (2, 64, rows, rows), (64, 64, 3, 3))
    extents, shapes = _vector_extents_and_buffers(cpu_rules.schedule_func(conv, 2))
    assert 16 in extents
    assert ((64, 3, 3, 64) in shapes) == (rows == 8), shapes


def test_a_small_output_with_a_deep_reduction_still_runs_on_every_core():
    # 1x16x4x4 outputs from 512 channels: too few tiles for channel vectors; the reduction
    # is split across threads instead, and the contraction sits under a parallel loop
    from tvm import topi

    from framework.backend.tvm.schedule import cpu_rules

    conv = _te_func(lambda x, w: topi.nn.conv2d_nchw(x, w, 1, 1, 1), (1, 512, 4, 4), (16, 512, 3, 3))
    func = cpu_rules.schedule_func(conv, 2)
    parallel: list = []
    tvm_ffi.structural_walk(func.body, (tvm.tirx.For, parallel.append), order="post")
    parallel = [n for n in parallel if n.kind == tvm.tirx.ForKind.PARALLEL]
    inside: list = []
    for loop in parallel:
        tvm_ffi.structural_walk(loop.body, (s_tir.SBlock, inside.append), order="post")
    assert any(b.name_hint.startswith("conv2d_nchw") and b.reads and len(b.reads) >= 2
               and not b.name_hint.endswith("local") for b in inside), func.script()


def test_weight_gradients_get_vectors_along_the_input_channels():
    # dw[o, c, i, j]: the padded input is written channel-last, [n, y, x, c], and the
    # gradient accumulates as [o, i, j, c]
    from framework.backend.tvm.lower import te_kernels
    from framework.backend.tvm.schedule import cpu_rules

    wgrad = _te_func(lambda x, dy: te_kernels.conv2d_filter_grad(
        x, dy, (48, 32, 3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), (4, 32, 8, 8), (4, 48, 8, 8))
    extents, shapes = _vector_extents_and_buffers(cpu_rules.schedule_func(wgrad, 2))
    assert 16 in extents
    assert (4, 10, 10, 32) in shapes and (48, 3, 3, 32) in shapes, shapes


def test_a_chain_of_tanh_is_scheduled_without_growing_expressions():
    # our Tanh lowering is TOPI's fast_tanh, which reads its input several times: inlining
    # each tanh into the next copied the expression per read (3 tanh: a 600 kB kernel; 4:
    # over a minute of compilation)
    from tvm import topi

    x = rand(16, 64)
    bb = relax.BlockBuilder()
    xv = relax.Var("x", relax.TensorType((16, 64), "float32"))
    with bb.function("main", [xv]):
        with bb.dataflow():
            y = xv
            for _ in range(3):
                y = bb.emit(bb.call_te(topi.fast_tanh, y))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    target = make_target("CPU")
    mod, _ = apply_schedules(bb.get(), target)
    sizes = []
    for f in mod.functions.values():
        if isinstance(f, tvm.tirx.PrimFunc):
            assert f.attrs.get("tirx.is_scheduled", False)
            sizes.append(len(f.script()))
    assert max(sizes) < 20000, f"a kernel's TIR is {max(sizes)} characters long"
    got = relax.VirtualMachine(tvm.compile(mod, target, relax_pipeline=build_pipeline(target)),
                               tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()
    want = np.tanh(np.tanh(np.tanh(x)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_bf16_normalization_rounding_and_relu_run_as_one_loop_nest():
    # amp O2's BatchNorm in float32, its result rounded to bf16 (read three times), the ReLU
    # (read twice): storing each stage in a float32 buffer made the kernel ~3x slower
    import ml_dtypes
    from tvm import te, tirx

    from framework.backend.tvm.lower.lowerings.base import _round_to_bfloat16
    from framework.backend.tvm.schedule import cpu_rules

    shape = (2, 4, 8, 16)
    x = te.placeholder(shape, "float32", name="x")
    scale, shift = (te.placeholder((4,), "float32", name=n) for n in ("scale", "shift"))
    bn = te.compute(shape, lambda n, c, h, w: x[n, c, h, w] * scale[c] + shift[c], name="bn")
    rounded = _round_to_bfloat16(bn)
    zero = tirx.const(0.0, "float32")

    def relu_at(*i):
        v = rounded(*i).astype("float32")
        return tirx.Select(v < zero, zero, v).astype("bfloat16")

    relu = te.compute(shape, relu_at, name="relu")
    func = cpu_rules.schedule_func(te.create_prim_func([x, scale, shift, relu]), 1)
    assert "alloc_buffer" not in func.script()
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("tirx.is_scheduled", True)}), make_target("CPU"))
    xs, sc, sh = rand(*shape), rand(4), rand(4)
    out = tvm.runtime.empty(shape, "bfloat16", tvm.cpu())
    lib["main"](*(tvm.runtime.tensor(a) for a in (xs, sc, sh)), out)
    want = np.maximum(xs * sc[:, None, None] + sh[:, None, None], 0).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(out.numpy().astype(np.float32), want.astype(np.float32))


def test_a_padded_matmul_result_is_written_everywhere():
    # the pad (inlined into the add it feeds) used to be computed inside the matmul's tile
    # loop, which covers only the matmul's rows: the padding rows were never written
    # (garbage; e.g. the gradient of w in x @ w[:4].T, a Slice whose bprop is a Pad)
    import framework as ms
    from framework import Tensor, ops

    a, b, c, w = rand(4, 5), rand(5, 4), rand(12, 4), rand(12, 4)

    def padded(a, b, c):
        return ops.pad(ops.matmul(a, b), (0, 0, 0, 8)) + c

    got = ms.jit(padded)(Tensor(a), Tensor(b), Tensor(c)).asnumpy()
    np.testing.assert_allclose(got, np.pad(a @ b, ((0, 8), (0, 0))) + c, rtol=1e-5, atol=1e-5)

    def sliced(w, x):
        return ops.reduce_sum(ops.MatMul(transpose_b=True)(x, w[:4]) * 2.0) + \
            ops.reduce_sum(ops.MatMul(transpose_b=True)(x, w[4:8]))

    x = rand(5, 4)
    got = ms.jit(ms.grad(sliced, 0))(Tensor(w), Tensor(x)).asnumpy()
    column = x.sum(0)
    want = np.concatenate([np.tile(2 * column, (4, 1)), np.tile(column, (4, 1)), np.zeros((4, 4))])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


TUNE_SCRIPT = """
import numpy as np, framework as ms
from framework import Tensor, nn
ms.set_seed(0)
ms.set_context(mode=ms.GRAPH_MODE, tuning=2)
net = nn.SequentialCell(nn.Conv2d(1, 4, 3, pad_mode="valid"), nn.ReLU(), nn.Flatten(), nn.Dense(4 * 6 * 6, 3))
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.1))
value = step(Tensor(np.ones((4, 1, 8, 8), np.float32)), Tensor(np.arange(4, dtype=np.int32) % 3))
print(float(value.asnumpy()), step._graph_runner.last_report.tune_seconds)
"""


@pytest.mark.slow
def test_tuning_records_persist_across_processes(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, TWINMODE_CACHE_DIR=str(tmp_path))
    root = str(Path(__file__).resolve().parents[2])

    def run() -> tuple[float, float]:
        out = subprocess.run([sys.executable, "-c", TUNE_SCRIPT], env=env, cwd=root,
                             capture_output=True, text=True, check=True).stdout.split()
        return float(out[-2]), float(out[-1])

    loss1, tuned1 = run()
    assert (tmp_path / "tuning").is_dir() and any((tmp_path / "tuning").rglob("*"))
    for library in tmp_path.glob("*.so"):  # force a rebuild: only the tuning records remain
        library.unlink()
    loss2, tuned2 = run()
    assert loss1 == pytest.approx(loss2, rel=1e-5)
    # the budget was spent by the first process: its records are applied, nothing measured
    assert tuned1 > 0 and tuned2 == 0.0
