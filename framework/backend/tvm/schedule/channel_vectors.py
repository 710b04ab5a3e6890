"""Convolutions on NCHW data with vectors along the channels instead of the rows.

:func:`.cpu_rules._schedule_contraction` vectorizes a contraction's innermost output axis,
on NCHW data the row (W). Where a row gives at most half a vector (ResNet's 8x8 stage: 8
of 16 AVX-512 lanes) half of every multiply-add is wasted. There a convolution (several
reduction axes) is vectorized along an output *channel* axis instead: the one operand
indexed by that channel is re-laid out with the channel innermost (contiguous), and the
other operand, which does not depend on it, is broadcast:

- ``conv2d``: ``out[n, f, y, x] += pad[n, c, y+i, x+j] * w[f, c, i, j]``: vectors along
  ``f``, the weights copied to ``[c, i, j, f]`` once per call;
- ``conv2d_transpose`` (the input gradient): the same with the flipped weights.

The register tile (a channel vector times output positions) accumulates on the stack,
laid out channel-last; only its write-back to the NCHW output strides, once per tile.

Weight gradients (``conv2d_filter_grad``) whose input channels fill whole vectors always
take this way (:func:`schedule_wgrad`): the lane schedule wastes lanes on short rows, and
strided (stride-2) rows gave it no contiguous axis at all.

Measured per call on ResNet-20's kernels at batch 128 (2 cores, min of 20; the old rules
first): 8x8 conv 6.8 -> 2.4 ms, its input gradient 4.4 -> 3.5 ms, weight gradients
8x8 5.3 -> 2.3, 16x16 4.2 -> 3.1, 32x32 3.1 -> 2.9, stride 2 10.0 -> 2.5 and
8.3 -> 1.8, 1x1 stride-2 projections 3.8 -> 0.65 ms. LeNet's 10-wide rows stay with the
row vectors (its step was slower this way).
"""

from __future__ import annotations

from dataclasses import dataclass

from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

MIN_REDUCTIONS = 2  # a window (conv: channels x kernel rows x ...), not a matmul


@dataclass(frozen=True)
class Choice:
    """Vectorize spatial axis ``axis`` (an index into the block's axes); re-lay out the
    block's ``read``-th read buffer, moving its dimension ``dim`` last."""

    axis: int
    read: int
    dim: int


def choose(sch: Schedule, block, axes, vector: int, row_lanes: int,
           alone: bool = True) -> Choice | None:
    """A channel axis to vectorize when the row gives at most half of ``vector`` lanes
    (``row_lanes``: the row's vector factor, so 8-, 24- or 19-wide rows qualify), or None:
    an output axis whose extent is a multiple of ``vector``, indexed plainly by exactly one
    of the two operands (the one re-laid out) and not at all by the other. With ``alone``
    that operand depends on no other output axis (the weights: never the batch axis of
    the data)."""
    if row_lanes > vector // 2 or sum(1 for k, _, _ in axes if k == "R") < MIN_REDUCTIONS:
        return None
    stmt = sch.get(block)
    out = stmt.writes[0].source
    reads = [(i, r) for i, r in enumerate(stmt.reads) if not r.source.same_as(out)]
    if len(reads) != 2:
        return None
    spatial = [i for i, (k, e, _) in enumerate(axes) if k == "S" and e % vector == 0]
    for axis in reversed(spatial):
        var = axes[axis][2]
        users = [(i, r) for i, r in reads if var in ta.vars_in([rg.min for rg in r.region])]
        if len(users) != 1:
            continue
        index, region = users[0]
        others = {v for k, _, v in axes if k == "S" and not v.same_as(var)}
        if alone and ta.vars_in([rg.min for rg in region.region]) & others:
            continue
        dims = [d for d, rg in enumerate(region.region) if rg.min.same_as(var)]
        if len(dims) == 1 and int(region.region[dims[0]].extent) == 1:
            return Choice(axis, index, dims[0])
    return None


def plan(sch: Schedule, block, axes, cores: int, vector: int, register_vectors: int,
         row_lanes: int) -> Choice | None:
    """:func:`choose`, and re-lay out the chosen operand; None where the output has too few
    register tiles to give every core two (the caller splits the reduction across threads
    instead, which needs the default layout)."""
    spatial = [a for a in axes if a[0] == "S"]
    if ta.work(spatial) // (vector * register_vectors) < 2 * cores:
        return None
    choice = choose(sch, block, axes, vector, row_lanes)
    if choice is not None:
        relayout_operand(sch, block, choice)
    return choice


def _last(ndim: int, dim: int):
    """The index map moving dimension ``dim`` of an ``ndim``-dimensional buffer last."""
    def move(*idx):
        return [idx[k] for k in range(ndim) if k != dim] + [idx[dim]]
    return tirx.IndexMap.from_func(move, ndim=ndim)


