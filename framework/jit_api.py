"""MindSpore's graph-mode decorators: ``jit`` with ``jit_config``, ``JitConfig``,
``ms_function`` (the old name of ``jit``) and ``jit_class``; and what graph mode installs
into autograd's hooks (``autograd/grad.py: HOOKS``): the source frontend's ``convert`` and
:func:`mode_aware`. Not in graph_mode.py: that file bounds the frames an IR node's source
line is looked for in (errors.graph_location), and a grad's wrapper frame must not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import graph_mode
from .autograd import grad as _grad
from .context import GRAPH_MODE, get_context
from .frontend import convert
from .interpreters import is_tracing

_JIT_LEVELS = ("O0", "O1", "O2")


class JitConfig:
    """``JitConfig(jit_level="O1", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
    infer_boost="off", **kwargs)``: accepted and stored on the compiled function
    (``fn.jit_config``); our graph mode always compiles the whole function with TVM."""

    def __init__(self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
                 debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs: Any) -> None:
        if jit_level and jit_level not in _JIT_LEVELS:
            raise ValueError(f"JitConfig: jit_level must be one of {', '.join(_JIT_LEVELS)}, "
                             f"got {jit_level!r}")
        self.jit_config_dict = {"jit_level": jit_level, "exc_mode": exc_mode,
                                "jit_syntax_level": jit_syntax_level,
                                "debug_level": debug_level, "infer_boost": infer_boost,
                                **{k: str(v) for k, v in kwargs.items()}}

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["jit_config_dict"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"JitConfig({self.jit_config_dict})"


def jit(function: Callable[..., Any] | None = None, *, jit_config: JitConfig | None = None,
        ir_dir: str | None = None, **options: Any) -> Any:
    """``@jit``, ``jit(fn)``, ``jit(fn, jit_config=JitConfig(...))``: compile ``fn`` with
    graph mode whatever the context. ``input_signature`` (a Tensor or a tuple, one per
    argument) with ``None`` dimensions compiles one function for every size of those axes
    where it can (:mod:`framework.dynamic_shapes`). Other MindSpore options
    (``capture_mode``, ``jit_level`` ...) are accepted and stored with the config."""
    if jit_config is not None and not isinstance(jit_config, JitConfig):
        raise TypeError(f"jit: jit_config must be a JitConfig, got {type(jit_config).__name__}")
    config = jit_config or JitConfig(**{k: v for k, v in options.items()
                                        if k == "jit_level" and v})

    def build(fn: Callable[..., Any]) -> Any:
        compiled = graph_mode.JitFunction(fn, ir_dir=ir_dir)
        compiled.jit_config = config
        compiled.jit_options = options
        return compiled

    return build if function is None else build(function)


def ms_function(fn: Callable[..., Any] | None = None, input_signature: Any = None,
                hash_args: Any = None, jit_config: JitConfig | None = None) -> Any:
    """MindSpore's old name of :func:`jit` (same behaviour)."""
    return jit(fn, jit_config=jit_config, input_signature=input_signature)


def jit_class(cls: type) -> type:
    """``@jit_class``: a user class whose objects and methods graph-mode code may use.

    Tracing runs the methods as Python, so they need nothing else; Cells are refused as
    in MindSpore (they are already usable in graph mode).
    """
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: decorates a class, got a {type(cls).__name__}")
    from .nn.cell import Cell

    if issubclass(cls, Cell):
        raise TypeError(f"jit_class: {cls.__name__} is an nn.Cell, which graph mode already "
                        "supports; decorate plain classes only")
    cls.__ms_class__ = True
    return cls


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """MindSpore's ``mutable``: marks an input of a compiled function as a variable, not a
    constant folded into the graph. Tensors (alone, or in tuples, lists and dicts) are
    variables here already and numbers are accepted too, so the value is returned as it
    is; anything else is a TypeError, as MindSpore's."""
    from .common.tensor import Tensor

    def check(value: Any) -> None:
        if isinstance(value, tuple | list):
            for item in value:
                check(item)
        elif isinstance(value, dict):
            for item in value.values():
                check(item)
        elif not isinstance(value, Tensor | int | float) or isinstance(value, bool):
            raise TypeError(f"mutable: input_data must be a Tensor, a number, or a tuple, list or "
                            f"dict of them, got {type(value).__name__}")

    check(input_data)
    if dynamic_len and not isinstance(input_data, tuple | list):
        raise TypeError("mutable: dynamic_len=True needs a tuple or a list")
    return input_data


