"""A CUDA train step replayed as one CUDA graph, checked without a GPU.

The kernel launches per step are read off the lowered VM function (the compile report's
``launches``): without capture, one per kernel; with it, one per captured graph plus the
kernels left outside. The rewrite that lets the whole step be captured (fixed input buffers,
new parameter values written back in place, outputs into buffers of their own) is run on the
CPU too, where its numbers must be the unrewritten step's, bit for bit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

pytestmark = pytest.mark.slow


def _cuda_launches(model: str) -> dict:
    import gpu_check

    ms.set_context(device_target="GPU")
    try:
        compiled, _ = gpu_check._framework_step(model)
        x, y = gpu_check._batches(model, 1)[0]
        return compiled.compile(Tensor(x), Tensor(y), load=False).launches
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")


@pytest.mark.parametrize("model", ["lenet", "gpt"])
def test_a_train_step_is_at_most_three_launches_with_graph_capture(model):
    launches = _cuda_launches(model)
    assert launches["exact"] and launches["graphs"] >= 1
    assert launches["per_step"] <= 3 < launches["kernels"], launches


def test_without_capture_each_kernel_is_a_launch(monkeypatch):
    monkeypatch.setenv("TWINMODE_CUDA_GRAPH", "0")
    launches = _cuda_launches("lenet")
    assert launches["graphs"] == 0 and "resident_outputs" not in launches
    assert launches["per_step"] == launches["kernels"] > 3  # LeNet: dozens


def test_a_bad_capture_setting_is_one_clear_error(monkeypatch):
    from framework.backend.tvm.compiler import make_target
    from framework.backend.tvm.schedule import cuda_graph

    monkeypatch.setenv("TWINMODE_CUDA_GRAPH", "sometimes")
    with pytest.raises(ValueError, match="TWINMODE_CUDA_GRAPH='sometimes'"):
        cuda_graph.enabled(make_target("GPU"))


def _mlp_step_program():
    """A small train step (two Dense layers, Momentum) traced in graph mode for the CPU."""
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(12, 16), nn.ReLU(), nn.Dense(16, 5)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    compiled = ms.jit(step)
    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((8, 12)).astype(np.float32), rng.integers(0, 5, 8).astype(np.int32))
               for _ in range(3)]
    try:
        compiled.compile(Tensor(batches[0][0]), Tensor(batches[0][1]), load=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return compiled._latest.program, batches


def test_the_resident_step_computes_the_steps_numbers_in_place_on_cpu():
    import tvm
    from tvm import relax

    from framework.backend.tvm.lower.relax_builder import to_relax
    from framework.backend.tvm.schedule import cuda_graph

    program, batches = _mlp_step_program()
    first = len(program.graph.outputs) - len(program.updated)
    ids = [id(p) for p in program.params]
    donated = {first + k: ids.index(id(p)) for k, p in enumerate(program.updated)}
    with tvm.target.Target("llvm"):
        plain = to_relax(program.graph)
    resident, outputs = cuda_graph.resident_step(plain, donated)
    assert outputs is not None and len(outputs) == first  # the loss and the range checks
    cpu = tvm.cpu()
    runs = []
    for mod, extra in ((plain, []), (resident, outputs)):
        main = relax.VirtualMachine(tvm.compile(mod, target="llvm"), cpu)["main"]
        params = [tvm.runtime.tensor(p.asnumpy(), cpu) for p in program.params]
        buffers = [tvm.runtime.empty(shape, dtype, cpu) for shape, dtype in extra]
        losses = []
        for x, y in batches:
            results = list(main(*params, tvm.runtime.tensor(x, cpu), tvm.runtime.tensor(y, cpu), *buffers))
            losses.append(results[0].numpy().item())
            for k, i in sorted(donated.items()):
                if extra:  # written into the parameter's own buffer
                    assert results[k].same_as(params[i])
                params[i] = results[k]
        runs.append((losses, [p.numpy() for p in params]))
    (plain_losses, plain_params), (resident_losses, resident_params) = runs
    assert plain_losses == resident_losses and plain_losses[0] != plain_losses[-1]
    for a, b in zip(plain_params, resident_params):
        np.testing.assert_array_equal(a, b)
