"""The PyNative interpreter: check shapes, run the NumPy kernel, record on the tape."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import tape as _tape
from ..errors import user_location, with_location
from ..host_memory import check_results
from ..primitive import shape_str
from .base import Interpreter


def describe_inputs(values: tuple) -> str:
    return ", ".join(f"{shape_str(v.shape)} {v.dtype}" for v in values)


def raise_op_error(prim: Any, values: tuple, error: Exception) -> None:
    """Re-raise a shape-rule failure as one sentence naming op, shapes and user line."""
    message = f"{prim.name}: {error} [inputs: {describe_inputs(values)}]"
    raise type(error)(with_location(message, user_location(3))) from None


_TENSOR_API: tuple | None = None  # (Tensor._wrap, as_tensor_args), once tensor.py is loaded


def _tensor_api() -> tuple:
    """Tensor's constructor and argument conversion (imported on first use: tensor.py
    needs the ops, which need the interpreters), kept for the next applications."""
    global _TENSOR_API
    from ..common.tensor import Tensor, as_tensor_args

    _TENSOR_API = (Tensor._wrap, as_tensor_args)
    return _TENSOR_API


class EagerInterpreter(Interpreter):
    mode = "pynative"

    def apply(self, prim: Any, args: tuple) -> Any:
        wrap, as_tensor_args = _TENSOR_API or _tensor_api()
        tensors = as_tensor_args(args)
        arrays = tuple([t._data for t in tensors])
        try:
            check_results(prim.infer(*arrays))
        except (ValueError, TypeError, MemoryError) as error:
            raise_op_error(prim, arrays, error)
        out = prim.kernel(*arrays)
        if prim.num_outputs == 1:
            result = wrap(out if type(out) is np.ndarray else np.asarray(out))
        else:
            result = tuple(wrap(o if type(o) is np.ndarray else np.asarray(o)) for o in out)
        tape = _tape.active()
        if tape is not None:
            tape.record(prim, tensors, result)
        return result

    def assign(self, param: Any, value: Any) -> None:
        """Replace the Parameter's values in place (same shape; cast to its dtype)."""
        array = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
        if array.shape != param.shape:  # no download of a device-resident value needed
            raise ValueError(with_location(
                f"Parameter {param.name!r}: assigned a value of shape {array.shape}, expected "
                f"{param.shape}", user_location()))
        param._set_host(array.astype(param.dtype.np, copy=False))
