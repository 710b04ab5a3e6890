"""Issue 25's gaps (:mod:`tests.mindspore_ref.ms_gaps_programs`: ``P.Conv2D``'s MindSpore
constructor, Tensors into metrics and callbacks, ``LossMonitor``'s lines, placeholders with
``set_inputs``/``input_signature``, float16 ``BatchNorm1d``, batched ``ops.matmul``
gradients, the jit context keys) in both modes: against MindSpore's recorded answers per
mode (``ms_gaps_expected.json``, CI), our two modes against each other where MindSpore's
agree, and MindSpore itself where ``MINDSPORE_PYTHON`` names its venv. Then what the
programs cannot show: ``LossMonitor`` under pytest's capture, placeholders' messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.ops import operations as P
from tests.mindspore_ref.ms_gaps_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import MODES

# float16 training: MindSpore's own two modes differ in the last bits
TOLERANCE = {"batchnorm1d_float16": {"rtol": 2e-3, "atol": 2e-3},
             "conv2d_gradients": {"rtol": 1e-5, "atol": 1e-5},
             "conv2d_positional": {"rtol": 1e-5, "atol": 1e-6}}
# set_inputs is checked in graph mode only (MindSpore's PyNative ignores it)
MODE_DEPENDENT = {"set_inputs", "set_inputs_wrong_count"}
RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_gaps_expected.json", per_mode=True,
                    tolerance=TOLERANCE, mode_dependent=MODE_DEPENDENT)
RUN = RECORDED.run
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- ours only ----------------------------------------------------------------------------
def _tiny_model():
    from framework.train import Model

    net = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.SGD(net.trainable_params(), 0.1))


def _batches():
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 32
    return [(x[i:i + 4], np.array([0, 1, 0, 1], np.int32)) for i in (0, 4)]


@pytest.mark.parametrize("mode", MODES)
def test_loss_monitor_lines_reach_pytest_capture(capsys, mode):
    """Printed to the captured stdout (also after a progress bar was used), nothing lost."""
    from framework.train import LossMonitor

    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        print("before")
        _tiny_model().train(2, _batches(), callbacks=LossMonitor())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "before"
    heads = [line.rsplit(" ", 1)[0] for line in lines[1:]]
    assert heads == [f"epoch: {e} step: {s}, loss is" for e in (1, 2) for s in (1, 2)]
    assert all(np.isfinite(float(line.rsplit(" ", 1)[1])) for line in lines[1:])


def test_conv2d_keyword_form_and_group_dispatch():
    """The library's keyword form (``framework.ops.conv.Conv2D``) builds the same primitive
    as MindSpore's ``P.Conv2D``; group > 1 is a GroupConv2D, checked against NumPy's
    per-group convolution."""
    from framework.ops.conv import Conv2D
    from framework.ops.group_conv import GroupConv2D

    keyword = Conv2D(stride=2, pad_mode="pad", pad=1)
    positional = P.Conv2D(4, 3, 1, "pad", 1, 2)
    assert keyword.key() == positional.key() and keyword.out_channel is None
    grouped = P.Conv2D(4, 1, group=2)
    assert isinstance(grouped, GroupConv2D) and grouped.group == 2
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    w = np.arange(1, 9, dtype=np.float32).reshape(4, 2, 1, 1)
    want = np.concatenate([np.einsum("oc,nchw->nohw", w[2 * g:2 * g + 2, :, 0, 0], x[:, 2 * g:2 * g + 2])
                           for g in range(2)], axis=1)
    np.testing.assert_allclose(grouped(Tensor(x), Tensor(w)).asnumpy(), want)
    with pytest.raises(ValueError, match="kernel_size"):
        P.Conv2D(4, 0)


def test_placeholder_refuses_values_with_a_clear_message():
    ph = Tensor(shape=[None, 3], dtype=ms.float32)
    with pytest.raises(ValueError, match="placeholder"):
        ph.asnumpy()
    with pytest.raises(ValueError, match="give a dtype"):
        Tensor(shape=[2, None])
    with pytest.raises(TypeError, match="shape entries"):
        Tensor(shape=[2.5, 3], dtype=ms.float32)
