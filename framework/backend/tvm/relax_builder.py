"""Our Graph as a Relax module: straight-line code, regions, prints and loops.

``to_relax(graph)`` gives ``main(*inputs) -> tuple(outputs)``. Runs of ordinary nodes
become dataflow blocks (what TVM fuses and schedules); a print or a control-flow node
closes the block and is emitted outside it:

- ``If``: each branch graph is a private Relax function; ``relax.If`` calls one of them.
- ``While``: the VM has no loop instruction and recurses on the C stack (TVM_NOTES), so a
  loop is a bounded tree of calls: ``step`` runs the condition and, if it holds, the body
  once; ``level1`` tries ``step`` ``FANOUT`` times (skipping once the loop is done),
  ``level2`` tries ``level1`` ``FANOUT`` times, ...; ``top`` runs the highest level and
  calls itself until the loop is done. The recursion depth is
  iterations / FANOUT**LEVELS, and past ``MAX_ITERATIONS`` the run stops with a clear
  error instead of overflowing the stack. The loop state is ``(done, count, *carried,
  *invariants)``.
- ``PrintOp``: ``relax.op.print`` (it formats tensors as NumPy does).

Functions holding prints or loops are impure (the VM keeps their order).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import tvm
from tvm import relax

from ...ir import Graph
from ...ir.control import If, While
from ...ops.debug import PrintOp
from .lowerings import lower_node

FANOUT, LEVELS = 8, 3
MAX_DEPTH = 1000
MAX_ITERATIONS = FANOUT ** LEVELS * MAX_DEPTH


def _dtype(v: Any) -> str:
    return "bool" if v.dtype == np.bool_ else str(v.dtype)


def _ty(v: Any) -> relax.TensorType:
    return relax.TensorType(v.shape, _dtype(v))


def _safe(name: str | None) -> str:
    return "".join(c if c.isalnum() else "_" for c in (name or "v"))


def _impure(graph: Graph) -> bool:
    return any(n.prim.side_effect or isinstance(n.prim, While) for n in graph.nodes)


class RelaxBuilder:
    def __init__(self) -> None:
        self.bb = relax.BlockBuilder()
        self.ids = itertools.count()
        self.stubs: list[str] = []

    def module(self) -> tvm.IRModule:
        mod = self.bb.get()
        return tvm.IRModule({gv: f for gv, f in mod.functions.items() if gv.name_hint not in self.stubs})

    # -- functions -----------------------------------------------------------------------------
    def function(self, name: str, graph: Graph, private: bool = True) -> relax.GlobalVar:
        """Lower ``graph`` into the Relax function ``name``; its global var."""
        params = [relax.Var(f"{v.kind}{i}_{_safe(v.name)}", _ty(v)) for i, v in enumerate(graph.inputs)]
        env: dict[int, relax.Expr] = {v.id: p for v, p in zip(graph.inputs, params)}
        bb = self.bb
        with bb.function(name, params, pure=not _impure(graph), private=private):
            self._body(graph, env)
            bb.emit_func_output(relax.Tuple([self._arg(env, v) for v in graph.outputs]))
        return bb.get().get_global_var(name)

    def _arg(self, env: dict[int, relax.Expr], v: Any) -> relax.Expr:
        if v.id not in env:
            if v.kind != "const":
                raise KeyError(f"value %{v.id} used before definition")
            env[v.id] = relax.const(np.asarray(v.data), _dtype(v))
        return env[v.id]

    def _body(self, graph: Graph, env: dict[int, relax.Expr]) -> None:
        last_use: dict[int, int] = {}
        for i, node in enumerate(graph.nodes):
            for v in node.inputs:
                last_use[v.id] = i
        for v in graph.outputs:
            last_use[v.id] = len(graph.nodes)
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
            with bb.dataflow():
                for node in nodes[i:j]:
                    out = lower_node(bb, node, [self._arg(env, v) for v in node.inputs])
                    for value, expr in zip(node.outputs, out if isinstance(out, tuple) else (out,)):
                        env[value.id] = expr if isinstance(expr, relax.Var) else bb.emit(expr)
                        defined.append(value)
                escaping = [v for v in defined if last_use.get(v.id, -1) >= j]
                outs = [bb.emit_output(env[v.id]) for v in escaping]
            for v, var in zip(escaping, outs):
                env[v.id] = var
            i = j

    @staticmethod
    def _special(node: Any) -> bool:
        return node.prim.side_effect or isinstance(node.prim, If | While)

    def _emit_special(self, node: Any, env: dict[int, relax.Expr]) -> None:
        args = [self._arg(env, v) for v in node.inputs]
        prim, bb = node.prim, self.bb
        if isinstance(prim, PrintOp):
            bb.emit(relax.op.print(*args, format=prim.template.removesuffix("\n")))
            return
        if isinstance(prim, If):
            k = next(self.ids)
            then_gv = self.function(f"if{k}_then", prim.then_graph)
            else_gv = self.function(f"if{k}_else", prim.else_graph)
            result = bb.emit(relax.If(args[0], relax.SeqExpr([], relax.Call(then_gv, args[1:])),
                                      relax.SeqExpr([], relax.Call(else_gv, args[1:]))))
            outs = [bb.emit(relax.TupleGetItem(result, i)) for i in range(len(node.outputs))]
        elif isinstance(prim, While):
            outs = self._while(prim, args, node)
        else:
            raise TypeError(f"no lowering for the side-effecting primitive {prim.name}")
        for value, var in zip(node.outputs, outs):
            env[value.id] = var

    # -- loops ---------------------------------------------------------------------------------
    def _while(self, prim: While, args: list[relax.Expr], node: Any) -> list[relax.Expr]:
        k = next(self.ids)
        bb = self.bb
        cond_gv = self.function(f"while{k}_cond", prim.cond_graph)
        body_gv = self.function(f"while{k}_body", prim.body_graph)
        n, n_state = prim.n_carried, 2 + len(args)
        types = [relax.TensorType((), "bool"), relax.TensorType((), "int64")] + [a.ty for a in args]

        def state_params() -> list[relax.Var]:
            return [relax.Var(f"s{i}", ty) for i, ty in enumerate(types)]

        def unpack(result: relax.Expr) -> list[relax.Expr]:
            return [bb.emit(relax.TupleGetItem(result, i)) for i in range(n_state)]

        s = state_params()  # advance: the body once
        with bb.function(f"while{k}_advance", s, pure=not _impure(prim.body_graph), private=True):
            ran = bb.emit(relax.Call(body_gv, s[2:]))
            count = bb.emit(relax.op.add(s[1], relax.const(1, "int64")))
            new = [bb.emit(relax.TupleGetItem(ran, i)) for i in range(n)]
            bb.emit_func_output(relax.Tuple([s[0], count, *new, *s[2 + n:]]))
        advance = bb.get().get_global_var(f"while{k}_advance")
        s = state_params()  # step: test the condition; advance if it holds, else done
        with bb.function(f"while{k}_step", s, pure=False, private=True):
            go = bb.emit(relax.TupleGetItem(bb.emit(relax.Call(cond_gv, s[2:])), 0))
            done = bb.emit(relax.op.logical_not(go))
            r = bb.emit(relax.If(go, relax.SeqExpr([], relax.Call(advance, s)),
                                 relax.SeqExpr([], relax.Tuple([done, *s[1:]]))))
            bb.emit_func_output(r)
        level = bb.get().get_global_var(f"while{k}_step")
        for depth in range(1, LEVELS + 1):
            s = state_params()
            with bb.function(f"while{k}_level{depth}", s, pure=False, private=True):
                cur: list[relax.Expr] = s
                for _ in range(FANOUT):
                    r = bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)),
                                         relax.SeqExpr([], relax.Call(level, cur))))
                    cur = unpack(r)
                bb.emit_func_output(relax.Tuple(cur))
            level = bb.get().get_global_var(f"while{k}_level{depth}")
        top = self._recursive_top(k, state_params, level, unpack)
        first = [relax.const(False, "bool"), relax.const(0, "int64"), *args]
        final = unpack(bb.emit(relax.Call(top, first)))
        return final[2:2 + n] + [final[1]]

    def _recursive_top(self, k: int, state_params: Any, level: relax.GlobalVar,
                       unpack: Any) -> relax.GlobalVar:
        """``top(state)``: the highest level, then itself until done (declared first, so
        that its body can call it)."""
        bb, name = self.bb, f"while{k}_top"
        s = state_params()
        with bb.function(name, s, pure=False, private=True):
            bb.emit_func_output(relax.Tuple(s))
        top = bb.get().get_global_var(name)
        s = state_params()
        with bb.function(f"{name}_impl", s, pure=False, private=True):
            cur = unpack(bb.emit(relax.Call(level, s)))
            within = bb.emit(relax.op.less(cur[1], relax.const(MAX_ITERATIONS, "int64")))
            ok = bb.emit(relax.op.logical_or(cur[0], within))
            bb.emit(relax.op.assert_op(ok, format=(
                f"graph mode: a while loop ran {MAX_ITERATIONS} iterations without finishing; "
                "check its condition, or run it in PyNative mode")))
            r = bb.emit(relax.If(cur[0], relax.SeqExpr([], relax.Tuple(cur)),
                                 relax.SeqExpr([], relax.Call(top, cur))))
            bb.emit_func_output(r)
        impl = bb.get().get_global_var(f"{name}_impl")
        bb.update_func(top, bb.get()[impl])
        self.stubs.append(impl.name_hint)
        return top


def to_relax(graph: Graph) -> tvm.IRModule:
    """The graph as one Relax function ``main(*inputs) -> tuple(outputs)`` (plus private
    functions for its regions)."""
    builder = RelaxBuilder()
    builder.function("main", graph, private=False)
    return builder.module()
