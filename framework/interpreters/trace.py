"""The tracing interpreter (graph mode): shape rules only, every application becomes a Node.

Concrete tensors met while tracing become constants; Parameters become graph inputs
the first time they are read (so a traced function may use any Parameter), and
``Parameter.set_data`` of a traced value records an update that the compiled function
returns. Gradients need nothing special: the tape records traced applications, and
the bprop rules, run on traced values, emit the backward nodes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..autograd import tape as _tape
from ..errors import user_location, with_location
from ..ir.graph import Graph, Node, Value
from ..ir.printer import to_text
from .eager import describe_inputs


class TraceInterpreter:
    mode = "graph"

    def __init__(self, graph: Graph, fail_dir: str | None = None) -> None:
        self.graph = graph
        self.phase = "forward"
        self.fail_dir = fail_dir
        self.params: dict[int, tuple[Any, Value]] = {}  # id(param) -> (param, input value)
        self.host_arrays: dict[int, np.ndarray] = {}  # id(param) -> concrete data before trace
        self.updates: dict[int, tuple[Any, Value]] = {}  # id(param) -> (param, new value)
        self.random_inputs: list[tuple[Value, Any]] = []  # (input value, primitive drawing it)
        self.cells: dict[int, Any] = {}  # cells the trace went through (their state is baked in)
        self.reported = False
        self._consts: dict[int, tuple[np.ndarray, Value]] = {}

    # -- values ------------------------------------------------------------------------------
    def value_of(self, tensor: Any) -> Value:
        from ..parameter import Parameter

        data = tensor._data
        if isinstance(data, Value):
            return data
        if isinstance(tensor, Parameter):
            return self.lift_parameter(tensor)
        cached = self._consts.get(id(data))
        if cached is not None and cached[0] is data:
            return cached[1]
        value = Value(data.shape, data.dtype, kind="const", data=data)
        self._consts[id(data)] = (data, value)
        return value

    def lift_parameter(self, param: Any) -> Value:
        """Make ``param`` a graph input: its traced data is a Value until the trace ends."""
        array = param._data
        value = self.graph.add_input(array.shape, array.dtype, "param", param.name or "param")
        self.params[id(param)] = (param, value)
        self.host_arrays[id(param)] = array
        param._set_traced(value)
        return value

    def assign(self, param: Any, tensor: Any) -> None:
        """``param.set_data(tensor)`` while tracing: a state update the step returns."""
        value = self.value_of(tensor)
        if id(param) not in self.params:
            self.lift_parameter(param)
        if value is param._data:  # assigning the current value (e.g. a constant lr): no-op
            return
        if value.shape != self.params[id(param)][1].shape:
            raise ValueError(with_location(
                f"Parameter {param.name!r}: set_data got shape {value.shape}, expected "
                f"{self.params[id(param)][1].shape}", user_location()))
        if value.dtype != self.params[id(param)][1].dtype:
            from ..ops import functional as F

            value = self.value_of(F.cast(tensor, self.params[id(param)][1].dtype))
        self.updates[id(param)] = (param, value)
        param._set_traced(value)

    def restore_parameters(self) -> None:
        for key, (param, _) in self.params.items():
            param._set_traced(None, self.host_arrays[key])

    def enter_cell(self, cell: Any) -> None:
        self.cells.setdefault(id(cell), cell)

    # -- application -------------------------------------------------------------------------
    def apply(self, prim: Any, args: tuple) -> Any:
        from ..tensor import Tensor, as_tensor_args

        tensors = as_tensor_args(args)
        values = tuple(self.value_of(t) for t in tensors)
        try:
            specs = prim.out_specs(*values)
        except (ValueError, TypeError) as error:
            self.fail(prim, values, error)
        if prim.host_random:
            mask = self.graph.add_input(values[0].shape, values[0].dtype, "random",
                                        f"{prim.name.lower()}_mask{len(self.random_inputs)}")
            self.random_inputs.append((mask, prim))
            values = values + (mask,)
        node = self.graph.add_node(prim, values, specs, user_location(), self.phase)
        outs = tuple(Tensor._wrap(v) for v in node.outputs)
        result = outs if prim.num_outputs != 1 else outs[0]
        tape = _tape.active
        if tape is not None:
            tape.record(prim, tensors, result)
        return result

    def write_report(self, message: str, location: Any, failed: Node | None = None) -> str | None:
        """analyze_fail.ir: the IR traced so far, the failing node marked, the message."""
        if self.fail_dir is None:
            return None
        os.makedirs(self.fail_dir, exist_ok=True)
        report = os.path.join(self.fail_dir, "analyze_fail.ir")
        text = to_text(self.graph, "traced until the failure", failed=failed)
        text += f">>> {message}\n>>> at {location}\n"
        with open(report, "w") as f:
            f.write(text)
        self.reported = True
        return report

    def fail(self, prim: Any, values: tuple, error: Exception) -> None:
        """A shape rule failed: write analyze_fail.ir and raise one line pointing to it."""
        location = user_location()
        message = f"{prim.name}: {error} [inputs: {describe_inputs(values)}]"
        report = self.write_report(message, location, Node(prim, values, (), location, self.phase))
        text = with_location(message, location)
        if report:
            text += f"; the IR traced so far is in {report}"
        raise type(error)(text) from None

    def report_failure(self, error: Exception) -> None:
        """Any other error while tracing (a layer's own check, Python control flow on a
        tensor value): write analyze_fail.ir too and note it on the exception."""
        if self.reported:
            return
        report = self.write_report(f"{type(error).__name__}: {error}", "see the message above")
        if report:
            error.add_note(f"the IR traced before this error is in {report}")


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Label the nodes traced inside (e.g. 'backward') for the IR dumps."""
    from . import current

    interp = current()
    previous = getattr(interp, "phase", None)
    if previous is None:
        yield
        return
    interp.phase = name
    try:
        yield
    finally:
        interp.phase = previous
