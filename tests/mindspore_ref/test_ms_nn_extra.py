"""Issue 25's second batch (:mod:`tests.mindspore_ref.ms_nn_extra_programs`: losses, 1-d and
adaptive pooling, padding and shuffle cells, distances, group norm, cumulative ops,
products, array and math functions) in both modes, values, dtypes and gradients: against
MindSpore's recorded answers (``ms_nn_extra_expected.json``, CI), our two modes against
each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then what
MindSpore 2.10 cannot answer on CPU (the gradients of ``cummax``/``cummin``: its kernel
raises; channel dropout in training: random; adaptive pooling of sizes that do not divide
the length: refused), checked against NumPy and finite differences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.ms_nn_extra_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import both_modes

TOL = {"rtol": 2e-5, "atol": 2e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_nn_extra_expected.json", per_mode=False,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- where MindSpore 2.10 gives no answer on CPU: NumPy and finite differences ------------
X = np.array([[0.3, -1.2, 2.5, 0.7, 1.1], [1.9, -0.4, -2.2, 0.05, 2.4], [-0.6, 1.1, 0.45, -1.7, 0.2]],
             np.float32)




@pytest.mark.parametrize("name, running", [("cummax", np.maximum.accumulate),
                                            ("cummin", np.minimum.accumulate)])
def test_cummax_cummin_gradient_reaches_the_running_entry(name, running):
    for axis in (0, 1):
        g = ops.grad(lambda t, a=axis: getattr(ops, name)(t, a)[0].sum())(Tensor(X)).asnumpy()
        values = running(X, axis=axis)
        # each output position takes the gradient to the entry its value came from
        want = np.zeros_like(X)
        moved = np.moveaxis(values, axis, 0)
        source = np.moveaxis(X, axis, 0)
        counts = np.moveaxis(want, axis, 0)
        for i in range(moved.shape[0]):
            for j in np.ndindex(moved.shape[1:]):
                k = max(m for m in range(i + 1) if source[(m, *j)] == moved[(i, *j)])
                counts[(k, *j)] += 1
        np.testing.assert_array_equal(g, want)


def test_adaptive_pooling_of_any_size_matches_numpy():
    x = np.random.RandomState(0).randn(2, 3, 7, 5).astype(np.float32)

    def ref(v, out_h, out_w, reduce):
        h, w = v.shape[-2:]
        rows = [(i * h // out_h, -(-(i + 1) * h // out_h)) for i in range(out_h)]
        cols = [(j * w // out_w, -(-(j + 1) * w // out_w)) for j in range(out_w)]
        return np.stack([np.stack([reduce(v[..., a:b, c:d], axis=(-2, -1)) for c, d in cols], -1)
                         for a, b in rows], -2)

    for fn, reduce in ((ops.adaptive_avg_pool2d, np.mean), (ops.adaptive_max_pool2d, np.max)):
        for got in both_modes(lambda t, f=fn: f(t, (3, 2)), x):
            np.testing.assert_allclose(got, ref(x, 3, 2, reduce), rtol=1e-6, atol=1e-6)
    for got in both_modes(lambda t: ops.adaptive_avg_pool1d(t, 3), x[0]):
        np.testing.assert_allclose(got, ref(x[0][..., None, :], 1, 3, np.mean)[..., 0, :],
                                   rtol=1e-6, atol=1e-6)


def test_channel_dropout_zeroes_whole_channels_in_training():
    ms.set_seed(3)
    x = np.ones((4, 6, 5, 3), np.float32)
    for fn in (ops.dropout2d, ops.dropout1d):
        v = x if fn is ops.dropout2d else x[..., 0]
        out = fn(Tensor(v), 0.5).asnumpy()
        per_channel = out.reshape(*out.shape[:2], -1)
        assert set(np.unique(per_channel)) <= {0.0, 2.0}
        assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels
        assert 0 < (per_channel[..., 0] == 0).sum() < per_channel[..., 0].size
    cell = nn.Dropout2d(0.5)
    cell.set_train(True)
    assert set(np.unique(cell(Tensor(x)).asnumpy())) <= {0.0, 2.0}


def test_bad_inputs_say_what_and_where():
    with pytest.raises(ValueError, match="reduction"):
        ops.l1_loss(Tensor(X), Tensor(X), "avg")
    with pytest.raises(ValueError, match="ceil_mode"):
        ops.avg_pool1d(Tensor(X[None]), 2, 2, ceil_mode=True)
    with pytest.raises(ValueError, match="divisible"):
        ops.pixel_shuffle(Tensor(np.zeros((1, 3, 2, 2), np.float32)), 2)
    with pytest.raises(ValueError, match="class indices"):
        ops.nll_loss(Tensor(X), Tensor(np.zeros((2,), np.int32)))
    with pytest.raises(ValueError, match="return_indices"):
        nn.AdaptiveMaxPool2d(2, return_indices=True)
    with pytest.raises(ValueError, match="rank >= 2"):
        ops.dot(Tensor(X[0]), Tensor(X[0]))
    with pytest.raises(ValueError, match="padding"):
        nn.ZeroPad2d((1, 2, 3))
