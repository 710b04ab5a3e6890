"""Kernels with symbolic extents stay vectorised and exact (issue 39): the CPU rules' schedules
of a symbolic-length softmax / log-softmax (row kernels with lanes over a predicated split,
peeled into whole vectors and a scalar tail by schedule/vector_tails.py), a sum of products
along a symbolic row, a batched attention matmul (batch and heads not padded) and the
gradient accumulation ``acc + a^T b`` over a symbolic reduction (no padded operands), each
compiled once and run at several sizes (1, below a vector, not a multiple of 16, multiples)
against NumPy float64 and against the rules' compile specialised to that size; and the GPT
train step compiled once for every length against a compile per length."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import relax, te, tirx, topi
from tvm.s_tir import SBlockRealize
from tvm.tirx import For, ForKind

import framework as ms
from framework import Tensor
from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.schedule import cpu_rules, size_guard, vector_math, vector_tails

from .symbolic_context import graph_context  # noqa: F401  (the fixture the slow test uses)
from .test_size_guard import _walk  # every statement of a TIR body, pre-order

LENGTHS = (1, 5, 16, 17, 63, 64)


def _build(func: tirx.PrimFunc):
    """The pipeline's CPU schedule of ``func``: rules, vector tails, size guard."""
    scheduled = cpu_rules.schedule_func(func.with_attr("global_symbol", "main"), cores=2)
    mod = tvm.IRModule({"main": scheduled.with_attr("tirx.is_scheduled", True)})
    mod = size_guard.guard_module(vector_tails.peel_module(mod))
    vector_math.install()
    return tvm.compile(mod, target=make_target("CPU")), mod["main"]


def _run(lib, inputs: list[np.ndarray], out_shape) -> np.ndarray:
    out = tvm.runtime.tensor(np.zeros(out_shape, np.float32))
    lib["main"](*[tvm.runtime.tensor(a) for a in inputs], out)
    return out.numpy()


def _unpredicated_vectors(func: tirx.PrimFunc) -> int:
    """Vectorized loops directly around a block without predicate."""
    return sum(isinstance(s, For) and s.kind == ForKind.VECTORIZED and isinstance(s.body, SBlockRealize)
               and isinstance(s.body.predicate, tirx.IntImm) and int(s.body.predicate) == 1
               for s in _walk(func.body, []))


def _split_exp(length) -> tirx.PrimFunc:
    """``exp`` of a row, split into vectors of 16 and vectorized (a predicate when the
    length is symbolic)."""
    x = te.placeholder((3, length), "float32", name="x")
    func = te.create_prim_func([x, topi.exp(x)]).with_attr("global_symbol", "main")
    from tvm.s_tir import Schedule

    sch = Schedule(tvm.IRModule({"main": func}))
    _, lane = sch.split(sch.get_loops(sch.get_child_blocks(sch.get_sblock("root"))[0])[-1], [None, 16])
    sch.vectorize(lane)
    return sch.mod["main"]


def test_a_predicated_vector_loop_is_peeled_into_whole_vectors_and_a_tail():
    func = _split_exp(tirx.Var("t", "int64"))
    peeled, count = vector_tails.peel_func(func)
    assert count == 1 and _unpredicated_vectors(func) == 0 and _unpredicated_vectors(peeled) == 1
    assert vector_tails.peel_func(_split_exp(48))[1] == 0  # static: nothing to peel
    vector_math.install()
    lib = tvm.compile(tvm.IRModule({"main": peeled}), target=make_target("CPU"))
    rng = np.random.default_rng(4)
    for length in (1, 15, 16, 17, 40):
        a = rng.standard_normal((3, length)).astype(np.float32)
        np.testing.assert_allclose(_run(lib, [a], a.shape), np.exp(a.astype(np.float64)), rtol=3e-7)


def _np_softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


ROWS = {  # relax operator, NumPy reference
    "softmax": (relax.op.nn.softmax, _np_softmax),
    "log_softmax": (relax.op.nn.log_softmax, lambda a: np.log(_np_softmax(a))),
}


