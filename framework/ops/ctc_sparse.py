"""``P.CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values, sequence_length)``:
the CTC loss of logits with sparse labels, as MindSpore's (TensorFlow's ``ctc_loss``).

``x`` ``(T, B, C)`` holds logits (the class ``C - 1`` is the blank); the labels of sequence
``b`` are the ``labels_values`` whose ``labels_indices`` row is ``(b, position)``, in position
order. Returns ``(loss (B,), gradient (T, B, C))``: each sequence's negative log-likelihood
under ``softmax(x)`` over its ``sequence_length`` frames, and its gradient with respect to
``x`` (``softmax - posterior``, 0 past the sequence). ``preprocess_collapse_repeated``
merges runs of equal labels first. A sequence no alignment fits has loss ``inf`` and
gradient 0; one with more labels than frames is such a sequence when
``ignore_longer_outputs_than_inputs``, an error otherwise (as MindSpore's CPU kernel).

The sparse labels are read on the host to lay out dense targets (a traced label tensor
makes graph mode run the function interpreted, JIT Fallback); the loss and gradient are
:mod:`.ctc`'s primitives over ``log_softmax(x)``, so the gradient of the loss is the
``gradient`` output times the incoming one, as MindSpore's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.tensor import Tensor
from ._utils import argument_error
from .ctc import CTCLoss as DenseCTCLoss
from .ctc import CTCLossGrad
from .nn_ops import log_softmax
from .shape_ops import stop_gradient


def _labels(indices: np.ndarray, values: np.ndarray, batch: int, collapse: bool) -> list[list[int]]:
    if indices.ndim != 2 or indices.shape[1] != 2 or values.shape != (indices.shape[0],):
        raise argument_error("CTCLoss", ValueError(
            f"labels_indices must be (L, 2) and labels_values (L,), got {indices.shape} and {values.shape}"))
    rows: list[list[int]] = [[] for _ in range(batch)]
    for (b, _), v in sorted(zip(map(tuple, indices.tolist()), values.tolist()), key=lambda item: item[0]):
        if not 0 <= b < batch:
            raise argument_error("CTCLoss", ValueError(f"labels_indices names sequence {b} of {batch}"))
        if not (collapse and rows[b] and rows[b][-1] == v):
            rows[b].append(int(v))
    return rows


class CTCLoss:
    """``P.CTCLoss(...)``: see the module docstring."""

    def __init__(self, preprocess_collapse_repeated: bool = False, ctc_merge_repeated: bool = True,
                 ignore_longer_outputs_than_inputs: bool = False) -> None:
        for name, value in (("preprocess_collapse_repeated", preprocess_collapse_repeated),
                            ("ctc_merge_repeated", ctc_merge_repeated),
                            ("ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)):
            if not isinstance(value, bool):
                raise argument_error("CTCLoss", TypeError(f"{name} must be a bool, got {value!r}"))
        if not ctc_merge_repeated:
            raise argument_error("CTCLoss", NotImplementedError(
                "ctc_merge_repeated=False (repeated labels as separate emissions) is not supported; "
                "use the default True"))
        self.preprocess_collapse_repeated = preprocess_collapse_repeated
        self.ctc_merge_repeated = ctc_merge_repeated
        self.ignore_longer_outputs_than_inputs = ignore_longer_outputs_than_inputs

    def __call__(self, x: Any, labels_indices: Any, labels_values: Any,
                 sequence_length: Any) -> tuple[Any, Any]:
        if len(x.shape) != 3:
            raise argument_error("CTCLoss", ValueError(
                f"x must be (max_time, batch, classes), got {tuple(x.shape)}"))
        t_max, batch, classes = x.shape
        rows = _labels(np.asarray(labels_indices.asnumpy()), np.asarray(labels_values.asnumpy()), batch,
                       self.preprocess_collapse_repeated)
        lengths = np.asarray(sequence_length.asnumpy()).astype(np.int64)
        too_long = np.array([len(r) > n for r, n in zip(rows, lengths)])
        if too_long.any() and not self.ignore_longer_outputs_than_inputs:
            raise argument_error("CTCLoss", ValueError(
                f"sequences {np.flatnonzero(too_long).tolist()} have more labels than frames "
                "(set ignore_longer_outputs_than_inputs=True to give them loss 0)"))
        targets = np.full((batch, max(1, max(map(len, rows)))), 0, np.int64)
        for b, r in enumerate(rows):
            targets[b, :len(r)] = r
        args = (Tensor(targets), Tensor(np.clip(lengths, 1, t_max)), Tensor(np.array([len(r) for r in rows])))
        log_probs = log_softmax(x, -1)
        # the loss is inf where no alignment fits, its gradient there 0 (the zero_infinity one's)
        raw, _ = DenseCTCLoss(classes - 1)(log_probs, *args)
        finite, _ = DenseCTCLoss(classes - 1, True)(log_probs, *args)
        gradient = CTCLossGrad(classes - 1, True)(log_probs, *args)
        return finite + stop_gradient(raw - finite), gradient
