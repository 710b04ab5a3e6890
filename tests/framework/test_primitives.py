"""One harness over the whole primitive registry (cases: primitive_cases.py).

For every registered primitive: the NumPy kernel against an independent reference,
the shape/dtype rule against what the kernel returns, and the bprop against central
finite differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import ops
from framework.autograd.grad import vjp
from framework.common.tensor import Tensor
from framework.interpreters import apply
from framework.primitive import Primitive

from .primitive_cases import CASES, Case, _check_dropout, _ln_grad_inputs


def _run(prim: Primitive, arrays: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    result = apply(prim, tuple(Tensor(a) for a in arrays))
    result = result if isinstance(result, tuple) else (result,)
    return tuple(r.asnumpy() for r in result)


def _inputs(case: Case, seed: int = 0) -> list[np.ndarray]:
    return [np.asarray(a) for a in case.inputs(np.random.default_rng(seed))]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_kernel_matches_reference(case: Case) -> None:
    arrays = _inputs(case)
    if case.seeded:
        ms.set_seed(3)
    outputs = _run(case.prim, arrays)
    if case.ref is None:
        _check_dropout(arrays[0], outputs)
        return
    expected = case.ref(*arrays)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        want = np.asarray(want)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_shape_rule_matches_kernel(case: Case, dtype: type) -> None:
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in _inputs(case)]
    specs = case.prim.out_specs(*arrays)
    outputs = case.prim.kernel(*arrays)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    assert len(specs) == len(outputs) == case.prim.num_outputs
    for spec, out in zip(specs, outputs):
        out = np.asarray(out)
        assert tuple(spec.shape) == out.shape
        assert np.dtype(spec.dtype) == out.dtype


def _differentiable_positions(case: Case, arrays: list[np.ndarray]) -> tuple[int, ...]:
    if case.diff is not None:
        return case.diff
    return tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")


GRAD_CASES = [c for c in CASES if c.prim.differentiable]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.id)
def test_bprop_matches_finite_differences(case: Case) -> None:
    arrays = _inputs(case, seed=1)
    positions = _differentiable_positions(case, arrays)
    if not positions:
        pytest.skip("no differentiable inputs in this case")
    rng = np.random.default_rng(2)
    outputs = _run(case.prim, arrays)
    cotangents = [rng.standard_normal(o.shape) for o in outputs]

    def forward(*tensors):
        if case.seeded:
            ms.set_seed(5)
        return apply(case.prim, tensors)

    def objective(values: list[np.ndarray]) -> float:
        outs = _run_seeded(values)
        return float(sum(np.sum(o * c) for o, c in zip(outs, cotangents)))

    def _run_seeded(values):
        if case.seeded:
            ms.set_seed(5)
        return _run(case.prim, values)

    sens = tuple(Tensor(c) for c in cotangents)
    _, grads, _ = vjp(forward, [Tensor(a) for a in arrays], positions, (),
                      sens=sens if len(sens) > 1 else sens[0])
    eps = 1e-6
    for pos, grad in zip(positions, grads):
        grad = grad.asnumpy()
        assert grad.shape == arrays[pos].shape
        flat_indices = rng.choice(arrays[pos].size, min(arrays[pos].size, 24), replace=False)
        for flat in flat_indices:
            idx = np.unravel_index(flat, arrays[pos].shape)
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[pos][idx] += eps
            minus[pos][idx] -= eps
            numeric = (objective(plus) - objective(minus)) / (2 * eps)
            np.testing.assert_allclose(grad[idx], numeric, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{case.id}: d/d input {pos} at {idx}")


def test_every_registered_primitive_is_covered() -> None:
    covered = {type(c.prim) for c in CASES}
    missing = [cls.__name__ for cls in Primitive.registry if cls not in covered]
    assert not missing, f"primitives without a harness case: {missing}"


def test_non_differentiable_primitives_are_declared() -> None:
    """Primitives without a bprop must say so (the tape then skips them)."""
    for cls in Primitive.registry:
        has_bprop = cls.bprop is not Primitive.bprop
        assert has_bprop == cls.differentiable, cls.__name__


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradient_when_only_its_output_is_used(training: bool) -> None:
    # the statistics' cotangents then reach bprop as None (none_douts) and their terms drop
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 2, 2))
    scale, bias = rng.standard_normal(3), rng.standard_normal(3)
    mean, var = rng.standard_normal(3), rng.random(3) + 0.5
    c = rng.standard_normal(x.shape)
    prim = ops.BatchNorm(training, 1e-3)

    def objective(values: list[np.ndarray]) -> float:
        return float(np.sum(_run(prim, values)[0] * c))

    def forward(*tensors):
        return apply(prim, tensors)[0]

    arrays = [x, scale, bias, mean, var]
    positions = (0, 1, 2) if training else (0, 1, 2, 3, 4)
    _, grads, _ = vjp(forward, [Tensor(a) for a in arrays], positions, (), sens=Tensor(c))
    for i, grad in zip(positions, grads):
        numeric = np.zeros_like(arrays[i])
        for j in np.ndindex(arrays[i].shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i][j] += 1e-6
            minus[i][j] -= 1e-6
            numeric[j] = (objective(plus) - objective(minus)) / 2e-6
        np.testing.assert_allclose(grad.asnumpy(), numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("used", [0, 1, 2])
def test_layer_norm_grad_gradient_when_one_output_is_used(used: int) -> None:
    # the other outputs' cotangents reach bprop as None (none_douts) and their terms drop
    rng = np.random.default_rng(4)
    arrays = _ln_grad_inputs((2, 3, 4), 1, (4,))(rng)
    prim = ops.LayerNormGrad(1, 2, 1e-6)
    c = rng.standard_normal(prim.out_specs(*arrays)[used].shape)

    def objective(values: list[np.ndarray]) -> float:
        return float(np.sum(_run(prim, values)[used] * c))

    positions = (0, 1, 2, 3, 4)
    _, grads, _ = vjp(lambda *t: apply(prim, t)[used], [Tensor(a) for a in arrays], positions,
                      (), sens=Tensor(c))
    for i, grad in zip(positions, grads):
        numeric = np.zeros_like(arrays[i])
        for j in np.ndindex(arrays[i].shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[i][j] += 1e-6
            minus[i][j] -= 1e-6
            numeric[j] = (objective(plus) - objective(minus)) / 2e-6
        got = np.zeros_like(numeric) if grad is None else grad.asnumpy()
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6, err_msg=f"input {i}")
