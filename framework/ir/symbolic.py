"""Symbolic dimensions: one traced graph standing for every size of a dynamic axis.

Contract (the IR's side of graph mode's dynamic shapes):

- The IR keeps int shapes: a graph is always traced at a concrete size. A dimension of the
  IR may *stand for* a symbol: a :class:`SymDim` (a name, an optional ``min``/``max``) of
  which the dimension is an affine function ``a * n + b`` (:class:`Affine`; ``n`` for a batch
  axis, ``400 * n`` after a flatten). A scalar constant may stand for ``k * n`` or
  ``k / n`` (:class:`Scaled`: the count a mean's gradient divides by).
- :func:`generalize` finds these from two traces of one function at two sizes of the
  symbol: same nodes, primitives and attributes, same constants, every differing dimension
  affine in the size. A control-flow node (If, While, WhileGrad) must hold as many regions
  with the same interface, and its regions' subgraphs are compared the same way,
  recursively (their values get dimensions in the same symbol). Anything else (a
  structure, an attribute or a constant that depends on the size otherwise, inside a
  region too) raises :class:`NotSymbolic` naming the primitive: that function is compiled
  per size.
- Several symbols (a batch ``n`` and a sequence length ``t``): a dimension is affine in one
  of them or ``k`` times their product (``n * t`` rows after a flatten of a batch of
  sequences), :attr:`Affine.of` naming the symbols it is a multiple of; a Scaled constant
  likewise (``1 / (n * t)``: a mean over every token). :func:`generalize_sizes` finds them
  from a trace at base sizes and, per symbol, one trace with only that symbol changed (each
  pair by :func:`generalize`); a dimension that varies in two symbols must be a multiple of
  their product (``n + t`` is refused). A size is an int (one symbol) or a tuple of ints,
  one per symbol in :attr:`Template.syms` order.
- A Slice's ``size`` is its output's shape: a size-dependent extent (``x[:, 1:]``,
  ``x[:, :-1]``, ``mask[:t, :t]``) is symbolic like any output dimension. Its ``begin``
  (and a Pad's ``paddings``: a Slice's gradient) may be affine in the size too
  (:data:`AFFINE_ATTRIBUTES`: step ``k``'s rows ``k * n`` of an unrolled recurrent layer's
  ``(T * n, H)`` outputs, any slope, as ints and Affines in :attr:`Template.attrs`).
  Symbolic traces keep the Slices of constants unfolded
  (``staging.optimize(..., symbolic=True)``), so a max-context constant (positions, a
  causal mask) is sliced at run time to the runtime length.
- A :class:`Template` says, per value of the first graph, its dimensions (ints and
  Affines) and, per constant, its Scaled form. :meth:`Template.matches` checks a trace at
  a third size against it: graph mode reuses the one compiled function for that size only
  when it matches (results are never those of a different program).
- Which layers handle it: graph_mode (traces at two sizes, checks each new size),
  the TVM lowering (Relax shapes and kernel extents from :meth:`Template.shape`, a Scaled
  constant computed from the runtime size), the kernel cache (keyed on
  :meth:`Template.signature`, not on the traced sizes), and the compile report
  (the symbolic axes of the inputs). Primitive shape rules and NumPy kernels see ints only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .graph import Graph, Value

# primitives whose only size-dependent attribute is their output shape, which their
# lowering reads from the output (so the symbolic output shape stands for it)
SHAPE_ATTRIBUTES = {"Reshape": "shape", "BroadcastTo": "shape",
                    "Conv2DBackpropInput": "input_shape", "Slice": "size"}
# integer attributes that may be affine in the size (flattened in Template.attrs); their
# lowerings read the symbolic form (framework/backend/tvm/lower/symbolic_shapes.py)
AFFINE_ATTRIBUTES = {"Slice": "begin", "Pad": "paddings"}


class NotSymbolic(Exception):
    """The function cannot be compiled once for every size; ``str`` says why (the
    primitive's name first, e.g. ``Slice: its attribute 'size' depends on the size``)."""


@dataclass(frozen=True)
class SymDim:
    """A symbolic dimension: its name and the sizes it may take (``max`` None: unbounded)."""

    name: str = "n"
    min: int = 1
    max: int | None = None


def _product(of: tuple[str, ...], size: int | Mapping[str, int]) -> int:
    """The product of the symbols ``of`` at ``size`` (an int: the one symbol's size)."""
    if isinstance(size, Mapping):
        return math.prod(int(size[name]) for name in of)
    return int(size) ** len(of)


@dataclass(frozen=True)
class Affine:
    """The dimension ``a * m + b``, ``m`` the product of the symbols ``of`` (``n``; ``n * t``)."""

    a: int
    b: int = 0
    of: tuple[str, ...] = ("n",)

    def at(self, n: int | Mapping[str, int]) -> int:
        return self.a * _product(self.of, n) + self.b

    def __str__(self) -> str:
        m = "*".join(self.of)
        head = m if self.a == 1 else f"{self.a}*{m}"
        return head if self.b == 0 else f"{head}{self.b:+d}"


@dataclass(frozen=True)
class Scaled:
    """A scalar constant ``k * n`` (power 1), ``k / n`` (power -1) or ``m / (m - 1)`` with
    ``m = k * n`` (power 0: the unbiased-variance factor of a batch statistic over ``k``
    entries per sample)."""

    k: float
    power: int
    of: tuple[str, ...] = ("n",)  # ``n`` the product of these symbols

    def at(self, n: int | Mapping[str, int]) -> float:
        n = _product(self.of, n)
        if self.power == 0:
            return self.k * n / (self.k * n - 1)
        return self.k * n if self.power == 1 else self.k / n


@dataclass
class Template:
    """What each value of ``graph`` (traced at size ``size``) is for every size."""

    graph: Graph
    size: int | tuple[int, ...]
    sym: SymDim
    dims: dict[int, tuple[int | Affine, ...]] = field(default_factory=dict)
    scaled: dict[int, Scaled] = field(default_factory=dict)
    syms: tuple[SymDim, ...] = ()  # every symbol, in the order of a size's tuple ((sym,) if empty)
    # per node (its first output's id): an AFFINE_ATTRIBUTES attribute, flattened, with
    # Affine entries where it depends on the size
    attrs: dict[int, tuple[int | Affine, ...]] = field(default_factory=dict)

    def symbols(self) -> tuple[SymDim, ...]:
        return self.syms or (self.sym,)

    def sizes(self, size: int | tuple[int, ...]) -> dict[str, int]:
        """A size (an int, or a tuple per symbol) by symbol name."""
        values = size if isinstance(size, tuple) else (size,)
        return {s.name: int(v) for s, v in zip(self.symbols(), values, strict=True)}

    def shape(self, value: Value) -> tuple[int | Affine, ...]:
        return self.dims.get(value.id, value.shape)

    def input_axes(self) -> list[list[int]]:
        """Per graph input, its symbolic axes."""
        return [[i for i, d in enumerate(self.shape(v)) if isinstance(d, Affine)]
                for v in self.graph.inputs]

    def signature(self) -> str:
        """What the compiled function depends on beyond the graph's text: the symbolic
        dimensions and constants, in graph order (a cache key part)."""
        values = _values(self.graph)
        parts = [f"{i}:{','.join(map(str, self.shape(v)))}" for i, v in enumerate(values)
                 if v.id in self.dims]
        consts = [f"{s.k!r}^{s.power}{'' if s.of == ('n',) else '/' + '*'.join(s.of)}"
                  for s in self.scaled.values()]
        syms = ",".join(map(str, self.symbols()))
        attrs = [f"{i}:{','.join(map(str, self.attrs[v.id]))}" for i, v in enumerate(values)
                 if v.id in self.attrs]
        return f"{syms}|{';'.join(parts)}|{';'.join(consts)}" + (f"|{';'.join(attrs)}" if attrs else "")

    def matches(self, other: Graph, size: int | tuple[int, ...]) -> bool:
        """Whether ``other`` (the function traced at ``size``) is this template at that
        size: then the function compiled from the template computes it."""
        if size == self.size:
            return False
        try:
            generalize(self.graph, self.size, other, size, self.sym, known=self)
        except NotSymbolic:
            return False
        return True


def _values(graph: Graph) -> list[Value]:
    """``graph``'s inputs and node outputs, its regions' in place (pre-order)."""
    out = list(graph.inputs)
    for node in graph.nodes:
        for region in node.prim.regions:
            out += _values(region)
        out += node.outputs
    return out


def _affine(da: int, na: int, db: int, nb: int, where: str, name: str = "n",
            signed: bool = False) -> int | Affine:
    """``da`` at ``na`` and ``db`` at ``nb`` as one dimension (``signed``: an attribute, whose
    slope may be negative)."""
    if da == db:
        return da
    slope, rest = divmod(db - da, nb - na)
    if rest or (slope <= 0 and not signed):
        raise NotSymbolic(f"{where}: a dimension is not an affine function of the size "
                          f"({da} at {na}, {db} at {nb})")
    return Affine(slope, da - slope * na, (name,))


def _scalar(a: Any) -> Any:
    return np.asarray(a).reshape(-1)[0]


def _scaled(a: Any, na: int, b: Any, nb: int) -> Scaled | None:
    """The Scaled form of two scalar constants, or None."""
    if a.size != 1 or b.size != 1 or a.dtype.kind != "f":
        return None
    x, y = float(a.reshape(-1)[0]), float(b.reshape(-1)[0])
    for power, k, other in ((1, x / na, y / nb), (-1, x * na, y * nb)):
        if np.isclose(k, other, rtol=1e-6, atol=0.0):
            return Scaled(k, power)
    if x > 1.0:  # m / (m - 1) = x: m = x / (x - 1) = k * na, k whole; exact in the dtype,
        guess = round(x / (x - 1) / na)  # and only one k near the guess fits both sizes
        fits = [Scaled(float(k), 0) for k in range(max(1, guess - 8), guess + 9)]
        fits = [f for f in fits if a.dtype.type(f.at(na)) == a.reshape(-1)[0]
                and b.dtype.type(f.at(nb)) == b.reshape(-1)[0]]
        if len(fits) == 1:
            return fits[0]
    return None


def _same_data(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape == b.shape:
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    # a constant of a size-dependent shape holding one value broadcast (zeros, ones)
    return a.size > 0 and b.size > 0 and bool(np.all(a == a.reshape(-1)[0])) \
        and bool(np.all(b == a.reshape(-1)[0]))


def _attrs_equal(x: Any, y: Any) -> bool:
    try:
        return bool(np.array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object))) \
            if isinstance(x, np.ndarray | list | tuple) else bool(x == y)
    except (TypeError, ValueError):
        return x is y


