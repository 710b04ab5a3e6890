"""TVM lowering of every primitive against its NumPy kernel.

Every case of the primitive harness (``test_primitives.CASES``) plus a few extra ones
becomes one Relax function; all of them go into ONE IRModule, built once per module.
Graph mode computes in float32: float inputs are cast to float32, integer ones to int32.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tvm
from tvm import relax

from framework import ops
from framework import seed as ms_seed
from framework.backend.tvm.lower import lowerings
from framework.backend.tvm.lower.lowerings import LowerContext, lowering_for, spec_of
from framework.backend.tvm.lower.lowerings.base import emit
from framework.backend.tvm.lower.lowerings.host import lower_on_host
from framework.primitive import Primitive, Spec
from tests.framework import library_primitives as lib

from .primitive_cases import CASES

RTOL = ATOL = 1e-5


def _graph_dtype(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.float32)
    if a.dtype.kind in "iu":
        return a.astype(np.int32)
    return a


def _dropout_mask(shape: tuple[int, ...]) -> np.ndarray:
    return (np.random.default_rng(7).random(shape) < 0.7).astype(np.float32)


def _expected(prim: Primitive, arrays: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    if isinstance(prim, lib.Dropout):
        x, mask = arrays
        return x * mask * x.dtype.type(1.0 / prim.keep_prob), mask
    out = prim.kernel(*arrays)
    return tuple(np.asarray(o) for o in (out if isinstance(out, tuple) else (out,)))


def _ties(shape: tuple[int, ...]) -> np.ndarray:
    """Few distinct values: many equal maxima per pooling window."""
    return np.random.default_rng(3).integers(0, 2, shape).astype(np.float64)


def _pool_grad_inputs(prim: Any, x: np.ndarray) -> list[np.ndarray]:
    out = ops.MaxPool(prim.kernel_size, prim.strides, prim.pad_mode).kernel(x)
    return [x, out, np.random.default_rng(4).standard_normal(out.shape)]


# Cases beyond the harness: formulation corner cases of the lowerings.
_CONV_S2 = dict(stride=2, dilation=1, pad_mode="valid", pad=0)
_CONV_BIG_PAD = dict(stride=1, dilation=1, pad_mode="pad", pad=(3, 0, 0, 2))
_RNG = np.random.default_rng(11)
def _ln_case(x_shape, norm_axis, params_axis, grad):
    """LayerNorm / LayerNormGrad inputs whose rows are long enough for the row kernels
    (framework/backend/tvm/schedule/row_fusion.py); gamma spanning part of a row or several rows."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape) * 3 + 1
    params = x_shape[params_axis:]
    gamma, beta = rng.uniform(0.5, 2, params), rng.standard_normal(params)
    if not grad:
        return ops.LayerNorm(norm_axis, params_axis, 1e-5), [x, gamma, beta]
    axes = tuple(range(norm_axis, len(x_shape)))
    return ops.LayerNormGrad(norm_axis, params_axis, 1e-5), [
        x, rng.standard_normal(x_shape), x.var(axis=axes, keepdims=True),
        x.mean(axis=axes, keepdims=True), gamma]


_LN_LAYOUTS = {"rows": ((4, 5, 40), 2, 2), "params-in-row": ((2, 3, 24), 1, 2),
               "params-over-rows": ((2, 3, 32), 2, 1), "one-row": ((2, 48), 0, 1)}
_LN_EXTRA = [(f"{'LayerNormGrad' if grad else 'LayerNorm'}-{name}", *_ln_case(*layout, grad))
             for name, layout in _LN_LAYOUTS.items() for grad in (False, True)]