def mode_aware(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A gradient function that runs compiled in GRAPH_MODE (as MindSpore does), else eagerly.

    Without this, a top-level grad of a Cell in graph mode would call the Cell's own
    compiled function, which the tape cannot see into.
    """
    compiled: list[graph_mode.JitFunction] = []

    def wrapper(*args: Any) -> Any:
        if get_context("mode") != GRAPH_MODE or is_tracing():
            return fn(*args)
        if not compiled:
            compiled.append(graph_mode.JitFunction(fn, name=name))
        return compiled[0](*args)

    return wrapper


_grad.HOOKS.update(convert=convert, mode_aware=mode_aware)


def lazy_inline(fn: Callable[..., Any] | None = None, attrs: Any = None,
                policy: str | None = None) -> Any:
    """``@lazy_inline`` / ``@lazy_inline(attrs=..., policy=...)`` on a Cell's ``__init__``.

    MindSpore compiles such a cell (a repeated transformer block) once as a reusable
    subgraph instead of inlining every copy, to cut compile time (on Ascend). Here every
    cell's ``construct`` is traced inline into the one compiled function, so the
    decorator changes nothing a program computes: ``__init__`` runs as written, and the
    cell records that it was marked (``cell._lazy_inline`` = the policy, ``"none"`` for
    None). ``attrs`` must be a string or a list of strings (a ValueError otherwise, as in
    MindSpore); it names what MindSpore passes to the subgraph and is only kept.
    """
    if attrs is not None and not isinstance(attrs, str | list):
        raise ValueError("lazy_inline: attrs must be list or string, got "
                         f"{type(attrs).__name__}")

    def wrap(init: Callable[..., Any]) -> Callable[..., Any]:
        import functools

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
            init(self, *args, **kwargs)
            object.__setattr__(self, "_lazy_inline", policy or "none")
            object.__setattr__(self, "_lazy_inline_attrs", attrs)

        return __init__

    return wrap if fn is None else wrap(fn)


def no_inline(fn: Callable[..., Any] | None = None) -> Any:
    """``@no_inline``: MindSpore compiles the function as its own subgraph, reused at each
    call, instead of inlining it. Here every function is traced inline into the one compiled
    function, so it changes nothing a program computes: the function is returned, marked
    (``fn._no_inline``)."""

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(f):
            raise TypeError(f"no_inline: expected a function, got {type(f).__name__}")
        f._no_inline = True  # type: ignore[attr-defined]
        return f

    return mark if fn is None else mark(fn)


def enable_dynamic(**kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@enable_dynamic(x=Tensor(shape=[None, 2], dtype=...))`` on a ``jit`` function: the
    named arguments' shapes may vary between calls. Our ``jit`` compiles once per input
    shape, so a function runs with any shape already; the decorator checks the names
    against the function's parameters and keeps the shapes (``fn._dynamic_inputs``)."""
    import inspect

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        unknown = [k for k in kwargs if params and k not in params]
        if unknown:
            raise ValueError(f"enable_dynamic: {unknown} are not parameters of {getattr(fn, '__name__', fn)}")
        fn._dynamic_inputs = dict(kwargs)  # type: ignore[attr-defined]
        return fn

    return decorate


_MARGIN = 200  # frames of the tracer itself above the program's own calls


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """The depth of (recursive) calls graph compilation follows. Graph mode traces the
    program's Python, so this raises Python's own limit to at least ``recursion_limit``
    (plus the tracer's frames); it never lowers it."""
    import sys

    if not isinstance(recursion_limit, int) or isinstance(recursion_limit, bool) or recursion_limit <= 0:
        raise ValueError("set_recursion_limit: recursion_limit must be a positive int, "
                         f"got {recursion_limit!r}")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), recursion_limit + _MARGIN))
