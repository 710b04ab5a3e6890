"""Graph mode's stages: trace -> assemble -> optimize -> compile.

Each stage is one function from the previous stage's value to the next:

- :func:`trace` runs the (source-converted) callable under a :class:`TraceInterpreter`
  on traced arguments: a :class:`Traced` (the graph as recorded, the output leaves);
- :func:`assemble` fixes the calling convention: graph outputs (user tensors, then the final
  values of the call tensors updated in place, then two scalars per range check, then the
  new values of updated Parameters), inputs ordered params / call tensors / random masks,
  and one :class:`Slot` per output leaf: a :class:`Program`;
- :func:`optimize` runs the IR passes on the program's graph;
- :func:`compile_program` lowers and builds it (or loads it from the disk cache).

:class:`IRDump` observes the stages and writes the IR artifacts; it is the only place
that knows their file names.

Call tensors, as :func:`trace` sees them (the contract the compiled call keeps):

- one graph input per tensor leaf; traced with ``alias``, a Tensor object given twice
  (``f(x, x)``) is ONE traced tensor inside (the later inputs are left unused), so an
  in-place update through one name shows through the other, as in MindSpore (graph mode
  traces so only a function that updates an argument in place and was given one object
  twice, :func:`aliases`);
  a Tensor inside a list argument is a copy, as MindSpore copies lists (:func:`list_members`);
- a Tensor argument carries its ``register_hook`` hooks into the trace (its stand-in shares
  them), so a gradient taken inside the compiled function applies them, as MindSpore does;
- a Tensor argument updated in place (``x.add_(y)``, ``ops.assign(x, v)``: reported by
  :func:`framework.ops.state.mark_written`) has its final value returned as an extra output
  (:attr:`Program.written`), which the caller's tensor takes after the call (not one inside
  a list argument). NumPy arrays given as arguments are never written to. Item assignment
  is not written back (MindSpore's graph mode does not either).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from ._io import atomic_write, disk_full, skip_optional
from .autograd.hooks import share_tensor_hooks
from .common.tensor import Tensor
from .frontend import convert
from .frontend.depth import deep_calls
from .frontend.pyobjects import FUNCTION_TYPES, returned
from .interpreters import using
from .interpreters.trace import TraceInterpreter
from .ir import Graph, Value, ValueKind, ValueNames, to_dot, to_text
from .ir import optimize as run_passes
from .ir.graph import refuse_complex
from .ir.pad_sums import concat_pads
from .ir.passes import dce
from .ops.host_split import HostSplit
from .ops.shape_ops import Concat
from .ops.state import collecting_writes
from .signature import flatten


class Slot(Enum):
    """Where an output leaf of a compiled function comes from."""

    GRAPH = "graph"  # a graph output (its index)
    CONST = "const"  # a value fixed while tracing (a Python number, a constant tensor)
    HOST = "host"  # a Python object returned as it is (a class, a dtype, a NumPy array...)


_PY_CONSTANTS = (bool, int, float, str, type(None))
_INPUT_ORDER = {ValueKind.PARAM: 0, ValueKind.INPUT: 1, ValueKind.RANDOM: 2, ValueKind.HOST: 3}


@dataclass
class Traced:
    graph: Graph
    interp: TraceInterpreter
    rebuild: Callable[[list[Any]], Any]
    out_leaves: list[Any]
    # (index among the call tensors, final value) per Tensor argument updated in place
    written: list[tuple[int, Any]] = field(default_factory=list)


@dataclass
class Program:
    """A traced function with its calling convention."""

    graph: Graph
    params: list[Any]  # Parameters in graph-input order (then call tensors, then masks)
    random: list[tuple[Value, Any]]  # host-drawn masks, after the call tensors
    updated: list[Any]  # Parameters whose new values follow the graph's user outputs
    slots: list[tuple[Slot, Any]]  # per output leaf: (GRAPH, index) or (CONST, value)
    rebuild: Callable[[list[Any]], Any]
    cells: list[Any]  # cells the trace went through (their flags are baked in)
    nodes_traced: int = 0
    stats: dict[str, int] = field(default_factory=dict)
    # range checks (framework.ops.range_check): two outputs each, after the written values
    checks: list[Any] = field(default_factory=list)
    # per call tensor updated in place: (its index among the call tensors, slot, value)
    written: list[tuple[int, Slot, Any]] = field(default_factory=list)
    # value-dependent ops it takes the host answers of (HostStep, ops/host_split.py)
    host_steps: list[Any] = field(default_factory=list)


def trace(fn: Callable[..., Any], cell: Any, args: list[Any], rebuild_args: Callable,
          name: str, fail_dir: str | None, quiet: tuple[type, ...] = (),
          alias: bool = False, answers: list[tuple[np.ndarray, ...]] | None = None) -> Traced:
    """Run ``fn`` on traced stand-ins of the tensors in ``args`` (Python leaves stay).
    Errors of the ``quiet`` types are left to the caller (no analyze_fail.ir). ``alias``: a
    Tensor object given twice is one stand-in (else each leaf has its own). ``answers``: the
    host answers of the value-dependent ops met first (:mod:`framework.ops.host_split`); the
    next such op stops the trace with :class:`HostSplit`, holding the graph traced so far."""
    graph = Graph(name)
    traced, stand_ins = _stand_ins(graph, args, list_members(args, rebuild_args), alias)
    interp = TraceInterpreter(graph, fail_dir=fail_dir)
    interp.host_answers = list(answers or ())
    if hasattr(cell, "cells_and_names"):  # a Cell's construct
        interp.enter_cell(cell)
        interp.name_cells_from(cell)
    with using(interp), collecting_writes() as written, deep_calls():
        try:
            leaves, _, rebuild = flatten(returned(convert(fn)(*rebuild_args(traced))))
            leaves = [_traced_value(interp, leaf) for leaf in leaves]
        except RecursionError:
            error = RecursionError(
                f"compiling {name}: its calls nest deeper than graph mode can follow "
                f"({sys.getrecursionlimit()} interpreter frames, about 5 per nested call or cell); "
                "nest fewer levels (a loop over a CellList does not nest)")
            interp.report_failure(error)
            raise error from None
        except HostSplit as error:
            error.graph, error.interp = graph, interp
            raise
        except Exception as error:
            if not isinstance(error, quiet):
                interp.report_failure(error)
            raise
        finally:
            interp.restore_parameters()
    ids = {id(t) for t in written}
    updated = [(index, stand_in._data) for index, stand_in in stand_ins if id(stand_in) in ids]
    return Traced(graph, interp, rebuild, leaves, updated)


def list_members(leaves: list[Any], rebuild_args: Callable[[list[Any]], Any]) -> set[int]:
    """Positions of the ``leaves`` that sit inside a list argument (the outermost list, the
    arguments themselves, aside): MindSpore's graph mode copies a list's tensors, so they are
    neither aliased nor written back (a tuple's or a dict's are)."""
    found: set[int] = set()

    def walk(node: Any, in_list: bool) -> None:
        if isinstance(node, list | tuple):
            for child in node:
                walk(child, in_list or isinstance(node, list))
        elif isinstance(node, dict):
            for child in node.values():
                walk(child, in_list)
        elif in_list:
            found.add(node)

    for arg in rebuild_args(list(range(len(leaves)))):
        walk(arg, False)
    return found


def aliases(leaves: list[Any], rebuild_args: Callable[[list[Any]], Any]) -> tuple:
    """``(later, first)`` leaf positions of each Tensor object given more than once (outside
    list arguments): what a compiled function that writes arguments back was traced for
    (see the module doc)."""
    first: dict[int, int] = {}
    pairs = []
    in_lists: set[int] | None = None
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, Tensor):
            j = first.setdefault(id(leaf), i)
            if j != i:
                in_lists = list_members(leaves, rebuild_args) if in_lists is None else in_lists
                if i not in in_lists and j not in in_lists:
                    pairs.append((i, j))
    return tuple(pairs)


def _stand_ins(graph: Graph, args: list[Any], in_lists: set[int],
               alias: bool) -> tuple[list[Any], list[tuple[int, Tensor]]]:
    """The traced arguments (one graph input per tensor leaf; Python leaves as they are) and
    ``(tensor index, stand-in)`` per Tensor argument written back if updated in place (see
    the module docstring; with ``alias``, a Tensor given again shares its first stand-in)."""
    traced: list[Any] = []
    stand_ins: list[tuple[int, Tensor]] = []
    first: dict[int, Tensor] = {}
    for i, leaf in enumerate(args):
        if not isinstance(leaf, Tensor | np.ndarray):
            traced.append(leaf)
            continue
        data = leaf._data if isinstance(leaf, Tensor) else leaf
        refuse_complex((data.dtype,), f"argument {i}")
        value = graph.add_input(data.shape, data.dtype, ValueKind.INPUT, f"arg{i}")
        outside = isinstance(leaf, Tensor) and i not in in_lists  # not a list's copy
        if alias and outside and id(leaf) in first:
            traced.append(first[id(leaf)])  # the same object again
            continue
        traced.append(Tensor._wrap(value))
        if isinstance(leaf, Tensor):
            share_tensor_hooks(leaf, traced[-1])
        if outside:
            first.setdefault(id(leaf), traced[-1])
            stand_ins.append((len(graph.inputs) - 1, traced[-1]))
    return traced, stand_ins


def _traced_value(interp: TraceInterpreter, leaf: Any) -> Any:
    """An output leaf as the compiled function returns it: a Parameter by its value at
    the end of the function (not the object, whose data is restored after tracing)."""
    from .frontend.undefined import Undefined
    from .parameter import Parameter

    if isinstance(leaf, Undefined):
        raise leaf.error()
    if isinstance(leaf, Parameter):
        return Tensor._wrap(interp.value_of(leaf))
    return leaf


def assemble(traced: Traced, name: str) -> Program:
    graph, interp = traced.graph, traced.interp
    outputs: list[Value] = []
    slots: list[tuple[Slot, Any]] = []
    for leaf in traced.out_leaves:
        if isinstance(leaf, Tensor) and isinstance(leaf._data, Value):
            slots.append((Slot.GRAPH, len(outputs)))
            outputs.append(leaf._data)
        elif isinstance(leaf, Tensor):
            slots.append((Slot.CONST, np.asarray(leaf._data)))
        elif isinstance(leaf, _PY_CONSTANTS):
            slots.append((Slot.CONST, leaf))  # e.g. an optimizer's ``return True``
        elif isinstance(leaf, FUNCTION_TYPES):
            raise TypeError(f"{name}: graph mode cannot return a function "
                            f"({getattr(leaf, '__qualname__', type(leaf).__name__)}), as "
                            "MindSpore's cannot; return what calling it gives")
        else:
            slots.append((Slot.HOST, leaf))  # a class, a dtype, a NumPy array, an object
    written: list[tuple[int, Slot, Any]] = []
    for index, value in traced.written:
        if isinstance(value, Value):
            written.append((index, Slot.GRAPH, len(outputs)))
            outputs.append(value)
        else:  # a constant the function copied in (x.copy_(Tensor(...)))
            written.append((index, Slot.CONST, np.array(value)))
    updated = [param for param, _ in interp.updates.values()]
    flags = [value for check in interp.checks for value in (check.over, check.under)]
    graph.outputs = outputs + flags + [value for _, value in interp.updates.values()]
    graph.inputs.sort(key=lambda v: _INPUT_ORDER[v.kind])
    graph.verify()
    return Program(graph, [param for param, _ in interp.params.values()], interp.random_inputs,
                   updated, slots, traced.rebuild, list(interp.cells.values()), len(graph.nodes),
                   checks=list(interp.checks), written=written,
                   host_steps=list(interp.host_steps))


def prefix(split: HostSplit) -> Program:
    """The segment before a split (:class:`HostSplit` raised by :func:`trace`): the graph
    traced so far, returning the split op's traced inputs. It updates no Parameter and
    writes nothing back: the segment after the split, traced again from the start, does."""
    graph, interp = split.graph, split.interp
    graph.outputs = [v for v in split.inputs if isinstance(v, Value)]
    graph.inputs.sort(key=lambda v: _INPUT_ORDER[v.kind])
    graph.verify()
    slots = [(Slot.GRAPH, i) for i in range(len(graph.outputs))]
    return Program(graph, [param for param, _ in interp.params.values()], interp.random_inputs,
                   [], slots, lambda leaves: leaves, list(interp.cells.values()),
                   len(graph.nodes), host_steps=list(interp.host_steps))


def optimize(program: Program, symbolic: bool = False) -> Program:
    """The IR passes on ``program``; ``symbolic`` (a trace standing for every size of its
    dynamic axes): Slices of constants stay, their extents symbolic (framework/ir/symbolic.py)."""
    program.stats = run_passes(program.graph, keep_slices=symbolic)
    rewritten = concat_pads(program.graph, Concat)  # summed Slice gradients: a concatenation
    if rewritten:
        program.stats["concat_pads"] = rewritten
        program.stats["dce"] += dce(program.graph)
    return program


def fingerprint(graph: Graph) -> str:
    """Stable hash of the optimized graph: its text plus every constant's bytes."""
    digest = hashlib.sha256(to_text(graph, locations=False).encode())
    for v in graph.inputs:
        digest.update(f"{v.kind}:{v.dtype}{v.shape}".encode())
    for v in graph.constants():  # (the text shows small constants without their dtype)
        digest.update(f"{v.dtype}{v.shape}".encode() + np.ascontiguousarray(v.data).tobytes())
    return digest.hexdigest()


