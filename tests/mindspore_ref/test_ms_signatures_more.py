"""``P.*`` classes built with MindSpore 2.10's constructor keywords and called with its call
arguments (:mod:`tests.mindspore_ref.ms_signatures_more_programs`) in both modes: against
MindSpore's recorded answers (``ms_signatures_more_expected.json``, CI), our two modes against
each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.ops import operations as P
from tests.mindspore_ref.ms_signatures_more_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_signatures_more_expected.json", per_mode=True,
                    tolerance={"*": {"rtol": 2e-5, "atol": 2e-6}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- ours only: what MindSpore 2.10's CPU build cannot run, checked against NumPy ------------
X = np.array([[0.3, -1.2, 2.5, 0.7], [1.9, -0.4, -2.2, 0.05], [-0.6, 1.1, 0.45, -1.7]], np.float32)
IMG = (np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6) % 7 - 3) / 3


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gatherv2_is_gather_at_call_axis(mode):
    """MindSpore's pynative P.GatherV2()(x, i, axis) asks 4 inputs (its 2.10 bug); the
    documented call is Gather's."""
    ms.set_context(mode=mode)
    idx = np.array([2, 0, 2], np.int32)
    run = ms.jit(lambda x, i: P.GatherV2()(x, i, 1)) if mode == ms.GRAPH_MODE else \
        (lambda x, i: P.GatherV2()(x, i, 1))
    np.testing.assert_array_equal(run(Tensor(X), Tensor(idx)).asnumpy(), np.take(X, idx, 1))


@pytest.mark.parametrize("cls", ["MaxPool", "AvgPool"])
def test_pool_nhwc_is_the_nchw_pool_transposed(cls):
    """data_format='NHWC' (MindSpore: GPU only; its CPU build refuses it) pools the H, W axes
    of an (N, H, W, C) input."""
    nhwc = getattr(P, cls)(kernel_size=2, strides=2, pad_mode="valid", data_format="NHWC")
    nchw = getattr(P, cls)(kernel_size=2, strides=2, pad_mode="valid")
    got = nhwc(Tensor(IMG.transpose(0, 2, 3, 1))).asnumpy()
    np.testing.assert_allclose(got, nchw(Tensor(IMG)).asnumpy().transpose(0, 2, 3, 1), rtol=1e-6)
    windows = IMG.reshape(2, 3, 2, 2, 3, 2)
    want = windows.max(axis=(3, 5)) if cls == "MaxPool" else windows.mean(axis=(3, 5))
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1), rtol=1e-6)
    with pytest.raises(ValueError, match="data_format"):
        getattr(P, cls)(data_format="NCWH")


def test_batchnorm_nhwc_normalizes_the_last_axis():
    c = IMG.shape[1]
    scale, bias = np.linspace(0.5, 1.5, c, dtype=np.float32), np.linspace(-1, 1, c, dtype=np.float32)
    mean, var = np.linspace(-0.2, 0.2, c, dtype=np.float32), np.linspace(1, 2, c, dtype=np.float32)
    params = [Tensor(a) for a in (scale, bias, mean, var)]
    y = P.BatchNorm(is_training=False, data_format="NHWC")(Tensor(IMG.transpose(0, 2, 3, 1)), *params)[0]
    want = (IMG.transpose(0, 2, 3, 1) - mean) / np.sqrt(var + 1e-5) * scale + bias
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("gradients_mean", [True, False])
def test_grad_reducer_mean_none_reads_the_context(gradients_mean):
    """DistributedGradReducer(mean=None): the parallel context's gradients_mean decides
    (MindSpore's; MindSpore 2.10 on a standalone CPU process segfaults on it)."""
    from framework.parallel_context import reset_auto_parallel_context, set_auto_parallel_context

    set_auto_parallel_context(gradients_mean=gradients_mean)
    try:
        params = [ms.Parameter(Tensor(np.zeros((3, 4), np.float32)), name="w")]
        reducer = nn.DistributedGradReducer(params, mean=None, degree=2, fusion_type=1,
                                            group="hccl_world_group")
        got = reducer((Tensor(X),))[0].asnumpy()
    finally:
        reset_auto_parallel_context()
    np.testing.assert_allclose(got, X / 2 if gradients_mean else X, rtol=1e-6)
    with pytest.raises(ValueError, match="only the world group"):
        nn.DistributedGradReducer(params, group="my_group")


