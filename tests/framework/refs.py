"""Slow, obviously-correct NumPy references for the primitive harness (loops welcome)."""

from __future__ import annotations

import numpy as np


def conv_pads(in_hw, k_hw, stride, dilation, pad_mode, pad):
    if pad_mode == "valid":
        return (0, 0, 0, 0)
    if pad_mode == "pad":
        return pad
    pads = []
    for size, k, s, d in zip(in_hw, k_hw, stride, dilation):
        out = int(np.ceil(size / s))
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def conv2d(x, w, stride, dilation, pads):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    (sh, sw), (dh, dw) = stride, dilation
    ho = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    wo = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    for i in range(ho):
        for j in range(wo):
            for a in range(kh):
                for b in range(kw):
                    patch = xp[:, :, i * sh + a * dh, j * sw + b * dw]  # n, c
                    out[:, :, i, j] += patch @ w[:, :, a, b].T
    return out


def conv2d_input_grad(dy, w, x_shape, stride, dilation, pads):
    n, c, h, wd = x_shape
    _, _, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    dxp = np.zeros((n, c, h + pads[0] + pads[1], wd + pads[2] + pads[3]))
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            for a in range(kh):
                for b in range(kw):
                    dxp[:, :, i * sh + a * dh, j * sw + b * dw] += dy[:, :, i, j] @ w[:, :, a, b]
    return dxp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + wd]


def conv2d_filter_grad(x, dy, w_shape, stride, dilation, pads):
    _, _, kh, kw = w_shape
    (sh, sw), (dh, dw) = stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    dw_ = np.zeros(w_shape)
    for i in range(dy.shape[2]):
        for j in range(dy.shape[3]):
            for a in range(kh):
                for b in range(kw):
                    dw_[:, :, a, b] += dy[:, :, i, j].T @ xp[:, :, i * sh + a * dh, j * sw + b * dw]
    return dw_



def group_conv2d(x, w, stride, dilation, pads, group):
    """Grouped convolution: channel block g of ``x`` with output block g of ``w``."""
    c, o = x.shape[1] // group, w.shape[0] // group
    return np.concatenate([conv2d(x[:, g * c:(g + 1) * c], w[g * o:(g + 1) * o], stride,
                                  dilation, pads) for g in range(group)], axis=1)


def group_conv2d_input_grad(dy, w, x_shape, stride, dilation, pads, group):
    n, c, h, wd = x_shape
    c, o = c // group, w.shape[0] // group
    return np.concatenate([conv2d_input_grad(dy[:, g * o:(g + 1) * o], w[g * o:(g + 1) * o],
                                             (n, c, h, wd), stride, dilation, pads)
                           for g in range(group)], axis=1)


def group_conv2d_filter_grad(x, dy, w_shape, stride, dilation, pads, group):
    c, o = x.shape[1] // group, w_shape[0] // group
    return np.concatenate([conv2d_filter_grad(x[:, g * c:(g + 1) * c], dy[:, g * o:(g + 1) * o],
                                              (o, *w_shape[1:]), stride, dilation, pads)
                           for g in range(group)], axis=0)

def pool_windows(x, k, s, pad_mode):
    """Yield (i, j, window values N x C x K, valid mask K, flat indices into padded x)."""
    pads = conv_pads(x.shape[2:], k, s, (1, 1), pad_mode, None)
    h, w = x.shape[2:]
    ho = (h + pads[0] + pads[1] - k[0]) // s[0] + 1
    wo = (w + pads[2] + pads[3] - k[1]) // s[1] + 1
    for i in range(ho):
        for j in range(wo):
            cells = []
            for a in range(k[0]):
                for b in range(k[1]):
                    r, c = i * s[0] + a - pads[0], j * s[1] + b - pads[2]
                    if 0 <= r < h and 0 <= c < w:
                        cells.append((r, c))
            yield i, j, ho, wo, cells


def max_pool(x, k, s, pad_mode):
    out = None
    for i, j, ho, wo, cells in pool_windows(x, k, s, pad_mode):
        if out is None:
            out = np.zeros(x.shape[:2] + (ho, wo))
        out[:, :, i, j] = np.max([x[:, :, r, c] for r, c in cells], axis=0)
    return out


def max_pool_grad(x, dy, k, s, pad_mode):
    dx = np.zeros(x.shape)
    for i, j, _, _, cells in pool_windows(x, k, s, pad_mode):
        vals = np.stack([x[:, :, r, c] for r, c in cells], axis=-1)
        first = np.argmax(vals, axis=-1)
        for idx, (r, c) in enumerate(cells):
            dx[:, :, r, c] += np.where(first == idx, dy[:, :, i, j], 0.0)
    return dx


def max_pool_grad_transpose(x, g, k, s, pad_mode):
    """``g`` (shaped like ``x``) read at each window's first maximum of ``x``."""
    out = None
    for i, j, ho, wo, cells in pool_windows(x, k, s, pad_mode):
        if out is None:
            out = np.zeros(x.shape[:2] + (ho, wo))
        vals = np.stack([x[:, :, r, c] for r, c in cells], axis=-1)
        first = np.argmax(vals, axis=-1)
        picked = np.stack([g[:, :, r, c] for r, c in cells], axis=-1)
        out[:, :, i, j] = np.take_along_axis(picked, first[..., None], -1)[..., 0]
    return out


def avg_pool(x, k, s, pad_mode):
    out = None
    for i, j, ho, wo, cells in pool_windows(x, k, s, pad_mode):
        if out is None:
            out = np.zeros(x.shape[:2] + (ho, wo))
        out[:, :, i, j] = np.mean([x[:, :, r, c] for r, c in cells], axis=0)
    return out


def avg_pool_grad(x_shape, dy, k, s, pad_mode):
    dx = np.zeros(x_shape)
    for i, j, _, _, cells in pool_windows(np.zeros(x_shape), k, s, pad_mode):
        for r, c in cells:
            dx[:, :, r, c] += dy[:, :, i, j] / len(cells)
    return dx


def batch_norm(x, scale, bias, mean, var, eps, training):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        var = ((x - mean.reshape(shape)) ** 2).mean(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape)
    return y + bias.reshape(shape), mean, var
