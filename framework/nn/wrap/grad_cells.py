"""Cells that return gradients or write a parameter: ``nn.WithGradCell``,
``nn.ForwardValueAndGrad`` and ``nn.ParameterUpdate`` (MindSpore's ``nn.wrap``)."""

from __future__ import annotations

from types import FunctionType, MethodType
from typing import Any

from ... import ops
from ...parameter import Parameter, ParameterTuple
from ..cell import Cell
from .cell_wrapper import WithLossCell


class WithGradCell(Cell):
    """The gradients of ``loss_fn(network(data), label)`` (or of ``network(*inputs)`` when
    ``loss_fn`` is None) with respect to the network's trainable parameters; ``sens``: the
    output's gradient (default ones)."""

    def __init__(self, network: Cell, loss_fn: Any = None, sens: Any = None) -> None:
        super().__init__(auto_prefix=False)
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=sens is not None)
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)``: the gradients as ``ops.GradOperation(get_all,
    get_by_list, sens_param)`` gives them (``weights`` with ``get_by_list``); with
    ``sens_param`` the last input is the output's gradient."""

    def __init__(self, network: Any, weights: Any = None, get_all: bool = False,
                 get_by_list: bool = False, sens_param: bool = False) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell | FunctionType | MethodType):
            raise TypeError(f"ForwardValueAndGrad: network must be a Cell or a function, got "
                            f"{type(network).__name__}")
        for name, value in (("get_all", get_all), ("get_by_list", get_by_list),
                            ("sens_param", sens_param)):
            if not isinstance(value, bool):
                raise TypeError(f"ForwardValueAndGrad: {name} must be a bool, got {value!r}")
        if get_by_list and not isinstance(weights, ParameterTuple | tuple | list):
            raise TypeError("ForwardValueAndGrad: with get_by_list=True, weights must be the "
                            f"parameters (a ParameterTuple, tuple or list), got {type(weights).__name__}")
        self.network = network
        self.weights = ParameterTuple(weights) if get_by_list else weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self.grad = ops.GradOperation(get_all=get_all, get_by_list=get_by_list,
                                      sens_param=sens_param)

    def construct(self, *inputs):
        forward = inputs[:-1] if self.sens_param else inputs
        loss = self.network(*forward)
        if self.get_by_list:
            return loss, self.grad(self.network, self.weights)(*inputs)
        return loss, self.grad(self.network)(*inputs)


class ParameterUpdate(Cell):
    """``ParameterUpdate(param)(x)`` assigns ``x`` to ``param`` and returns ``x``."""

    def __init__(self, param: Parameter) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got {type(param).__name__}")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x
