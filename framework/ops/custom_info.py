"""``ops.custom_info_register(*reg_info)``: MindSpore's decorator binding registration
information (the JSON-like records ``CustomRegOp().....get_op_info()`` builds) to a custom
operator's function.

Contract (MindSpore 2.10's documented behaviour): the decorated function is returned
callable as before, with ``reg_info`` (the tuple of the records given) as an attribute, which
a ``Custom`` operator reads. Nothing else happens here: there is no AOT/Akg kernel
compilation to configure (MindSpore adds the records to its op library for that).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def custom_info_register(*reg_info: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def bind(func: Callable[..., Any]) -> Callable[..., Any]:
        func.reg_info = reg_info  # type: ignore[attr-defined]
        return func

    return bind