EXTRA: list[tuple[str, Primitive, list[np.ndarray]]] = [
    # few rows against a weight-sized b: b^T (or a tall b) is read in panels (lowerings.nn)
    ("MatMul-panels-b-transposed", ops.MatMul(transpose_b=True),
     [_RNG.standard_normal((32, 64)), _RNG.standard_normal((1024, 64))]),
    ("MatMul-panels-tall-b", ops.MatMul(),  # scaled: float32 sums of 1024 products within ATOL
     [_RNG.standard_normal((16, 1024)) / 32, _RNG.standard_normal((1024, 64)) / 32]),
    # MaxPoolGrad with ties: the first maximum in row-major window order gets the gradient
    ("MaxPoolGrad-ties-valid", ops.MaxPoolGrad((2, 2), (2, 2), "valid"),
     _pool_grad_inputs(ops.MaxPoolGrad((2, 2), (2, 2), "valid"), _ties((2, 2, 4, 6)))),
    ("MaxPoolGrad-ties-overlap", ops.MaxPoolGrad((3, 3), (2, 2), "same"),
     _pool_grad_inputs(ops.MaxPoolGrad((3, 3), (2, 2), "same"), _ties((1, 2, 5, 6)))),
    # filter-gradient conv output larger than the kernel (stride remainder): cropped
    ("Conv2DBackpropFilter-crop", ops.Conv2DBackpropFilter(filter_shape=(2, 3, 3, 3), **_CONV_S2),
     [_RNG.standard_normal((2, 3, 8, 8)), _RNG.standard_normal((2, 2, 3, 3))]),
    ("Conv2DBackpropInput-remainder", ops.Conv2DBackpropInput(input_shape=(2, 3, 8, 8), **_CONV_S2),
     [_RNG.standard_normal((2, 2, 3, 3)), _RNG.standard_normal((2, 3, 3, 3))]),
    # explicit padding beyond (k-1)*d: the transposed conv crops the excess
    ("Conv2DBackpropInput-big-pad", ops.Conv2DBackpropInput(input_shape=(1, 2, 5, 4), **_CONV_BIG_PAD),
     [_RNG.standard_normal((1, 3, 7, 4)), _RNG.standard_normal((3, 2, 2, 3))]),
    ("Conv2D-big-pad", lib.Conv2D(**_CONV_BIG_PAD),
     [_RNG.standard_normal((1, 2, 5, 4)), _RNG.standard_normal((3, 2, 2, 3))]),
    # grouped/depthwise: the same corner cases with Relax's groups and the grouped TE filter grad
    ("GroupConv2DBackpropInput-big-pad",
     ops.GroupConv2DBackpropInput(input_shape=(1, 4, 5, 4), group=2, **_CONV_BIG_PAD),
     [_RNG.standard_normal((1, 6, 7, 4)), _RNG.standard_normal((6, 2, 2, 3))]),
    ("GroupConv2DBackpropInput-depthwise-remainder",
     ops.GroupConv2DBackpropInput(input_shape=(2, 3, 8, 8), group=3, **_CONV_S2),
     [_RNG.standard_normal((2, 3, 3, 3)), _RNG.standard_normal((3, 1, 3, 3))]),
    ("GroupConv2DBackpropFilter-depthwise-crop",
     ops.GroupConv2DBackpropFilter(filter_shape=(3, 1, 3, 3), group=3, **_CONV_S2),
     [_RNG.standard_normal((2, 3, 8, 8)), _RNG.standard_normal((2, 3, 3, 3))]),
    # cast to bool is x != 0 (0.5 -> True), to int truncates toward zero
    ("Cast-bool", lib.Cast(np.bool_), [np.array([0.0, 0.5, -0.25, 2.0, -0.0])]),
    ("Cast-int-negative", lib.Cast(np.int32), [np.array([-2.7, -0.5, 0.5, 2.7])]),
    ("Cast-bool-to-float", lib.Cast(np.float32), [np.array([True, False, True])]),
    ("Select-bool-cond", ops.Select(), [np.array([[True], [False]]), _RNG.standard_normal((2, 3)),
                                        _RNG.standard_normal((2, 3))]),
    ("ReduceSum-all", lib.ReduceSum(False, (0, 1)), [_RNG.standard_normal((3, 4))]),
    ("Argmax-ties", ops.Argmax(-1), [np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])]),
    ("BatchNorm-2d-train", ops.BatchNorm(True, 1e-3),
     [_RNG.standard_normal((6, 3)), _RNG.uniform(0.5, 2, 3), _RNG.standard_normal(3),
      _RNG.standard_normal(3), _RNG.uniform(0.5, 2, 3)]),
    ("OneHot-int32", lib.OneHot(3, 5.0, 1.0, 1, np.int32), [np.array([[0, 2], [1, -1]])]),
    # integer and bool tensors: TVM has no bool arithmetic/comparisons, power is float-only
    ("Equal-bool", ops.Equal(), [np.array([True, False, True]), np.array([True, True, False])]),
    ("Less-bool", ops.Less(), [np.array([True, False, False]), np.array([True, True, False])]),
    ("Add-bool", ops.Add(), [np.array([True, False, False]), np.array([True, True, False])]),
    ("Mul-bool", ops.Mul(), [np.array([True, False, True]), np.array([True, True, False])]),
    ("Pow-int", ops.Pow(), [np.array([[2, 3, 0], [1, 5, 2]]), np.array([3, 0, 2])]),
    ("Maximum-int", ops.Maximum(), [np.array([[2, -3, 0]]), np.array([[1], [-5]])]),
    ("Select-int", ops.Select(), [np.array([True, False]), np.array([1, 2]), np.array([3, 4])]),
    ("Pad-int", ops.Pad(((0, 1), (2, 0))), [np.array([[1, 2], [3, 4]])]),
    ("ZerosLike-bool", ops.ZerosLike(), [np.array([True, False])]),
    # index primitives: negative indices wrap once, no indices is a no-op, 0-d indices
    ("Gather-negative-axis", lib.Gather(-1), [_RNG.standard_normal((2, 5)), np.array([-5, 4, -1])]),
    ("Gather-0d-index", lib.Gather(1), [_RNG.standard_normal((2, 3)), np.array(-2)]),
    ("IndexAdd-repeated-negative", lib.IndexAdd(0), [_RNG.standard_normal((4, 2)),
                                                     np.array([-1, 3, 0, -4]),
                                                     _RNG.standard_normal((4, 2))]),
    ("IndexAdd-empty", lib.IndexAdd(1), [_RNG.standard_normal((2, 3)), np.zeros(0, np.int64),
                                         np.zeros((2, 0))]),
    ("ScatterUpdate-2d-indices", lib.ScatterUpdate(), [_RNG.standard_normal((5, 3)),
                                                       np.array([[4, 0], [-4, 2]]),
                                                       _RNG.standard_normal((2, 2, 3))]),
    ("ScatterUpdate-int", lib.ScatterUpdate(), [np.arange(6).reshape(3, 2), np.array([1]),
                                                np.array([[7, 8]])]),
    # floor ops follow NumPy's signs; truth reductions on bools and on floats, keep_dims
    ("FloorMod-signs", ops.FloorMod(), [np.array([7.5, -7.5, 7.5, -7.5]), np.array([2.0, 2.0, -2.0, -2.0])]),
    ("FloorDiv-int-signs", ops.FloorDiv(), [np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])]),
    ("ReduceAny-bool-keepdims", lib.ReduceAny(True, (1,)), [np.array([[True, False], [False, False]])]),
    ("ReduceAll-float-all-axes", lib.ReduceAll(False, (0, 1)), [np.array([[0.5, -1.0], [2.0, 3.0]])]),
    # seq-ops-b: ties keep index order (stable) in TopK and Sort, both directions; int input
    ("TopK-ties", lib.TopK(True, 3), [np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, 0.0, 1.0, 0.0, 1.0]])]),
    ("TopK-smallest-ties", lib.TopK(True, 2, 1, False), [np.array([[2.0, 1.0, 1.0], [0.0, 0.0, 0.0]])]),
    ("Sort-ties-descending", ops.Sort(-1, True), [np.array([[1.0, 3.0, 3.0, 2.0, 3.0]])]),
    ("Sort-ties-int", ops.Sort(0), [np.array([[2, 1], [1, 1], [2, 0]])]),
]


