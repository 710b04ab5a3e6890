"""Register tiles of contractions with symbolic extents (framework/ir/symbolic.py): which
symbolic iterators are padded.

The CPU rules (:mod:`.cpu_rules`) tile a contraction's output in registers (``S0 R S2``).
Along a symbolic extent a tile that does not divide it leaves a predicate in the inner loop,
and the tile no longer stays in registers (a GPT step's matmuls 3x slower). The *output*
iterators the tile splits are therefore computed on operands padded with zeros to
multiples of :data:`SYMBOLIC_TILE` (``pad_einsum``). The others are not padded:

- an output iterator the tile does not split (a batch or head axis of a batched matmul:
  tile 1) runs its symbolic extent as it is. Padded, a batch of 12 ran as 16 (a third
  more work);
- the one reduction of a matmul over a symbolic extent (``acc + a^T b`` over all tokens,
  lower/accumulate.py; the attention's ``p v`` over the length) runs whole
  (:mod:`.packed_matmul` splits it with a predicate, outside its register tile). Padded,
  both operands were copied whole every call (the GPT's weight gradients 1.2-1.5x slower).
  A contraction with several reductions (a convolution; its weight gradient reduces over
  batch, rows and columns) is padded along every symbolic iterator, as the generic rules
  split and parallelise them (ResNet-20's symbolic step 2x its specialised one unpadded,
  1.0x padded).

Contract: :func:`pad_symbolic` returns the indices of the block's symbolic iterators (padded
or not); the caller tiles them as if their extent were :data:`SYMBOLIC_TILE`, with
``tiles_of`` (the same function it then uses to tile), so that the unpadded output
iterators keep tile 1, and does not split a symbolic reduction it cannot peel. Empty: no
symbolic iterator, or ``pad_einsum`` refused the block (the tiles then keep predicates:
correct, slower).
"""

from __future__ import annotations

from collections.abc import Callable

from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

SYMBOLIC_TILE = 16  # a contraction's tiled symbolic extents are padded to multiples of it


def tiling_view(axes, symbolic: set[int]) -> list:
    """``axes`` (ta.axes) with the symbolic iterators' extents set to SYMBOLIC_TILE."""
    return [(k, SYMBOLIC_TILE if i in symbolic else e, v) for i, (k, e, v) in enumerate(axes)]


def pad_symbolic(sch: Schedule, block, tiles_of: Callable[[list], list[int]]) -> set[int]:
    """Pad the symbolic iterators of ``block`` that its register tile splits (see the
    module); ``tiles_of(axes)``: the tile factor of each spatial iterator of ``axes``."""
    ivs = sch.get(block).iter_vars
    symbolic = {i for i, iv in enumerate(ivs) if not isinstance(iv.dom.extent, tirx.IntImm)}
    if not symbolic:
        return set()
    axes = ta.axes(sch, block)
    spatial = [i for i, (k, _, _) in enumerate(axes) if k == "S"]
    tiles = dict(zip(spatial, tiles_of(tiling_view(axes, symbolic))))
    if sum(k == "R" for k, _, _ in axes) > 1:  # not a matmul (a convolution): all padded
        padded = set(symbolic)
    else:
        padded = {i for i in symbolic if axes[i][0] == "S" and tiles[i] > 1}
    if not padded:
        return symbolic
    try:
        sch.pad_einsum(block, [SYMBOLIC_TILE if i in padded else 1 for i in range(len(ivs))])
    except Exception:  # noqa: BLE001 - not an einsum pad_einsum takes: tiles with predicates
        return set()
    return symbolic

