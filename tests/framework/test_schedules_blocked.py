"""The CPU rules for column sums (bias gradients) and for ``a^T b`` over long reductions
(LSTM weight gradients): results against NumPy, and that those schedules were chosen."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
import tvm_ffi
from tvm import relax, s_tir, topi

from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.lower.lowerings import nn as nn_lowering
from framework.backend.tvm.schedule import (
    cpu_rules,
    full_sums,
    packed_matmul,
    strided_matmul,
    transpose_tiles,
)
from framework.backend.tvm.schedule import tir_analysis as ta

rng = np.random.default_rng(7)


def _func(fte, *shapes) -> tvm.tirx.PrimFunc:
    bb = relax.BlockBuilder()
    params = [relax.Var(f"a{i}", relax.TensorType(shape, "float32")) for i, shape in enumerate(shapes)]
    with bb.function("main", params):
        bb.emit_func_output(bb.emit(bb.call_te(fte, *params)))
    return next(f for f in bb.get().functions.values() if isinstance(f, tvm.tirx.PrimFunc))


def _run(func: tvm.tirx.PrimFunc, arrays: list[np.ndarray], out_shape) -> np.ndarray:
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}),
                      target=make_target("CPU"))
    args = [tvm.runtime.tensor(a) for a in arrays] + [tvm.runtime.tensor(np.zeros(out_shape, np.float32))]
    lib["main"](*args)
    return args[-1].numpy()


def _nodes(func: tvm.tirx.PrimFunc) -> list:
    nodes: list = []
    tvm_ffi.structural_walk(func.body, ((tvm.tirx.For, s_tir.SBlock), nodes.append), order="post")
    return nodes


@pytest.mark.parametrize("shape, axes", [((2048, 1024), (0,)), ((100, 40), (0,)),
                                         ((20, 30, 80), (0, 1)), ((6, 50, 48), (0,))])
def test_column_sums_match_numpy_and_read_rows_in_vectors(shape, axes):
    x = rng.standard_normal(shape).astype(np.float32)
    func = cpu_rules.schedule_func(_func(lambda a: topi.sum(a, axis=list(axes)), shape), 2)
    want = x.astype(np.float64).sum(axis=axes)
    np.testing.assert_allclose(_run(func, [x], want.shape), want, rtol=1e-4,
                               atol=1e-5 * np.abs(x).sum(axis=axes).max())
    # the reduced axes are strided: only with the rows outside a tile of sums can they vectorize
    loops = [n for n in _nodes(func) if isinstance(n, tvm.tirx.For)]
    assert any(n.kind == tvm.tirx.ForKind.VECTORIZED for n in loops), func.script()


@pytest.mark.parametrize("m, k, n", [(1024, 2048, 64), (1024, 272, 24), (64, 512, 48)])
def test_a_transposed_matmul_matches_numpy(m, k, n):
    a = rng.standard_normal((k, m)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    func = cpu_rules.schedule_func(_func(lambda x, y: topi.matmul(x, y, True, False), (k, m), (k, n)), 2)
    want = a.astype(np.float64).T @ b
    np.testing.assert_allclose(_run(func, [a, b], (m, n)), want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    # long reductions over a large ``a`` pack blocks of it: a local copy of ``a`` (its
    # full shape until lowering compacts it to one block)
    local = [tuple(int(d) for d in buf.shape) for node in _nodes(func)
             if isinstance(node, s_tir.SBlock) for buf in node.alloc_buffers]
    assert ((k, m) in local) == (k * m * 4 >= strided_matmul.MIN_BYTES), local


@pytest.mark.parametrize("m, k, n, bias", [(128, 96, 64, True), (64, 40, 1024, False),
                                           (32, 64, 256, True), (32, 256, 1024, True),
                                           (20, 48, 64, False)])
def test_plain_matmul_two_vector_tile_matches_numpy(m, k, n, bias):
    """``a b`` (+ a fused bias): the packed two-vector tile where it applies, the default
    tile elsewhere (too few rows, or rows not a multiple of the tile), NumPy's result."""
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((n,)).astype(np.float32)
    if bias:
        te = _func(lambda x, y, z: topi.add(topi.matmul(x, y), z), (m, k), (k, n), (n,))
        arrays, want = [a, b, c], a.astype(np.float64) @ b + c
    else:
        te = _func(lambda x, y: topi.matmul(x, y), (m, k), (k, n))
        arrays, want = [a, b], a.astype(np.float64) @ b
    func = cpu_rules.schedule_func(te, 2)
    np.testing.assert_allclose(_run(func, arrays, (m, n)), want, rtol=1e-4,
                               atol=1e-4 * np.abs(want).max())
    local = [tuple(int(d) for d in buf.shape) for node in _nodes(func)
             if isinstance(node, s_tir.SBlock) for buf in node.alloc_buffers]
    packs = m % packed_matmul.ROWS == 0 and m // packed_matmul.ROWS >= packed_matmul.MIN_ROW_TILES
    assert ((k, n) in local) == packs, local


