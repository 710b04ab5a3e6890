"""``ops.vmap(fn, in_axes=0, out_axes=0)``: MindSpore 2.x's batching transform.

``vmap(fn, in_axes, out_axes)(*args)`` runs ``fn`` on each example of a batch and gives the
results stacked along ``out_axes``. ``in_axes`` holds one entry per argument of ``fn`` (a
tuple or list), or one for all: an int is the axis along which that argument (or every
tensor nested in it, in tuples and lists) is batched, ``None`` an unbatched argument, a
tuple/list the axes of a tuple/list argument's items. ``out_axes`` says the same of the
outputs (a single output counts as a 1-tuple); ``None`` there marks an output that does not
depend on the batch (it is returned once, as it is). ``fn`` may be an ``nn.CellList`` (model
ensembling, as in MindSpore): cell ``i`` gets example ``i`` and ``in_axes`` may be all None.

The approach, the same in both modes: a batching transform (:mod:`.batching`). ``fn`` is
traced once on one example's shapes into our IR, each node is rewritten by its primitive's
batching rule (:mod:`.batching_rules`, :mod:`.batching_index`) so that every value carries
the batch as its first axis or is known unbatched, and the rewritten graph runs in the
current mode: in PyNative eagerly on the NumPy kernels, recorded on the tape (gradients
flow through ``vmap``, and ``vmap`` of ``grad`` gives per-example gradients); while
tracing (inside ``@jit``, a graph-mode ``construct``, or ``vmap`` called at top level in
``GRAPH_MODE``, which compiles it as MindSpore does) as nodes of the enclosing graph, as
many whatever the batch size. ``fn`` runs once (its Python side effects happen once; once
more per example where the transform then falls back).

The fallback, per example: where the transform refuses (see :mod:`.batching`: ``fn``
is an ``nn.CellList`` ensemble; a primitive with batched inputs and no rule for them,
such as ``Conv2D`` with a batched weight or ``Conv2DBackpropFilter``; tensor control flow
(``if``/``while`` on a tensor), prints, ``Dropout``; code that needs a tensor's value; a
Parameter assignment) the whole call runs as before the transform: every batched argument
is split along its axis (``unstack``), ``fn`` runs once per example (a Python loop over the
static batch size, unrolled into the graph while tracing, ``fn``'s source converted as graph
mode converts any function) and each output is joined with ``stack``. Correct rather than
fast: the graph grows with the batch size. Where MindSpore refuses a branch on a batched
value, this runs it per example. ``batching.OUTCOME`` says which path the latest call took.

Errors follow MindSpore's kinds: a malformed axis spec, a single-None ``in_axes`` or
``out_axes``, batch sizes that disagree or an axis out of range are ``RuntimeError``; an
empty batch is a ``ValueError``. An output with ``out_axes`` None that does depend on the
batch is a ``RuntimeError`` (while tracing: found from the graph; in PyNative: when the
examples' values differ; otherwise the first example's value is returned).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .grad import HOOKS, _mode_aware

# Types of ``fn`` that vmap treats as an ensemble (one cell per example): ``nn.CellList``,
# registered by framework.nn (above this layer)
ENSEMBLES: list[type] = []


def _is_int(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _check_spec(spec: Any, what: str) -> None:
    if isinstance(spec, tuple | list):
        for item in spec:
            _check_spec(item, what)
    elif spec is not None and not _is_int(spec):
        raise RuntimeError(f"vmap: each axis in {what!r} must be an int or None, got "
                           f"{spec!r} ({type(spec).__name__})")


def _all_none(spec: Any) -> bool:
    if isinstance(spec, tuple | list):
        return all(_all_none(s) for s in spec)
    return spec is None


def _axis(axis: int, rank: int, what: str) -> int:
    if not -rank <= axis < rank:
        raise RuntimeError(f"vmap: the axis {axis} in {what!r} is out of bounds for a tensor "
                           f"of rank {rank} (valid: [{-rank}, {rank}))")
    return axis % rank


def _rebuilt(like: Any, items: list) -> Any:
    if isinstance(like, tuple) and hasattr(like, "_fields"):  # a namedtuple
        return type(like)(*items)
    return type(like)(items)


def _batched_leaves(value: Any, spec: Any, out: list) -> None:
    """Append ``(tensor, axis)`` for each batched tensor of ``value`` under ``spec``."""
    from ..common.tensor import Tensor

    if isinstance(spec, tuple | list):
        if not isinstance(value, tuple | list):
            raise RuntimeError(f"vmap: in_axes gives {spec!r} for a {type(value).__name__}; "
                               "a tuple/list of axes needs a tuple/list argument")
        if len(spec) != len(value):
            raise RuntimeError(f"vmap: in_axes {spec!r} has {len(spec)} entries for an "
                               f"argument of {len(value)} items")
        for v, s in zip(value, spec):
            _batched_leaves(v, s, out)
    elif spec is None:
        return
    elif isinstance(value, tuple | list):
        for v in value:
            _batched_leaves(v, spec, out)
    elif isinstance(value, Tensor):
        out.append((value, _axis(int(spec), len(value.shape), "in_axes")))
    else:
        raise RuntimeError(f"vmap: in_axes gives axis {spec} for a {type(value).__name__}; "
                           "only tensors are batched: give None for this argument")


def _with_examples(value: Any, spec: Any, pieces: Any) -> Any:
    """``value`` with each batched tensor replaced by the next of ``pieces`` (an iterator),
    walked in :func:`_batched_leaves`' order."""
    if isinstance(spec, tuple | list):
        return _rebuilt(value, [_with_examples(v, s, pieces) for v, s in zip(value, spec)])
    if spec is None:
        return value
    if isinstance(value, tuple | list):
        return _rebuilt(value, [_with_examples(v, spec, pieces) for v in value])
    return next(pieces)


