"""The TIR kernels behind a loop's saved states (:mod:`.loop_grad`): row writer, buffer
doubler and the reverse loop's reader, generated per row shape and dtype as TVMScript.

A row buffer holds one row per iteration, ``(n, *row)``; a 0-d value is stored as a row
of one element (``scalar``) and written from / read into its 0-d shape directly. A row
dimension given as None is symbolic (a batch axis under :mod:`framework.ir.symbolic`): the
kernel takes it from its buffers.
"""

from __future__ import annotations

from collections.abc import Sequence

_WRITER = '''
@T.prim_func(private=True, s_tir=True)
def write_row(var_buf: T.handle, var_row: T.handle, var_k: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
{decls}    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    row = T.match_buffer(var_row, ({out_dims}), "{dtype}")
    k = T.match_buffer(var_k, (), "int64")
    for {loop} in T.grid({extents}):
        with T.sblock("write"):
            {axes} = T.axis.remap("{kinds}", [{loop}])
            buf[k[()], {axes}] = row[{out_axes}]
'''
# copies a buffer's n rows into a 2n-row output (the new rows are left unset: call_tir's
# outputs start uninitialized, and rows are written before they are read)
_DOUBLER = '''
@T.prim_func(private=True, s_tir=True)
def double_rows(var_buf: T.handle, var_out: T.handle):
    T.func_attr({{"tirx.noalias": True}})
    n = T.int64()
{decls}    buf = T.match_buffer(var_buf, (n, {dims}), "{dtype}")
    out = T.match_buffer(var_out, (n * 2, {dims}), "{dtype}")
    for r, {loop} in T.grid(n, {extents}):
        with T.sblock("copy"):
            vr, {axes} = T.axis.remap("S{kinds}", [r, {loop}])
            out[vr, {axes}] = buf[vr, {axes}]
'''


def _parts(shape: Sequence[int | None], scalar: bool, tag: str = "") -> dict[str, str]:
    loops = [f"i{tag}_{d}" for d in range(len(shape))]
    extents = [f"s{tag}_{a}" if d is None else f"T.int64({d})" for a, d in enumerate(shape)]
    decls = "".join(f"    s{tag}_{a} = T.int64()\n" for a, d in enumerate(shape) if d is None)
    dims = ", ".join(extents) + ("," if len(shape) == 1 else "")
    axes = ", ".join(f"v{x}" for x in loops)
    return dict(dims=dims, loop=", ".join(loops), extents=", ".join(extents), decls=decls,
                axes=axes, kinds="S" * len(shape), out_dims="" if scalar else dims,
                out_axes="()" if scalar else axes)


def writer(shape: Sequence[int | None], dtype: str, scalar: bool) -> str:
    return _WRITER.format(dtype=dtype, **_parts(shape, scalar))


def doubler(shape: Sequence[int | None], dtype: str) -> str:
    return _DOUBLER.format(dtype=dtype, **_parts(shape, False))


def reader(reads: Sequence[tuple[tuple[int | None, ...], str, bool, int]]) -> str:
    """One kernel reading row ``last - back + offset`` of each buffer, for ``reads`` of
    ``(row shape, dtype, scalar, offset)``: ``read_rows(buf_0.., last, back, out_0..)``."""
    ins = [f"var_b{i}: T.handle" for i in range(len(reads))]
    outs = [f"var_o{i}: T.handle" for i in range(len(reads))]
    lines = [f"def read_rows({', '.join(ins + ['var_last: T.handle', 'var_back: T.handle'] + outs)}):",
             '    T.func_attr({"tirx.noalias": True})',
             '    last = T.match_buffer(var_last, (), "int64")',
             '    back = T.match_buffer(var_back, (), "int64")']
    for i, (shape, dtype, scalar, _) in enumerate(reads):
        p = _parts(shape, scalar, str(i))
        lines += [f"    n{i} = T.int64()", *p["decls"].splitlines(),
                  f'    b{i} = T.match_buffer(var_b{i}, (n{i}, {p["dims"]}), "{dtype}")',
                  f'    o{i} = T.match_buffer(var_o{i}, ({p["out_dims"]}), "{dtype}")']
    for i, (shape, _, scalar, offset) in enumerate(reads):
        p = _parts(shape, scalar, str(i))
        lines += [f"    for {p['loop']} in T.grid({p['extents']}):",
                  f'        with T.sblock("read{i}"):',
                  f'            {p["axes"]} = T.axis.remap("{p["kinds"]}", [{p["loop"]}])',
                  f"            o{i}[{p['out_axes']}] = "
                  f"b{i}[last[()] - back[()] + T.int64({offset}), {p['axes']}]"]
    return "\n@T.prim_func(private=True, s_tir=True)\n" + "\n".join(lines) + "\n"
