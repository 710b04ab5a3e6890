"""The tracing interpreter (graph mode): shape rules only, every application becomes a Node.

Concrete tensors met while tracing become constants; Parameters become graph inputs
the first time they are read (so a traced function may use any Parameter), and
assigning a Parameter records an update that the compiled function returns. Gradients
need nothing special: the tape records traced applications, and the bprop rules, run
on traced values, emit the backward nodes.

Control flow on tensor values is traced into *regions* (:mod:`.regions`): while a
branch or loop body is traced, nodes go to the region's own graph and every outer value
it reads becomes one of the region's inputs (a capture), so regions are closed graphs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._io import atomic_write
from ..autograd import tape as _tape
from ..errors import graph_location, user_location, with_location
from ..host_memory import check_results
from ..ir.graph import Graph, GraphModeError, Node, Value, refuse_complex
from ..ir.printer import to_text
from .base import Interpreter
from .eager import describe_inputs


class Scope:
    """One graph being traced: the top-level function, or a region inside it."""

    def __init__(self, graph: Graph, parent: Scope | None = None) -> None:
        self.graph = graph
        self.parent = parent
        self.defined: set[int] = {v.id for v in graph.inputs}
        self.captures: dict[int, Value] = {}  # outer value id -> this region's input
        self.captured: list[tuple[Any, Value]] = []  # (outer tensor, this region's input)
        self.updates: dict[int, tuple[Any, Value]] = {}  # id(param) -> (param, new value)

    def resolve(self, value: Value, tensor: Any) -> Value:
        """``value`` as seen inside this scope (captured from the enclosing ones if needed)."""
        if value.kind == "const" or value.id in self.defined:
            return value
        inner = self.captures.get(value.id)
        if inner is not None:
            return inner
        if self.parent is None:
            raise GraphModeError(with_location(
                "graph mode: a tensor computed inside a branch or loop body is used outside "
                "it without passing through a variable (stored in an attribute, a list or a "
                "closure?); assign it to a local variable in the branch instead",
                user_location()))
        self.parent.resolve(value, tensor)
        inner = self.graph.add_input(value.shape, value.dtype, "capture", value.name or "capture")
        self.defined.add(inner.id)
        self.captures[value.id] = inner
        self.captured.append((tensor, inner))
        return inner


class TraceInterpreter(Interpreter):
    mode = "graph"
    tracing = True

    def __init__(self, graph: Graph, fail_dir: str | None = None) -> None:
        super().__init__()
        self.root = Scope(graph)
        self.scope = self.root
        self.fail_dir = fail_dir
        self.params: dict[int, tuple[Any, Value]] = {}  # id(param) -> (param, input value)
        self.host_arrays: dict[int, np.ndarray] = {}  # id(param) -> concrete data before trace
        self.random_inputs: list[tuple[Value, Any]] = []  # (input value, primitive drawing it)
        self.cells: dict[int, Any] = {}  # cells the trace went through (their state is baked in)
        self.reported = False
        self.location_override: Any = None  # set by located_like (backward nodes)
        self.cell_override: str | None = None  # likewise: the forward node's cell path
        self.cell_stack: list[str] = []  # paths of the cells whose construct is running
        self._cell_paths: dict[int, str] = {}  # id(cell) -> path from the first cell entered
        self._consts: dict[int, tuple[np.ndarray, Value]] = {}
        self.checks: list[Any] = []  # RangeCheck of framework.ops.range_check, in trace order
        # value-dependent ops (framework/ops/host_split.py): the answers known for this trace,
        # and one HostStep per such op traced so far
        self.host_answers: list[tuple[np.ndarray, ...]] = []
        self.host_steps: list[Any] = []

    @property
    def graph(self) -> Graph:
        """The graph nodes go to now (the innermost region being traced)."""
        return self.scope.graph

    @property
    def updates(self) -> dict[int, tuple[Any, Value]]:
        """Parameter updates of the whole function (``id(param) -> (param, value)``)."""
        return self.root.updates

    # -- values ------------------------------------------------------------------------------
    def value_of(self, tensor: Any) -> Value:
        from ..parameter import Parameter

        data = tensor._data
        if isinstance(data, Value):
            return self.scope.resolve(data, tensor)
        if isinstance(tensor, Parameter):
            return self.scope.resolve(self.lift_parameter(tensor), tensor)
        cached = self._consts.get(id(data))
        if cached is not None and cached[0] is data:
            return cached[1]
        value = Value(data.shape, data.dtype, kind="const", data=data)
        self._consts[id(data)] = (data, value)
        return value

    def lift_parameter(self, param: Any) -> Value:
        """Make ``param`` an input of the top-level graph: its traced data is a Value until
        the trace ends."""
        array = param._data
        value = self.root.graph.add_input(array.shape, array.dtype, "param", param.name or "param")
        self.root.defined.add(value.id)
        self.params[id(param)] = (param, value)
        self.host_arrays[id(param)] = array
        param._set_traced(value)
        return value

    def assign(self, param: Any, tensor: Any) -> None:
        """A Parameter gets a new value while tracing: a state update the step returns."""
        if id(param) not in self.params:
            self.lift_parameter(param)
        expected = self.params[id(param)][1]
        value = self.value_of(tensor)
        if value is param._data:  # assigning the current value (e.g. a constant lr): no-op
            return
        if value.shape != expected.shape:
            raise ValueError(with_location(
                f"Parameter {param.name!r}: assigned a value of shape {value.shape}, expected "
                f"{expected.shape}", user_location()))
        if value.dtype != expected.dtype:
            from ..ops.elementwise import cast

            value = self.value_of(cast(tensor, expected.dtype))
        self.scope.updates[id(param)] = (param, value)
        param._set_traced(value)

    def restore_parameters(self) -> None:
        for key, (param, _) in self.params.items():
            param._set_traced(None, self.host_arrays[key])

    def enter_cell(self, cell: Any) -> None:
        self.cells.setdefault(id(cell), cell)

    def name_cells_from(self, cell: Any) -> None:
        """Cell paths start at ``cell`` (the compiled one), or at the network that a wrapper
        names in ``_paths_from`` (TrainOneStepCell: ``network``, WithLossCell:
        ``_backbone``), followed down: a layer has one name in the train step and in
        evaluation (``conv1``), and the loss and optimizer, outside it, their types'."""
        root = cell
        while isinstance(getattr(root, "_paths_from", None), str):
            inner = getattr(root, root._paths_from, None)
            if not hasattr(inner, "cells_and_names"):
                break
            root = inner
        self._cell_paths = {id(c): name for name, c in root.cells_and_names()}
        self._cell_paths.setdefault(id(cell), "")

    @contextmanager
    def in_cell(self, cell: Any) -> Iterator[None]:
        """Nodes made while ``cell``'s construct runs carry its path (``conv1``: attribute
        names from the root of paths, :meth:`name_cells_from`, else the first cell entered;
        a cell outside that tree its type's name)."""
        self.enter_cell(cell)
        if not self._cell_paths:
            self.name_cells_from(cell)
        path = self._cell_paths.get(id(cell))
        if path is None:  # a cell outside the first one's tree: under its type's name
            path = type(cell).__name__
        self.cell_stack.append(path)
        try:
            yield
        finally:
            self.cell_stack.pop()

    # -- application -------------------------------------------------------------------------
    def apply(self, prim: Any, args: tuple) -> Any:
        from ..common.tensor import as_tensor_args

        tensors = as_tensor_args(args)
        values = tuple(self.value_of(t) for t in tensors)
        try:
            specs = prim.out_specs(*values)
            check_results(specs)
        except (ValueError, TypeError, MemoryError) as error:
            self.fail(prim, values, error)
        refuse_complex([v.dtype for v in values] + [s.dtype for s in specs], prim.name)
        if prim.host_random:
            draw = prim.random_spec(*values)
            mask = self.root.graph.add_input(draw.shape, draw.dtype, "random",
                                             f"{prim.name.lower()}_mask{len(self.random_inputs)}")
            self.root.defined.add(mask.id)
            self.random_inputs.append((mask, prim))
            values = values + (self.scope.resolve(mask, None),)
        return self.add_node(prim, tensors, values, specs)

    def add_node(self, prim: Any, tensors: tuple, values: tuple, specs: tuple) -> Any:
        """Append a node to the current graph and record it on the tape; its outputs as
        Tensors (one, or a tuple when the primitive has several or none)."""
        from ..common.tensor import Tensor

        where = self.location_override or graph_location()
        cell = self.cell_override if self.cell_override is not None else (
            self.cell_stack[-1] if self.cell_stack else "")
        node = self.graph.add_node(prim, values, specs, where, self.phase, cell)
        self.scope.defined.update(v.id for v in node.outputs)
        outs = tuple(Tensor._wrap(v) for v in node.outputs)
        result = outs if prim.num_outputs != 1 else outs[0]
        tape = _tape.active()
        if tape is not None:
            tape.record(prim, tensors, result)
        return result

    # -- failures ----------------------------------------------------------------------------
    def write_report(self, message: str, location: Any, failed: Node | None = None) -> str | None:
        """analyze_fail.ir: the IR traced so far, the failing node marked, the message."""
        if self.fail_dir is None:
            return None
        report = os.path.join(self.fail_dir, "analyze_fail.ir")
        text = to_text(self.root.graph, "traced until the failure", failed=failed)
        if self.scope is not self.root:
            text += f"# inside the region being traced:\n{to_text(self.graph, failed=failed)}"
        text += f">>> {message}\n>>> at {location}\n"
        atomic_write(report, text.encode())
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
        """Any other error while tracing (a layer's own check, unsupported syntax, a
        branch/loop that cannot be compiled): write analyze_fail.ir too and note it."""
        if self.reported:
            return
        report = self.write_report(f"{type(error).__name__}: {error}", "see the message above")
        if report:
            error.add_note(f"the IR traced before this error is in {report}")
