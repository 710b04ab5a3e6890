"""IR passes: constant folding, common-subexpression elimination, dead-code elimination."""

from __future__ import annotations

import numpy as np

from .graph import Graph, Value

FOLD_MAX_ELEMENTS = 1 << 16  # larger results stay computed (no bloated constants)


def dce(graph: Graph) -> int:
    """Drop nodes none of whose outputs reach a graph output; returns how many."""
    live = {v.id for v in graph.outputs}
    kept = []
    for node in reversed(graph.nodes):
        if any(o.id in live for o in node.outputs):
            kept.append(node)
            live.update(v.id for v in node.inputs)
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept[::-1]
    return removed


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
        if key in seen:
            for old, new in zip(node.outputs, seen[key]):
                mapping[old.id] = new
            continue
        seen[key] = node.outputs
        kept.append(node)
    removed = len(graph.nodes) - len(kept)
    graph.nodes = kept
    graph.outputs = [mapping.get(v.id, v) for v in graph.outputs]
    return removed


def fold_constants(graph: Graph) -> int:
    """Evaluate nodes whose inputs are all constants; returns how many were folded."""
    mapping: dict[int, Value] = {}
    kept, folded = [], 0
    for node in graph.nodes:
        node.inputs = tuple(mapping.get(v.id, v) for v in node.inputs)
        foldable = (all(v.kind == "const" for v in node.inputs)
                    and not node.prim.host_random
                    and all(o.size <= FOLD_MAX_ELEMENTS for o in node.outputs))
        if not foldable:
            kept.append(node)
            continue
        results = node.prim.kernel(*[v.data for v in node.inputs])
        results = results if isinstance(results, tuple) else (results,)
        for out, data in zip(node.outputs, results):
            data = np.asarray(data).astype(out.dtype, copy=False)
            mapping[out.id] = Value(out.shape, out.dtype, kind="const", data=data)
        folded += 1
    graph.nodes = kept
    graph.outputs = [mapping.get(v.id, v) for v in graph.outputs]
    return folded


def optimize(graph: Graph) -> dict[str, int]:
    """Fold, CSE, then DCE; returns the count each pass removed."""
    stats = {"folded": fold_constants(graph), "cse": cse(graph), "dce": dce(graph)}
    graph.verify()
    return stats
