"""Products: ``mm``, ``bmm``, ``mv``, ``dot``, ``inner``, ``ger``, ``vecdot``,
``kron``, ``tensor_dot``, ``cross`` and the scaled sums ``addmm``, ``addmv``, ``addr``,
``baddbmm``, ``addbmm``, ``addcmul``, ``addcdiv``: compositions of MatMul/BatchMatMul,
broadcasting products and sums (both modes and gradients from their rules).

Contracts: shapes as MindSpore's (``mm`` 2-D x 2-D, ``bmm`` over equal batch axes, ``mv`` 2-D x 1-D,
``dot`` NumPy's dot of ranks >= 2, ``inner`` over the last axes, ``ger`` the outer product of two vectors);
``add*(input, a, b, beta=1, alpha=1)`` is ``beta * input + alpha * product(a, b)``
(``addbmm`` sums the batch of products); ``addcmul``/``addcdiv(input, t1, t2, value=1)``
are ``input + value * t1 * t2`` and ``input + value * t1 / t2``; ``cross(input, other,
dim=None)`` is the 3-vector cross product along ``dim`` (the first axis of size 3 when
None); ``tensor_dot(x1, x2, axes)`` contracts the given axes (an int ``n``: the last ``n``
of ``x1`` with the first ``n`` of ``x2``).
"""

from __future__ import annotations

import math
from typing import Any

from .nn_ops import matmul
from .reduce import reduce_sum
from .shape_ops import concat, expand_dims, reshape, transpose


def _rank(who: str, name: str, x: Any, rank: int) -> None:
    if len(x.shape) != rank:
        raise ValueError(f"{who}: {name} must be {rank}-D, got shape {tuple(x.shape)}")


def mm(input, mat2):  # noqa: A002  (MindSpore's parameter names)
    _rank("mm", "input", input, 2)
    _rank("mm", "mat2", mat2, 2)
    return matmul(input, mat2)


def bmm(input_x, mat2):
    """Matrix products over equal batch axes of any number (MindSpore's BatchMatMul on CPU
    broadcasts none): ``(..., n, k) @ (..., k, m)``, two matrices included."""
    sa, sb = tuple(input_x.shape), tuple(mat2.shape)
    if len(sa) < 2 or len(sb) < 2 or sa[:-2] != sb[:-2]:
        raise ValueError(f"bmm: input_x and mat2 need rank >= 2 and equal batch axes (none "
                         f"broadcast), got shapes {sa} and {sb}")
    return matmul(input_x, mat2)


def mv(mat, vec):
    _rank("mv", "mat", mat, 2)
    _rank("mv", "vec", vec, 1)
    return reshape(matmul(mat, reshape(vec, (-1, 1))), (-1,))


def dot(input, other):  # noqa: A002
    """MindSpore 2.10's ``ops.dot``: NumPy's ``dot`` of tensors of rank >= 2 (the last axis
    of ``input`` with the second-to-last of ``other``)."""
    if len(input.shape) < 2 or len(other.shape) < 2:
        raise ValueError(f"dot: inputs must have rank >= 2, got {tuple(input.shape)} and "
                         f"{tuple(other.shape)}")
    return tensor_dot(input, other, ((len(input.shape) - 1,), (len(other.shape) - 2,)))


def inner(input, other):  # noqa: A002
    if not input.shape or not other.shape:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise ValueError(f"inner: last axes differ: {tuple(input.shape)} and {tuple(other.shape)}")
    a = reshape(input, (-1, input.shape[-1]))
    b = reshape(other, (-1, other.shape[-1]))
    return reshape(matmul(a, b, transpose_b=True), (*input.shape[:-1], *other.shape[:-1]))


def ger(input, vec2):  # noqa: A002
    _rank("ger", "input", input, 1)
    _rank("ger", "vec2", vec2, 1)
    return expand_dims(input, 1) * expand_dims(vec2, 0)


def vecdot(x, y, *, axis=-1):
    return reduce_sum(x * y, axis)


def kron(input, other):  # noqa: A002
    rank = max(len(input.shape), len(other.shape))
    a = reshape(input, (1,) * (rank - len(input.shape)) + tuple(input.shape))
    b = reshape(other, (1,) * (rank - len(other.shape)) + tuple(other.shape))
    # a[i, None, j, None] * b[None, k, None, l] -> (i*k, j*l)
    a = reshape(a, tuple(d for n in a.shape for d in (n, 1)))
    b = reshape(b, tuple(d for n in b.shape for d in (1, n)))
    out = a * b  # (n1, m1, n2, m2, ...)
    return reshape(out, tuple(out.shape[2 * i] * out.shape[2 * i + 1] for i in range(rank)))


def _scaled(beta: Any, x: Any, alpha: Any, product: Any) -> Any:
    left = x if beta == 1 else x * beta
    return left + (product if alpha == 1 else product * alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    return _scaled(beta, input, alpha, mm(mat1, mat2))


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    return _scaled(beta, input, alpha, mv(mat, vec))


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    return _scaled(beta, x, alpha, ger(vec1, vec2))


def baddbmm(input, batch1, batch2, beta=1, alpha=1):  # noqa: A002
    return _scaled(beta, input, alpha, bmm(batch1, batch2))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    return _scaled(beta, input, alpha, reduce_sum(bmm(batch1, batch2), 0))


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    return input + value * tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    return input + value * tensor1 / tensor2


def cross(input, other, dim=None):  # noqa: A002
    shape = tuple(input.shape)
    if dim is None:
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
    if dim is None or shape[dim] != 3 or tuple(other.shape) != shape:
        raise ValueError(f"cross: inputs of one shape with size 3 on axis {dim} needed, got "
                         f"{shape} and {tuple(other.shape)}")
    dim %= len(shape)
    lead = (slice(None),) * dim

    def part(x: Any, i: int) -> Any:
        return x[(*lead, slice(i, i + 1))]

    a, b = [part(input, i) for i in range(3)], [part(other, i) for i in range(3)]
    return concat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]], dim)


def _contracted(x1: Any, x2: Any, axes: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, int):
        axes = (tuple(range(len(x1.shape) - axes, len(x1.shape))), tuple(range(axes)))
    a_axes = [axes[0]] if isinstance(axes[0], int) else list(axes[0])
    b_axes = [axes[1]] if isinstance(axes[1], int) else list(axes[1])
    return [a % len(x1.shape) for a in a_axes], [b % len(x2.shape) for b in b_axes]


def tensor_dot(x1, x2, axes):
    a_axes, b_axes = _contracted(x1, x2, axes)
    if [x1.shape[a] for a in a_axes] != [x2.shape[b] for b in b_axes]:
        raise ValueError(f"tensor_dot: contracted sizes differ: {tuple(x1.shape)} axes {a_axes}, "
                         f"{tuple(x2.shape)} axes {b_axes}")
    a_free = [i for i in range(len(x1.shape)) if i not in a_axes]
    b_free = [i for i in range(len(x2.shape)) if i not in b_axes]
    k = math.prod(x1.shape[a] for a in a_axes)
    a = reshape(transpose(x1, (*a_free, *a_axes)), (-1, k))
    b = reshape(transpose(x2, (*b_axes, *b_free)), (k, -1))
    return reshape(matmul(a, b), (*(x1.shape[i] for i in a_free), *(x2.shape[i] for i in b_free)))
