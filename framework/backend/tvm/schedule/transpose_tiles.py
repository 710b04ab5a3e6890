"""A transpose of the two innermost axes, copied in square tiles that stay in L1.

Left to the general rules a transpose ``B[i, j] = A[j, i]`` runs along ``B``'s rows with the
vector along ``j``: every vector gathers 16 floats from 16 rows of ``A``, and each row of
``B`` walks down a whole column of ``A``, so every line of ``A`` comes from L2 again for each
of the 16 rows of ``B`` that use it (an LSTM's (1024, 256) weights, transposed once per step
for the 64 time steps: 0.39 ms on one core). Here ``B`` is written in ``TILE x TILE`` tiles:
the ``TILE`` lines of ``A`` a tile reads stay in L1 while its rows are written: 0.045 ms.

A transpose that also widens a 16-bit float (``B[i, j] = float32(A[j, i])``, an amp O2
operand converted for a matmul) would gather 16-bit lanes one by one before converting them
(LLVM without AVX512-FP16: a (48, 64, 64) float16 tile transposed 2.8x slower than float32).
The cast's block is then kept (:func:`widening_casts`) and computed per tile into a local
float32 tile, converted along ``A``'s rows a vector at a time; the tile is transposed from
there (1.2x the float32 transpose).

The bf16 words of a transposed matmul operand (``lower/avx512_bf16_matmul.words``: word
``[r2, j]`` packs ``x[j, 2 r2]`` and ``x[j, 2 r2 + 1]``, an amp weight's float32 master
rounded on the way) are a transpose too, two elements per word: tiled the same way.

Contract: :func:`schedule` takes a spatial copy block (a transpose, possibly with a cast;
or a block named :data:`WORDS`, whose read moves by two elements)
whose read moves by one element with the output's second-to-last axis and not with its last,
both extents multiples of ``TILE``; it schedules the block completely and returns True, else
it changes nothing and returns False. A widening producer of the block that the caller left
un-inlined (one :func:`widening_casts` named) is scheduled with it.
"""

from __future__ import annotations

import tvm
from tvm import tirx
from tvm.s_tir import Schedule

from . import tir_analysis as ta

TILE = 16  # rows and columns of a tile (16 lines of the input in L1; one vector a row)
WORDS = "bf16_words"  # lower/avx512_bf16_matmul.words: transposed, two elements per output word


def _coefficient(stmt, read, var) -> int | None:
    # a reshape inlined into the transpose reads ``a[(i // 512 + j) % 768, i % 512]``: within
    # the block's iteration domain that is ``a[j, i]``, which the linear form needs to see
    analyzer = tvm.sym.Analyzer()
    for iv in stmt.iter_vars:
        analyzer.bind(iv.var, iv.dom)
    index = analyzer.simplify(read.region[-1].min)
    coef, _ = tvm.sym.detect_linear_equation(index, [var]) or (None, None)
    return int(coef) if isinstance(coef, tirx.IntImm) else None


def _tiled_axes(sch: Schedule, block):
    """The block's last two axes ``(m, n)`` when :func:`schedule` tiles it, else None."""
    stmt = sch.get(block)
    words = stmt.name_hint == WORDS
    if not (ta.is_copy(stmt.body) or words) or len(stmt.reads) != 1 or len(stmt.writes) != 1:
        return None
    try:
        axes = ta.axes(sch, block)
    except ValueError:
        return None
    if len(axes) < 2 or any(k != "S" for k, _, _ in axes):
        return None
    (_, m, vi), (_, n, vj) = axes[-2], axes[-1]
    if not all(isinstance(iv.dom.extent, tirx.IntImm) for iv in stmt.iter_vars[-2:]):
        return None  # a symbolic extent (framework/ir/symbolic.py): tiles would need predicates
    read = stmt.reads[0]
    step = _coefficient(stmt, read, vi)  # a word packs two elements along the read's rows
    if m % TILE or n % TILE or step not in ((1, 2) if words else (1,)) \
            or _coefficient(stmt, read, vj) == 1:
        return None
    return axes


def _widens(sch: Schedule, block) -> bool:
    """The block stores ``T.Cast(wider, a[i...])`` of a 16-bit float at its own indices."""
    body = sch.get(block).body
    if not isinstance(body, tirx.BufferStore) or not isinstance(body.value, tirx.Cast):
        return False
    load = body.value.value
    if type(load).__name__ not in ("BufferLoad", "TensorLoad") or len(load.indices) != len(body.indices):
        return False
    if str(load.source.dtype) not in ("float16", "bfloat16") or tvm.DataType(str(body.value.ty)).bits <= 16:
        return False
    analyzer = tvm.sym.Analyzer()
    return all(analyzer.can_prove_equal(a, b) for a, b in zip(load.indices, body.indices))


def widening_casts(sch: Schedule) -> set[str]:
    """Names of the blocks that widen a 16-bit float for one consumer that :func:`schedule`
    tiles: to be kept out of inlining, and converted tile by tile."""
    names = set()
    for block in ta.blocks(sch):
        if _widens(sch, block):
            consumers = sch.get_consumers(block)
            if len(consumers) == 1 and _tiled_axes(sch, consumers[0]) is not None:
                names.add(sch.get(block).name_hint)
    return names


def schedule(sch: Schedule, block, min_parallel_work: int) -> bool:
    axes = _tiled_axes(sch, block)
    if axes is None:
        return False
    loops = sch.get_loops(block)
    i0, i1 = sch.split(loops[-2], [None, TILE])
    j0, j1 = sch.split(loops[-1], [None, TILE])
    sch.reorder(i0, j0, i1, j1)
    outer = sch.fuse(*loops[:-2], i0) if len(loops) > 2 else i0
    if ta.work(axes) >= min_parallel_work and ta.extent(sch.get(outer).extent) > 1:
        sch.parallel(outer)
    sch.vectorize(j1)
    for producer in sch.get_producers(block):
        if _widens(sch, producer):  # kept by the caller: converted into a float32 tile
            sch.compute_at(producer, j0)
            sch.set_scope(producer, 0, "local")
            sch.vectorize(sch.get_loops(producer)[-1])
    return True
