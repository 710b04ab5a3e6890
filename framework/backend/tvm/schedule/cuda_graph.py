"""A CUDA step replayed as one CUDA graph, and its kernel launches counted.

TVM's ``RewriteCUDAGraph`` (on under the pass-context option ``relax.backend.use_cuda_graph``)
lifts each run of kernels whose every buffer has a fixed address into a function that the VM
captures as a CUDA graph on its first call and replays after: one launch for the whole run.
A buffer has a fixed address when the memory planner allocated it inside the function, or
when it is a parameter past the function's ``num_input``. A train step as lowered does not
qualify: its batch and parameters arrive anew each call, and its outputs (the loss, the new
parameter values) are allocated per call, so each kernel that reads an input or writes an
output stays a launch of its own.

:func:`resident_step` makes it qualify. Every parameter is declared fixed (``num_input`` 0):
the :class:`..compiler.Executable` keeps one device buffer per parameter and copies each
call's argument into it (nothing when the caller passes that buffer back, as a parameter's
resident value is). At the end of the step each new parameter value is copied into its
parameter's buffer in place, and each other output (the loss, range-check flags) into a
buffer of its own appended to the parameters, so the whole step is one captured region and
one graph launch. The outputs are handed on through a call of a tiny Relax function
(no kernel), which the rewrite leaves outside the region.

:func:`launch_counts` reads the lowered VM function: kernels per step without the graph,
and launches per step with it (graph replays plus the kernels left outside).
"""

from __future__ import annotations

import os
from typing import Any

import tvm
from tvm import relax

USE_CUDA_GRAPH = "relax.backend.use_cuda_graph"
_RUN_OR_CAPTURE = "vm.builtin.cuda_graph.run_or_capture"
HAND_OVER = "step_outputs"  # (resident_step) returns its arguments: no kernel


def enabled(target: tvm.target.Target) -> bool:
    """Whether ``target``'s build is captured: CUDA, unless ``$TWINMODE_CUDA_GRAPH`` is 0."""
    setting = os.environ.get("TWINMODE_CUDA_GRAPH", "1").strip().lower()
    if setting not in ("0", "1", "off", "on", "false", "true", ""):
        raise ValueError(f"TWINMODE_CUDA_GRAPH={setting!r}: use 1 (capture the CUDA step as "
                         "one graph, the default) or 0 (launch each kernel)")
    return target.kind.name == "cuda" and setting not in ("0", "off", "false")


def _copy_into(ty: Any) -> tvm.tirx.PrimFunc:
    """``dst[...] = src[...]`` over a tensor of type ``ty``, ``dst`` written in place."""
    shape = [int(d) for d in ty.shape]
    if not shape:
        return tvm.script.from_source(f"""
@T.prim_func(private=True, s_tir=True)
def copy_into(dst: T.Buffer((), "{ty.dtype}"), src: T.Buffer((), "{ty.dtype}")):
    T.func_attr({{"tirx.noalias": True}})
    with T.sblock("copy_into"):
        dst[()] = src[()]
""")
    extents = ", ".join(f"T.int64({d})" for d in shape)
    dims = extents + ("," if len(shape) == 1 else "")
    loops = ", ".join(f"i{k}" for k in range(len(shape)))
    index = ", ".join(f"v{k}" for k in range(len(shape)))
    source = f"""
@T.prim_func(private=True, s_tir=True)
def copy_into(dst: T.Buffer(({dims}), "{ty.dtype}"), src: T.Buffer(({dims}), "{ty.dtype}")):
    T.func_attr({{"tirx.noalias": True}})
    for {loops} in T.grid({extents}):
        with T.sblock("copy_into"):
            {index} = T.axis.remap("{'S' * len(shape)}", [{loops}])
            dst[{index}] = src[{index}]
"""
    return tvm.script.from_source(source)