def generalize(a: Graph, na: int, b: Graph, nb: int, sym: SymDim,
               known: Template | None = None) -> Template:
    """The template of the function traced as ``a`` at size ``na`` and ``b`` at ``nb``
    (see the module docstring); :class:`NotSymbolic` when there is none. With ``known``
    (the template of ``a``, checking ``b`` at ``nb`` against it) a Reshape, BroadcastTo or
    Slice of ``a`` that is the identity at ``nb`` may be missing from ``b`` (tracing skips
    such no-ops: a broadcast of one row at size 1, ``positions[:t]`` at the full context)."""
    if na == nb:
        raise NotSymbolic("two traces at one size")
    template = Template(a, na, sym)
    at = known.sizes(nb) if known is not None else None
    seen: dict[int, Value] = {}
    sliced: dict[int, Value] = {}  # a skipped Slice's output -> the constant it slices
    skipped: set[int] = set()  # a skipped no-op's output (of a value, not a constant)

    def pair(x: Value, y: Value, where: str) -> None:
        if seen.setdefault(x.id, y) is not y:
            raise NotSymbolic(f"{where}: the traced program's data flow depends on the size")
        if x.id in skipped:  # a skipped no-op of a value: ``y`` is that value
            _check(known, x, y, at, where)
            return
        if x.id in sliced:  # a skipped Slice of a constant: ``y`` is that constant
            if y.kind != "const" or not _same_data(sliced[x.id].data, y.data):
                raise NotSymbolic(f"{where}: the traced program's data flow depends on the size")
            _check(known, x, y, at, where)
            return
        if x.kind != y.kind or x.dtype != y.dtype or x.ndim != y.ndim:
            raise NotSymbolic(f"{where}: a value's kind, dtype or rank depends on the size")
        if at is not None:  # checking ``b`` against the known template at its size
            _check(known, x, y, at, where)
            return
        dims = tuple(_affine(p, na, q, nb, where, sym.name) for p, q in zip(x.shape, y.shape))
        if any(isinstance(d, Affine) for d in dims):
            template.dims[x.id] = dims
        if x.kind == "const" and not _same_data(x.data, y.data):
            scaled = _scaled(np.asarray(x.data), na, np.asarray(y.data), nb)
            if scaled is None:
                raise NotSymbolic(f"{where}: a constant it reads depends on the size")
            template.scaled[x.id] = Scaled(scaled.k, scaled.power, (sym.name,))

    def walk(ga: Graph, gb: Graph, where: str) -> None:
        """Pair ``ga``'s values with ``gb``'s: inputs, nodes (regions recursively), outputs."""
        if len(ga.inputs) != len(gb.inputs) or len(ga.outputs) != len(gb.outputs):
            raise NotSymbolic(f"{where}the traced program's structure depends on the size")
        for i, (x, y) in enumerate(zip(ga.inputs, gb.inputs)):
            pair(x, y, f"input {i}" if ga is a else where[:-2])
        k = 0
        for node in ga.nodes:
            name = node.prim.name
            other = gb.nodes[k] if k < len(gb.nodes) else None
            if known is not None and _skipped(node, other, known, at, seen):
                if node.inputs[0].id in seen:
                    seen[node.outputs[0].id] = seen[node.inputs[0].id]
                    skipped.add(node.outputs[0].id)
                else:
                    sliced[node.outputs[0].id] = node.inputs[0]
                continue
            if other is None or type(node.prim) is not type(other.prim) \
                    or len(node.inputs) != len(other.inputs):
                raise NotSymbolic(f"{name}: the traced program's structure depends on the size")
            k += 1
            affine = _same_attributes(node, other, na, nb, sym.name, known, at)
            if affine is not None:
                template.attrs[node.outputs[0].id] = affine
            for x, y in zip(node.inputs, other.inputs):
                pair(x, y, name)
            for ra, rb in zip(node.prim.regions, other.prim.regions):  # If branches, loop bodies
                walk(ra, rb, f"{name}: ")
            for x, y in zip(node.outputs, other.outputs):
                pair(x, y, name)
        if k != len(gb.nodes):
            raise NotSymbolic(f"{where}the traced program's structure depends on the size")
        for x, y in zip(ga.outputs, gb.outputs):
            pair(x, y, "output" if ga is a else where[:-2])

    walk(a, b, "")
    return template


