"""Spatial blocks moved between axes: ``space_to_batch_nd`` / ``batch_to_space_nd`` (blocks
of the last spatial axes to and from the batch axis), ``unfold`` / ``fold`` / ``col2im``
(sliding patches to and from columns) and ``mirror_pad`` (reflected borders).

All are reshapes, transposes, zero pads and slices, or a ``Gather`` / ``IndexAdd`` at
positions computed on the host from the shapes, so both modes and the gradients are those
primitives'. Layout as MindSpore's: ``(N, C, *spatial)``; a block's offset is the outer
part of the batch axis (``out[(offset) * N + n]``); patches are ordered channel, then
kernel row, kernel column, and their positions row-major.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error
from .creation import zeros
from .nn_ops import matmul
from .scatter_gather import gather, index_add
from .shape_ops import pad, reshape, slice_, transpose


def _tensor(array: Any) -> Any:
    return Tensor(np.ascontiguousarray(array))


def _ints(op: str, name: str, value: Any, count: int) -> tuple[int, ...]:
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    out = np.asarray(data).reshape(-1)
    if out.size == 1:
        out = np.repeat(out, count)
    if out.size != count or out.dtype.kind not in "iu":
        raise argument_error(op, ValueError(f"{name} must be an int or {count} ints, got {value!r}"))
    return tuple(int(v) for v in out)


def _pairs(op: str, name: str, value: Any, count: int) -> tuple[tuple[int, int], ...]:
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    out = np.asarray(data)
    if out.shape != (count, 2) or out.dtype.kind not in "iu" or (out < 0).any():
        raise argument_error(op, ValueError(
            f"{name} must be {count} pairs of ints >= 0, got {np.asarray(data).tolist()!r}"))
    return tuple((int(a), int(b)) for a, b in out)


def _spatial(block: Any, shape: tuple[int, ...]) -> int:
    """How many trailing axes are spatial: one per block entry (an int: all after N, C)."""
    return len(shape) - 2 if isinstance(block, int) else np.asarray(block).size


def space_to_batch_nd(input_x, block_size, paddings):
    """Pad the last ``M = len(block_size)`` axes, then move each block offset into the batch."""
    shape = tuple(input_x.shape)
    m = _spatial(block_size, shape)
    blocks = _ints("space_to_batch_nd", "block_size", block_size, m)
    pads = _pairs("space_to_batch_nd", "paddings", paddings, m)
    lead = len(shape) - m
    padded = tuple(d + a + b for d, (a, b) in zip(shape[lead:], pads))
    if any(p % k for p, k in zip(padded, blocks)):
        raise argument_error("space_to_batch_nd", ValueError(
            f"padded spatial shape {padded} must be divisible by block_size {blocks}"))
    x = pad(input_x, ((0, 0),) * lead + pads)
    split = shape[:lead] + tuple(v for p, k in zip(padded, blocks) for v in (p // k, k))
    x = reshape(x, split)
    perm = tuple(lead + 2 * i + 1 for i in range(m)) + tuple(range(lead)) + \
        tuple(lead + 2 * i for i in range(m))
    x = transpose(x, perm)
    return reshape(x, (int(np.prod(blocks)) * shape[0],) + shape[1:lead] +
                   tuple(p // k for p, k in zip(padded, blocks)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of ``space_to_batch_nd``: batch blocks back into the last axes, cropped."""
    shape = tuple(input_x.shape)
    m = _spatial(block_shape, shape)
    blocks = _ints("batch_to_space_nd", "block_shape", block_shape, m)
    cut = _pairs("batch_to_space_nd", "crops", crops, m)
    count = int(np.prod(blocks))
    if shape[0] % count:
        raise argument_error("batch_to_space_nd", ValueError(
            f"the batch ({shape[0]}) must be divisible by the block count {count}"))
    lead = len(shape) - m
    x = reshape(input_x, blocks + (shape[0] // count,) + shape[1:])
    perm = (m,) + tuple(range(m + 1, m + lead)) + \
        tuple(v for i in range(m) for v in (m + lead + i, i))
    x = transpose(x, perm)
    full = tuple(d * k for d, k in zip(shape[lead:], blocks))
    x = reshape(x, (shape[0] // count,) + shape[1:lead] + full)
    if any(a + b > d for (a, b), d in zip(cut, full)):
        raise argument_error("batch_to_space_nd", ValueError(f"crops {cut} exceed the spatial shape {full}"))
    return slice_(x, (0,) * lead + tuple(a for a, _ in cut),
                  tuple(x.shape[:lead]) + tuple(d - a - b for (a, b), d in zip(cut, full)))


def mirror_pad(input_x, paddings, mode):
    """Each axis padded with its own entries mirrored: ``'REFLECT'`` leaves the edge out,
    ``'SYMMETRIC'`` repeats it."""
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise argument_error("mirror_pad", ValueError(f"mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}"))
    pads = _pairs("mirror_pad", "paddings", paddings, len(input_x.shape))
    out = input_x
    for axis, ((a, b), n) in enumerate(zip(pads, input_x.shape)):
        limit = n - 1 if mode == "REFLECT" else n
        if a > limit or b > limit:
            raise argument_error("mirror_pad", ValueError(
                f"paddings {pads[axis]} of axis {axis} (size {n}) exceed {limit} for {mode}"))
        if a or b:
            where = np.pad(np.arange(n), (a, b), mode="reflect" if mode == "REFLECT" else "symmetric")
            out = gather(out, _tensor(where.astype(np.int64)), axis)
    return out


def _patches(op: str, size: tuple[int, int], kernel_size: Any, dilation: Any, padding: Any,
             stride: Any) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """Positions (kernel entries, patches) of each patch entry in the padded plane, the
    padded plane's shape and the padding."""
    k, d, p, s = (_ints(op, n, v, 2) for n, v in (("kernel_size", kernel_size), ("dilation", dilation),
                                                   ("padding", padding), ("stride", stride)))
    if min(k + d + s) < 1 or min(p) < 0:
        raise argument_error(op, ValueError("kernel_size, dilation and stride must be >= 1, padding >= 0"))
    plane = (size[0] + 2 * p[0], size[1] + 2 * p[1])
    blocks = [(plane[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in (0, 1)]
    if min(blocks) < 1:
        raise argument_error(op, ValueError(f"the kernel {k} (dilation {d}) does not fit the padded "
                                            f"input {plane}"))
    rows = (np.arange(k[0]) * d[0])[:, None, None, None] + (np.arange(blocks[0]) * s[0])[None, None, :, None]
    cols = (np.arange(k[1]) * d[1])[None, :, None, None] + (np.arange(blocks[1]) * s[1])[None, None, None, :]
    return (rows * plane[1] + cols).reshape(k[0] * k[1], -1), plane, p


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002  (MindSpore's names)
    """Sliding patches of a ``(N, C, H, W)`` input as columns: ``(N, C * kh * kw, L)``."""
    if len(input.shape) != 4:
        raise argument_error("unfold", ValueError(f"input must be (N, C, H, W), got {tuple(input.shape)}"))
    n, c, h, w = input.shape
    where, plane, p = _patches("unfold", (h, w), kernel_size, dilation, padding, stride)
    x = reshape(pad(input, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1]))), (n, c, plane[0] * plane[1]))
    cols = gather(x, _tensor(where), 2)
    return reshape(cols, (n, c * where.shape[0], where.shape[1]))


def _output_size(op: str, output_size: Any) -> tuple[int, int]:
    data = getattr(output_size, "_data", output_size)
    if not isinstance(data, np.ndarray | list | tuple | int):
        raise argument_error(op, RuntimeError("output_size must have its values (a tuple, or a "
                                              "tensor outside graph mode)"))
    return _ints(op, "output_size", data, 2)  # type: ignore[return-value]


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Columns ``(N, C * kh * kw, L)`` summed back into ``(N, C, *output_size)``: ``unfold``'s
    adjoint (overlapping entries add)."""
    size = _output_size("fold", output_size)
    where, plane, p = _patches("fold", size, kernel_size, dilation, padding, stride)
    kk, count = where.shape
    if len(input.shape) != 3 or input.shape[1] % kk or input.shape[2] != count:
        raise argument_error("fold", ValueError(
            f"input must be (N, C * {kk}, {count}) for these sizes, got {tuple(input.shape)}"))
    return _fold(input, where, plane, p, size)


def _fold(cols: Any, where: np.ndarray, plane: tuple[int, int], p: tuple[int, int],
          size: tuple[int, int]) -> Any:
    n, c = cols.shape[0], cols.shape[1] // where.shape[0]
    flat = reshape(cols, (n, c, where.size))
    image = index_add(zeros((n, c, plane[0] * plane[1]), cols.dtype), _tensor(where.reshape(-1)), flat, 2)
    image = reshape(image, (n, c) + plane)
    return slice_(image, (0, 0, p[0], p[1]), (n, c) + size)


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """``fold`` of columns laid out ``(N, C, kh * kw, L)``."""
    size = _output_size("col2im", output_size)
    where, plane, p = _patches("col2im", size, kernel_size, dilation, padding_value, stride)
    if len(input_x.shape) != 4 or tuple(input_x.shape[2:]) != where.shape:
        raise argument_error("col2im", ValueError(
            f"input_x must be (N, C, {where.shape[0]}, {where.shape[1]}) for these sizes, got "
            f"{tuple(input_x.shape)}"))
    n, c = input_x.shape[:2]
    return _fold(reshape(input_x, (n, c * where.shape[0], where.shape[1])), where, plane, p, size)


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1,
                     output_padding=0):
    """The transpose (input gradient) of a 3-d convolution: each input entry adds
    ``x * weight`` into the output window it maps to, ``(N, Cin, D, H, W)`` with weight
    ``(Cin, Cout, kd, kh, kw)`` giving ``(N, Cout, (D - 1) * s + d * (k - 1) + 1 - pads +
    output_padding, ...)``; ``padding`` is 1 or 6 ints (head, tail, top, bottom, left, right)."""
    op = "conv3d_transpose"
    if len(inputs.shape) != 5 or len(weight.shape) != 5 or weight.shape[0] != inputs.shape[1]:
        raise argument_error(op, ValueError(
            f"inputs (N, Cin, D, H, W) and weight (Cin, Cout, kd, kh, kw) must agree, got "
            f"{tuple(inputs.shape)} and {tuple(weight.shape)}"))
    if group != 1:
        raise argument_error(op, ValueError(f"group must be 1 (as on MindSpore's CPU), got {group}"))
    if pad_mode not in ("valid", "same", "pad"):
        raise argument_error(op, ValueError(
            f"pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}"))
    n, cin, *spatial = inputs.shape
    cout, kernel = weight.shape[1], tuple(weight.shape[2:])
    s, d = _ints(op, "stride", stride, 3), _ints(op, "dilation", dilation, 3)
    extra = _ints(op, "output_padding", output_padding, 3)
    if pad_mode != "pad" and (any(extra) or padding not in (0, (0,) * 6)):
        raise argument_error(op, ValueError("padding and output_padding need pad_mode='pad'"))
    full = tuple((i - 1) * si + di * (k - 1) + 1 for i, si, di, k in zip(spatial, s, d, kernel))
    if pad_mode == "pad":
        pads = _ints(op, "padding", padding, 6)
        before, after = pads[0::2], tuple(p - e for p, e in zip(pads[1::2], extra))
    elif pad_mode == "same":
        total = tuple(max(f - i * si, 0) for f, i, si in zip(full, spatial, s))
        before, after = tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)
    else:
        before = after = (0, 0, 0)
    # positions of (kernel entry, input entry) in the uncropped output, padded after by what
    # output_padding adds past it
    grow = tuple(max(-a, 0) for a in after)
    plane = tuple(f + g for f, g in zip(full, grow))
    offsets = [np.arange(k)[:, None] * di + np.arange(i)[None, :] * si
               for k, i, si, di in zip(kernel, spatial, s, d)]
    where = (offsets[0][:, None, None, :, None, None] * plane[1] * plane[2]
             + offsets[1][None, :, None, None, :, None] * plane[2]
             + offsets[2][None, None, :, None, None, :]).reshape(int(np.prod(kernel)), -1)
    # columns[n, co, k, l] = sum_ci weight[ci, co, k] * inputs[n, ci, l]: one product
    pixels = reshape(transpose(reshape(inputs, (n, cin, -1)), (1, 0, 2)), (cin, -1))  # (Cin, N*L)
    columns = matmul(reshape(weight, (cin, -1)), pixels, transpose_a=True)  # (Cout*K, N*L)
    columns = reshape(columns, (cout, where.shape[0], n, where.shape[1]))
    columns = reshape(transpose(columns, (2, 0, 1, 3)), (n, cout, where.size))
    out = zeros((n, cout, int(np.prod(plane))), inputs.dtype)
    out = index_add(out, _tensor(where.reshape(-1)), columns, 2)
    out = reshape(out, (n, cout) + plane)
    size = tuple(p - b - max(a, 0) for p, b, a in zip(plane, before, after))
    if min(size) < 1:
        raise argument_error(op, ValueError(
            f"the padding {before + after} leaves no output of {full}"))
    return slice_(out, (0, 0) + before, (n, cout) + size)