def _depends_on(tensor: Any, sources: set[int]) -> bool | None:
    """Whether ``tensor`` was computed from one of the values ``sources`` (ids of traced
    Values); None when it is not a traced value."""
    from ..ir.graph import Value

    start = tensor._data
    if not isinstance(start, Value):
        return None
    stack, seen = [start], set()
    while stack:
        value = stack.pop()
        if value.id in sources:
            return True
        if value.id in seen or value.producer is None:
            continue
        seen.add(value.id)
        stack.extend(value.producer.inputs)
    return False


def _unbatched(examples: list, sources: set[int], where: str) -> Any:
    from ..common.tensor import Tensor

    first = examples[0]
    if isinstance(first, Tensor):
        depends = _depends_on(first, sources)
        if depends is None:  # concrete values (PyNative): they must agree
            ref = first.asnumpy()
            depends = any(not np.array_equal(e.asnumpy(), ref, equal_nan=ref.dtype.kind == "f")
                          for e in examples[1:])
        if depends:
            raise RuntimeError(f"vmap: output {where} has out_axes None but depends on the "
                               "batched inputs; give it an int axis")
    return first


def _stack(examples: list, spec: Any, sources: set[int], where: str) -> Any:
    from ..common.tensor import Tensor
    from ..ops.array_ops import stack

    first = examples[0]
    if isinstance(first, tuple | list):
        if isinstance(spec, tuple | list) and len(spec) != len(first):
            raise RuntimeError(f"vmap: out_axes {spec!r} has {len(spec)} entries for "
                               f"{len(first)} results at {where}")
        specs = spec if isinstance(spec, tuple | list) else [spec] * len(first)
        return _rebuilt(first, [_stack([e[k] for e in examples], specs[k], sources,
                                       f"{where}[{k}]") for k in range(len(first))])
    if isinstance(spec, tuple | list):
        raise RuntimeError(f"vmap: out_axes gives {spec!r} for the single result {where}")
    if not isinstance(first, Tensor | bool | int | float | np.generic):
        raise RuntimeError(f"vmap: fn's results must be tensors or numbers (or tuples/lists "
                           f"of them), got a {type(first).__name__} at {where}")
    if spec is None:
        return _unbatched(examples, sources, where)
    tensors = [e if isinstance(e, Tensor) else Tensor(e) for e in examples]
    rank = len(tensors[0].shape) + 1
    return stack(tensors, _axis(int(spec), rank, "out_axes"))


def _name(fn: Any) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _placed(out: Any, spec: Any, size: int, where: str) -> Any:
    """The batching transform's result (:class:`batching.Leaf` leaves) on ``out_axes``."""
    from ..common.tensor import Tensor
    from . import batching

    if isinstance(out, tuple | list):
        if isinstance(spec, tuple | list) and len(spec) != len(out):
            raise RuntimeError(f"vmap: out_axes {spec!r} has {len(spec)} entries for "
                               f"{len(out)} results at {where}")
        specs = spec if isinstance(spec, tuple | list) else [spec] * len(out)
        return _rebuilt(out, [_placed(o, specs[k], size, f"{where}[{k}]")
                              for k, o in enumerate(out)])
    if isinstance(spec, tuple | list):
        raise RuntimeError(f"vmap: out_axes gives {spec!r} for the single result {where}")
    if not isinstance(out.value, Tensor | bool | int | float | np.generic):
        raise RuntimeError(f"vmap: fn's results must be tensors or numbers (or tuples/lists "
                           f"of them), got a {type(out.value).__name__} at {where}")
    if spec is None:
        return batching.example_zero(out, where)
    rank = len(np.shape(out.value._data if isinstance(out.value, Tensor) else out.value))
    return batching.place(out, _axis(int(spec), rank + (0 if out.batched else 1), "out_axes"),
                          size)


