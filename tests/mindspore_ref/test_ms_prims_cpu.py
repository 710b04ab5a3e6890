"""The CPU-supported ``P.*`` classes added last (:mod:`tests.mindspore_ref.ms_prims_cpu_programs`:
loop operators, Python-function operators, ``STFT``, image, box, recurrent and CTC classes)
in both modes: against MindSpore 2.10's recorded answers (``ms_prims_cpu_expected.json``,
CI), our two modes against each other, and MindSpore itself where ``MINDSPORE_PYTHON``
names its venv. Then checks derived from the classes' documented Python equivalents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.mindspore_ref.ms_prims_cpu_programs import PROGRAMS
from tests.mindspore_ref.recorded import Recorded

P = ms.ops.operations

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_prims_cpu_expected.json", per_mode=True,
                    tolerance={"stft": {"rtol": 1e-5, "atol": 1e-5}}, mode_dependent=())
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- independent of the recording ---------------------------------------------------------
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_while_loop_on_a_tensor_condition_follows_the_values(mode):
    """A condition on a traced tensor's value (graph mode runs the Cell interpreted): the
    count of iterations is the input's, with the gradient 2**k of k doublings."""
    class Net(nn.Cell):
        def construct(self, x, limit):
            return P.WhileLoop()(lambda v: v.sum() < limit, lambda v: v * 2.0, x)

    ms.set_context(mode=mode)
    try:
        for start, doublings in ((1.0, 7), (40.0, 2)):
            x = Tensor(np.array([start], np.float32))
            out = Net()(x, Tensor(np.array(100.0, np.float32)))
            np.testing.assert_allclose(out.asnumpy(), [start * 2 ** doublings])
            grad = ops.grad(lambda v: Net()(v, Tensor(np.array(100.0, np.float32))).sum())(x)
            np.testing.assert_allclose(grad.asnumpy(), [2.0 ** doublings])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_fori_loop_with_tensor_bounds_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        class Net(nn.Cell):
            def construct(self, x, n):
                return P.ForiLoop()(0, n, lambda i, v: v + ops.cast(i, ms.float32), x)

        out = Net()(Tensor(np.zeros(2, np.float32)), Tensor(np.array(5, np.int32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), [10.0, 10.0])


def test_scan_with_length_and_no_xs():
    carry, ys = P.Scan()(lambda c, x: (c * 2.0, c + 1.0), Tensor(np.array(1.0, np.float32)), None, 3)
    assert float(carry.asnumpy()) == 8.0 and [float(y.asnumpy()) for y in ys] == [2.0, 3.0, 5.0]


def test_loop_classes_name_bad_arguments():
    with pytest.raises(TypeError, match="WhileLoop: cond_func must be a function"):
        P.WhileLoop()(1, lambda v: v, 0)
    with pytest.raises(TypeError, match="Scan: xs must be a tuple, a list or None"):
        P.Scan()(lambda c, x: (c, x), 0, 3)
    with pytest.raises(ValueError, match=r"Scan: loop_func must return a pair"):
        P.Scan()(lambda c, x: c, 0, [1, 2])


def test_python_function_classes_check_declared_outputs():
    wrong = P.PyFunc(lambda a: a[:2], [ms.float32], [(3,)], [ms.float32], [(3,)])
    with pytest.raises(ValueError, match=r"output 0 of the function has shape \(2,\), \(3,\) was declared"):
        wrong(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="func_type 'aot' launches a compiled kernel library"):
        P.Custom("./add.so:Add", out_shape=[1], out_dtype=ms.float32, func_type="aot")
    pair = P.Custom(lambda a: (a * 2, a.sum()), out_shape=[[3], []], out_dtype=[ms.float32, ms.float64])
    doubled, total = pair(Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    assert total.dtype == ms.float64 and float(total.asnumpy()) == 6.0
    np.testing.assert_array_equal(doubled.asnumpy(), [2.0, 4.0, 6.0])


def test_stft_class_is_the_uncentred_functional_form():
    x = Tensor(np.linspace(-1, 2, 30, dtype=np.float32))
    window = Tensor(np.hanning(8).astype(np.float32))
    ours = P.STFT(8, 2, 8, False, True, True)(x, window).asnumpy()
    want = ops.stft(x, 8, 2, 8, window, center=False, return_complex=True).asnumpy()
    np.testing.assert_allclose(ours, want, rtol=1e-6)
    frames = np.stack([np.linspace(-1, 2, 30)[i * 2:i * 2 + 8] * np.hanning(8) for i in range(12)], 1)
    np.testing.assert_allclose(ours, np.fft.rfft(frames, axis=0), rtol=1e-4, atol=1e-5)


def test_ctc_loss_class_refuses_what_mindspore_refuses():
    x = Tensor(np.zeros((3, 1, 4), np.float32))
    indices = Tensor(np.array([[0, 0], [0, 1], [0, 2], [0, 3]], np.int64))
    values = Tensor(np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError, match=r"CTCLoss: sequences \[0\] have more labels than frames"):
        P.CTCLoss()(x, indices, values, Tensor(np.array([3], np.int32)))
    loss, gradient = P.CTCLoss(ignore_longer_outputs_than_inputs=True)(x, indices, values,
                                                                        Tensor(np.array([3], np.int32)))
    assert np.isinf(loss.asnumpy()).all() and not gradient.asnumpy().any()
    with pytest.raises(NotImplementedError, match="ctc_merge_repeated=False"):
        P.CTCLoss(ctc_merge_repeated=False)


def test_ctc_loss_class_is_the_dense_loss_of_logits():
    """With dense labels the class's loss is ops.ctc_loss of log_softmax (blank last)."""
    x = np.cos(np.arange(5 * 2 * 4, dtype=np.float32).reshape(5, 2, 4))
    indices = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
    values = np.array([2, 0, 1], np.int32)
    loss, _ = P.CTCLoss()(Tensor(x), Tensor(indices), Tensor(values), Tensor(np.array([5, 4], np.int32)))
    want, _ = ops.ctc_loss(ops.log_softmax(Tensor(x), -1), Tensor(np.array([[2, 0], [1, 0]], np.int32)),
                           Tensor(np.array([5, 4], np.int32)), Tensor(np.array([2, 1], np.int32)), blank=3,
                           reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), want.asnumpy(), rtol=1e-6)


def test_deformable_offsets_refuses_unmodulated_as_mindspore():
    """MindSpore 2.10: "For 'DeformableOffsets', The modulated must be set to True."."""
    x, offsets = Tensor(np.zeros((1, 1, 3, 3), np.float32)), Tensor(np.zeros((1, 12, 2, 2), np.float32))
    with pytest.raises(ValueError, match="modulated True"):
        P.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2), modulated=False)(x, offsets)


def test_deformable_offsets_then_strided_conv_is_deformable_conv2d():
    rng = np.random.default_rng(5)
    x = Tensor(rng.standard_normal((1, 2, 5, 5)).astype(np.float32))
    offsets = Tensor(rng.standard_normal((1, 3 * 4, 4, 4)).astype(np.float32))
    weight = Tensor(rng.standard_normal((3, 2, 2, 2)).astype(np.float32))
    patches = P.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))(x, offsets)
    ours = ops.conv2d(patches, weight, stride=2)
    want = ops.deformable_conv2d(x, weight, offsets, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))
    np.testing.assert_allclose(ours.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)