def _all_cases() -> list[tuple[str, Primitive, list[np.ndarray]]]:
    cases = []
    for i, case in enumerate(CASES):
        arrays = [_graph_dtype(a) for a in case.inputs(np.random.default_rng(0))]
        if isinstance(case.prim, lib.Dropout):
            arrays.append(_dropout_mask(arrays[0].shape))
        elif case.prim.host_random:  # the host draw, as graph mode feeds it (Multinomial)
            ms_seed.set_seed(7)
            arrays.append(_graph_dtype(case.prim.draw_mask(*case.prim.random_spec(*arrays))))
        cases.append((f"{i}-{case.id}", case.prim, arrays))
    for name, prim, inputs in EXTRA + _LN_EXTRA:
        cases.append((name, prim, [_graph_dtype(a) for a in inputs]))
    return cases


ALL_CASES = _all_cases()


def case_context(bb: relax.BlockBuilder, prim: Primitive, arrays: list[np.ndarray]) -> LowerContext:
    """The context graph mode would give: specs of the inputs (the Dropout mask included)
    and of the outputs the shape rule declares."""
    inputs = arrays[:-1] if prim.host_random else arrays  # the host draw comes last
    return LowerContext(prim, bb, tuple(Spec(a.shape, a.dtype) for a in arrays),
                        prim.out_specs(*inputs))


