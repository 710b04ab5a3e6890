"""A reduction of a whole tensor to one value (a sum of squares for a global-norm clip): partial
sums in vector lanes.

Left to the general rules such a block has no spatial loop to parallelize or vectorize and
runs as one serial chain of scalar adds, each waiting for the last (an LSTM's (1024, 256)
gradient: ~0.24 ms on one core). Here all its loops are fused, the fused loop is split into
``LANE_VECTORS`` vectors of lanes (independent chains of vector adds), ``rfactor`` keeps one
partial sum per lane, and a short serial block adds the lanes up: ~0.02 ms. The order of
the additions changes (partial sums, as NumPy's pairwise sum does), not the result beyond
float rounding.

Contract: :func:`schedule` takes a reduction block with a single output and reduction
iterators only, at least ``MIN_WORK`` elements whose count the lane width divides; it then
schedules the block completely and returns True, else it changes nothing and returns False.
"""

from __future__ import annotations

from tvm.s_tir import Schedule

from . import tir_analysis as ta

LANE_VECTORS = 4  # independent vector accumulators (hide the latency of a vector add)
MIN_WORK = 1 << 12  # elements from which the lanes pay


def schedule(sch: Schedule, block, vector: int) -> bool:
    try:
        axes = ta.axes(sch, block)
    except ValueError:
        return False
    stmt = sch.get(block)
    width = LANE_VECTORS * vector
    if stmt.init is None or len(stmt.writes) != 1 or any(k != "R" for k, _, _ in axes):
        return False
    if ta.work(axes) < MIN_WORK or ta.work(axes) % width:
        return False
    loops = sch.get_loops(block)
    fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
    _, lane = sch.split(fused, [None, width])
    partial = sch.rfactor(lane, 0)  # one partial sum per lane
    outer, lane_loop = sch.get_loops(partial)  # the lanes innermost
    sch.vectorize(lane_loop)  # before the init is split off: a reduction block may vectorize
    init = sch.decompose_reduction(partial, outer)
    sch.vectorize(sch.get_loops(init)[-1])
    return True