def _legalized(op, shape) -> tirx.PrimFunc:
    """The PrimFunc Relax's LegalizeOps makes of ``op`` (the one the step compiles)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType(shape, "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(op(x, axis=-1)))
    mod = relax.transform.LegalizeOps()(bb.get())
    return next(f for f in mod.functions.values() if isinstance(f, tirx.PrimFunc))


@pytest.mark.parametrize("kernel", sorted(ROWS))
def test_symbolic_row_kernel_is_vectorised_and_matches_numpy_and_the_static_compile(kernel):
    op, ref = ROWS[kernel]
    n, t = tirx.Var("n", "int64"), tirx.Var("t", "int64")
    lib, scheduled = _build(_legalized(op, [n, 4, t, t]))
    assert _unpredicated_vectors(scheduled) >= 2  # the row's maps and lanes: whole vectors
    rng = np.random.default_rng(0)
    for length in LENGTHS:
        shape = (3, 4, length, length)
        a = (rng.standard_normal(shape) * 4).astype(np.float32)
        a[..., 0, :] = np.where(np.arange(length) > 0, -np.inf, a[..., 0, :])  # causal mask
        got = _run(lib, [a], shape)
        static, _ = _build(_legalized(op, list(shape)))
        # the same to float32 rounding (the static row of 17 sums in one lane, in order)
        np.testing.assert_allclose(got, _run(static, [a], shape), rtol=2e-6, atol=1e-6)
        with np.errstate(divide="ignore"):
            want = ref(a.astype(np.float64))
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=2e-6)
        assert np.array_equal(got[~finite], want[~finite])


def _symbolic_sum_of_products(length) -> tirx.PrimFunc:
    """``sum_k a[i, h, j, k] * b[i, h, j, k]`` (softmax's backward row sums)."""
    n = tirx.Var("n", "int64")
    a = te.placeholder((n, 4, length, length), "float32", name="a")
    b = te.placeholder((n, 4, length, length), "float32", name="b")
    return te.create_prim_func([a, b, topi.sum(topi.multiply(a, b), axis=-1, keepdims=True)])


def test_symbolic_row_sums_match_numpy():
    t = tirx.Var("t", "int64")
    lib, _ = _build(_symbolic_sum_of_products(t))
    rng = np.random.default_rng(1)
    for length in LENGTHS:
        a, b = (rng.standard_normal((12, 4, length, length)).astype(np.float32) for _ in "ab")
        got = _run(lib, [a, b], (12, 4, length, 1))
        want = (a.astype(np.float64) * b).sum(-1, keepdims=True)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _pads(func: tirx.PrimFunc) -> list[str]:
    return [b.name for b in _allocated(func) if b.name.endswith("_pad")]


def _allocated(func: tirx.PrimFunc) -> list:
    return [buf for s in _walk(func.body, []) if isinstance(s, SBlockRealize)
            for buf in s.block.alloc_buffers]


def test_batched_attention_matmul_pads_neither_batch_nor_heads():
    n, t = tirx.Var("n", "int64"), tirx.Var("t", "int64")
    q = te.placeholder((n, 4, t, 32), "float32", name="q")
    k = te.placeholder((n, 4, 32, t), "float32", name="k")
    r = te.reduce_axis((0, 32), name="r")
    scores = te.compute((n, 4, t, t), lambda i, h, x, y: te.sum(q[i, h, x, r] * k[i, h, r, y], axis=r),
                        name="matmul")
    lib, scheduled = _build(te.create_prim_func([q, k, scores]))
    assert _pads(scheduled)  # the rows and columns (t) are
    for buf in _allocated(scheduled):
        if buf.name.endswith("_pad"):  # the rows and columns only (register tile)
            assert buf.shape[0].same_as(n) and int(buf.shape[1]) == 4
    rng = np.random.default_rng(2)
    for batch, length in ((1, 1), (3, 17), (12, 64), (2, 33)):
        a = rng.standard_normal((batch, 4, length, 32)).astype(np.float32)
        b = rng.standard_normal((batch, 4, 32, length)).astype(np.float32)
        got = _run(lib, [a, b], (batch, 4, length, length))
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def _accumulate(rows) -> tirx.PrimFunc:
    """lower/accumulate.py's kernel ``acc + a^T b`` (a weight gradient over all tokens)."""
    acc = te.placeholder((128, 512), "float32", name="acc")
    a = te.placeholder((rows, 128), "float32", name="a")
    b = te.placeholder((rows, 512), "float32", name="b")
    return te.create_prim_func([acc, a, b, topi.add(acc, topi.matmul(a, b, True, False))])


def test_accumulated_product_over_symbolic_rows_pads_no_operand():
    lib, scheduled = _build(_accumulate(tirx.Var("k", "int64")))  # the step's k = n * t
    assert not _pads(scheduled)
    rng = np.random.default_rng(3)
    for count in (1, 5, 17, 64, 12 * 63):
        acc = rng.standard_normal((128, 512)).astype(np.float32)
        a = rng.standard_normal((count, 128)).astype(np.float32)
        b = rng.standard_normal((count, 512)).astype(np.float32)
        got = _run(lib, [acc, a, b], (128, 512))
        want = acc + a.astype(np.float64).T @ b
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
        static, _ = _build(_accumulate(count))
        np.testing.assert_allclose(got, _run(static, [acc, a, b], (128, 512)), rtol=1e-5, atol=1e-5)


def test_a_convolution_weight_gradient_over_a_symbolic_batch_is_padded_and_exact():
    """A contraction with several reductions (a 1x1 convolution's weight gradient over
    batch, rows and columns) is padded along its symbolic batch, which the rules then split
    (left whole, ResNet-20's symbolic step ran 2x its specialised one); sums equal NumPy's."""
    n = tirx.Var("n", "int64")
    x = te.placeholder((n, 16, 8, 8), "float32", name="x")
    dy = te.placeholder((n, 32, 8, 8), "float32", name="dy")
    b, h, w = te.reduce_axis((0, n), "b"), te.reduce_axis((0, 8), "h"), te.reduce_axis((0, 8), "w")
    dw = te.compute((32, 16), lambda o, c: te.sum(x[b, c, h, w] * dy[b, o, h, w], axis=[b, h, w]),
                    name="wgrad")
    lib, scheduled = _build(te.create_prim_func([x, dy, dw]))
    assert _pads(scheduled)
    rng = np.random.default_rng(4)
    for batch in (1, 3, 17):
        a = rng.standard_normal((batch, 16, 8, 8)).astype(np.float32)
        g = rng.standard_normal((batch, 32, 8, 8)).astype(np.float32)
        want = np.einsum("bchw,bohw->oc", a.astype(np.float64), g)
        np.testing.assert_allclose(_run(lib, [a, g], (32, 16)), want, rtol=1e-4, atol=1e-4)


@pytest.mark.slow
@pytest.mark.usefixtures("graph_context")
def test_gpt_step_one_compile_every_length_equals_per_length_compiles():
    from framework import nn
    from trainer.models.gpt import GPT
    from trainer.tasks.language_model import TokenCrossEntropy

    def step():
        ms.set_seed(0)
        net = GPT(13, block_size=40, n_layer=1, n_head=2, n_embd=32)
        cell = nn.TrainOneStepCell(nn.WithLossCell(net, TokenCrossEntropy()),
                                   nn.Momentum(net.trainable_params(), 0.01, 0.9))
        cell.set_train()
        return cell, net

    dynamic, dnet = step()
    spec = Tensor(shape=[None, None], dtype=ms.int32)
    dynamic.set_inputs(spec, spec)
    reference, rnet = step()  # no signature: compiled for each length, stepped in lockstep
    rng = np.random.default_rng(0)
    for length in (1, 17, 40, 16):
        x, y = (Tensor(rng.integers(0, 13, (3, length)).astype(np.int32)) for _ in "xy")
        np.testing.assert_allclose(dynamic(x, y).asnumpy(), reference(x, y).asnumpy(), rtol=1e-5)
        for (_, p), (_, q) in zip(dnet.parameters_and_names(), rnet.parameters_and_names()):
            want = q.asnumpy()
            np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    report = dynamic._graph_runner.last_report
    assert report.symbolic_axes == [[0, 1], [0, 1]] and report.symbolic_fallback is None
