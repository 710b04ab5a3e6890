"""Row kernels scheduled row by row (framework/backend/tvm/schedule/row_fusion.py): TOPI's softmax,
log-softmax and a layer-norm-like kernel on awkward row lengths against NumPy float64,
-inf entries included; kernels that are not row kernels are left to the generic rules."""

from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import te, topi
from tvm.s_tir import Schedule

from framework.backend.tvm.compiler import make_target
from framework.backend.tvm.schedule import cpu_rules, row_fusion


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


# -- LayerNorm's kernels (framework/backend/tvm/lower/layer_norm_kernels.py) ------------------------
def _ln_reference(x, dy, gamma, beta, eps):
    """float64: y, mean, variance, dx (explicit row Jacobian), dgamma, dbeta."""
    mean, var = x.mean(-1), x.var(-1)
    s = np.sqrt(var + eps)[:, None, None]
    c = x - mean[:, None]
    n = x.shape[1]
    jac = (np.eye(n) - 1.0 / n - c[:, :, None] * c[:, None, :] / (n * s ** 2)) / s
    xhat = c / s[:, :, 0]
    return ((xhat * gamma + beta), mean, var, np.einsum("ri,rij->rj", dy * gamma, jac),
            (dy * xhat).sum(0), dy.sum(0))


def _scheduled(outs, inputs, cores):
    sch = Schedule(tvm.IRModule({"main": te.create_prim_func(list(inputs) + list(outs))}))
    assert row_fusion.schedule_rows(sch, cores, 16, cpu_rules.PARALLEL_MIN_WORK)
    return tvm.compile(sch.mod, target=make_target("CPU"))


@pytest.mark.parametrize("rows,length", [((12, 64), 128), ((7,), 40), ((3,), 17)])
def test_layer_norm_kernels_match_numpy(rows: tuple[int, ...], length: int) -> None:
    """The forward (with its row statistics as extra outputs) and the input gradient are
    row kernels, over one or several row axes; the parameters' gradients (generic rules,
    on the flat ``(rows, length)`` view) too are checked here."""
    from framework.backend.tvm.lower import layer_norm_kernels as ln

    rng = np.random.default_rng(2)
    n = int(np.prod(rows))
    xa = (rng.standard_normal((n, length)) * 3 + 2).astype(np.float32)
    dya = rng.standard_normal((n, length)).astype(np.float32)
    ga = rng.uniform(0.5, 2, length).astype(np.float32)
    ba = rng.standard_normal(length).astype(np.float32)
    want = _ln_reference(xa.astype(np.float64), dya.astype(np.float64), ga, ba, 1e-5)
    x, dy = (te.placeholder(rows + (length,), "float32", n) for n in ("x", "dy"))
    g, b = (te.placeholder((length,), "float32", n) for n in ("g", "b"))
    m, v = (te.placeholder(rows, "float32", n) for n in ("m", "v"))
    arr = tvm.runtime.tensor
    view = rows + (length,)
    outs = [arr(np.zeros(s, np.float32)) for s in (view, rows, rows)]
    _scheduled(ln.layer_norm_rows(x, g, b, 1e-5), (x, g, b), 2)(
        arr(xa.reshape(view)), arr(ga), arr(ba), *outs)
    dx = arr(np.zeros(view, np.float32))
    _scheduled([ln.layer_norm_input_grad(dy, x, g, m, v, 1e-5)], (dy, x, g, m, v), 2)(
        arr(dya.reshape(view)), arr(xa.reshape(view)), arr(ga), outs[1], outs[2], dx)
    x2, dy2 = (te.placeholder((n, length), "float32", n_) for n_ in ("x", "dy"))
    m2, v2 = (te.placeholder((n,), "float32", n_) for n_ in ("m", "v"))
    sums = te.create_prim_func([dy2, x2, m2, v2, *ln.layer_norm_param_grads(dy2, x2, m2, v2, 1e-5,
                                                                            length)])
    params = [arr(np.zeros(length, np.float32)) for _ in range(2)]
    tvm.compile(cpu_rules.schedule_func(sums, 2), target=make_target("CPU"))(
        arr(dya), arr(xa), arr(outs[1].numpy().reshape(n)), arr(outs[2].numpy().reshape(n)),
        *params)
    got = [o.numpy().reshape(n, -1).squeeze(-1) if k else o.numpy().reshape(n, length)
           for k, o in enumerate(outs)]
    got += [dx.numpy().reshape(n, length)] + [p.numpy() for p in params]
    for k, (have, expect) in enumerate(zip(got, want)):
        np.testing.assert_allclose(have, expect, rtol=2e-5, atol=2e-5, err_msg=f"output {k}")