def lower_case(bb: relax.BlockBuilder, prim: Primitive, arrays: list[np.ndarray],
               params: list[relax.Var]) -> Any:
    return lowering_for(prim)(case_context(bb, prim, arrays), *params)


def build_case_module(cases: list[tuple[str, Any, list[np.ndarray]]]) -> tvm.IRModule:
    """One Relax function ``case_<i>`` per (name, primitive, inputs): the lowering alone."""
    bb = relax.BlockBuilder()
    for index, (_, prim, arrays) in enumerate(cases):
        params = [relax.Var(f"x{j}", relax.TensorType(a.shape, a.dtype.name))
                  for j, a in enumerate(arrays)]
        with bb.function(f"case_{index}", params):
            with bb.dataflow():
                result = lower_case(bb, prim, arrays, params)
                if isinstance(result, tuple):
                    out = bb.emit_output(relax.Tuple([emit(bb, r) for r in result]))
                else:
                    out = bb.emit_output(result)
            bb.emit_func_output(out)
    return bb.get()


def _build_module() -> tvm.IRModule:
    return build_case_module(ALL_CASES)


@pytest.fixture(scope="module")
def vm() -> Any:
    from framework.backend.tvm.compiler import make_target
    from framework.backend.tvm.schedule.schedules import apply_schedules, build_pipeline

    # exactly the pipeline graph mode runs: legalize + fuse, our CPU schedules, VM build
    target = make_target("CPU")
    mod, _ = apply_schedules(_build_module(), target)
    executable = tvm.compile(mod, target, relax_pipeline=build_pipeline(target))
    return relax.VirtualMachine(executable, tvm.cpu())


def _to_numpy(value: Any) -> tuple[np.ndarray, ...]:
    if isinstance(value, tvm.runtime.Tensor):
        return (value.numpy(),)
    return tuple(v.numpy() for v in value)


def test_every_primitive_has_a_lowering() -> None:
    # without a TVM lowering, a primitive's own NumPy kernel runs on the host (CPU builds)
    missing = [cls.__name__ for cls in Primitive.registry if cls not in lowerings.LOWERINGS
               and cls.kernel is Primitive.kernel]
    assert not missing, f"primitives without a TVM lowering or a NumPy kernel: {missing}"
    assert not hasattr(Primitive, "lower")  # lowerings live in the backend's table
    for _, prim, _ in ALL_CASES:
        assert lowering_for(prim) is lowerings.LOWERINGS.get(type(prim), lower_on_host)


def test_a_primitive_without_lowering_is_named() -> None:
    class Unlowered(Primitive, abstract=True):  # abstract: stays out of the registry
        pass

    with pytest.raises(NotImplementedError, match="Unlowered has no TVM lowering"):
        lowering_for(Unlowered())


def test_every_primitive_is_exercised() -> None:
    covered = {type(prim) for _, prim, _ in ALL_CASES}
    assert not [cls.__name__ for cls in Primitive.registry if cls not in covered]


