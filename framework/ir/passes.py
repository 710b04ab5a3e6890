"""IR passes: constant folding, common-subexpression elimination, dead-code elimination.

Each runs inside regions too (a region is a graph of its own). Side-effecting nodes
(prints, and control flow holding one) are never folded, merged or dropped; an ``If``
whose condition is a constant is replaced by the branch it takes.
"""

from __future__ import annotations

import warnings

import numpy as np

from .control import If, has_side_effects
from .graph import Graph, Node, Value

FOLD_MAX_ELEMENTS = 1 << 16  # larger results stay computed (no bloated constants)


def _regions(graph: Graph) -> list[Graph]:
    return [region for node in graph.nodes for region in node.prim.regions]


def dce(graph: Graph) -> int:
    """Drop nodes none of whose outputs reach a graph output; returns how many."""
    live = {v.id for v in graph.outputs}
    kept = []
    for node in reversed(graph.nodes):
        if has_side_effects(node) or any(o.id in live for o in node.outputs):
            kept.append(node)
            live.update(v.id for v in node.inputs)
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept[::-1]
    return removed + sum(dce(region) for region in _regions(graph))


def _const_key(v: Value) -> tuple:
    data = np.ascontiguousarray(v.data)
    return ("const", data.dtype.str, data.shape, data.tobytes())


def cse(graph: Graph) -> int:
    """Merge nodes with the same primitive, attributes and inputs; returns how many."""
    seen: dict[tuple, tuple[Value, ...]] = {}
    consts: dict[tuple, Value] = {}
    mapping: dict[int, Value] = {}
    kept = []
    for node in graph.nodes:
        inputs = []
        for v in node.inputs:
            v = mapping.get(v.id, v)
            if v.kind == "const" and v.size <= FOLD_MAX_ELEMENTS:
                v = consts.setdefault(_const_key(v), v)
            inputs.append(v)
        node.inputs = tuple(inputs)
        key = (node.prim.key(), tuple(v.id for v in node.inputs))
        if key in seen and not has_side_effects(node):
            for old, new in zip(node.outputs, seen[key]):
                mapping[old.id] = new
            continue
        seen[key] = node.outputs
        kept.append(node)
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept
    graph.outputs = [mapping.get(v.id, v) for v in graph.outputs]
    return removed + sum(cse(region) for region in _regions(graph))


def _inline(node: Node, region: Graph, mapping: dict[int, Value]) -> list[Node]:
    """The nodes of ``region`` (the branch a constant condition takes) in place of
    ``node``: region inputs become the node's operands, its outputs the node's."""
    env = {v.id: mapping.get(a.id, a) for v, a in zip(region.inputs, node.inputs[1:])}
    nodes = []
    for inner in region.nodes:
        inner.inputs = tuple(env.get(v.id, v) for v in inner.inputs)
        nodes.append(inner)
    for out, v in zip(node.outputs, region.outputs):
        mapping[out.id] = env.get(v.id, v)
    return nodes


def _known(v: Value) -> bool:
    """A constant, or a tensor of no entries (its value is its shape: nothing to read)."""
    return v.kind == "const" or v.size == 0


def _data(v: Value) -> np.ndarray:
    return v.data if v.kind == "const" else np.empty(v.shape, v.dtype)


def _fold_empty(node: Node) -> tuple[np.ndarray, ...] | None:
    """The results of a node that reads only constants and empty tensors, at least one
    of them empty, from its NumPy kernel (PyNative's values: the sum or the product of
    nothing, the mean of nothing...; compiled kernels with an empty reduction may read
    memory that is not there), or None where the kernel refuses. A large result is kept
    only when uniform, as a broadcast scalar (lowered as one)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            results = node.prim.kernel(*[_data(v) for v in node.inputs])
            results = results if isinstance(results, tuple) else (results,)
            results = [np.asarray(data).astype(value.dtype, copy=False).reshape(value.shape)
                       for value, data in zip(node.outputs, results, strict=True)]
    except (ValueError, TypeError, ArithmeticError, IndexError, MemoryError):
        return None
    out = []
    for data in results:
        if data.size > FOLD_MAX_ELEMENTS:
            flat = data.reshape(-1)
            first = flat[0]
            if not ((flat == first) | ((flat != flat) & (first != first))).all():  # NaN == NaN
                return None
            data = np.broadcast_to(first, data.shape)
        out.append(data)
    return tuple(out)


def fold_constants(graph: Graph, keep_slices: bool = False) -> int:
    """Evaluate nodes whose inputs are all constants (or empty tensors: ``_fold_empty``),
    and replace an ``If`` on a constant condition by its branch; returns how many nodes
    were folded. ``keep_slices``: a Slice of a constant stays (a symbolic trace's
    ``positions[:t]``: the slice's extent is symbolic, the constant is not)."""
    mapping: dict[int, Value] = {}
    kept, folded = [], 0
    for node in graph.nodes:
        node.inputs = tuple(mapping.get(v.id, v) for v in node.inputs)
        if isinstance(node.prim, If) and node.inputs[0].kind == "const":
            branch = node.prim.then_graph if bool(np.asarray(node.inputs[0].data).reshape(())) \
                else node.prim.else_graph
            kept += _inline(node, branch, mapping)
            folded += 1
            continue
        plain = not node.prim.host_random and not node.prim.regions and not has_side_effects(node) \
            and not (keep_slices and node.prim.name == "Slice")
        foldable = (plain and all(v.kind == "const" for v in node.inputs)
                    and all(o.size <= FOLD_MAX_ELEMENTS for o in node.outputs))
        if foldable:
            results = node.prim.kernel(*[v.data for v in node.inputs])
            results = results if isinstance(results, tuple) else (results,)
        elif plain and all(map(_known, node.inputs)) and any(v.size == 0 for v in node.inputs):
            results = _fold_empty(node)
        else:
            results = None
        if results is None:
            kept.append(node)
            continue
        for out, data in zip(node.outputs, results):
            data = np.asarray(data).astype(out.dtype, copy=False)
            mapping[out.id] = Value(out.shape, out.dtype, kind="const", data=data)
        folded += 1
    graph.nodes = kept
    graph.outputs = [mapping.get(v.id, v) for v in graph.outputs]
    return folded + sum(fold_constants(region, keep_slices) for region in _regions(graph))


def optimize(graph: Graph, keep_slices: bool = False) -> dict[str, int]:
    """Fold, CSE, then DCE (inside regions too); returns the count each pass removed
    (``keep_slices``: see :func:`fold_constants`)."""
    stats = {"folded": fold_constants(graph, keep_slices), "cse": cse(graph), "dce": dce(graph)}
    graph.verify()
    return stats
