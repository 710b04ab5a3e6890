"""``mindspore.common.parameter``: ``Parameter``, ``ParameterTuple``."""

from ..parameter import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]