def test_graph_cell_takes_obf_random_seed_none_only(tmp_path):
    net = nn.Dense(4, 2)
    path = ms.export(net, Tensor(X), file_name=str(tmp_path / "dense"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(path), params_init=None, obf_random_seed=None)
    np.testing.assert_allclose(cell(Tensor(X)).asnumpy(), net(Tensor(X)).asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="obf_random_seed"):
        nn.GraphCell(ms.load(path), obf_random_seed=7)


def test_sync_batchnorm_takes_dtype():
    net = nn.SyncBatchNorm(3, dtype=ms.float32)
    net.set_train(False)
    assert net.gamma.dtype == ms.float32
    want = IMG / np.sqrt(1 + 1e-5)  # moving mean 0, variance 1, gamma 1, beta 0
    np.testing.assert_allclose(net(Tensor(IMG)).asnumpy(), want, rtol=1e-5)


def _layer_norm(x: np.ndarray, axes: int, w=None, b=None, eps: float = 1e-5) -> np.ndarray:
    """The published formula: (x - mean) / sqrt(var + eps) over the last ``axes`` axes."""
    flat = x.reshape(x.shape[:x.ndim - axes] + (-1,)).astype(np.float64)
    y = ((flat - flat.mean(-1, keepdims=True)) / np.sqrt(flat.var(-1, keepdims=True) + eps)).reshape(x.shape)
    return y * (1 if w is None else w) + (0 if b is None else b)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_layer_norm_normalized_shape_form(mode):
    """ops.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) (MindSpore's
    CPU build cannot run it: UNTESTABLE in the programs), against the formula; the gradient
    against central differences."""
    ms.set_context(mode=mode)
    w = np.array([0.5, -1.0, 0.25, 2.0, 1.5, 0.75], np.float32)
    calls = {
        "shape": (lambda x: ops.layer_norm(x, normalized_shape=(4, 6), eps=1e-5),
                  lambda a: _layer_norm(a, 2)),
        "int": (lambda x: ops.layer_norm(input=x, normalized_shape=6), lambda a: _layer_norm(a, 1)),
        "affine": (lambda x: ops.layer_norm(x, (6,), Tensor(w), Tensor(w * 0.5), 1e-3),
                   lambda a: _layer_norm(a, 1, w, w * 0.5, 1e-3)),
    }
    for name, (fn, ref) in calls.items():
        run = ms.jit(fn) if mode == ms.GRAPH_MODE else fn
        np.testing.assert_allclose(run(Tensor(IMG)).asnumpy(), ref(IMG), rtol=1e-4, atol=1e-5, err_msg=name)
    probe = np.cos(np.arange(IMG.size)).reshape(IMG.shape)
    fn, ref = calls["affine"]
    grad = ops.grad(lambda x: (fn(x) * Tensor(probe.astype(np.float32))).sum())
    got = (ms.jit(grad) if mode == ms.GRAPH_MODE else grad)(Tensor(IMG)).asnumpy()
    h, want = 1e-4, np.zeros(IMG.shape)
    base = IMG.astype(np.float64)
    for i in [(0, 0, 0, 0), (1, 2, 3, 5), (0, 1, 2, 3)]:
        up, down = base.copy(), base.copy()
        up[i] += h
        down[i] -= h
        want[i] = ((ref(up) - ref(down)) * probe).sum() / (2 * h)
        np.testing.assert_allclose(got[i], want[i], rtol=2e-3, atol=2e-4, err_msg=str(i))
