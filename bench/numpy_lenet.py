"""Plain NumPy LeNet-5 training step: the reference the framework is measured against.

Independent of ``framework`` on purpose (no shared kernels), and written as fast as plain
NumPy allows, so that "PyNative / NumPy" in bench/step.py compares against a fair
reference:
- activations in NHWC inside the step (the NCHW input is transposed once, the flatten
  before fc1 goes back to NCHW order), so that a convolution is im2col by
  ``as_strided`` (one copy of the windows into a (N*Ho*Wo, k*k*C) matrix) and ONE GEMM
  whose result already is the next NHWC activation; no transposes of activations;
- the weight gradient is one GEMM with the same columns, the input gradient one GEMM
  plus col2im by k*k strided adds;
- 2x2 max pooling by reshape, fused with the ReLU before it (max commutes with ReLU);
  its gradient is a mask by reshape (window entries equal to the window's maximum, where
  that maximum is positive). Exact ties between positive values share the gradient;
  with real-valued data they do not occur.
Tests use it as a gradient reference, benches as a speed one.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

PARAM_NAMES = ("conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight",
               "fc2.bias", "fc3.weight", "fc3.bias")


def _im2col(x: np.ndarray, k: int) -> np.ndarray:
    """(N*Ho*Wo, k*k*C) windows of an NHWC ``x`` (valid, stride 1), in (i, j, c) order."""
    n, h, w, c = x.shape
    ho, wo = h - k + 1, w - k + 1
    sn, sh, sw, sc = x.strides
    view = as_strided(x, (n, ho, wo, k, k, c), (sn, sh, sw, sh, sw, sc), writeable=False)
    return view.reshape(n * ho * wo, k * k * c)


def _conv_forward(x: np.ndarray, w: np.ndarray):
    """NHWC ``x``, OIHW ``w`` -> NHWC output and the columns (kept for the backward)."""
    n, h, wd, _ = x.shape
    o, c, k, _ = w.shape
    cols = _im2col(x, k)
    wmat = w.transpose(2, 3, 1, 0).reshape(k * k * c, o)
    return (cols @ wmat).reshape(n, h - k + 1, wd - k + 1, o), cols, wmat


def _conv_backward(dout: np.ndarray, cols, wmat, w_shape, x_shape, need_dx: bool):
    o, c, k, _ = w_shape
    d2 = dout.reshape(-1, o)
    dw = (cols.T @ d2).reshape(k, k, c, o).transpose(3, 2, 0, 1)
    if not need_dx:
        return None, dw
    n, h, wd, _ = x_shape
    ho, wo = h - k + 1, wd - k + 1
    dcols = (d2 @ wmat.T).reshape(n, ho, wo, k, k, c)
    dx = np.zeros(x_shape, dout.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, i:i + ho, j:j + wo] += dcols[:, :, :, i, j]
    return dx, dw


def _relu_pool_forward(x: np.ndarray):
    """max_pool2x2(relu(x)) of an NHWC ``x``; returns the output and the window view."""
    n, h, w, c = x.shape
    r = x.reshape(n, h // 2, 2, w // 2, 2, c)
    return np.maximum(r.max(axis=(2, 4)), 0), r


def _relu_pool_backward(dout: np.ndarray, r: np.ndarray, out: np.ndarray) -> np.ndarray:
    n, ho, _, wo, _, c = r.shape
    peak = out[:, :, None, :, None, :]
    grad = np.where((r == peak) & (peak > 0), dout[:, :, None, :, None, :], np.float32(0))
    return grad.reshape(n, ho * 2, wo * 2, c)


def loss_and_grads(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray):
    """Mean softmax cross-entropy of LeNet-5 and its gradients (``x`` NCHW, N x 1 x 32 x 32)."""
    w1, w2 = params["conv1.weight"], params["conv2.weight"]
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    c1, cols1, wm1 = _conv_forward(xh, w1)
    p1, pr1 = _relu_pool_forward(c1)
    c2, cols2, wm2 = _conv_forward(p1, w2)
    p2, pr2 = _relu_pool_forward(c2)
    n = len(x)
    f = p2.transpose(0, 3, 1, 2).reshape(n, -1)  # NCHW order, as the weights expect
    h1 = f @ params["fc1.weight"].T + params["fc1.bias"]
    a1 = np.maximum(h1, 0)
    h2 = a1 @ params["fc2.weight"].T + params["fc2.bias"]
    a2 = np.maximum(h2, 0)
    logits = a2 @ params["fc3.weight"].T + params["fc3.bias"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), y].mean()

    g = {}
    dlogits = np.exp(logp)
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    g["fc3.weight"], g["fc3.bias"] = dlogits.T @ a2, dlogits.sum(0)
    da2 = (dlogits @ params["fc3.weight"]) * (h2 > 0)
    g["fc2.weight"], g["fc2.bias"] = da2.T @ a1, da2.sum(0)
    da1 = (da2 @ params["fc2.weight"]) * (h1 > 0)
    g["fc1.weight"], g["fc1.bias"] = da1.T @ f, da1.sum(0)
    dp2 = (da1 @ params["fc1.weight"]).reshape(n, *p2.shape[3:], *p2.shape[1:3])
    dc2 = _relu_pool_backward(dp2.transpose(0, 2, 3, 1), pr2, p2)
    dp1, g["conv2.weight"] = _conv_backward(dc2, cols2, wm2, w2.shape, p1.shape, True)
    dc1 = _relu_pool_backward(dp1, pr1, p1)
    _, g["conv1.weight"] = _conv_backward(dc1, cols1, wm1, w1.shape, xh.shape, False)
    return np.float32(loss), g


def momentum_step(params, moments, x, y, lr=0.01, momentum=0.9):
    """One training step in place; returns the loss."""
    loss, grads = loss_and_grads(params, x, y)
    for name in PARAM_NAMES:
        moments[name] *= momentum
        moments[name] += grads[name]
        params[name] -= lr * moments[name]
    return loss
