"""A MindIR file read into plain Python: :func:`read_model` decodes ``ModelProto`` (via
:mod:`.wire` and :mod:`.schema`) into a :class:`MindIRModel`.

Contract: ``nodes`` are the graph's computing nodes in file order (MindSpore writes them
topologically), each with its primitive's ``op`` name (``"Conv2D"``), the primitive's
attributes as Python values and the names of its inputs; ``constants`` maps a Constant
node's output name to its value (int, float, bool, str, a tuple, a NumPy array,
:data:`MONAD` for MindSpore's side-effect tokens, ``None``); ``params`` maps a parameter's
name in the graph to ``(its name in the network, the array)``. A file that is not a
MindIR model, is cut, holds compressed or external tensor data, or control-flow
subgraphs (``functions``) is refused with one line naming the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..protowire import WireError, decode
from . import schema as S


class MindIRError(ValueError):
    """A MindIR file that cannot be read, written or run (one line: the file and why)."""


class _Monad:
    def __repr__(self) -> str:
        return "MONAD"


MONAD = _Monad()  # MindSpore's UMonad / IOMonad side-effect token


@dataclass
class Node:
    op: str
    attrs: dict[str, Any]
    inputs: list[str]
    output: str


@dataclass
class MindIRModel:
    path: str
    name: str
    inputs: list[tuple[str, tuple[int, ...], Any]]  # (name, shape, dtype)
    outputs: list[str]
    params: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)


def tensor_array(t: dict[str, Any]) -> np.ndarray:
    """A ``TensorProto`` dict's data as a NumPy array (a copy, in native byte order)."""
    code = t.get("data_type", 0)
    if code not in S.TENSOR_DTYPES:
        raise ValueError(f"tensor {t.get('name', '')!r} has an unsupported data type {code}")
    if t.get("compression_type", 0):
        raise ValueError(f"tensor {t.get('name', '')!r} is compressed "
                         f"(compression_type {t['compression_type']})")
    dims = tuple(int(d) for d in t.get("dims", []))
    if any(d < 0 for d in dims):
        raise ValueError(f"tensor {t.get('name', '')!r} has a dynamic shape {dims}")
    dtype = np.dtype(S.TENSOR_DTYPES[code]).newbyteorder("<")
    raw = t.get("raw_data", b"")
    count = int(np.prod(dims, dtype=np.int64))
    if len(raw) != count * dtype.itemsize:
        raise ValueError(f"tensor {t.get('name', '')!r} of shape {dims} holds {len(raw)} bytes, "
                         f"expected {count * dtype.itemsize} (external or missing data?)")
    return np.frombuffer(raw, dtype).astype(dtype.newbyteorder("="), copy=True).reshape(dims)


def attr_value(a: dict[str, Any]) -> Any:
    """An ``AttributeProto`` dict as a Python value (see the module docstring)."""
    kind = a.get("type", 0)
    if kind in (S.A_INT64, S.A_INT32):
        return int(a["i"]) if "i" in a else int(a.get("ints", [0])[0])
    if kind == S.A_BOOL:
        return bool(a["i"]) if "i" in a else bool(a.get("ints", [0])[0])
    if kind == S.A_FLOAT:
        return float(a["f"]) if "f" in a else float(a.get("floats", [0.0])[0])
    if kind == S.A_DOUBLE:
        return float(a.get("d", 0.0))
    if kind == S.A_STRING:
        raw = a["s"] if "s" in a else a.get("strings", [b""])[0]
        return bytes(raw).decode("utf-8")
    if kind == S.A_TENSORS:
        return tensor_array(a["tensors"][0])
    if kind in (S.A_TUPLE, S.A_LIST):
        return tuple(attr_value(v) for v in a.get("values", []))
    if kind in (S.A_UMONAD, S.A_IOMONAD):
        return MONAD
    if kind == S.A_NONE:
        return None
    raise ValueError(f"attribute {a.get('name', '')!r} has an unsupported type {kind}")


def read_model(path: str | os.PathLike) -> MindIRModel:
    """The model in the MindIR file ``path`` (see the module docstring)."""
    where = os.fspath(path)
    try:
        with open(where, "rb") as f:
            raw = f.read()
    except OSError as error:
        raise MindIRError(f"load: cannot read MindIR file {where!r}: {error.strerror}") from None
    try:
        message = decode(memoryview(raw), S.MODEL)
        if "graph" not in message or not message["graph"].get("node"):
            raise ValueError("it holds no MindIR graph")
        if message.get("functions"):
            raise ValueError("it holds subgraphs (control flow or nested functions), which twinmode "
                             "does not load")
        return _model(where, message)
    except WireError as error:
        raise MindIRError(f"load: {where!r} is not a MindIR file (protobuf: {error})") from None
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        raise MindIRError(f"load: cannot read MindIR file {where!r}: {error}") from None
    except RecursionError:
        raise MindIRError(f"load: cannot read MindIR file {where!r}: its values nest too deeply") from None


def _model(path: str, message: dict[str, Any]) -> MindIRModel:
    graph = message["graph"]
    prims = {p.get("name", ""): p for p in message.get("primitives", [])}
    inputs = []
    for info in graph.get("input", []):
        t = (info.get("tensor") or [{}])[0]
        dtype = S.TENSOR_DTYPES.get(t.get("data_type", 1), np.float32)
        inputs.append((info["name"], tuple(t.get("dims", [])), np.dtype(dtype)))
    model = MindIRModel(path, graph.get("name", ""), inputs,
                        [o["name"] for o in graph.get("output", [])])
    for t in graph.get("parameter", []):
        name = t.get("name", "")
        model.params[name] = (t.get("ref_key") or name.rsplit(":", 1)[-1], tensor_array(t))
    for n in graph["node"]:
        output = (n.get("output") or [n.get("name", "")])[0]
        op_type = n.get("op_type", "")
        if op_type == "Constant":
            value = next((a for a in n.get("attribute", []) if a.get("name") == "value"), None)
            if value is None:
                raise ValueError(f"constant {output!r} has no value")
            model.constants[output] = attr_value(value)
            continue
        model.nodes.append(_node(n, op_type, output, prims))
    return model


def _node(n: dict[str, Any], op_type: str, output: str, prims: dict[str, Any]) -> Node:
    if op_type.startswith("REF::"):
        prim = prims.get(op_type[5:])
        if prim is None:
            raise ValueError(f"node {output!r} refers to primitive {op_type[5:]!r}, which the file "
                             "does not define")
        attrs = {a["name"]: attr_value(a) for a in prim.get("attribute", [])
                 if a.get("name") not in ("input_names", "output_names")}
        return Node(prim.get("op_type", op_type[5:]), attrs, list(n.get("input", [])), output)
    # older files: the primitive's name and attributes on the node itself
    attrs = {a["name"]: attr_value(a) for a in n.get("attribute", []) if a.get("name") != "shape"}
    return Node(op_type.split(":")[0], attrs, list(n.get("input", [])), output)
