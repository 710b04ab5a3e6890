"""Register tiles over a symbolic row count (issue 39, schedule/row_tails.py): the recurrent
step's ``h W^T`` over ``W^T`` in packed panels (lowerings/nn.py ``_panel_matmul``, which
``pad_einsum`` cannot pad) with a symbolic batch runs whole tiles of rows without a
predicate and the last, partial tile behind a per-row test; the kernel equals NumPy and the
rules' compile specialised to each row count (1, below a tile, a multiple, neither), and a
graph-mode ``x W^T + b`` compiled once for every batch takes that path and equals the
compile per shape and NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import te, tirx, topi
from tvm.s_tir import SBlockRealize
from tvm.tirx import For, ForKind

import framework as ms
from framework import Tensor, ops
from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.lower.lowerings.nn import PANEL, _panel_matmul, _wants_panels
from framework.backend.tvm.schedule import cpu_rules, row_tails, size_guard, vector_math, vector_tails

from .symbolic_context import compiles as _compiles
from .symbolic_context import graph_context  # noqa: F401  (the fixture the jit test uses)
from .test_size_guard import _walk  # every statement of a TIR body, pre-order

K, N = 128, 2 * PANEL  # reduction, columns (two panels)
ROWS = (1, 5, 8, 16, 17, 33)


def _panel_step(rows) -> tirx.PrimFunc:
    """``h @ panels + x`` (the fused recurrent step: the input projection added)."""
    h = te.placeholder((rows, K), "float32", name="h")
    panels = te.placeholder((N // PANEL, K, PANEL), "float32", name="panels")
    x = te.placeholder((rows, N), "float32", name="x")
    return te.create_prim_func([h, panels, x, topi.add(_panel_matmul(h, panels), x)])


def _build(func: tirx.PrimFunc):
    """The pipeline's CPU schedule of ``func``: rules, vector tails, row tails, size guard."""
    scheduled = cpu_rules.schedule_func(func.with_attr("global_symbol", "main"), cores=2)
    mod = tvm.IRModule({"main": scheduled.with_attr("tirx.is_scheduled", True)})
    mod = size_guard.guard_module(row_tails.peel_module(vector_tails.peel_module(mod)))
    vector_math.install()
    return tvm.compile(mod, target=make_target("CPU")), mod["main"]


def _run(lib, inputs: list[np.ndarray], out_shape) -> np.ndarray:
    out = tvm.runtime.tensor(np.zeros(out_shape, np.float32))
    lib["main"](*[tvm.runtime.tensor(a) for a in inputs], out)
    return out.numpy()


def _predicated_vectors(stmt) -> tuple[int, int]:
    """(vectorized loops right around a block, those whose block has a predicate)."""
    loops = [s for s in _walk(stmt, []) if isinstance(s, For) and s.kind == ForKind.VECTORIZED
             and isinstance(s.body, SBlockRealize)]
    return len(loops), sum(not (isinstance(s.body.predicate, tirx.IntImm) and int(s.body.predicate) == 1)
                           for s in loops)


def test_symbolic_rows_take_the_panels():
    n = tirx.Var("n", "int64")
    assert _wants_panels((n, 512), (2048, 512), True) and _wants_panels((n, 2048), (2048, 512), False)
    assert not _wants_panels((n, 512), (48, 512), True)  # columns fill no panel
    assert not _wants_panels((128, 512), (2048, 512), True)  # many static rows: packed in the kernel


def test_a_predicated_row_tile_is_peeled_into_whole_tiles_and_a_tail():
    func = _panel_step(tirx.Var("n", "int64")).with_attr("global_symbol", "main")
    scheduled = cpu_rules.schedule_func(func, cores=2)
    assert _predicated_vectors(scheduled.body)[1] >= 2  # the tile's rows: a predicate per block
    peeled, count = row_tails.peel_func(scheduled.with_attr("tirx.is_scheduled", True))
    assert count == 1
    tiles = [s for s in _walk(peeled.body, []) if isinstance(s, For) and s.loop_var.name == "ax0_0"]
    main, tail = tiles[:2]  # whole tiles first: no predicate left; the tail keeps them as ifs
    assert _predicated_vectors(main)[0] >= 3 and _predicated_vectors(main)[1] == 0
    assert _predicated_vectors(tail)[1] == 0
    assert any(isinstance(s, tirx.IfThenElse) for s in _walk(tail, []))
    static = cpu_rules.schedule_func(_panel_step(32).with_attr("global_symbol", "main"), cores=2)
    assert row_tails.peel_func(static.with_attr("tirx.is_scheduled", True))[1] == 0  # nothing to peel


def test_symbolic_panel_step_matches_numpy_and_the_static_compile():
    lib, _ = _build(_panel_step(tirx.Var("n", "int64")))
    rng = np.random.default_rng(0)
    for rows in ROWS:
        h = rng.standard_normal((rows, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        x = rng.standard_normal((rows, N)).astype(np.float32)
        panels = np.ascontiguousarray(b.reshape(K, N // PANEL, PANEL).transpose(1, 0, 2))
        got = _run(lib, [h, panels, x], (rows, N))
        np.testing.assert_allclose(got, h.astype(np.float64) @ b + x, rtol=1e-5, atol=1e-5)
        static, _ = _build(_panel_step(rows))
        np.testing.assert_allclose(got, _run(static, [h, panels, x], (rows, N)), rtol=1e-6, atol=1e-6)


@pytest.mark.usefixtures("graph_context")
def test_a_dense_layer_over_a_symbolic_batch_compiles_once_and_equals_per_shape_and_numpy():
    wide = 1024  # output columns from which a few rows read the weight in panels
    rng = np.random.default_rng(1)
    w = rng.standard_normal((wide, 64)).astype(np.float32)
    bias = rng.standard_normal(wide).astype(np.float32)

    def dense(x, w, bias):
        return ops.MatMul(transpose_b=True)(x, w) + bias

    signature = (Tensor(shape=[None, 64], dtype=ms.float32), Tensor(shape=[wide, 64], dtype=ms.float32),
                 Tensor(shape=[wide], dtype=ms.float32))
    symbolic = ms.jit(dense, input_signature=signature)
    per_shape = ms.jit(dense)
    before = _compiles()
    for rows in (8, 1, 13, 32):
        x = rng.standard_normal((rows, 64)).astype(np.float32)
        got = symbolic(Tensor(x), Tensor(w), Tensor(bias)).asnumpy()
        np.testing.assert_allclose(got, x.astype(np.float64) @ w.T + bias, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got, per_shape(Tensor(x), Tensor(w), Tensor(bias)).asnumpy(),
                                   rtol=1e-6, atol=1e-6)
    assert _compiles() - before == 1 + 4  # one symbolic, four per shape
    assert symbolic.last_report.symbolic_fallback is None
