"""The character GPT's train step compiles once for every batch size: its slices of the
fused q/k/v projection take the batch axis whole, its LayerNorms and the Embedding's
gradient (rows added at token ids) lower with a symbolic row count; losses and weights
equal the per-size compile's."""

from __future__ import annotations

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from framework.graph_mode import JitFunction, _front
from framework.ir.symbolic import Affine, SymDim, generalize
from framework.signature import flatten
from trainer.models.gpt import GPT
from trainer.tasks.language_model import TokenCrossEntropy

from .symbolic_context import compiles as _compiles
from .symbolic_context import graph_context  # noqa: F401  (the fixture pytestmark uses)

VOCAB, BLOCK = 11, 8


pytestmark = pytest.mark.usefixtures("graph_context")


def _step():
    ms.set_seed(0)
    net = GPT(VOCAB, block_size=BLOCK, n_layer=1, n_head=2, n_embd=16)
    # momentum, not Adam: Adam's step has the same size for a gradient of 1e-9 or 1, so
    # sums in another order move near-zero-gradient weights by 1e-6 and hide real errors
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return nn.TrainOneStepCell(nn.WithLossCell(net, TokenCrossEntropy()), opt), net


def _tokens(rng, n: int) -> Tensor:
    return Tensor(rng.integers(0, VOCAB, (n, BLOCK)).astype(np.int32))


def test_the_qkv_slices_take_the_batch_axis_whole_and_generalize():
    step, _ = _step()
    jit = JitFunction(step.construct, cell=step)

    def trace(n):
        z = Tensor(np.zeros((n, BLOCK), np.int32))
        return _front(jit, *flatten([z, z])[::2]).graph

    template = generalize(trace(3), 3, trace(5), 5, SymDim())  # no NotSymbolic (Slice's size)
    slices = [node for node in template.graph.nodes if node.prim.name == "Slice"
              and isinstance(template.shape(node.outputs[0])[0], Affine)]
    assert slices and all(template.shape(s.outputs[0])[0] == Affine(1, 0) for s in slices)


@pytest.mark.slow
def test_gpt_train_step_compiles_once_for_every_batch_size():
    dynamic, dnet = _step()
    reference, rnet = _step()
    spec = Tensor(shape=[None, BLOCK], dtype=ms.int32)
    dynamic.set_inputs(spec, spec)
    rng = np.random.default_rng(0)
    before = _compiles()
    for n in (4, 1, 3, 12):
        x, y = _tokens(rng, n), _tokens(rng, n)
        got = dynamic(x, y).asnumpy()
        dynamic_compiles = _compiles()
        want = reference(x, y).asnumpy()  # compiled for this size (no set_inputs)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        for (_, p), (_, q) in zip(dnet.parameters_and_names(), rnet.parameters_and_names()):
            want_p = q.asnumpy()
            np.testing.assert_allclose(p.asnumpy(), want_p, rtol=1e-6, atol=1e-6 * np.abs(want_p).max())
        before += _compiles() - dynamic_compiles  # the reference's own compiles
    assert _compiles() - before == 1
    report = dynamic._graph_runner.last_report
    assert report.symbolic_axes == [[0], [0]] and report.symbolic_fallback is None