def load_backend() -> Any:
    """The TVM backend module (imported on first use: about a second)."""
    from .backend.tvm import compiler

    return compiler


def compile_program(program: Program, device_target: str, ir_dir: str | None, load: bool,
                    template: Any = None) -> Any:
    """The program built for ``device_target``: an Executable. The new values of updated
    Parameters (the last outputs) are donated to their inputs: a CUDA step may write them in
    place (backend/tvm/schedule/cuda_graph.py). With a ``template`` (framework/ir/symbolic.py)
    one function for every size of its symbol (no CUDA graph: its buffers have fixed sizes)."""
    first = len(program.graph.outputs) - len(program.updated)
    ids = [id(p) for p in program.params]
    donated = {first + k: ids.index(id(p)) for k, p in enumerate(program.updated)}
    return load_backend().compile_graph(program.graph, device_target, ir_dir,
                                        fingerprint(program.graph), run=load,
                                        donated=None if template is not None else donated,
                                        template=template)


class IRDump:
    """Writes the IR artifacts of one compilation as the stages produce them (or nothing
    when ``folder`` is None). Its files share one value numbering (a value keeps its
    ``%n`` from ``00_trace.ir`` to ``02_opt.ir``) and label the outputs that are new
    parameter values with the parameter's name."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder
        self.texts: dict[str, str] = {}
        self.names = ValueNames()

    @staticmethod
    def output_labels(program: Program) -> list[str | None]:
        """``new <parameter>`` for the outputs that update one (the last ones), ``range check``
        for the checks' flags, ``new tensor <i>`` for the final value of the i-th call tensor
        updated in place, the user's outputs by position."""
        graph, updated = program.graph, program.updated
        flags = 2 * len(program.checks)
        written = [index for index, slot, _ in program.written if slot is Slot.GRAPH]
        user = len(graph.outputs) - len(updated) - flags - len(written)
        return ([f"output {i}" for i in range(user)] + [f"new tensor {i}" for i in written]
                + ["range check"] * flags + [f"new {getattr(p, 'name', '?')}" for p in updated])

    def assembled(self, program: Program) -> None:
        if self.folder:
            graph, labels = program.graph, self.output_labels(program)
            self.texts["00_trace.ir"] = to_text(graph, "traced program, without gradient nodes",
                                                phases=("forward",), names=self.names,
                                                output_labels=labels)
            self.texts["01_grad.ir"] = to_text(graph, "with gradient nodes", names=self.names,
                                               output_labels=labels)

    def optimized(self, program: Program) -> None:
        if self.folder:
            labels = self.output_labels(program)
            self.texts["02_opt.ir"] = to_text(program.graph, f"after passes {program.stats}",
                                              names=self.names, output_labels=labels)
            self.texts["graph.dot"] = to_dot(program.graph, labels)
            self._write(self.texts)

    def compiled(self, summary: dict[str, Any]) -> None:
        if self.folder:
            self._write({"summary.json": json.dumps(summary, indent=2) + "\n"})

    def _write(self, files: dict[str, str]) -> None:
        """Write ``files``; a full disk gives one warning and ends this dump (IR artifacts are
        optional: the compilation goes on)."""
        for name, text in files.items():
            try:
                atomic_write(os.path.join(self.folder, name), text.encode())
            except OSError as error:
                reason = disk_full(error)
                if reason is None:
                    raise
                skip_optional("IR artifacts in", self.folder, reason,
                              "the IR dump is skipped and the run goes on")
                self.folder = None
                return


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start
