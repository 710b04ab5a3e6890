"""Row kernels scheduled row by row (framework/backend/tvm/row_fusion.py): TOPI's softmax,
log-softmax and a layer-norm-like kernel on awkward row lengths against NumPy float64,
-inf entries included; kernels that are not row kernels are left to the generic rules."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import te, topi
from tvm.s_tir import Schedule

from framework.backend.tvm import cpu_rules, row_fusion
from framework.backend.tvm.compiler import make_target


def _layer_norm(x):
    n = int(x.shape[-1])
    mean = topi.sum(x, axis=-1)
    mean = te.compute(mean.shape, lambda *i: mean(*i) / float(n), name="mean")
    centered = te.compute(x.shape, lambda *i: x(*i) - mean(*i[:-1]), name="centered")
    centered_sq = te.compute(x.shape, lambda *i: centered(*i) * centered(*i), name="sq")
    var = topi.sum(centered_sq, axis=-1)
    return te.compute(x.shape, lambda *i: centered(*i)
                      / te.sqrt(var(*i[:-1]) / float(n) + 1e-5), name="out")


def _np_layer_norm(a):
    mean = a.mean(-1, keepdims=True)
    return (a - mean) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)


def _np_softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


KERNELS = {
    "softmax": (lambda x: topi.nn.softmax(x, len(x.shape) - 1), _np_softmax),
    "log_softmax": (lambda x: topi.nn.log_softmax(x, len(x.shape) - 1),
                    lambda a: np.log(_np_softmax(a))),
    "layer_norm": (_layer_norm, _np_layer_norm),
}


def _compile(kernel: str, shape: tuple[int, ...], cores: int):
    x = te.placeholder(shape, "float32", "x")
    sch = Schedule(tvm.IRModule({"main": te.create_prim_func([x, KERNELS[kernel][0](x)])}))
    assert row_fusion.schedule_rows(sch, cores, 16, cpu_rules.PARALLEL_MIN_WORK)
    return tvm.compile(sch.mod, target=make_target("CPU"))


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("shape", [(12, 4, 64, 64), (768, 65), (3, 5, 40), (7, 16), (2, 100)])
def test_row_kernel_matches_numpy(kernel: str, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(shape) * 4).astype(np.float32)
    if kernel != "layer_norm":
        a[..., 1] = -np.inf  # masked entries (causal attention)
    out = tvm.runtime.tensor(np.empty_like(a))
    _compile(kernel, shape, 2)(tvm.runtime.tensor(a), out)
    with np.errstate(divide="ignore"):  # log(0) of the masked entries: -inf
        want = KERNELS[kernel][1](a.astype(np.float64))
    got = out.numpy()
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=2e-6)
    assert np.array_equal(got[~finite], want[~finite])


def test_not_a_row_kernel() -> None:
    """A plain reduction (its output is the reduction) and an elementwise map are not."""
    x = te.placeholder((64, 64), "float32", "x")
    for out in (topi.sum(x, axis=-1), topi.exp(x)):
        sch = Schedule(tvm.IRModule({"main": te.create_prim_func([x, out])}))
        assert not row_fusion.schedule_rows(sch, 2, 16, cpu_rules.PARALLEL_MIN_WORK)
