"""A concatenate of many inputs lowered as one copy loop per input.

TOPI's ``concatenate`` computes each output element through a chain of conditions (which
input holds it): at T=64 inputs (an unrolled LSTM's stacked hidden states, the stacked
operands of :mod:`.accumulate`) that is up to 64 comparisons per element and no vector
loop. Here a concatenate of at least ``COPIES_MIN`` inputs is one PrimFunc with a block per
input that copies it into its slice of the output: each block a plain vectorizable copy.

Contract: :func:`concat` returns the Relax value of ``concat(xs, axis)`` (all inputs of one
dtype and rank, equal outside ``axis``), the same elements as ``relax.op.concat``; the
kernel takes the inputs in their own shapes (no reshapes: those would be kernels of their
own where they feed a call_tir) and is added to the module once per (shapes, axis, dtype);
the same inputs stacked twice in one dataflow segment give the same (emitted) value.
Fewer inputs, or bool, keep Relax's ``concat``.
"""

from __future__ import annotations

import tvm
from tvm import relax, tirx
from tvm.script import tirx as T  # noqa: F401  (the kernels are TVMScript)
from tvm.sym import Analyzer

from .lower_target import on_cpu
from .segment import SHARED

COPIES_MIN = 4  # inputs from which a concatenate becomes a copy per input

def _dim(d) -> str:
    """A dimension in TVMScript: an int, or a symbolic TIR expression (``n``, ``8 * n``)."""
    return f"T.int64({d})" if isinstance(d, int) else str(d)


def _dims(shape: list) -> str:
    return ", ".join(_dim(d) for d in shape) + ("," if len(shape) == 1 else "")


def _symbols(shapes: list[list]) -> list[str] | None:
    """The names of the symbolic variables in ``shapes`` (declared first in the kernel),
    or None when one is no input's dimension on its own (then nothing would bind it)."""
    names, bare = set(), set()
    for shape in shapes:
        for d in shape:
            if not isinstance(d, int):
                names |= {v.name for v in tirx.analysis.undefined_vars(d)}
                if isinstance(d, tirx.Var):
                    bare.add(d.name)
    return sorted(names) if names <= bare else None


def source(shapes: list[list[int]], axis: int, dtype: str) -> str:
    """TVMScript of ``concat_copies(x0, .., xn, out)``: block ``copy{k}`` writes input ``k``
    into its slice of ``out`` along ``axis``. A symbolic dimension (framework.ir.symbolic:
    a batch ``n``) is a variable of the kernel, bound by the inputs' shapes."""
    rank = len(shapes[0])
    out_shape = list(shapes[0])
    out_shape[axis] = _total([s[axis] for s in shapes])
    loops = [f"i{d}" for d in range(rank)]
    axes = [f"v{d}" for d in range(rank)]
    args = ", ".join(f"var_x{k}: T.handle" for k in range(len(shapes)))
    lines = ["@T.prim_func(private=True, s_tir=True)",
             f"def concat_copies({args}, var_out: T.handle):",
             '    T.func_attr({"tirx.noalias": True})']
    lines += [f"    {name} = T.int64()" for name in _symbols(shapes) or []]
    lines += [f'    x{k} = T.match_buffer(var_x{k}, ({_dims(s)}), "{dtype}")' for k, s in enumerate(shapes)]
    lines.append(f'    out = T.match_buffer(var_out, ({_dims(out_shape)}), "{dtype}")')
    offset = 0
    for k, shape in enumerate(shapes):
        at = list(axes)
        at[axis] = f"{_dim(offset)} + {axes[axis]}"
        lines += [f"    for {', '.join(loops)} in T.grid({', '.join(_dim(d) for d in shape)}):",
                  f'        with T.sblock("copy{k}"):',
                  f'            {", ".join(axes)} = T.axis.remap("{"S" * rank}", [{", ".join(loops)}])',
                  f"            out[{', '.join(at)}] = x{k}[{', '.join(axes)}]"]
        offset = _total([offset, shape[axis]])
    return "\n".join(lines) + "\n"


def _total(parts: list):
    """The sum of ints and TIR expressions (an int when all are ints)."""
    total = sum(p for p in parts if isinstance(p, int))
    for p in parts:
        if not isinstance(p, int):
            total = p + total if isinstance(total, int) else total + p
    return Analyzer().simplify(total) if not isinstance(total, int) else total


def concat(bb: relax.BlockBuilder, xs: list[relax.Expr], axis: int) -> relax.Expr:
    """``concat(xs, axis)`` (``axis`` non-negative) as a copy per input when there are at
    least ``COPIES_MIN`` inputs of a non-bool dtype; else Relax's ``concat``."""
    xs = [x if isinstance(x, relax.Var) else bb.emit(x) for x in xs]
    dtype = str(xs[0].ty.dtype)
    if len(xs) < COPIES_MIN or dtype == "bool" or not on_cpu():
        return relax.op.concat(xs, axis)
    shapes = [[int(d) if isinstance(d, tirx.IntImm) else d for d in x.ty.shape.values] for x in xs]
    if not all(isinstance(d, int) for s in shapes for d in s) and _symbols(shapes) is None:
        return relax.op.concat(xs, axis)
    out_shape = list(shapes[0])
    out_shape[axis] = _total([s[axis] for s in shapes])
    key = ("stack", id(bb), tuple(xs), axis)  # the same stack twice is built once (segment.py)
    if key not in SHARED:
        func = tvm.script.from_source(source(shapes, axis, dtype))
        gv = bb.add_func(func, f"concat_copies_{len(xs)}_{dtype}")
        SHARED[key] = bb.emit(relax.call_tir(gv, xs, relax.TensorType(out_shape, dtype)))
    return SHARED[key]


def stack_beginning_with(bb: relax.BlockBuilder, xs: list[relax.Expr]) -> relax.Var | None:
    """A row stack built in this segment whose inputs are ``xs`` and ONE more (an unrolled
    RNN's outputs ``h_0..h_T-1`` for ``h_0..h_T-2``), or None: its first rows are
    ``concat(xs, 0)``."""
    want = tuple(xs)
    for key, var in SHARED.items():
        if key[0] != "stack":
            continue
        _, builder, inputs, axis = key
        if builder == id(bb) and axis == 0 and len(inputs) == len(want) + 1 \
                and all(x.same_as(y) for x, y in zip(inputs, want)):
            return var
    return None
