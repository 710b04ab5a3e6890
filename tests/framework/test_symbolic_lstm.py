"""Begins affine in a symbolic size (framework/ir/symbolic.py: a Slice's ``begin`` and a
Pad's ``paddings`` as ``k * n``) and the LSTM language model's train step: its time loop
unrolls (its structure depends on the length ``t``), each step's rows ``k * n`` of the
stacked outputs, so with the trainer's text axes it compiles once per length, symbolic in
the batch, equal to a compile per shape and to PyNative; ``TWINMODE_PARTIAL_SYMBOLIC=0``
compiles such a function per size (graph_symbolic)."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.graph_mode import JitFunction, _front
from framework.ir.symbolic import Affine, SymDim, generalize
from framework.ops.shape_ops import Pad
from framework.signature import flatten
from framework.train.model import Model
from trainer.models.lstm_lm import LSTMLM
from trainer.tasks.language_model import LanguageModelTask, TokenCrossEntropy

from .symbolic_context import compiles as _compiles
from .symbolic_context import (
    graph_context,  # noqa: F401  (the fixture pytestmark uses)
    lockstep,
)

VOCAB, BLOCK = 11, 6

pytestmark = pytest.mark.usefixtures("graph_context")


def _rows(x, w):
    """Rows ``n .. 2n`` of ``y = [x; 2x; 3x]`` and ``1 .. n`` of ``y / 2``, weighted: slices
    whose gradients are pads of widths ``(n, n)`` and ``(1, 2n - 1)`` (of two tensors: at
    ``n = 1`` two slices or pads of one tensor at one place are one: another program)."""
    n = x.shape[0]
    y = ops.concat([x, x * 2.0, x * 3.0], 0)
    return (y[n:2 * n] * w).sum() + ((y * 0.5)[1:n + 1] * (w + 1.0)).sum()


def _rows_grad(x, w):
    n = len(x)
    gy = np.zeros((3 * n, x.shape[1]), np.float32)
    gy[n:2 * n] += w
    gy[1:n + 1] += 0.5 * (w + 1)
    return gy[:n] + 2 * gy[n:2 * n] + 3 * gy[2 * n:]


def test_a_slice_at_a_symbolic_begin_and_its_gradient_equal_numpy_in_one_compile():
    signature = (Tensor(shape=[None, 4], dtype=ms.float32), Tensor(shape=[None, 4], dtype=ms.float32))
    value = ms.jit(lambda x: ops.concat([x, x * 2.0, x * 3.0], 0)[x.shape[0]:3 * x.shape[0]] * 1.0,
                   input_signature=signature[:1])
    grad = ms.jit(ms.grad(_rows, grad_position=0), input_signature=signature)
    before = _compiles()
    for n in (3, 1, 5, 17):
        rng = np.random.default_rng(n)
        x, w = (rng.standard_normal((n, 4)).astype(np.float32) for _ in range(2))
        np.testing.assert_array_equal(value(Tensor(x)).asnumpy(), np.concatenate([2 * x, 3 * x]))
        np.testing.assert_allclose(grad(Tensor(x), Tensor(w)).asnumpy(), _rows_grad(x, w), rtol=1e-6)
    assert _compiles() - before == 2
    for compiled in (value, grad):
        assert compiled.last_report.symbolic_fallback is None


def test_a_pad_at_symbolic_widths_is_a_slice_gradient():
    def padded(x):
        n = x.shape[0]
        return Pad(((n, 2 * n + 1), (0, 0)))(x) * 1.0  # (the primitive a Slice's gradient is)

    compiled = ms.jit(padded, input_signature=(Tensor(shape=[None, 3], dtype=ms.float32),))
    before = _compiles()
    for n in (2, 1, 6):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_array_equal(compiled(Tensor(x)).asnumpy(), np.pad(x, ((n, 2 * n + 1), (0, 0))))
    assert _compiles() - before == 1 and compiled.last_report.symbolic_fallback is None


def _step(vocab: int = VOCAB):
    ms.set_seed(0)
    net = LSTMLM(vocab, BLOCK, embedding=8, hidden=16, num_layers=2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, TokenCrossEntropy()), opt)
    step.set_train()
    return step, net


def test_the_lstm_step_generalizes_in_the_batch_with_affine_begins():
    step, _ = _step()
    jit = JitFunction(step.construct, cell=step)

    def trace(n):
        z = Tensor(np.zeros((n, BLOCK), np.int32))
        return _front(jit, *flatten([z, z])[::2]).graph

    template = generalize(trace(5), 5, trace(7), 7, SymDim("n"))
    begins = [b for b in template.attrs.values() if any(isinstance(d, Affine) for d in b)]
    # the backward of each layer's stacked outputs: a Slice per step k at rows k * n
    assert {b[0] for b in begins} >= {Affine(k, 0, ("n",)) for k in range(1, BLOCK)}
    assert template.matches(trace(1), 1) and template.matches(trace(17), 17)


@pytest.mark.parametrize("switch", [None, "0"])
def test_a_symbol_that_does_not_generalize_compiles_per_size_of_it_alone_unless_switched_off(
        monkeypatch, switch):
    if switch is not None:
        monkeypatch.setenv("TWINMODE_PARTIAL_SYMBOLIC", switch)
    else:
        monkeypatch.delenv("TWINMODE_PARTIAL_SYMBOLIC", raising=False)

    def half(x):
        return x[:, x.shape[1] // 2:] * 2.0  # begin t // 2: per length; any batch n

    compiled = ms.jit(half, input_signature=(Tensor(shape=[None, None], dtype=ms.float32),))
    before = _compiles()
    for n, t in ((3, 4), (5, 4), (1, 4), (3, 6)):
        x = np.arange(n * t, dtype=np.float32).reshape(n, t)
        np.testing.assert_array_equal(compiled(Tensor(x)).asnumpy(), x[:, t // 2:] * 2.0)
    if switch is None:  # one compile per length, symbolic in the batch
        assert _compiles() - before == 2
        assert compiled.last_report.symbolic_axes == [[0]]
        assert compiled.last_report.symbolic_fallback.startswith("axis t per size (Slice")
    else:
        assert _compiles() - before == 4


@pytest.mark.slow
def test_lstm_lm_step_one_compile_per_length_for_every_batch_equals_per_shape_and_pynative(monkeypatch):
    monkeypatch.delenv("TWINMODE_PARTIAL_SYMBOLIC", raising=False)  # on by default
    dynamic, dnet = _step()  # the trainer's text step: no signature, batch and length marked
    model = Model(dynamic, mode="graph")
    model.dynamic_axes = LanguageModelTask.dynamic_axes
    run = model._step_for(dynamic, "graph")
    reference, rnet = _step()  # compiled for each shape
    eager, enet = _step()
    rng = np.random.default_rng(0)
    batches = [tuple(Tensor(rng.integers(0, VOCAB, (n, BLOCK)).astype(np.int32)) for _ in range(2))
               for n in (4, 1, 17, 3)]  # 1 and 17: no multiple of a vector's width
    own = lockstep(run, reference, eager, batches, (dnet, rnet, enet), eager_params=True)
    assert own == 1
    report = run.report
    assert report.symbolic_axes == [[0], [0]]
    assert report.symbolic_fallback.startswith("axis t per size (SplitRows")
    # another length: its own compile, symbolic in the batch again
    before = _compiles()
    for n in (2, 5):
        x, y = (Tensor(rng.integers(0, VOCAB, (n, BLOCK - 2)).astype(np.int32)) for _ in range(2))
        got = run(x, y)[0].asnumpy()
        np.testing.assert_allclose(got, reference(x, y).asnumpy(), rtol=1e-6)
    assert _compiles() - before == 1 + 2  # one symbolic (this length), two per-shape references
