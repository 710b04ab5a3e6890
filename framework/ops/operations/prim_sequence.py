"""Sequence, band-matrix and spectral primitive classes (``P.CTCGreedyDecoder()``,
``P.CTCLossV2()``, ``P.MatrixDiagV3()``, ``P.MatrixDiagPartV3()``, ``P.Lstsq()``,
``P.Coalesce()``, ``P.FFTWithSize(...)``) over the functional ops: attributes in the
constructor, tensors in the call, in MindSpore 2.10's argument order. No class holds a rule of
its own: graph, gradient and kernels are those of ``ctc``, ``matrix_diagonals``,
``linalg_solve``, ``value_shaped`` and ``spectral``.

Contracts (``P.X(attrs)(tensors)``):

- ``CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)``: ``(indices, values,
  shape, log_probability)``; ``CTCLossV2(blank=0, reduction='none', zero_infinity=False)
  (log_probs, targets, input_lengths, target_lengths)``: ``(loss, log_alpha)``;
- ``MatrixDiagV3(align='RIGHT_LEFT')(x, k, num_rows, num_cols, padding_value)`` and
  ``MatrixDiagPartV3(align)(x, k, padding_value)``: ``k`` etc. constant tensors;
- ``MatrixTriangularSolve(lower=True, adjoint=False)(matrix, rhs)``: ``T x = rhs`` (``T^H``
  with ``adjoint``), ``T`` the lower (upper) triangle of ``matrix``, the rest unread;
- ``Lstsq(fast=True, l2_regularizer=0.0)(matrix, rhs)``: least squares; a positive
  ``l2_regularizer`` solves the regularized normal equations ``(A^T A + l2 I) x = A^T b``;
- ``Coalesce()(indices (ndim, nnz), values, shape)``: ``(indices, values, shape)`` with
  repeated positions summed (its output's length depends on the values: PyNative);
- ``FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True,
  signal_sizes=())(x)``: the n-dimensional transform over the last ``signal_ndim`` axes;
  ``real`` and not ``inverse`` is the one-sided real transform (``onesided``), ``real`` and
  ``inverse`` its inverse (real output, sizes ``signal_sizes`` when given).
"""

from __future__ import annotations

from typing import Any

from .. import functional as ops
from .._class_form import REQUIRED, class_form
from .._utils import argument_error


def _const(value: Any) -> Any:
    """A constant tensor's value as an int, a float, or a tuple of ints."""
    if not hasattr(value, "asnumpy"):
        return value
    array = value.asnumpy()
    if array.ndim == 0:
        return array.item()
    return tuple(int(v) for v in array.reshape(-1))


def _ctc_loss_v2(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, *,
                 blank: int, reduction: str, zero_infinity: bool) -> Any:
    return ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                           zero_infinity)


def _matrix_diag_v3(x: Any, k: Any, num_rows: Any, num_cols: Any, padding_value: Any, *,
                    align: str) -> Any:
    return ops.matrix_diag(x, _const(k), _const(num_rows), _const(num_cols), _const(padding_value),
                              align)


def _matrix_diag_part_v3(x: Any, k: Any, padding_value: Any, *, align: str) -> Any:
    return ops.matrix_diag_part(x, _const(k), _const(padding_value), align)


def _lstsq(matrix: Any, rhs: Any, *, fast: bool, l2_regularizer: float) -> Any:
    if not l2_regularizer:
        return ops.lstsq(matrix, rhs)
    at = ops.swapaxes(matrix, -1, -2)
    gram = ops.matmul(at, matrix)
    ridge = ops.eye(gram.shape[-1], gram.shape[-1], gram.dtype) * float(l2_regularizer)
    return ops.matrix_solve(gram + ridge, ops.matmul(at, rhs))


def _triangular_solve(matrix: Any, rhs: Any, *, lower: bool, adjoint: bool) -> Any:
    triangle = ops.tril(matrix) if lower else ops.triu(matrix)
    return ops.matrix_solve(triangle, rhs, adjoint)


def _fft_with_size(x: Any, *, signal_ndim: int, inverse: bool, real: bool, norm: str,
                   onesided: bool, signal_sizes: Any) -> Any:
    if not 1 <= signal_ndim <= 3 or signal_ndim > len(x.shape):
        raise argument_error("FFTWithSize", ValueError(
            f"signal_ndim must be 1, 2 or 3 and at most the input's rank {len(x.shape)}, got {signal_ndim}"))
    dims = tuple(range(-signal_ndim, 0))
    if not real:
        return (ops.ifftn if inverse else ops.fftn)(x, None, dims, norm)
    if not inverse:
        return ops.rfftn(x, None, dims, norm) if onesided else ops.fftn(x, None, dims, norm)
    if not onesided:
        return ops.real(ops.ifftn(x, None, dims, norm))
    sizes = tuple(int(s) for s in signal_sizes) if signal_sizes else None
    return ops.irfftn(x, sizes, dims, norm)


CTCGreedyDecoder = class_form(
    "CTCGreedyDecoder", lambda inputs, sequence_length, *, merge_repeated: ops.ctc_greedy_decoder(
        inputs, sequence_length, merge_repeated), merge_repeated=True)
CTCLossV2 = class_form("CTCLossV2", _ctc_loss_v2, blank=0, reduction="none", zero_infinity=False)
MatrixDiagV3 = class_form("MatrixDiagV3", _matrix_diag_v3, align="RIGHT_LEFT")
MatrixDiagPartV3 = class_form("MatrixDiagPartV3", _matrix_diag_part_v3, align="RIGHT_LEFT")
MatrixTriangularSolve = class_form("MatrixTriangularSolve", _triangular_solve, lower=True, adjoint=False)
Lstsq = class_form("Lstsq", _lstsq, fast=True, l2_regularizer=0.0)
Coalesce = class_form("Coalesce", lambda indices, values, shape: ops.coalesce(indices, values, shape))
FFTWithSize = class_form("FFTWithSize", _fft_with_size, signal_ndim=REQUIRED, inverse=REQUIRED,
                         real=REQUIRED, norm="backward", onesided=True, signal_sizes=())

__all__ = ["CTCGreedyDecoder", "CTCLossV2", "MatrixDiagV3", "MatrixDiagPartV3", "MatrixTriangularSolve",
           "Lstsq", "Coalesce", "FFTWithSize"]
