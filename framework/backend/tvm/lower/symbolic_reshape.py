"""A reshape of a symbolic shape as a kernel whose index arithmetic is per group of axes.

Contract: ``reshape_kernel(bb, call)`` legalizes a ``relax.reshape`` whose shapes hold
symbols (framework/ir/symbolic.py: batch ``n``, length ``t``) into a TE kernel, or answers
None where the axes cannot be grouped (the caller then keeps ``R.reshape``, a view).

TOPI's reshape flattens the whole output index and unflattens it into the input's, so
every element divides by the symbolic extents (``// t % n``): the kernel is slow and
RewriteDataflowReshape cannot prove it a view. Here the two shapes are cut into groups
whose products are equal (proved by TVM's analyzer): ``(n, t, 3C) -> (n, t, 3, h, d)``
is the groups ``n | t | 3C -> (3, h, d)``. An axis kept whole is copied index for index;
a split axis is rebuilt as ``i * h * d + j * d + k`` (no division); only a merge of
several input axes into one divides, and then by that group's own trailing extents,
which must be static (the GPT's head merge ``(n, t, h, d) -> (n, t, C)``); a merge by a
symbolic extent (``(n, t, C) -> (n * t, C)``) stays ``R.reshape``, and so does a reshape
with no group of static axes split or merged (``(n * t, C) -> (n, t, C)``, ``(n, t, 1)
-> (n, t)``): nothing to fuse there, and a view costs nothing. So the kernel is injective with plain
indices: FuseOps fuses it with its producer/consumer (the attention's
strided_slice + reshape + transpose become one kernel again, as in a per-length compile),
and where it stays alone RewriteDataflowReshape turns it back into a view.
"""

from __future__ import annotations

import tvm
from tvm import relax, te, tirx

_ANALYZER = tvm.sym.Analyzer()


def _product(dims: list) -> tirx.PrimExpr:
    out = tirx.const(1, "int64")
    for d in dims:
        out = out * d
    return _ANALYZER.simplify(out)


def _equal(a: tirx.PrimExpr, b: tirx.PrimExpr) -> bool:
    return bool(_ANALYZER.can_prove_equal(a, b))


def _is_one(d: tirx.PrimExpr) -> bool:
    return isinstance(d, tirx.IntImm) and int(d) == 1


def group_axes(src: list, dst: list) -> list[tuple[list[int], list[int]]] | None:
    """Pairs (input axes, output axes) of equal products covering both shapes in order;
    axes of extent 1 are groups of their own (an empty other side). None where the
    products never meet."""
    groups, i, j = [], 0, 0
    while i < len(src) or j < len(dst):
        if i < len(src) and _is_one(src[i]):
            groups.append(([i], []))
            i += 1
            continue
        if j < len(dst) and _is_one(dst[j]):
            groups.append(([], [j]))
            j += 1
            continue
        if i >= len(src) or j >= len(dst):
            return None
        gi, gj = [i], [j]
        i, j = i + 1, j + 1
        while not _equal(_product([src[a] for a in gi]), _product([dst[b] for b in gj])):
            # grow the side whose product is (provably) not larger; give up otherwise
            small_src = _ANALYZER.can_prove(_product([src[a] for a in gi])
                                            < _product([dst[b] for b in gj]))
            if (small_src or j >= len(dst)) and i < len(src):
                gi.append(i)
                i += 1
            elif j < len(dst):
                gj.append(j)
                j += 1
            else:
                return None
            if len(gi) + len(gj) > len(src) + len(dst):
                return None
        groups.append((gi, gj))
    return groups


def _symbolic_merge(axes: list[int], src: list) -> bool:
    """Whether merging input ``axes`` would divide by a symbolic extent (``(n, t, C) ->
    (n * t, C)``): such a kernel RewriteDataflowReshape cannot prove a view, so that
    reshape stays ``R.reshape``."""
    return len(axes) > 1 and any(not isinstance(src[a], tirx.IntImm) for a in axes[1:])


def _static_regroup(gi: list[int], gj: list[int], src: list, dst: list) -> bool:
    """Whether a group splits or merges static axes only (``C -> (h, d)``, ``(h, d) -> C``,
    a flatten ``(16, 5, 5) -> 400``): the reshapes worth a kernel that fuses."""
    dims = [src[a] for a in gi] + [dst[b] for b in gj]
    return bool(gi) and bool(gj) and len(dims) > 2 and all(isinstance(d, tirx.IntImm) for d in dims)


def _input_index(groups, src: list, dst: list, out_idx: list) -> list:
    """The input index of output index ``out_idx``, group by group."""
    index: list = [None] * len(src)
    for gi, gj in groups:
        if not gi:
            continue
        if not gj:  # an input axis of extent 1
            index[gi[0]] = _ANALYZER.simplify(out_idx[0] * 0) if out_idx else tirx.const(0, "int64")
            continue
        if len(gi) == 1:  # kept whole or split: flat index of the output axes
            flat = out_idx[gj[0]]
            for b in gj[1:]:
                flat = flat * dst[b] + out_idx[b]
            index[gi[0]] = flat
            continue
        flat = out_idx[gj[0]]  # merged (or regrouped): divide by this group's own extents
        for b in gj[1:]:
            flat = flat * dst[b] + out_idx[b]
        for pos, a in enumerate(gi):
            inner = _product([src[c] for c in gi[pos + 1:]])
            value = flat if pos == len(gi) - 1 else tirx.floordiv(flat, inner)
            index[a] = value if pos == 0 else tirx.floormod(value, src[a])
    return index


def reshape_kernel(bb: relax.BlockBuilder, call: relax.Call) -> relax.Expr | None:
    """``call`` (a ``relax.reshape`` with symbolic shapes) as a grouped-index TE kernel."""
    src_ty, dst_ty = call.args[0].ty, call.ty
    if not (isinstance(src_ty.shape, relax.ShapeExpr) and isinstance(dst_ty.shape, relax.ShapeExpr)):
        return None
    src, dst = list(src_ty.shape.values), list(dst_ty.shape.values)
    groups = group_axes(src, dst)
    if groups is None or any(_symbolic_merge(gi, src) for gi, _ in groups):
        return None
    if not any(_static_regroup(gi, gj, src, dst) for gi, gj in groups):
        return None  # only symbolic axes kept, split or unit axes: a view serves as well

    def compute(data: te.Tensor) -> te.Tensor:
        return te.compute(dst, lambda *idx: data[tuple(_input_index(groups, src, dst, list(idx)))],
                          name="T_reshape", tag="injective")

    return bb.call_te(compute, call.args[0], primfunc_name_hint="reshape")
