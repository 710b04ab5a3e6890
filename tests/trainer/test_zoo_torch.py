"""ResNet-20 against PyTorch: the same weights and batch give the same training-mode loss,
the same gradients of every parameter, the same parameters after one SGD-with-momentum
step, the same loss after it, and the same evaluation-mode logits on the updated BatchNorm
running statistics (float32 tolerances).

PyTorch stays out of the main venv (``tvm_ffi`` imports it at start-up when installed) and
out of this process: ``tests/trainer/torch_resnet.py`` runs in a subprocess with
``PYTHONPATH=$TORCH_PATH`` (default ``/tmp/torchlib``; make one with
``pip install torch==2.13.0 --target /tmp/torchlib``). Skipped when no torch is there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import framework as ms
from framework import Tensor, nn
from tests.torch_ref import needs_torch, reference
from trainer.models import build_model

SCRIPT = Path(__file__).with_name("torch_resnet.py")


def _close(got, want, what, rtol=2e-4):
    """float32 agreement relative to the tensor's scale (sums of thousands of products)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = max(float(np.abs(want).max()), 1e-12)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


@needs_torch
def test_resnet20_step_matches_pytorch(tmp_path):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = build_model("resnet20", num_classes=10)
    params = net.trainable_params()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 32, 32)).astype(np.float32)
    y = np.array([3, 0, 9, 3], np.int32)
    lr, momentum = 0.1, 0.9
    ref = reference(SCRIPT, tmp_path, depth=20, num_classes=10, lr=lr, momentum=momentum, x=x, y=y,
                    **{f"p{i:03d}": p.asnumpy() for i, p in enumerate(params)})

    loss_cell = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    net.set_train(True)
    loss, grads = ms.value_and_grad(loss_cell, None, params)(Tensor(x), Tensor(y))
    _close(loss.asnumpy(), ref["loss"], "loss", rtol=1e-5)
    assert len(grads) == len(params) == 3 * 19 + 3 * 2 + 2  # conv, gamma, beta (+ shortcuts), fc
    for i, (p, g) in enumerate(zip(params, grads, strict=True)):
        _close(g.asnumpy(), ref[f"g{i:03d}"], f"gradient of {p.name}")

    # the same step through the training cell (its forward updates the running statistics
    # once, as torch's does; the value_and_grad call above updated them too: reset first)
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.BatchNorm2d):
            cell.moving_mean.set_data(Tensor(np.zeros(cell.num_features, np.float32)))
            cell.moving_variance.set_data(Tensor(np.ones(cell.num_features, np.float32)))
    step = nn.TrainOneStepCell(loss_cell, nn.Momentum(params, lr, momentum))
    step.set_train()
    _close(step(Tensor(x), Tensor(y)).asnumpy(), ref["loss"], "loss of the step", rtol=1e-5)
    for i, p in enumerate(params):
        _close(p.asnumpy(), ref[f"q{i:03d}"], f"{p.name} after the step")
    _close(loss_cell(Tensor(x), Tensor(y)).asnumpy(), ref["loss2"], "loss after the step")
    net.set_train(False)
    _close(net(Tensor(x)).asnumpy(), ref["eval_logits"], "evaluation logits after the step")
