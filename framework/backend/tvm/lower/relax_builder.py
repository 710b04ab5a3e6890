"""Our Graph as a Relax module: straight-line code, regions, prints and loops.

``to_relax(graph)`` gives ``main(*inputs) -> tuple(outputs)``. Runs of ordinary nodes
become dataflow blocks (what TVM fuses and schedules); a print or a control-flow node
closes the block and is emitted outside it:

- ``If``: each branch graph is a private Relax function; ``relax.If`` calls one of them.
- ``While`` and ``WhileGrad``: loops as bounded trees of calls (:mod:`.loops`).
- ``PrintOp``: a call of the packed function ``framework.print``, which writes the
  template with the tensors as :func:`framework.ops.debug.write` formats them.

Functions holding prints or loops are impure (the VM keeps their order). Under a symbolic
template each region function has its own symbolic ``n`` (:mod:`.symbolic_shapes`; a call
passes ``R.Shape([n])`` to one that no input defines it for: :meth:`RelaxBuilder.call_args`).

Every binding is named after the node it lowers (``n<k>_``, ``..profile``): the profiler
finds a kernel's nodes, and so their source lines, by these names.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import numpy as np
import tvm
from tvm import relax

from ....ir import Graph
from ....ir.control import If, While, WhileGrad
from ....ir.symbolic import Template
from ....ops.debug import PrintOp, write
from ....profiler import numbered
from ..profile import TaggingBuilder, tag_of
from ..runtime.host_kernels import has_kernel, register
from . import accumulate, segment
from .inlining import INLINE
from .loop_grad import emit_saving_loop, lower_while_grad
from .loops import call, emit_loop
from .lowerings import lower_node
from .lowerings.base import AtUse
from .symbolic_shapes import SymbolicShapes


@tvm.register_global_func("framework.print", override=True)
def _print(template: str, *tensors: Any) -> None:
    write(str(template), [t.numpy() for t in tensors])


def _dtype(v: Any) -> str:
    return "bool" if v.dtype == np.bool_ else str(v.dtype)




def _safe(name: str | None) -> str:
    return "".join(c if c.isalnum() else "_" for c in (name or "v"))


def _impure(graph: Graph) -> bool:
    return any(n.prim.side_effect or isinstance(n.prim, While | WhileGrad) for n in graph.nodes)


def _erased(ty: Any) -> Any:
    """``ty`` with its rank only where it has symbolic dimensions."""
    if isinstance(ty, relax.ShapeType):
        return relax.ShapeType(ndim=len(ty.values))
    static = all(isinstance(d, tvm.tirx.IntImm) for d in ty.shape.values)
    return ty if static else relax.TensorType(dtype=ty.dtype, ndim=len(ty.shape.values))


def _cast(bb: relax.BlockBuilder, params: list[relax.Var], types: list[Any]) -> list[relax.Expr]:
    """``params`` cast to ``types``: first those with a dimension that is a bare variable
    (which defines it), so that every later dimension's variable is known."""
    out: list[relax.Expr] = list(params)
    bare = [i for i, ty in enumerate(types) if any(isinstance(d, tvm.tirx.Var) for d in (
        ty.values if isinstance(ty, relax.ShapeType) else ty.shape.values))]
    for i in [*bare, *(i for i in range(len(types)) if i not in bare)]:
        if _erased(types[i]) is not types[i]:
            out[i] = bb.match_cast(params[i], types[i])
    return out


