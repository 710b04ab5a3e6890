"""Graph, Node and Value: the traced program.

A ``Value`` is an SSA tensor with a static shape and dtype. It is a graph input
(``kind`` PARAM, INPUT, RANDOM or HOST; in a region CAPTURE or CARRIED), a constant (CONST,
with ``data``) or the output of exactly one ``Node`` (NODE); see :class:`ValueKind`.
Nodes are kept in execution order and carry the user's source location.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from ..errors import SourceLocation, user_location, with_location
from ..primitive import Primitive, Spec

_ids = itertools.count()


class ValueKind(StrEnum):
    """What a Value is: an input of its graph (of which kind), a constant, or a node's output."""

    PARAM = "param"  # a Parameter read by the traced function
    INPUT = "input"  # a tensor argument of the call
    RANDOM = "random"  # a mask drawn on the host per call (Dropout)
    HOST = "host"  # computed on the host per call between segments (ops/host_split.py)
    CAPTURE = "capture"  # a region's input standing for an outer value it reads
    CARRIED = "carried"  # a loop region's input for a loop-carried value
    CONST = "const"  # a constant (``data`` holds it)
    NODE = "node"  # the output of a node


class GraphModeError(RuntimeError):
    """Python code needed a tensor's value while tracing for graph mode."""


class NeedsValueError(GraphModeError):
    """Python code needed the value of a traced tensor (``int(x)``, ``x.asnumpy()``, ``if``
    on it outside converted code): graph mode may run the function interpreted instead
    (:mod:`framework.frontend.fallback`)."""


class ComplexValueError(NeedsValueError):
    """A complex tensor met while tracing: graph mode compiles no complex tensors, so the
    function runs interpreted (:mod:`framework.frontend.fallback`)."""


def refuse_complex(dtypes: Any, what: str) -> None:
    """Raise :class:`ComplexValueError` if one of ``dtypes`` (NumPy dtypes of ``what``: a
    primitive's inputs and outputs, an argument) is complex."""
    for dtype in dtypes:
        if dtype.kind == "c":
            raise ComplexValueError(with_location(
                f"graph mode: {what} has a {dtype} tensor; graph mode compiles no complex "
                "tensors, so this function runs interpreted (PyNative kernels)", user_location()))


class Value:
    __slots__ = ("shape", "dtype", "kind", "data", "name", "producer", "id")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, kind: str = ValueKind.NODE,
                 data: np.ndarray | None = None, name: str | None = None,
                 producer: Node | None = None) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.kind = ValueKind(kind)
        self.data = data
        self.name = name
        self.producer = producer
        self.id = next(_ids)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def spec(self) -> Spec:
        """Shape and dtype as a Spec (what the shape rules take and give)."""
        return Spec(self.shape, self.dtype)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def concrete_error(self, what: str) -> None:
        """Raise the graph-mode error for code that needs this value on the host."""
        raise NeedsValueError(with_location(
            f"graph mode: {what} needs a tensor's value, which is unknown while compiling; "
            "write it with tensor operations (if/while/for on tensors compile; ops.select / "
            "ops.where choose per element), or run this code in PyNative mode "
            "(ms.set_context(mode=ms.PYNATIVE_MODE))", user_location()))

    def __repr__(self) -> str:
        return f"%{self.id}:{self.dtype}{list(self.shape)}"


@dataclass(eq=False)
class Node:
    prim: Primitive
    inputs: tuple[Value, ...]
    outputs: tuple[Value, ...]
    location: SourceLocation | None = None
    phase: str = "forward"
    cell: str = ""  # the path of the Cell whose construct made it (``backbone.conv1``); "" outside


@dataclass(eq=False)
class Graph:
    """A traced function: inputs, nodes in order, outputs."""

    name: str = "main"
    inputs: list[Value] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    outputs: list[Value] = field(default_factory=list)

    def add_input(self, shape: tuple[int, ...], dtype: Any, kind: str, name: str) -> Value:
        value = Value(shape, dtype, kind=kind, name=name)
        self.inputs.append(value)
        return value

    def add_node(self, prim: Primitive, inputs: tuple[Value, ...], specs: tuple,
                 location: SourceLocation | None, phase: str, cell: str = "") -> Node:
        node = Node(prim, inputs, (), location, phase, cell)
        node.outputs = tuple(Value(s.shape, s.dtype, producer=node) for s in specs)
        self.nodes.append(node)
        return node

    def constants(self, recursive: bool = True) -> list[Value]:
        """Constants the graph reads (and, ``recursive``, those of its regions)."""
        seen: dict[int, Value] = {}
        for node in self.nodes:
            for v in node.inputs:
                if v.kind == "const":
                    seen.setdefault(v.id, v)
            if recursive:
                for region in node.prim.regions:
                    for v in region.constants():
                        seen.setdefault(v.id, v)
        for v in self.outputs:
            if v.kind == "const":
                seen.setdefault(v.id, v)
        return list(seen.values())

    def verify(self) -> None:
        """Check SSA form: every input of a node is defined before it (a region sees only
        its own inputs); shapes agree with the shape rules; regions recursively."""
        defined = {v.id for v in self.inputs}
        for node in self.nodes:
            for v in node.inputs:
                if v.kind != "const" and v.id not in defined:
                    raise AssertionError(f"{node.prim.name} uses {v!r} before it is defined")
            for region in node.prim.regions:
                region.verify()
            specs = node.prim.out_specs(*node.inputs[:_arity(node)])
            for spec, out in zip(specs, node.outputs):
                if tuple(spec.shape) != out.shape or np.dtype(spec.dtype) != out.dtype:
                    raise AssertionError(f"{node.prim.name}: output {out!r} disagrees with its "
                                         f"shape rule {spec}")
            defined.update(v.id for v in node.outputs)
        for v in self.outputs:
            if v.kind != "const" and v.id not in defined:
                raise AssertionError(f"graph output {v!r} is never defined")


def _arity(node: Node) -> int:
    """Inputs the shape rule takes (host-fed random masks are extra lowering inputs)."""
    return len(node.inputs) - (1 if node.prim.host_random else 0)
