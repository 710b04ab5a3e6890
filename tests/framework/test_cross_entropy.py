"""``nn.CrossEntropyLoss`` / ``ops.cross_entropy`` over ``(N, C)`` and ``(N, C, d1, ...)``
logits against PyTorch's ``F.cross_entropy`` (values and gradients of the logits), in both
modes; ``ignore_index`` left out of the mean. PyTorch runs once, in a subprocess with
``PYTHONPATH=$TORCH_PATH`` (skipped when absent); a NumPy reference checks the N-d layout
without it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.torch_ref import TORCH_PATH, have_torch, needs_torch, reference

SCRIPT = Path(__file__).with_name("torch_seq_ops.py")

W4 = [0.2, 1.0, 3.0, 0.5]
# (logits shape, label kind, options); class axis 1, 4 classes
CASES = [
    ((6, 4), "index", {}),
    ((6, 4), "index", dict(ignore_index=2, reduction="sum")),
    ((6, 4), "index", dict(weight=W4, ignore_index=1, label_smoothing=0.1)),
    ((3, 4, 5), "index", {}),
    ((3, 4, 5), "index", dict(ignore_index=-100, reduction="none")),
    ((2, 4, 3, 2), "index", dict(weight=W4, label_smoothing=0.2)),
    ((2, 4, 3, 2), "index", dict(weight=W4, ignore_index=0, reduction="none")),
    ((2, 4, 3), "prob", dict(weight=W4, label_smoothing=0.1)),
    ((5, 4), "prob", dict(reduction="sum")),
]


def _case_id(case):
    shape, kind, opts = case
    return f"{'x'.join(map(str, shape))}-{kind}-" + ",".join(f"{k}={v}" for k, v in opts.items())


def _inputs(i: int, case):
    shape, kind, opts = case
    rng = np.random.default_rng(100 + i)
    logits = (rng.standard_normal(shape) * 2).astype(np.float32)
    label_shape = shape[:1] + shape[2:]
    if kind == "index":
        labels = rng.integers(0, shape[1], label_shape).astype(np.int32)
        ignore = opts.get("ignore_index", -100)
        labels.flat[::4] = ignore  # every 4th target ignored (an in-range class, or -100)
    else:
        labels = rng.uniform(0.1, 1.0, shape).astype(np.float32)
        labels /= labels.sum(1, keepdims=True)
    out_shape = label_shape if opts.get("reduction") == "none" else ()
    dout = rng.standard_normal(out_shape).astype(np.float32)
    return logits, labels, dout


def _ours(case, logits, labels, dout, compiled: bool, functional: bool):
    opts = dict(case[2])
    weight = opts.pop("weight", None)
    weight = None if weight is None else Tensor(np.array(weight, np.float32))
    cell = nn.CrossEntropyLoss(weight=weight, **opts)

    def loss(z, y):
        value = ops.cross_entropy(z, y, weight, **opts) if functional else cell(z, y)
        return ops.reduce_sum(ops.mul(value, Tensor(dout))), value

    fn = ms.value_and_grad(loss, 0, has_aux=True)
    fn = ms.jit(fn) if compiled else fn
    (_, value), grad = fn(Tensor(logits), Tensor(labels))
    return value.asnumpy(), grad.asnumpy()


@pytest.fixture(scope="module")
def torch_ref(tmp_path_factory):
    if not have_torch:
        pytest.skip(f"no PyTorch at TORCH_PATH={TORCH_PATH}")
    tmp = tmp_path_factory.mktemp("ce")
    arrays = {"kind": "cross_entropy", "count": len(CASES)}
    for i, case in enumerate(CASES):
        logits, labels, dout = _inputs(i, case)
        opts = dict(case[2])
        if "weight" in opts:
            arrays[f"{i}.weight"] = np.array(opts.pop("weight"), np.float32)
        arrays.update({f"{i}.logits": logits, f"{i}.labels": labels, f"{i}.dout": dout,
                       f"{i}.opts": json.dumps(opts)})
    return reference(SCRIPT, tmp, **arrays)


@needs_torch
@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
@pytest.mark.parametrize("i", range(len(CASES)), ids=[_case_id(c) for c in CASES])
def test_matches_pytorch(torch_ref, i, compiled):
    case = CASES[i]
    logits, labels, dout = _inputs(i, case)
    value, grad = _ours(case, logits, labels, dout, compiled, functional=i % 2 == 1)
    np.testing.assert_allclose(value, torch_ref[f"{i}.loss"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(grad, torch_ref[f"{i}.grad"], rtol=2e-5, atol=1e-6)


def _np_ce(logits, labels, ignore):
    """Unweighted mean cross entropy, class axis 1, ignored targets left out."""
    z = np.moveaxis(logits.astype(np.float64), 1, -1)
    log_p = z - z.max(-1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(-1, keepdims=True))
    keep = labels != ignore
    picked = np.take_along_axis(log_p, np.where(keep, labels, 0)[..., None], -1)[..., 0]
    return -(picked * keep).sum() / keep.sum()


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "graph"])
def test_nd_logits_against_numpy(compiled):
    logits, labels, dout = _inputs(3, CASES[3])
    value, grad = _ours(CASES[3], logits, labels, dout, compiled, functional=False)
    np.testing.assert_allclose(value, _np_ce(logits, labels, -100), rtol=1e-5)
    eps, numeric = 1e-3, np.zeros_like(grad)
    for idx in np.ndindex(logits.shape):
        d = np.zeros(logits.shape)
        d[idx] = eps
        numeric[idx] = (_np_ce(logits + d, labels, -100) - _np_ce(logits - d, labels, -100)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric * dout, rtol=1e-3, atol=1e-6)
    ignored = np.moveaxis(grad, 1, -1)[labels == -100]
    assert ignored.size and not ignored.any()  # ignored positions get no gradient


def test_nd_label_shape_and_reduction_errors():
    with pytest.raises(ValueError, match=r"logits \(2, 4, 3\) need class indices of shape \(2, 3\)"):
        ops.cross_entropy(Tensor(np.zeros((2, 4, 3), np.float32)), Tensor(np.zeros((2, 4), np.int32)))
    with pytest.raises(ValueError, match="reduction must be one of"):
        ops.cross_entropy(Tensor(np.zeros((2, 4), np.float32)), Tensor(np.zeros(2, np.int32)),
                          reduction="avg")