def relayout_operand(sch: Schedule, block, choice: Choice) -> None:
    """Make the chosen operand contiguous along the channel: a buffer computed in this
    function (padding) changes layout in place; a parameter is copied once per call. The
    loops of the block writing it follow the new layout, so that its writes are
    contiguous."""
    buffer = sch.get(block).reads[choice.read].source
    writers = [p for p in sch.get_producers(block)
               if any(w.source.same_as(buffer) for w in sch.get(p).writes)]
    writer = writers[0] if writers else sch.cache_read(block, choice.read, "global")
    buffer = sch.get(writer).writes[0].source
    index = next(i for i, r in enumerate(sch.get(block).reads) if r.source.same_as(buffer))
    ndim = len(buffer.shape)
    sch.transform_layout(block, ("read", index), _last(ndim, choice.dim))
    loops = sch.get_loops(writer)
    if len(loops) == ndim:
        sch.reorder(*[loops[k] for k in range(ndim) if k != choice.dim], loops[choice.dim])


def relayout_tile(sch: Schedule, block, choice: Choice, axes) -> None:
    """Lay out the block's (stack) output tile with the channel innermost."""
    var = axes[choice.axis][2]
    write = sch.get(block).writes[0]
    dims = [d for d, rg in enumerate(write.region) if rg.min.same_as(var)]
    if len(dims) == 1:
        sch.transform_layout(block, ("write", 0), _last(len(write.region), dims[0]))


# -- weight gradients ------------------------------------------------------------------------

TILE_KERNEL_COLUMNS = 4  # kernel columns (kw) per register tile, at most


def wgrad_choice(sch: Schedule, block, axes, vector: int) -> Choice | None:
    """Channel vectors for a ``conv2d_filter_grad`` block ``dw[o, c, i, j]`` (reductions
    n, y, x) whose input channels fill whole vectors: along ``c``, the padded input re-laid
    out as ``[n, y, x, c]``; None otherwise (LeNet's 1 and 6 channels: the lane schedule)."""
    if sch.get(block).name_hint != "conv2d_filter_grad" or \
            "".join(k for k, _, _ in axes) != "SSSSRRR":
        return None
    choice = choose(sch, block, axes, vector, row_lanes=0, alone=False)
    return choice if choice is not None and choice.axis == 1 else None


def schedule_wgrad(sch: Schedule, block, choice: Choice, cores: int, vector: int,
                   register_vectors: int, unroll: int) -> list:
    """``P n o' i j' y x | o j c``: each thread takes a slice of input-channel vectors
    (and of output channels, where the channels alone do not give every core work); for
    each sample it walks all its output tiles while that sample's rows stay in L1, so each
    operand streams from memory about once. A register tile holds ``o`` x ``j`` vectors of
    ``c``; the gradient accumulates in a buffer laid out ``[o, i, j, c]`` (the chunk's part
    fits L2), copied to ``[o, c, i, j]`` at the end. Returns the blocks computed per chunk
    (the copy, then the block's consumers) for the caller to vectorize."""
    relayout_operand(sch, block, choice)
    consumers = sch.get_consumers(block)
    cache = sch.cache_write(block, 0, "global")
    relayout_tile(sch, block, choice, ta.axes(sch, block))
    o, c, i, j, rn, ry, rx = sch.get_loops(block)
    extent = lambda loop: ta.extent(sch.get(loop).extent)  # noqa: E731
    t_j = ta.divisor_at_most(extent(j), TILE_KERNEL_COLUMNS)
    t_o = ta.divisor_at_most(extent(o), max(1, register_vectors // t_j))
    c_o, c_i = sch.split(c, [None, vector])
    o_rest, o_i = sch.split(o, [None, t_o])
    parts = _parts(extent(o_rest), extent(c_o), cores)
    o_p, o_o = sch.split(o_rest, [parts, None])
    j_o, j_i = sch.split(j, [None, t_j])
    sch.reorder(c_o, o_p, rn, o_o, i, j_o, ry, rx, o_i, j_i, c_i)
    chunk = sch.fuse(c_o, o_p)
    sch.parallel(chunk)
    ta.finish_tile(sch, block, o_o, unroll, c_i, rn)
    per_chunk = [cache] + ta.attachable(sch, consumers, block)
    for later in per_chunk:
        sch.reverse_compute_at(later, chunk, preserve_unit_loops=True)
    return per_chunk


def _parts(o_tiles: int, c_vectors: int, cores: int) -> int:
    """Into how many parts to split the output channels so that the (input-channel vectors
    x parts) chunks share evenly among the cores: the fewest that do (each part re-reads
    the input), else the fewest that give every core one."""
    splits = [p for p in range(1, o_tiles + 1) if o_tiles % p == 0]
    for parts in splits:  # chunks a multiple of the cores: none idles at the end
        if (c_vectors * parts) % cores == 0:
            return parts
    return next((p for p in splits if c_vectors * p >= cores), o_tiles)
