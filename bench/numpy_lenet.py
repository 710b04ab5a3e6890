"""Plain NumPy LeNet-5 training step: the reference the framework is measured against.

Independent of ``framework`` on purpose (no shared kernels): im2col convolution with
one BLAS contraction, reshape max-pooling, softmax cross entropy and Momentum, all
written out by hand. Tests use it as a gradient reference, benches as a speed one.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

PARAM_NAMES = ("conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight",
               "fc2.bias", "fc3.weight", "fc3.bias")


def _conv_forward(x, w):
    k = w.shape[2]
    cols = sliding_window_view(x, (k, k), axis=(2, 3))  # N, C, Ho, Wo, k, k
    return np.einsum("nchwij,ocij->nohw", cols, w, optimize=True), cols


def _conv_backward(dout, cols, w, x_shape, need_dx):
    dw = np.einsum("nohw,nchwij->ocij", dout, cols, optimize=True)
    if not need_dx:
        return None, dw
    n, c, h, wd = x_shape
    k = w.shape[2]
    ho, wo = dout.shape[2:]
    dx = np.zeros(x_shape, dout.dtype)
    dcols = np.einsum("nohw,ocij->ncijhw", dout, w, optimize=True)
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + ho, j:j + wo] += dcols[:, :, i, j]
    return dx, dw


def _pool_forward(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    return out, r


def _pool_backward(dout, r, out):
    n, c, ho, _, wo, _ = r.shape
    mask = r == out[:, :, :, None, :, None]
    # first maximum of each window only
    flat = mask.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, ho, wo, 4)
    first = flat & (np.cumsum(flat, axis=-1) == 1)
    first = first.reshape(n, c, ho, wo, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return (first * dout[:, :, :, None, :, None]).reshape(n, c, ho * 2, wo * 2)


def loss_and_grads(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray):
    """Mean softmax cross-entropy of LeNet-5 and its gradients."""
    w1, w2 = params["conv1.weight"], params["conv2.weight"]
    c1, cols1 = _conv_forward(x, w1)
    r1 = np.maximum(c1, 0)
    p1, pr1 = _pool_forward(r1)
    c2, cols2 = _conv_forward(p1, w2)
    r2 = np.maximum(c2, 0)
    p2, pr2 = _pool_forward(r2)
    f = p2.reshape(len(x), -1)
    h1 = f @ params["fc1.weight"].T + params["fc1.bias"]
    a1 = np.maximum(h1, 0)
    h2 = a1 @ params["fc2.weight"].T + params["fc2.bias"]
    a2 = np.maximum(h2, 0)
    logits = a2 @ params["fc3.weight"].T + params["fc3.bias"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    n = len(x)
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
    dp2 = (da1 @ params["fc1.weight"]).reshape(p2.shape)
    dr2 = _pool_backward(dp2, pr2, p2) * (c2 > 0)
    dp1, g["conv2.weight"] = _conv_backward(dr2, cols2, w2, p1.shape, True)
    dr1 = _pool_backward(dp1, pr1, p1) * (c1 > 0)
    _, g["conv1.weight"] = _conv_backward(dr1, cols1, w1, x.shape, False)
    return np.float32(loss), g


def momentum_step(params, moments, x, y, lr=0.01, momentum=0.9):
    """One training step in place; returns the loss."""
    loss, grads = loss_and_grads(params, x, y)
    for name in PARAM_NAMES:
        moments[name] *= momentum
        moments[name] += grads[name]
        params[name] -= lr * moments[name]
    return loss
