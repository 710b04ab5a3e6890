"""Weight gradients too big for the cache: the lane schedule with the reduction's rows
outside the output tile.

:func:`.cpu_rules._schedule_lanes` keeps a register tile of output positions and runs the
whole reduction (N x Ho x Wo) under it, so every tile streams its slice of both operands
from memory again. When the two operands of a convolution's weight gradient
(``conv2d_filter_grad``: outputs O, C, kh, kw; reductions N, Ho, Wo) far exceed the L2
cache, that streaming dominates (ResNet's 16-channel stage at batch 64: 8 MiB read ~200
times). Here each thread takes a slice of the input channels; for each (sample, block of
``ROWS`` output rows) it walks all its output tiles, whose partial sums (one vector of
lanes per output position) stay in a buffer that fits L2, while the rows just read stay
in L1. Measured on that stage: 5.8 -> 3.9 ms per call (one core, in the step); on
operands that fit the cache (LeNet, ResNet's 32/64-channel stages at batch 64) it does not
pay, hence :func:`wants_rows`. Since :mod:`.channel_vectors` took over weight gradients
whose input channels fill whole vectors (ResNet's 16/32/64), this serves other channel
counts (18, 24, ...).
"""

from __future__ import annotations

from tvm.s_tir import Schedule

from . import tir_analysis as ta

ROWS_MIN_BYTES = 6 << 20  # operand bytes from which the rows schedule pays (3x a 2 MiB L2)
MIN_CHANNELS = 16  # both O and C: narrower layers (LeNet) keep the register-tile schedule
ROWS = 4  # output rows per block of the reduction
WEIGHTS = 4  # output channels per register tile (times kw positions)


def wants_rows(sch: Schedule, block, axes, cores: int) -> bool:
    """A ``conv2d_filter_grad`` block (O, C, kh, kw | N, Ho, Wo) on large operands, whose
    input channels split evenly enough to keep every core busy?"""
    if sch.get(block).name_hint != "conv2d_filter_grad" or "".join(k for k, _, _ in axes) != "SSSSRRR":
        return False
    (_, o, _), (_, c, _), _, _, (_, n, _), (_, ho, _), (_, wo, _) = axes
    if min(o, c) < MIN_CHANNELS or ta.divisor_at_most(c, 2 * cores) < cores:
        return False
    return n * ho * wo * (o + c) * 4 >= ROWS_MIN_BYTES


def schedule_rows(sch: Schedule, block, lanes: int, cores: int, unroll: int, padded) -> None:
    """Schedule the partial sums of ``block`` (its rfactor over ``lanes``); the block
    itself is left summing the lanes, for the caller to schedule. ``padded``: padding
    producers, computed per thread slice."""
    o, c, i, j, rn, ry, rx = sch.get_loops(block)
    _, lane = sch.split(rx, [None, lanes])
    rf = sch.rfactor(lane, 4)
    o, c, i, j, rn, ry, rx0, lane = sch.get_loops(rf)
    extent = lambda loop: ta.extent(sch.get(loop).extent)  # noqa: E731
    o_o, o_i = sch.split(o, [None, ta.divisor_at_most(extent(o), WEIGHTS)])
    c_o, c_i = sch.split(c, [ta.divisor_at_most(extent(c), 2 * cores), None])
    ry_o, ry_i = sch.split(ry, [None, ta.divisor_at_most(extent(ry), ROWS)])
    sch.reorder(c_o, rn, ry_o, o_o, c_i, i, ry_i, rx0, o_i, j, lane)
    sch.parallel(c_o)
    ta.finish_tile(sch, rf, o_o, unroll, lane, rn)
    for pad in padded:
        sch.compute_at(pad, c_o, preserve_unit_loops=True)
