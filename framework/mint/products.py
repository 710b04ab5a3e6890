"""``mint``'s matrix products and distances (PyTorch's names and keywords) on ``framework.ops``.

Contracts: ``matmul`` follows NumPy's ``matmul`` (1-d operands promoted and squeezed);
``bmm``/``mm``/``mv``/``dot``/``outer``/``vdot`` take exactly the ranks their names say;
``addmm``/``addbmm``/``baddbmm``/``addmv`` compute ``beta * input + alpha * product``;
``cdist`` is the p-norm distance between the rows of two (batched) matrices; ``cross`` uses
the first axis of size 3 when ``dim`` is None; ``einsum`` is NumPy's (both modes, through
``ops`` products: two operands at most).
"""

from __future__ import annotations

from ..ops import functional as ops
from ..ops._utils import argument_error


def matmul(input, other):  # noqa: A002
    return ops.matmul(input, other)


def bmm(input, mat2):  # noqa: A002
    if input.ndim != 3 or mat2.ndim != 3:  # mint's is 3-D only (ops.bmm takes any batch)
        raise argument_error("bmm", ValueError(
            f"needs two 3-d tensors, got shapes {tuple(input.shape)} and {tuple(mat2.shape)}"))
    return ops.bmm(input, mat2)


def mm(input, mat2):  # noqa: A002
    return ops.mm(input, mat2)


def mv(input, vec):  # noqa: A002
    return ops.mv(input, vec)


def dot(input, other):  # noqa: A002
    """The inner product of two 1-d tensors."""
    if input.ndim != 1 or other.ndim != 1:
        raise argument_error("dot", ValueError(
            f"needs two 1-d tensors, got shapes {tuple(input.shape)} and {tuple(other.shape)}"))
    return ops.sum(input * other)


def vdot(input, other):  # noqa: A002
    return dot(input, other)


def outer(input, vec2):  # noqa: A002
    return ops.outer(input, vec2)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    return ops.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    return ops.addbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    return ops.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    return ops.addmv(input, mat, vec, beta=beta, alpha=alpha)


def cross(input, other, dim=None):  # noqa: A002
    return ops.cross(input, other, dim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    return ops.cdist(x1, x2, p)


def einsum(equation, *operands):
    """``einsum`` of one or two operands, as a broadcast product summed over the indices
    that leave the output."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    terms, output = _parse(equation, len(operands))
    letters = sorted(set("".join(terms)), key="".join(terms).index)
    aligned = [_align(term, x, letters) for term, x in zip(terms, operands, strict=True)]
    product = aligned[0] if len(aligned) == 1 else aligned[0] * aligned[1]
    summed = tuple(i for i, c in enumerate(letters) if c not in output)
    if summed:
        product = ops.sum(product, summed)
    kept = [c for c in letters if c in output]
    return ops.transpose(product, tuple(kept.index(c) for c in output)) if kept else product


def _parse(equation: str, count: int) -> tuple[list[str], str]:
    """The input terms and the output of an explicit equation ('ij,jk->ik')."""
    if "->" not in equation:
        raise argument_error("einsum", ValueError("give the output indices ('ij,jk->ik')"))
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    if len(terms) != count or not 1 <= len(terms) <= 2 or "." in equation:
        raise argument_error("einsum", ValueError(
            f"{equation!r}: one or two operands without '...' are supported"))
    return terms, output


def _align(term: str, x, letters: list[str]):
    """``x`` (indexed by ``term``) with its axes in ``letters`` order, size-1 where absent."""
    if len(set(term)) != len(term):
        raise argument_error("einsum", ValueError(f"repeated index in {term!r} is not supported"))
    present = [c for c in letters if c in term]
    x = ops.transpose(x, tuple(term.index(c) for c in present)) if present else x
    shape = [x.shape[present.index(c)] if c in term else 1 for c in letters]
    return ops.reshape(x, tuple(shape))


__all__ = sorted(n for n, v in list(globals().items())
                 if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == __name__)
