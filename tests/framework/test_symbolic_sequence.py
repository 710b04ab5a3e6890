"""A symbolic sequence axis beside the batch axis (framework/ir/symbolic.py: several
symbols, dimensions ``n``, ``t`` or ``k * n * t``; Slices whose extent depends on the
size): the GPT compiles once for every batch size and length, equal to PyNative and to a
compile for each shape; the trainer's text step marks both axes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from framework.dynamic_shapes import batch_axes
from framework.graph_mode import JitFunction, _front
from framework.ir.symbolic import Affine, Scaled, SymDim, generalize_sizes
from framework.signature import flatten
from framework.train.model import Model
from trainer.models.gpt import GPT
from trainer.tasks.language_model import LanguageModelTask, TokenCrossEntropy

from .symbolic_context import compiles as _compiles
from .symbolic_context import (
    graph_context,  # noqa: F401  (the fixture pytestmark uses)
    lockstep,
)

VOCAB, BLOCK = 11, 8
SYMS = (SymDim("n"), SymDim("t"))

pytestmark = pytest.mark.usefixtures("graph_context")


def _step():
    ms.set_seed(0)
    net = GPT(VOCAB, block_size=BLOCK, n_layer=1, n_head=2, n_embd=16)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)  # (not Adam: see test_symbolic_gpt)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, TokenCrossEntropy()), opt)
    step.set_train()
    return step, net


def _tokens(rng, n: int, t: int) -> Tensor:
    return Tensor(rng.integers(0, VOCAB, (n, t)).astype(np.int32))


def test_the_gpt_step_generalizes_in_batch_and_length():
    step, _ = _step()
    jit = JitFunction(step.construct, cell=step)

    def trace(n, t):
        z = Tensor(np.zeros((n, t), np.int32))
        return _front(jit, *flatten([z, z])[::2]).graph

    template = generalize_sizes([(trace(5, 5), (5, 5)), (trace(7, 5), (7, 5)), (trace(5, 7), (5, 7))], SYMS)
    dims = {d for shape in template.dims.values() for d in shape if isinstance(d, Affine)}
    assert {Affine(1, 0, ("n",)), Affine(1, 0, ("t",)), Affine(1, 0, ("n", "t"))} <= dims
    # the causal mask and the positions: the max-context constants sliced to t (not folded)
    slices = [s for s in template.graph.nodes if s.prim.name == "Slice" and s.inputs[0].kind == "const"]
    assert {tuple(template.shape(s.outputs[0])) for s in slices} >= {
        (Affine(1, 0, ("t",)),), (Affine(1, 0, ("t",)), Affine(1, 0, ("t",)))}
    # the mean over every token: its count n * t
    assert Scaled(1.0, 1, ("n", "t")) in template.scaled.values()
    assert template.input_axes()[-2:] == [[0, 1], [0, 1]]
    # other sizes: a length of 1 and the whole context (its slices of the whole constants
    # are kept while tracing); a trace of another size than said is refused
    assert template.matches(trace(1, 1), (1, 1)) and template.matches(trace(12, BLOCK), (12, BLOCK))
    assert not template.matches(trace(3, 4), (3, 5))


def test_a_dimension_of_n_plus_t_is_refused_and_compiles_per_size():
    def both(x):
        return ops.concat([x[:, 0], x[0, :]]) * 2.0  # n + t entries

    compiled = ms.jit(both, input_signature=(Tensor(shape=[None, None], dtype=ms.float32),))
    for n, t in ((2, 3), (4, 2)):
        x = np.arange(n * t, dtype=np.float32).reshape(n, t)
        np.testing.assert_array_equal(compiled(Tensor(x)).asnumpy(), np.concatenate([x[:, 0], x[0]]) * 2)
    assert "not a multiple of their product" in compiled.last_report.symbolic_fallback


def test_batch_axes_mark_the_length_of_token_ids_only():
    tokens = np.zeros((4, 9), np.int32)
    images = np.zeros((4, 9, 9), np.float32)
    assert batch_axes([tokens, tokens], sequence=True).axes == {0: (0, 1), 1: (0, 1)}
    assert batch_axes([images, np.zeros(4, np.int32)], sequence=True).axes == {0: (0,), 1: (0,)}
    assert batch_axes([tokens, tokens]).axes == {0: (0,), 1: (0,)}
    assert LanguageModelTask.dynamic_axes == "sequence"


@pytest.mark.slow
def test_slices_with_size_dependent_ends_compile_once():
    table = np.arange(40, dtype=np.float32).reshape(10, 4) * 0.5

    def shifted(x):
        n = x.shape[0]
        return x[1:] * 2.0 + x[:-1] + Tensor(table)[:n - 1]

    compiled = ms.jit(shifted, input_signature=(Tensor(shape=[None, 4], dtype=ms.float32),))
    before = _compiles()
    for n in (3, 2, 7, 11):  # 11: the constant taken whole
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(compiled(Tensor(x)).asnumpy(), x[1:] * 2 + x[:-1] + table[:n - 1],
                                   rtol=1e-6)
    assert _compiles() - before == 1
    assert compiled.last_report.symbolic_axes == [[0]] and compiled.last_report.symbolic_fallback is None


@pytest.mark.slow
def test_gpt_forward_every_length_one_compile_equals_pynative_and_summary_lists_t(tmp_path):
    ms.set_seed(0)
    net = GPT(VOCAB, block_size=BLOCK, n_layer=2, n_head=2, n_embd=16)
    compiled = ms.jit(net.construct, input_signature=(Tensor(shape=[None, None], dtype=ms.int32),),
                      ir_dir=str(tmp_path / "ir"))
    rng = np.random.default_rng(1)
    before = _compiles()
    for n, t in ((2, 5), (1, 1), (3, BLOCK), (4, 2)):
        x = _tokens(rng, n, t)
        got = compiled(x).asnumpy()
        with ms.pynative():
            want = net(x).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert _compiles() - before == 1
    summary = json.loads((tmp_path / "ir" / "summary.json").read_text())
    assert summary["symbolic_axes"] == [[0, 1]] and summary["symbolic_fallback"] is None


@pytest.mark.slow
def test_gpt_train_step_one_compile_for_every_batch_and_length():
    dynamic, dnet = _step()  # the trainer's text step: no signature, both axes dynamic
    model = Model(dynamic, mode="graph")  # (an optimizer-less Model: its step is the cell)
    model.dynamic_axes = LanguageModelTask.dynamic_axes
    run = model._step_for(dynamic, "graph")
    reference, rnet = _step()  # compiled for each shape
    eager, enet = _step()
    rng = np.random.default_rng(0)
    batches = [(_tokens(rng, n, t), _tokens(rng, n, t)) for n, t in ((4, BLOCK), (1, 1), (3, 5), (12, 2))]
    own = lockstep(run, reference, eager, batches, (dnet, rnet, enet))
    assert own == 1
    report = run.report
    assert report.symbolic_axes == [[0, 1], [0, 1]] and report.symbolic_fallback is None