@pytest.mark.parametrize("m, k, n, add", [(32, 256, 1024, True), (16, 64, 96, False), (40, 48, 64, True)])
def test_matmul_over_panels_matches_numpy_in_two_vector_tiles(m, k, n, add):
    """``a b^T`` over ``b^T`` stored in panels of 32 columns (few rows of ``a``, the LSTM
    step): NumPy's result, with the fused add, in the packed rule's register tile (a
    vectorized inner loop of two vectors, no further copy of the panels)."""
    w = nn_lowering.PANEL
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    panels = np.ascontiguousarray(b.reshape(n // w, w, k).transpose(0, 2, 1))
    shapes = [(m, k), (n // w, k, w)] + ([(m, n)] if add else [])
    fte = (lambda x, y, z: topi.add(nn_lowering._panel_matmul(x, y), z)) if add else nn_lowering._panel_matmul
    unscheduled = s_tir.Schedule(tvm.IRModule({"main": _func(fte, *shapes)}))
    block = unscheduled.get_sblock("matmul_panels")
    assert packed_matmul.wants(unscheduled, block, ta.axes(unscheduled, block), 16)
    func = cpu_rules.schedule_func(_func(fte, *shapes), 2)
    want = a.astype(np.float64) @ b.T + (c if add else 0)
    got = _run(func, [a, panels] + ([c] if add else []), (m, n))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    vectors = [int(n.extent) for n in _nodes(func)
               if isinstance(n, tvm.tirx.For) and n.kind == tvm.tirx.ForKind.VECTORIZED]
    assert vectors and set(vectors) == {w}, func.script()
    local = [tuple(int(d) for d in buf.shape) for node in _nodes(func)
             if isinstance(node, s_tir.SBlock) for buf in node.alloc_buffers]
    assert (n // w, k, w) not in local and (k, n) not in local, local



@pytest.mark.parametrize("shape", [(1024, 256), (8192,), (4, 32, 64), (64, 65)])
def test_full_sum_of_squares_matches_numpy_in_vector_lanes(shape):
    """A whole tensor to one value (a global norm's sum of squares): NumPy's result, and the
    partial sums run in vector lanes when the lanes divide the size."""
    x = rng.standard_normal(shape).astype(np.float32)
    func = cpu_rules.schedule_func(_func(lambda a: topi.sum(a * a), shape), 2)
    want = np.array((x.astype(np.float64) ** 2).sum())
    np.testing.assert_allclose(_run(func, [x], ()), want, rtol=1e-5)
    loops = [n for n in _nodes(func) if isinstance(n, tvm.tirx.For)]
    lanes = x.size % (full_sums.LANE_VECTORS * 16) == 0
    assert any(n.kind == tvm.tirx.ForKind.VECTORIZED for n in loops) == lanes, func.script()


@pytest.mark.parametrize("shape, axes", [((1024, 256), (1, 0)), ((3, 64, 32), (0, 2, 1)),
                                         ((20, 48), (1, 0)), ((4, 32, 16), (1, 0, 2))])
def test_transpose_is_exact_and_tiled_when_it_swaps_the_inner_axes(shape, axes):
    """Transposes copy NumPy's result exactly; one that swaps the two innermost axes with
    both a multiple of the tile is copied tile by tile (a loop of TILE rows inside the
    loop over column tiles), the others keep the general schedule."""
    x = rng.standard_normal(shape).astype(np.float32)
    func = cpu_rules.schedule_func(_func(lambda a: topi.transpose(a, list(axes)), shape), 2)
    want = np.transpose(x, axes)
    np.testing.assert_array_equal(_run(func, [x], want.shape), want)
    out = want.shape
    tiled = axes[-2:] == (len(shape) - 1, len(shape) - 2) and out[-1] % transpose_tiles.TILE == 0 \
        and out[-2] % transpose_tiles.TILE == 0
    loops = [n for n in _nodes(func) if isinstance(n, tvm.tirx.For)]
    extents = [int(n.extent) for n in loops]  # innermost first (post order)
    assert (extents[:2] == [transpose_tiles.TILE] * 2) == tiled, func.script()


@pytest.mark.parametrize("shape, view", [((768, 512), (1, 768, 512)), ((48, 64, 32), (12, 4, 64, 32))])
def test_a_reshape_then_transpose_is_exact_and_tiled(shape, view):
    """A reshape fused before the transpose (the bf16 matmul's ``a^T`` of a 2-D operand)
    reads ``a[(i // 512 + j) % 768, i % 512]``: still a transpose of the inner axes within
    the block's domain, so it is copied tile by tile (untiled it ran 6x slower)."""
    x = rng.standard_normal(shape).astype(np.float32)
    axes = [*range(len(view) - 2), len(view) - 1, len(view) - 2]
    func = cpu_rules.schedule_func(
        _func(lambda a: topi.transpose(topi.reshape(a, view), axes), shape), 2)
    want = np.transpose(x.reshape(view), axes)
    np.testing.assert_array_equal(_run(func, [x], want.shape), want)
    extents = [int(n.extent) for n in _nodes(func) if isinstance(n, tvm.tirx.For)]
    assert extents[:2] == [transpose_tiles.TILE] * 2, func.script()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(3, 64, 32), (512, 128), (20, 48)])
def test_a_widening_transpose_is_exact_and_converts_tile_by_tile(dtype, shape):
    """``float32(a)^T`` of a 16-bit float (an amp O2 operand of a matmul) equals NumPy's; when
    the transpose is tiled, each tile is converted along ``a``'s rows into a local float32
    tile first (gathering 16-bit lanes one by one ran 2.8x slower than float32); an
    untiled one keeps the cast inlined."""
    import ml_dtypes

    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.float16
    x = rng.standard_normal(shape).astype(np_dtype)
    bb = relax.BlockBuilder()
    param = relax.Var("a", relax.TensorType(shape, dtype))
    axes = [*range(len(shape) - 2), len(shape) - 1, len(shape) - 2]
    with bb.function("main", [param]):
        with bb.dataflow():
            wide = bb.emit(relax.op.astype(param, "float32"))
            out = bb.emit_output(bb.emit(relax.op.permute_dims(wide, axes)))
        bb.emit_func_output(out)
    passes = [relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
              relax.transform.FuseOps(), relax.transform.FuseTIR()]
    fused = [f for f in tvm.transform.Sequential(passes)(bb.get()).functions.values()
             if isinstance(f, tvm.tirx.PrimFunc)]
    assert len(fused) == 1  # one kernel: the cast and the transpose
    func = cpu_rules.schedule_func(fused[0], 2)
    want = np.transpose(x.astype(np.float32), axes)
    np.testing.assert_array_equal(_run(func, [x], want.shape), want)
    tiled = shape[-1] % transpose_tiles.TILE == 0 and shape[-2] % transpose_tiles.TILE == 0
    local = []  # the buffers lowering allocates: compacted to the region one tile uses
    lowering = [s_tir.transform.PlanAndUpdateBufferAllocationLocation(),
                s_tir.transform.ConvertBlocksToOpaque(), s_tir.transform.CompactBufferAllocation()]
    compact = tvm.transform.Sequential(lowering)(tvm.IRModule({"main": func}))["main"]
    tvm_ffi.structural_walk(compact.body, (s_tir.SBlock, lambda b: local.extend(
        buf for buf in b.alloc_buffers if buf.scope() == "local")), order="post")
    assert [int(np.prod([int(d) for d in buf.shape])) for buf in local] == \
        ([transpose_tiles.TILE ** 2] if tiled else []), func.script()
