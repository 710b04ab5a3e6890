"""Class forms (``P.Xlogy()(x, y)``) of functional ops that are compositions of primitives.

``class_form(fn, *attrs)`` makes a class whose constructor takes the named attributes
(MindSpore's primitive attributes, e.g. ``P.Elu(alpha=1.0)``) and whose call passes the
tensors, then the attributes as keywords, to ``fn``. It holds no rule of its own: its
graph, gradient and lowering are those of the primitives ``fn`` applies.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

REQUIRED = inspect.Parameter.empty  # a ``defaults`` value: the attribute has no default


def class_form(name: str, fn: Callable[..., Any], **defaults: Any) -> type:
    """A callable class ``name``: ``name(**attrs)(*tensors)`` is ``fn(*tensors, **attrs)``
    (attributes by position too, in the order of ``defaults``; one given as ``REQUIRED``
    must be passed)."""
    keys = tuple(defaults)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(keys):
            raise TypeError(f"{name}() takes at most {len(keys)} attributes, got {len(args)}")
        unknown = set(kwargs) - set(keys)
        if unknown:
            raise TypeError(f"{name}() got unknown attributes {sorted(unknown)}")
        attrs = {**defaults, **dict(zip(keys, args)), **kwargs}
        missing = [k for k, v in attrs.items() if v is REQUIRED]
        if missing:
            raise TypeError(f"{name}() missing the attributes {missing}")
        self.attrs = attrs
        self.__dict__.update(attrs)

    def __call__(self, *tensors: Any) -> Any:
        return fn(*tensors, **self.attrs)

    # the constructor's signature is the attributes' (MindSpore's, e.g. ``(self, alpha=1.0)``)
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
           for k, v in defaults.items()])
    shown = ", ".join(k if v is REQUIRED else f"{k}={v!r}" for k, v in defaults.items())
    doc = f"``{name}({shown})``: calls ``{fn.__name__}``."
    return type(name, (), {"__init__": __init__, "__call__": __call__, "__doc__": doc,
                           "__module__": fn.__module__})


class NoAttributes:
    """Base of a class form that takes no attributes: ``P.Shape()``, ``P.AddN()``, whose
    constructor is MindSpore's ``__init__(self)`` (an attribute given is a TypeError)."""

    def __init__(self) -> None:
        pass