def _flat(value: Any) -> tuple[Any, ...] | None:
    """An attribute of ints (nested tuples of them) flattened, or None."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, tuple | list):
        parts = [_flat(v) for v in value]
        return None if any(p is None for p in parts) else tuple(x for p in parts for x in p)
    return None


def _same_attributes(node: Any, other: Any, na: Any = None, nb: Any = None, name_: str = "n",
                     known: Template | None = None, at: dict[str, int] | None = None
                     ) -> tuple[int | Affine, ...] | None:
    """Refuse ``node`` and ``other`` (one node traced at two sizes) whose attributes differ
    otherwise than by a symbolic output shape (a Slice's size included) or an affine
    AFFINE_ATTRIBUTES attribute (returned flattened, None when there is none; with
    ``known``, ``other`` is checked against its form at the sizes ``at``); control-flow
    nodes must hold as many regions and carry as many values."""
    name = node.prim.name
    found = None
    for key, value in node.prim.attrs.items():
        if AFFINE_ATTRIBUTES.get(name) == key:
            mine, theirs = _flat(value), _flat(other.prim.attrs.get(key))
            if known is not None and node.outputs[0].id in known.attrs:
                form = known.attrs[node.outputs[0].id]
                want = tuple(d.at(at) if isinstance(d, Affine) else d for d in form)
                if theirs != want:
                    raise NotSymbolic(f"{name}: its attribute {key!r} is not the template's")
                continue
            if mine is not None and theirs is not None and len(mine) == len(theirs) \
                    and mine != theirs and known is None:
                try:
                    found = tuple(_affine(p, na, q, nb, name, name_, signed=True)
                                  for p, q in zip(mine, theirs))
                except NotSymbolic:
                    raise NotSymbolic(f"{name}: its attribute {key!r} depends on the size "
                                      "(not as an affine function of it)") from None
                continue
        if not _attrs_equal(value, other.prim.attrs.get(key)) and not (
                SHAPE_ATTRIBUTES.get(name) == key and tuple(value) == node.outputs[0].shape
                and tuple(other.prim.attrs[key]) == other.outputs[0].shape):
            raise NotSymbolic(f"{name}: its attribute {key!r} depends on the size")
    if node.prim.regions or other.prim.regions:
        counts = [(len(p.regions), getattr(p, "n_carried", None), getattr(p, "n_invariants", None),
                   getattr(p, "n_cotangents", None), len(p.region_labels)) for p in (node.prim, other.prim)]
        if counts[0] != counts[1]:
            raise NotSymbolic(f"{name}: its regions' interface depends on the size")
    return found


def _skipped(node: Any, other: Any, known: Template, n: dict[str, int],
             seen: dict[int, Value]) -> bool:
    """Whether ``node`` (a Reshape or BroadcastTo of the known template) is the identity at
    size ``n`` and missing from the other trace (whose next node is ``other``)."""
    source = node.inputs[0]
    if node.prim.name not in SHAPE_ATTRIBUTES or (source.id not in seen and source.kind != "const"):
        return False
    if other is not None and type(other.prim) is type(node.prim):
        return False
    at = tuple(d.at(n) if isinstance(d, Affine) else d for d in known.shape(node.outputs[0]))
    return at == (seen[source.id] if source.id in seen else source).shape


def _check(known: Template, x: Value, y: Value, at: dict[str, int], where: str) -> None:
    """``y`` (of a trace at sizes ``at``) is the known template's ``x`` at those sizes."""
    want = tuple(d.at(at) if isinstance(d, Affine) else d for d in known.shape(x))
    if tuple(y.shape) != want:
        raise NotSymbolic(f"{where}: a shape {tuple(y.shape)} is not the template's {want}")
    if x.kind != "const" or _same_data(x.data, y.data):
        return
    scaled = known.scaled.get(x.id)
    if scaled is None or np.asarray(y.data).size != 1 or not np.isclose(
            float(_scalar(y.data)), scaled.at(at), rtol=1e-6, atol=0.0):
        raise NotSymbolic(f"{where}: a constant it reads is not the template's")


def generalize_sizes(traces: list[tuple[Graph, int | tuple[int, ...]]],
                     syms: tuple[SymDim, ...]) -> Template:
    """The template of one function traced at several sizes: ``traces[0]`` at the base
    sizes, then per symbol a trace whose size differs from the base in that symbol only
    (one symbol: two traces, :func:`generalize`). A dimension varying in several symbols
    is ``k`` times their product (see the module docstring), else :class:`NotSymbolic`."""
    if len(syms) == 1:
        (a, na), (b, nb) = traces
        return generalize(a, na, b, nb, syms[0])
    (graph, base), others = traces[0], traces[1:]
    if len(others) != len(syms):
        raise NotSymbolic("one trace per symbol is needed")
    parts = [generalize(graph, base[i], g, size[i], sym) for i, (sym, (g, size)) in
             enumerate(zip(syms, others))]
    names = [s.name for s in syms]
    template = Template(graph, tuple(base), syms[0], syms=tuple(syms))

    def rest(i: int, used: list[int]) -> int:  # the other symbols' base sizes, multiplied
        return math.prod(base[j] for j in used if j != i)

    for vid in {k for p in parts for k in p.dims}:
        template.dims[vid] = _join([p.dims.get(vid) for p in parts], base, names)
    for vid in {k for p in parts for k in p.attrs}:
        template.attrs[vid] = _join([p.attrs.get(vid) for p in parts], base, names)
    for vid in {k for p in parts for k in p.scaled}:
        found = {i: p.scaled[vid] for i, p in enumerate(parts) if vid in p.scaled}
        used = sorted(found)
        ks = [s.k * rest(i, used) if s.power == -1 else s.k / rest(i, used) for i, s in found.items()]
        if len({s.power for s in found.values()}) != 1 or not np.allclose(ks, ks[0], rtol=1e-6, atol=0):
            raise NotSymbolic("a constant varies in several symbols but not with their product")
        template.scaled[vid] = Scaled(ks[0], found[used[0]].power, tuple(names[i] for i in used))
    return template


def _join(shapes: list[tuple[int | Affine, ...] | None], base: tuple[int, ...],
          names: list[str]) -> tuple[int | Affine, ...]:
    """One value's dimensions (or a node's affine attribute) from its form per symbol
    (None: constant in that symbol): affine in one symbol, or ``k`` times the product of
    several (see :func:`generalize_sizes`)."""
    ndim = len(next(s for s in shapes if s is not None))
    dims: list[int | Affine] = []
    for axis in range(ndim):
        found = {i: s[axis] for i, s in enumerate(shapes) if s is not None and isinstance(s[axis], Affine)}
        if not found:
            dims.append(next(s for s in shapes if s is not None)[axis])
            continue
        if len(found) == 1:
            dims.append(next(iter(found.values())))
            continue
        used = sorted(found)
        ks = {d.a / math.prod(base[j] for j in used if j != i) for i, d in found.items()}
        if any(d.b for d in found.values()) or len(ks) != 1 or not float(next(iter(ks))).is_integer():
            raise NotSymbolic(f"a dimension varies in {', '.join(names[i] for i in used)} "
                              "but is not a multiple of their product")
        dims.append(Affine(int(ks.pop()), 0, tuple(names[i] for i in used)))
    return tuple(dims)
