"""Shared helpers for the control-flow tests: run a function in PyNative and compiled in
graph mode, compare outputs, and compare gradients with PyNative and with central finite
differences (float64)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import framework as ms
from framework import Tensor


def run_in(mode: int, fn: Callable[[], Any]) -> Any:
    ms.set_context(mode=mode)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def both_modes(fn: Callable[[], Any]) -> tuple[Any, Any]:
    return run_in(ms.PYNATIVE_MODE, fn), run_in(ms.GRAPH_MODE, fn)


def to_np(x: Any) -> Any:
    """Tensors -> numpy arrays, recursively through tuples/lists."""
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, tuple | list):
        return type(x)(to_np(v) for v in x)
    return x


def assert_same(graph: Any, eager: Any, rtol: float = 1e-6, atol: float = 1e-7, msg: str = "") -> None:
    """Same structure, dtype, shape and (close) values."""
    if isinstance(eager, tuple | list):
        assert isinstance(graph, tuple | list) and len(graph) == len(eager), f"{msg}: {graph!r} vs {eager!r}"
        for k, (g, e) in enumerate(zip(graph, eager)):
            assert_same(g, e, rtol, atol, f"{msg}[{k}]")
        return
    g, e = np.asarray(graph), np.asarray(eager)
    assert g.shape == e.shape, f"{msg}: shape {g.shape} vs {e.shape}"
    assert g.dtype == e.dtype, f"{msg}: dtype {g.dtype} vs {e.dtype}"
    if np.issubdtype(e.dtype, np.floating):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=msg)
    else:
        np.testing.assert_array_equal(g, e, err_msg=msg)


def f64(*values: Any) -> Tensor:
    return Tensor(np.array(values if len(values) != 1 else values[0], np.float64))


def f32(*values: Any) -> Tensor:
    return Tensor(np.array(values if len(values) != 1 else values[0], np.float32))


def i32(value: Any) -> Tensor:
    return Tensor(np.array(value), ms.int32)


def _copy(value: Any) -> Any:
    if type(value) is Tensor:
        return Tensor(value.asnumpy().copy())
    return value


def check_forward(fn: Callable[..., Any], arg_sets: Sequence[tuple], expected: Sequence[Any] | None = None,
                  rtol: float = 1e-6, atol: float = 1e-7) -> list[Any]:
    """``ms.jit(fn)`` (one compile per signature) == ``fn`` in PyNative for every argument
    set, and == ``expected`` (NumPy reference values) when given. Returns the graph outputs."""
    jf = ms.jit(fn)
    outs = []
    for k, args in enumerate(arg_sets):
        # PyNative item assignment changes a tensor argument in place: run it on copies
        copies = tuple(_copy(a) for a in args)
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda args=copies: fn(*args)))
        graph = to_np(jf(*args))
        if k and _shapes(args) == _shapes(arg_sets[0]):  # values changed, not the signature:
            assert not jf.last_call_compiled, "recompiled for new values"  # control flow is staged
        assert_same(graph, eager, rtol, atol, f"{getattr(fn, '__name__', fn)} args #{k}")
        if expected is not None:
            assert_same(graph, expected[k], rtol, atol, f"{getattr(fn, '__name__', fn)} vs numpy #{k}")
        outs.append(graph)
    return outs


def _shapes(args: tuple) -> list:
    return [(a.shape, str(a.dtype)) if isinstance(a, Tensor) else a for a in args]


def numeric_grad(fn: Callable[..., Any], args: tuple, pos: int, eps: float = 1e-6) -> np.ndarray:
    """Central finite differences of sum(fn(*args)) wrt args[pos] (float64), in PyNative."""
    base = args[pos].asnumpy().astype(np.float64)
    grad = np.zeros_like(base)

    def total(value: np.ndarray) -> float:
        new = list(args)
        new[pos] = Tensor(value)
        out = run_in(ms.PYNATIVE_MODE, lambda: fn(*new))
        outs = out if isinstance(out, tuple | list) else (out,)
        return float(sum(np.sum(o.asnumpy().astype(np.float64)) for o in outs))

    for idx in np.ndindex(base.shape):
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        grad[idx] = (total(plus) - total(minus)) / (2 * eps)
    return grad


def check_grad(fn: Callable[..., Any], arg_sets: Sequence[tuple], positions: tuple[int, ...] = (0,),
               fd: bool = True, rtol: float = 1e-6, atol: float = 1e-8) -> None:
    """Graph gradients == PyNative gradients (== central finite differences when ``fd``)."""
    grad = ms.grad(fn, grad_position=positions)
    for k, args in enumerate(arg_sets):
        eager = to_np(run_in(ms.PYNATIVE_MODE, lambda args=args: grad(*args)))
        graph = to_np(run_in(ms.GRAPH_MODE, lambda args=args: grad(*args)))
        if len(positions) == 1:  # (a one-entry grad_position gives the gradient itself, as MindSpore)
            eager, graph = (eager,), (graph,)
        assert_same(graph, eager, rtol, atol, f"grad of {fn.__name__} args #{k}")
        if fd:
            for j, pos in enumerate(positions):
                numeric = numeric_grad(fn, args, pos)
                np.testing.assert_allclose(eager[j], numeric, rtol=1e-5, atol=1e-6,
                                           err_msg=f"finite differences of {fn.__name__} #{k} pos {pos}")