class RelaxBuilder:
    def __init__(self, graph: Graph, template: Template | None = None) -> None:
        self.bb = TaggingBuilder()
        self.shapes = SymbolicShapes(template)
        self.index = {id(node): i for i, node in enumerate(numbered(graph))}  # node -> its number
        self.ids = itertools.count()
        self.stubs: list[str] = []
        self.takes_shape: set[str] = set()  # region functions taking R.Shape([n]) last
        self.row_writers: dict = {}  # the saved-state row kernels, one per kind and row (loop_grad.py)
        # per function being lowered (innermost last): forward While uid -> the state rows it
        # saved (None until lowered) for each While whose backward is in that function
        self.frames: list[dict[int, list | None]] = []

    def module(self) -> tvm.IRModule:
        mod = self.bb.get()
        return tvm.IRModule({gv: f for gv, f in mod.functions.items() if gv.name_hint not in self.stubs})

    # -- functions -----------------------------------------------------------------------------
    def function(self, name: str, graph: Graph, private: bool = True, inline: bool = False,
                 then_cond: Graph | None = None) -> relax.GlobalVar:
        """Lower ``graph`` into the Relax function ``name``; its global var. ``inline``:
        put in place of its calls once fused (:mod:`.inlining`). ``then_cond``: a loop's
        condition, evaluated on the outputs (and the inputs past them, the loop's
        invariants) and returned last. An inlined region using the symbolic size takes its
        inputs with their rank only and casts them to their shapes first (its ``n`` defined
        there: TVM's inliner renames a function's symbolic variables, which its parameters
        would leave undefined in the caller)."""
        cast = inline and (self.shapes.uses(graph) or (then_cond is not None and self.shapes.uses(then_cond)))
        with self.shapes.scope() if private else contextlib.nullcontext():  # a region: its own n
            types = [self.shapes.type(v) for v in graph.inputs]
            shape = private and self.shapes.needs_shape(graph.inputs, graph, then_cond)
            if shape:  # no input defines n: R.Shape([n]) last (see call_args)
                types.append(self.shapes.shape_type())
            names = [f"{v.kind}{i}_{_safe(v.name)}" for i, v in enumerate(graph.inputs)] + ["symbolic_n"]
            params = [relax.Var(name, _erased(ty) if cast else ty) for name, ty in zip(names, types)]
            bb = self.bb
            self.frames.append({n.prim.forward_uid: None for n in graph.nodes
                                if isinstance(n.prim, WhileGrad)})
            attrs = {INLINE: True} if inline else None
            tag = bb.tag  # (a region's nodes retag what they emit; the caller's node goes on after)
            with bb.function(name, params, pure=not _impure(graph), private=private, attrs=attrs):
                typed = _cast(bb, params, types) if cast else params
                env: dict[int, relax.Expr] = {v.id: p for v, p in zip(graph.inputs, typed)}
                self._body(graph, env)
                self.frames.pop()
                outputs = [self._arg(env, v) for v in graph.outputs]
                if then_cond is not None:
                    outputs.append(self.inline(then_cond, [*outputs, *typed[len(outputs):]])[0])
                # a function returning an empty tuple from an If branch crashes the VM
                gv = bb.emit_func_output(relax.Tuple(outputs or [relax.const(0, "int32")]))
            bb.tag = tag
        if shape:
            self.takes_shape.add(gv.name_hint)
        return gv

    def call_args(self, gv: relax.GlobalVar, args: list[relax.Expr]) -> list[relax.Expr]:
        """``args`` for a call of the region function ``gv`` from the function being built
        (with this function's ``R.Shape([n])`` when ``gv`` takes it)."""
        return [*args, self.shapes.shape_value()] if gv.name_hint in self.takes_shape else args

    def inline(self, graph: Graph, args: list[relax.Expr]) -> list[relax.Expr]:
        """Lower ``graph`` into the function being built, on ``args``; its outputs (a
        loop's condition: a few scalar ops, cheaper than a call)."""
        env: dict[int, relax.Expr] = {v.id: a for v, a in zip(graph.inputs, args)}
        self._body(graph, env)
        return [self._arg(env, v) for v in graph.outputs]

    def saved_rows(self, forward_uid: int | None) -> list | None:
        """The state rows a While of the function being lowered saved (None if it did not)."""
        return self.frames[-1].get(forward_uid) if self.frames else None

    def _arg(self, env: dict[int, relax.Expr], v: Any) -> relax.Expr:
        if v.id not in env:
            if v.kind != "const":
                raise KeyError(f"value %{v.id} used before definition")
            if self.shapes.varies(v):  # k * n, k / n, or one value at a symbolic shape
                return self.bb.emit(self.shapes.constant(self.bb, v))
            data = np.asarray(v.data)
            if data.size == 0:  # (TVM cannot load a library holding an empty constant)
                return self.bb.emit(relax.op.zeros(list(v.shape), _dtype(v)))
            if data.size > 1 and not any(data.strides):  # one value broadcast (passes._fold_empty):
                scalar = relax.const(data.reshape(-1)[:1].reshape(()), _dtype(v))  # at each use
                return self.bb.emit(relax.op.broadcast_to(scalar, list(v.shape)))
            env[v.id] = relax.const(data, _dtype(v))
        if isinstance(env[v.id], AtUse):  # emitted here, at its first use (named after its node)
            tag, self.bb.tag = self.bb.tag, self._tag(v.producer) or self.bb.tag
            env[v.id] = self.bb.emit(env[v.id].expr)
            self.bb.tag = tag
        return env[v.id]

    def _tag(self, *nodes: Any) -> str:
        numbers = [self.index[id(n)] for n in nodes if id(n) in self.index]
        return tag_of(numbers) if numbers else ""

    def _body(self, graph: Graph, env: dict[int, relax.Expr]) -> None:
        last_use: dict[int, int] = {}
        uses: dict[int, int] = {}
        for i, node in enumerate(graph.nodes):
            for v in node.inputs:
                last_use[v.id] = i
                uses[v.id] = uses.get(v.id, 0) + 1
        for v in graph.outputs:
            last_use[v.id] = len(graph.nodes)
            uses[v.id] = uses.get(v.id, 0) + 1
        bb, i = self.bb, 0
        nodes = graph.nodes
        while i < len(nodes):
            if self._special(nodes[i]):
                self._emit_special(nodes[i], env)
                i += 1
                continue
            j = i
            while j < len(nodes) and not self._special(nodes[j]):
                j += 1
            defined = []
            fused = accumulate.plan(nodes[i:j], uses)  # acc + a^T b: one kernel each
            sums = accumulate.chains(nodes[i:j], uses, fused)  # long sums: one product
            skipped = {m for m, _ in fused.values()}
            skipped |= {x for terms, _, adds in sums.values() for x in terms + adds[:-1]}
            segment.forget()  # a segment's values are not visible in the next one
            with bb.dataflow():
                for k, node in enumerate(nodes[i:j]):
                    if k in skipped:
                        continue
                    if k in sums:
                        terms, base, _ = sums[k]
                        bb.tag = self._tag(*map(nodes.__getitem__, map(i.__add__, terms)))  # products
                        a, b = ([self._arg(env, nodes[i + m].inputs[n]) for m in terms] for n in (0, 1))
                        start = None if base is None else self._arg(env, base)
                        with self.shapes.lowering(node):
                            out = accumulate.lower_chain(bb, start, a, b)
                    elif k in fused:
                        m, side = fused[k]
                        bb.tag = self._tag(nodes[i + m])  # the product's node (the work)
                        a, b = (self._arg(env, v) for v in nodes[i + m].inputs)
                        with self.shapes.lowering(nodes[i + m]):
                            out = accumulate.lower(bb, self._arg(env, node.inputs[side]), a, b)
                    else:
                        bb.tag = self._tag(node)
                        with self.shapes.lowering(node):
                            args = [self._arg(env, v) for v in node.inputs]
                            out = lower_node(bb, self.shapes.node(node), args, self.shapes.spec)
                    for value, expr in zip(node.outputs, out if isinstance(out, tuple) else (out,)):
                        env[value.id] = expr if isinstance(expr, relax.Var | AtUse) else bb.emit(expr)
                        defined.append(value)
                escaping = [v for v in defined if last_use.get(v.id, -1) >= j]
                outs = [bb.emit_output(self._arg(env, v)) for v in escaping]
            for v, var in zip(escaping, outs):
                env[v.id] = var
            i = j

    @staticmethod
    def _special(node: Any) -> bool:
        return node.prim.side_effect or bool(node.prim.regions)

    def _emit_special(self, node: Any, env: dict[int, relax.Expr]) -> None:
        with self.shapes.lowering(node):  # a region that cannot take symbolic shapes: named
            self._emit_region(node, env)

    def _emit_region(self, node: Any, env: dict[int, relax.Expr]) -> None:
        self.bb.tag = self._tag(node)
        args = [self._arg(env, v) for v in node.inputs]
        prim, bb = node.prim, self.bb
        if isinstance(prim, PrintOp):
            bb.emit(relax.Call(relax.ExternFunc("framework.print"), [tvm.ir.StringImm(prim.template), *args],
                               ty_args=[relax.ObjectType()]))
            return
        if isinstance(prim, If):
            k = next(self.ids)
            then_gv = self.function(f"if{k}_then", prim.then_graph)
            else_gv = self.function(f"if{k}_else", prim.else_graph)
            then_call = relax.Call(then_gv, self.call_args(then_gv, args[1:]))
            else_call = relax.Call(else_gv, self.call_args(else_gv, args[1:]))
            result = bb.emit(relax.If(args[0], relax.SeqExpr([], then_call), relax.SeqExpr([], else_call)))
            outs = [bb.emit(relax.TupleGetItem(result, i)) for i in range(len(node.outputs))]
            if self.shapes.template is not None:  # typed in this function's n (Relax joins
                outs = [bb.match_cast(o, self.shapes.type(v))  # the branches' types loosely)
                        for o, v in zip(outs, node.outputs)]
        elif isinstance(prim, While):
            outs = self._while(prim, args, node)
        elif isinstance(prim, WhileGrad):
            outs = lower_while_grad(self, prim, args, next(self.ids))
        elif has_kernel(prim) and prim.num_outputs == 1:
            # an effect with a host kernel (Assert): an impure call, as Print's, writing into
            # an output allocated here (call_dps_packed is pure: relax would drop it unused)
            spec = prim.out_specs(*node.inputs)[0]
            out = bb.emit(relax.op.builtin.alloc_tensor(relax.ShapeExpr(spec.shape), spec.dtype.name, 0))
            bb.emit(relax.Call(relax.ExternFunc(register(prim)), [*args, out], ty_args=[relax.ObjectType()]))
            outs = [out]
        else:
            raise TypeError(f"no lowering for the side-effecting primitive {prim.name}")
        for value, var in zip(node.outputs, outs):
            env[value.id] = var

    # -- loops ---------------------------------------------------------------------------------
    def _while(self, prim: While, args: list[relax.Expr], node: Any) -> list[relax.Expr]:
        k, n = next(self.ids), prim.n_carried
        # the body returns the next iteration's condition too (fused there, see loops.Body)
        body_gv = self.function(f"while{k}_body", prim.body_graph, inline=True, then_cond=prim.cond_graph)
        frame = self.frames[-1]
        if prim.uid in frame:  # its backward follows in this function: save states as it runs
            final, count, frame[prim.uid] = emit_saving_loop(self, f"while{k}", prim.cond_graph, body_gv,
                                                             args, n)
        else:
            def body(v: list[relax.Expr], _: relax.Expr) -> tuple[list[relax.Expr], relax.Expr]:
                *new, go = call(self.bb, body_gv, self.call_args(body_gv, v), n + 1)
                return new, go

            final, count = emit_loop(self.bb, f"while{k}", lambda v, _: self.inline(prim.cond_graph, v)[0],
                                     body, args, n, self.stubs, shapes=self.shapes)
        return final[: prim.n_carried] + [count]


def to_relax(graph: Graph, template: Template | None = None) -> tvm.IRModule:
    """The graph as one Relax function ``main(*inputs) -> tuple(outputs)`` (plus private
    functions for its regions). With a ``template`` (:mod:`framework.ir.symbolic`) its
    symbolic dimensions are Relax shape variables: one function for every size; a lowering
    that cannot take them raises :class:`framework.ir.symbolic.NotSymbolic`."""
    builder = RelaxBuilder(graph, template)
    builder.function("main", graph, private=False)
    return builder.module()