def _output_spec(out_axes: Any, result: Any) -> Any:
    """``out_axes`` for ``fn``'s result: a 1-entry tuple/list for a single result is its entry."""
    if isinstance(out_axes, tuple | list) and not isinstance(result, tuple | list):
        if len(out_axes) != 1:
            raise RuntimeError(f"vmap: out_axes has {len(out_axes)} entries for fn's "
                               "single result")
        return out_axes[0]
    return out_axes


def _batch_size(leaves: list, ensemble: Any) -> int:
    sizes = {int(t.shape[axis]) for t, axis in leaves}
    if ensemble is not None:
        sizes.add(len(ensemble))
    if len(sizes) > 1:
        raise RuntimeError(f"vmap: the batched inputs disagree on the batch size "
                           f"({sorted(sizes)}){' (and the CellList size)' if ensemble else ''}")
    if not sizes:
        raise RuntimeError("vmap: no argument holds a batched tensor")
    size = sizes.pop()
    if size == 0:
        raise ValueError("vmap: the batch is empty (size 0 along the batched axis)")
    return size


def _checked(args: tuple, in_axes: Any, out_axes: Any, ensemble: bool) -> tuple[list, list]:
    """The per-argument axis specs and the batched ``(tensor, axis)`` leaves."""
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    if not ensemble and _all_none(in_axes):
        raise RuntimeError(f"vmap: in_axes cannot be all None (got {in_axes!r}) unless fn "
                           "is an nn.CellList")
    if _all_none(out_axes):
        raise RuntimeError(f"vmap: out_axes cannot be all None (got {out_axes!r})")
    specs = in_axes
    if isinstance(in_axes, tuple | list):
        if len(in_axes) != len(args):
            raise RuntimeError(f"vmap: in_axes has {len(in_axes)} entries for the "
                               f"{len(args)} arguments of fn")
    else:
        specs = [in_axes] * len(args)
    leaves: list = []
    for value, spec in zip(args, specs):
        _batched_leaves(value, spec, leaves)
    return list(specs), leaves


def _per_example(fn: Any, args: tuple, specs: list, leaves: list, size: int, ensemble: bool,
                 out_axes: Any) -> Any:
    """The fallback: ``fn`` once per example, the results stacked (module docstring)."""
    from ..interpreters import is_tracing
    from ..ops.array_ops import unstack

    split = [unstack(t, axis) for t, axis in leaves]
    sources = {p._data.id for pieces in split for p in pieces if hasattr(p._data, "id")}
    convert = HOOKS["convert"]
    fns = list(fn) if ensemble else [fn] * size
    examples = []
    for i in range(size):
        call = fns[i]
        if convert is not None and is_tracing():
            call = convert(call)
        example_args = _with_examples(args, specs, iter([p[i] for p in split]))
        examples.append(call(*example_args))
    return _stack(examples, _output_spec(out_axes, examples[0]), sources, "of fn")


def _batched_call(fn: Any, args: tuple, specs: list, leaves: list, size: int,
                  out_axes: Any) -> Any:
    """The batching transform's result placed on ``out_axes``; NotBatchable if it refuses."""
    from . import batching  # imported on first use: it needs the ops, which import vmap
    if not batching.ENABLED:
        raise batching.NotBatchable("the batching transform is disabled (batching.ENABLED)")
    result = batching.batch(fn, leaves, lambda pieces: _with_examples(args, specs, iter(pieces)),
                            size)
    return _placed(result, _output_spec(out_axes, result), size, "of fn")


def vmap(fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0) -> Callable[..., Any]:
    """``vmap(fn, in_axes=0, out_axes=0)``: ``fn`` batched (see the module docstring)."""
    ensemble = isinstance(fn, tuple(ENSEMBLES))
    if not callable(fn):
        raise RuntimeError(f"vmap: fn must be a function or a Cell, got {type(fn).__name__}")

    def batched(*args: Any) -> Any:
        from . import batching

        specs, leaves = _checked(args, in_axes, out_axes, ensemble)
        size = _batch_size(leaves, fn if ensemble else None)
        if not ensemble:
            try:
                out = _batched_call(fn, tuple(args), specs, leaves, size, out_axes)
            except batching.NotBatchable as refusal:
                batching.OUTCOME.update(path="per-example", reason=str(refusal))
            else:
                batching.OUTCOME.update(path="batched", reason="")
                return out
        else:
            batching.OUTCOME.update(path="per-example", reason="fn is an nn.CellList ensemble")
        return _per_example(fn, tuple(args), specs, leaves, size, ensemble, out_axes)

    run = _mode_aware(batched, f"vmap_{_name(fn)}")

    def vmapped(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise RuntimeError(f"vmap: keyword arguments are not batched; pass "
                               f"{', '.join(kwargs)} positionally")
        return run(*args)

    vmapped.__name__ = f"vmap_{_name(fn)}"
    return vmapped


__all__ = ["vmap"]
