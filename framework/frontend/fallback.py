"""JIT Fallback: a function whose Python code needs a runtime tensor's value runs
interpreted (MindSpore 2.x's JIT Fallback, which runs such code as interpreted nodes).

While compiling, ``int(x)``, ``float(x)``, ``bool(x)``, ``x.asnumpy()``, ``x.item()`` on
a traced tensor (a call argument or a value computed from one) raise
:class:`~framework.ir.graph.NeedsValueError`. When fallback is allowed, the compiled
function (:class:`framework.graph_mode.JitFunction`) stops tracing and keeps an
:class:`Interpreted` entry for that input signature instead of a graph: each call runs
the function's Python code eagerly (its converted source, :mod:`.convert`, on the
PyNative interpreter: the same kernels, the tape for gradients), so every value is the
one Python computes with the call's data, as MindSpore's interpreted nodes give. The
Cells it calls compile on their own in GRAPH_MODE. What it returns goes through
:func:`.pyobjects.returned` (iterators as containers; NumPy scalars stay NumPy scalars,
as MindSpore's interpreted values do).

Complex tensors run interpreted too: the TVM lowering has no complex types, so tracing
stops with :class:`ComplexValueError` (a NeedsValueError) when a call argument is complex or
a primitive takes or makes a complex tensor (``ops.Complex``, a cast to complex64, a complex
constant), and that signature runs its Python code in PyNative, with MindSpore's results.

Contract: fallback is allowed unless ``jit_syntax_level`` is STRICT (the context's, or the
``JitConfig`` of ``@jit``); then the error stops the compilation with its one line
(construct + file:line), as before. MindSpore 2.10 falls back in both levels for these
cases; STRICT here is the way to insist on one compiled graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..context import STRICT, get_context
from ..ir.graph import ComplexValueError, NeedsValueError, refuse_complex  # noqa: F401  (used here and re-exported)
from .convert import convert
from .pyobjects import returned


def allowed(jit_config: Any = None) -> bool:
    """Whether a function compiled with ``jit_config`` may run interpreted."""
    level = getattr(jit_config, "jit_syntax_level", "") if jit_config is not None else ""
    return str(level).upper() != "STRICT" and get_context("jit_syntax_level") != STRICT


class Interpreted:
    """One input signature of a compiled function that runs as Python (see the module
    doc); ``reason`` is the error that stopped its compilation."""

    report = None  # no compilation: nothing to report
    aliases = None  # serves any aliasing of the arguments (see valid)

    def __init__(self, fn: Callable[..., Any], reason: str) -> None:
        self.fn = fn
        self.reason = reason

    def valid(self, aliases: tuple = ()) -> bool:
        """Always: the function runs as Python, whatever the arguments' aliasing."""
        return True

    def call(self, args: tuple) -> Any:
        return returned(convert(self.fn)(*args), numpy_scalars=False)