@pytest.mark.parametrize("index", range(len(ALL_CASES)), ids=[c[0] for c in ALL_CASES])
def test_lowering_matches_kernel(vm: Any, index: int) -> None:
    name, prim, arrays = ALL_CASES[index]
    got = _to_numpy(vm[f"case_{index}"](*[tvm.runtime.tensor(a) for a in arrays]))
    want = _expected(prim, arrays)
    assert len(got) == len(want) == prim.num_outputs
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{name} output {k}: shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"{name} output {k}: dtype {g.dtype} != {w.dtype}"
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=f"{name} output {k}")
        else:
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"{name} output {k}")


def test_lowered_types_match_shape_rule() -> None:
    """The Relax type of every lowered output is the primitive's ``infer`` result."""
    bb = relax.BlockBuilder()
    for index, (_, prim, arrays) in enumerate(ALL_CASES):
        params = [relax.Var(f"x{j}", relax.TensorType(a.shape, a.dtype.name))
                  for j, a in enumerate(arrays)]
        with bb.function(f"types_{index}", params):
            with bb.dataflow():
                ctx = case_context(bb, prim, arrays)
                result = lowering_for(prim)(ctx, *params)
                outs = result if isinstance(result, tuple) else (result,)
                emitted = [emit(bb, r) for r in outs]
                assert len(emitted) == len(ctx.out_specs) == prim.num_outputs, prim
                for spec, var in zip(ctx.out_specs, emitted):
                    assert spec_of(var) == spec, prim
                out = bb.emit_output(relax.Tuple(emitted))
            bb.emit_func_output(out)


def test_graph_lowerings_get_the_node_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``to_relax`` hands every lowering the specs of its IR node (the Dropout mask among
    the inputs), and each lowering returns values of exactly the node's output specs."""
    from framework import Tensor, nn
    from framework.backend.tvm.compiler import to_relax
    from framework.backend.tvm.lower import accumulate
    from framework.graph_mode import JitFunction

    seen: list[tuple[LowerContext, tuple]] = []

    def recording(lower: Any) -> Any:
        def wrapper(ctx: LowerContext, *args: Any) -> Any:
            result = lower(ctx, *args)
            outs = tuple(emit(ctx.bb, r) for r in (result if isinstance(result, tuple) else (result,)))
            seen.append((ctx, tuple(spec_of(o) for o in outs)))
            return outs if isinstance(result, tuple) else outs[0]
        return wrapper

    for cls, lower in list(lowerings.LOWERINGS.items()):
        monkeypatch.setitem(lowerings.LOWERINGS, cls, recording(lower))
    # node by node: no Add(acc, MatMul) pair lowered as one kernel (test_accumulate.py)
    monkeypatch.setattr(accumulate, "plan", lambda nodes, uses: {})
    net = nn.SequentialCell(nn.Conv2d(1, 4, 3, pad_mode="valid"), nn.BatchNorm2d(4), nn.ReLU(),
                            nn.Flatten(), nn.Dropout(p=0.25), nn.Dense(4 * 6 * 6, 3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train(True)
    x, y = Tensor(np.ones((4, 1, 8, 8), np.float32)), Tensor(np.arange(4, dtype=np.int32) % 3)
    traced = JitFunction(step.construct, cell=step).trace((x, y))
    graph, outs = traced.graph, traced.out_leaves
    graph.outputs = [outs[0]._data]
    to_relax(graph)
    assert [ctx.prim for ctx, _ in seen] == [node.prim for node in graph.nodes]
    for (ctx, lowered), node in zip(seen, graph.nodes):
        assert ctx.in_specs == tuple((v.shape, v.dtype) for v in node.inputs), node.prim
        assert ctx.out_specs == tuple((v.shape, v.dtype) for v in node.outputs), node.prim
        assert lowered == ctx.out_specs, node.prim
    dropout = [ctx for ctx, _ in seen if isinstance(ctx.prim, lib.Dropout)]
    assert dropout and len(dropout[0].in_specs) == 2  # x and the host-drawn mask
