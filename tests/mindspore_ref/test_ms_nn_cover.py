"""The ``nn``/``mint.optim``/``mint.special``/``mint.linalg`` names of
:mod:`tests.mindspore_ref.ms_nn_cover_programs` (optimizers, learning-rate schedules,
metrics, RNN and Transformer cells, loss-scale cells, losses, base classes) in both modes:
against MindSpore 2.10's recorded answers (``ms_nn_cover_expected.json``, CI), our two modes
against each other, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then
checks against closed forms and NumPy that need no recording (and ``DistributedGradReducer``
on one process, which MindSpore cannot run standalone)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from framework import Parameter, Tensor, nn, ops
from tests.mindspore_ref.ms_nn_cover_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

TOL = {"rtol": 2e-5, "atol": 2e-6}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_nn_cover_expected.json", per_mode=True,
                    tolerance={"*": TOL}, mode_dependent=())
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------
def test_lr_lists_follow_their_formulas():
    lr, rate, total, per_epoch, epochs = 0.1, 0.9, 6, 2, 1
    want = [lr * rate ** ((i // per_epoch) / epochs) for i in range(total)]
    np.testing.assert_allclose(nn.exponential_decay_lr(lr, rate, total, per_epoch, epochs), want)
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.01]) == [0.1, 0.1, 0.01, 0.01, 0.01]
    cosine = nn.cosine_decay_lr(0.0, 1.0, 4, 1, 4)
    np.testing.assert_allclose(cosine, [0.5 * (1 + math.cos(math.pi * i / 4)) for i in range(4)])


def test_lr_cells_follow_their_formulas():
    steps = [Tensor(np.array(s, np.int32)) for s in range(5)]
    got = [float(nn.NaturalExpDecayLR(0.1, 0.5, 2)(s).asnumpy()) for s in steps]
    # MindSpore 2.10: the exponent is the step itself, not step / decay_steps
    np.testing.assert_allclose(got, [0.1 * math.exp(-0.5 * s) for s in range(5)], rtol=1e-6)
    got = [float(nn.WarmUpLR(0.1, 3)(s).asnumpy()) for s in steps]
    np.testing.assert_allclose(got, [0.1 * min(s, 3) / 3 for s in range(5)], rtol=1e-6)


def test_loss_base_weights_scale_before_reducing():
    class Weighted(nn.LossBase):
        def construct(self, x, y):
            return self.get_loss(ops.abs(x - y), Tensor(np.array([1.0, 3.0], np.float32)))

    x = np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
    y = np.zeros_like(x)
    got = Weighted()(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, (np.abs(x) * [1.0, 3.0]).mean(), rtol=1e-6)
    assert Weighted("none")(Tensor(x), Tensor(y)).shape == (2, 2)


def test_adam_first_step_is_lr_times_sign():
    """Adam's first bias-corrected step is lr * g / (|g| + eps'), about lr * sign(g)."""
    w = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")
    opt = nn.Adam([w], learning_rate=0.01, eps=1e-8)
    grad = np.array([0.3, -2.0, 1e-3], np.float32)
    opt((Tensor(grad),))
    np.testing.assert_allclose(w.asnumpy(), np.array([0.5, -1.0, 2.0]) - 0.01 * np.sign(grad), rtol=1e-4)


def test_distributed_grad_reducer_on_one_process_keeps_gradients():
    w = [Parameter(Tensor(np.ones((2, 3), np.float32)), name="a"),
         Parameter(Tensor(np.ones(4, np.float32)), name="b")]
    grads = (Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), Tensor(np.full(4, -2.0, np.float32)))
    out = nn.DistributedGradReducer(w, mean=True, degree=1)(grads)
    for got, want in zip(out, grads):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_linalg_inv_and_norms_match_numpy(shape):
    from framework import mint

    a = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    a += 3 * np.eye(shape[-1], dtype=np.float32)
    np.testing.assert_allclose(mint.linalg.inv(Tensor(a)).asnumpy(), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mint.linalg.matrix_norm(Tensor(a)).asnumpy(),
                               np.linalg.norm(a, "fro", axis=(-2, -1)), rtol=1e-5)
    np.testing.assert_allclose(mint.linalg.vector_norm(Tensor(a), 3).asnumpy(),
                               (np.abs(a) ** 3).sum() ** (1 / 3), rtol=1e-5)


def test_mint_adam_adds_eps_after_the_bias_correction():
    """mint.optim.Adam is PyTorch's update (MindSpore 2.10's): two steps against NumPy."""
    from framework import mint

    w0 = np.array([0.5, -0.3], np.float32)
    w = Parameter(Tensor(w0), name="w")
    opt = mint.optim.Adam([w], lr=0.1, eps=1e-3, weight_decay=0.2)
    m = v = np.zeros(2)
    want = w0.astype(np.float64)
    for t, g in enumerate(([0.01, -0.2], [0.03, 0.1]), 1):
        opt((Tensor(np.array(g, np.float32)),))
        g = np.array(g) + 0.2 * want
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        want = want - 0.1 / (1 - 0.9 ** t) * m / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-3)
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-5)