def resident_step(mod: tvm.IRModule, donated: dict[int, int]
                  ) -> tuple[tvm.IRModule, list[tuple[tuple[int, ...], str]] | None]:
    """``main`` rewritten as the module docstring says; ``donated`` maps an output's index to
    the parameter (by index) whose new value it is. Returns the module and the (shape, dtype)
    of each output buffer appended to ``main``'s parameters, in order; (``mod``, None) when
    ``main`` is not one dataflow block returning a tuple of statically shaped tensors, or
    when a new parameter value is another parameter that is itself updated."""
    gv = mod.get_global_var("main")
    main = mod[gv]
    body = main.body
    if len(body.blocks) != 1 or not isinstance(body.blocks[0], relax.DataflowBlock):
        return mod, None
    block = body.blocks[0]
    values = {b.var: b.value for b in block.bindings}

    def resolve(expr: relax.Expr) -> relax.Expr:
        while isinstance(expr, relax.Var) and isinstance(values.get(expr), relax.Var):
            expr = values[expr]
        return expr

    returned = resolve(body.body)
    if isinstance(returned, relax.Var) and returned in values:
        returned = values[returned]
    if not isinstance(returned, relax.Tuple):
        return mod, None
    params = list(main.params)
    outputs = [resolve(field) for field in returned.fields]
    written = [params[i] for k, i in donated.items() if not outputs[k].same_as(params[i])]
    if any(outputs[k].same_as(p) for k in donated for p in written):
        return mod, None
    kept_out = [k for k in range(len(outputs)) if k not in donated]
    if not all(isinstance(outputs[k].ty, relax.TensorType) and outputs[k].ty.shape is not None
               and all(isinstance(d, tvm.tirx.IntImm) for d in outputs[k].ty.shape)
               for k in kept_out):
        return mod, None
    buffers = [relax.Var(f"output{k}", outputs[k].ty) for k in kept_out]
    bb = relax.BlockBuilder(mod)
    copies: dict[str, relax.GlobalVar] = {}

    def copy_into(dst: relax.Var, src: relax.Expr) -> relax.Expr:
        key = f"{dst.ty.dtype}{[int(d) for d in dst.ty.shape]}"
        if key not in copies:
            copies[key] = bb.add_func(_copy_into(dst.ty), "copy_into")
        return bb.emit(relax.call_tir_inplace(copies[key], (dst, src), 0, dst.ty))

    # the outputs leave through a call of a Relax function: a binding the CUDA-graph rewrite
    # cannot capture, so the region hands them on (a tuple built inside the region would be
    # lifted into it, and the step would return a value it no longer defines)
    types = [outputs[k].ty for k in range(len(outputs))]
    through = [relax.Var(f"out{k}", ty) for k, ty in enumerate(types)]
    with bb.function(HAND_OVER, through, private=True):
        bb.emit_func_output(relax.Tuple(through))
    hand_over = bb.get().get_global_var(HAND_OVER)
    attrs = {**dict(main.attrs or {}), "num_input": 0}
    attrs.pop("global_symbol", None)
    with bb.function("resident_main", params + buffers, attrs=attrs, private=True):
        with bb.dataflow():
            for binding in block.bindings:  # the step as it was, less its returned tuple
                if not binding.value.same_as(returned):
                    bb.emit_normalized(binding)
            final = list(returned.fields)
            for k, buffer in zip(kept_out, buffers):  # first: an output may read a parameter
                final[k] = copy_into(buffer, final[k])
            for k, i in sorted(donated.items()):  # new values into their parameters' buffers
                if not outputs[k].same_as(params[i]):
                    final[k] = copy_into(params[i], final[k])
            out = bb.emit_output(relax.Call(hand_over, final))
        bb.emit_func_output(out)
    built = bb.get()
    func = built[built.get_global_var("resident_main")]
    kept = {g: f for g, f in built.functions.items() if g.name_hint != "resident_main"}
    kept[gv] = func.with_attr("global_symbol", "main")
    shapes = [(tuple(int(d) for d in b.ty.shape), str(b.ty.dtype)) for b in buffers]
    return tvm.IRModule(kept, attrs=mod.attrs), shapes


@relax.expr_functor.visitor
class _Launches(relax.PyExprVisitor):
    """Kernel calls and graph replays in one lowered Relax function."""

    def __init__(self, mod: tvm.IRModule) -> None:
        super().__init__()
        self.mod = mod
        self.kernels = 0
        self.graphs: list[relax.GlobalVar] = []
        self.calls: list[relax.GlobalVar] = []

    def visit_call_(self, call: relax.Call) -> None:
        super().visit_call_(call)
        op = call.op
        if isinstance(op, relax.GlobalVar):
            if isinstance(self.mod[op], tvm.tirx.PrimFunc):
                self.kernels += 1
            elif op.name_hint != HAND_OVER:
                self.calls.append(op)
        elif isinstance(op, relax.ExternFunc) and not str(op.global_symbol).startswith("vm.builtin"):
            self.kernels += 1  # a library kernel
        elif isinstance(op, tvm.ir.Op) and op.name == "relax.call_builtin_with_ctx":
            name = call.args[0]
            if isinstance(name, relax.ExternFunc) and str(name.global_symbol) == _RUN_OR_CAPTURE:
                self.graphs.append(call.args[1][0] if isinstance(call.args[1], relax.Tuple)
                                   else call.args[1])


def launch_counts(mod: tvm.IRModule) -> dict[str, Any]:
    """Of the lowered ``main``: ``kernels`` (launches per step without CUDA graphs),
    ``per_step`` (with them: graph replays plus kernels outside any graph), ``graphs`` and
    ``exact`` (False when ``main`` calls other Relax functions, e.g. a loop's body, whose
    kernels are not counted)."""
    outer = _Launches(mod)
    outer.visit_expr(mod["main"])
    captured = 0
    for graph in outer.graphs:
        inner = _Launches(mod)
        target = graph if isinstance(graph, relax.GlobalVar) else None
        if target is not None:
            inner.visit_expr(mod[target])
            captured += inner.kernels
    return {"kernels": outer.kernels + captured, "per_step": outer.kernels + len(outer.graphs),
            "graphs": len(outer.graphs), "exact": not outer.calls}


__all__ = ["USE_CUDA_GRAPH", "enabled", "launch_counts", "resident_step"]
