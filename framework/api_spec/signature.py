"""Signatures as the spec writes them, and how a MindSpore signature maps onto an
implementation's parameters.

A spec signature is Python's parameter list text, ``(input, dim=None, *, keepdim=False)``,
with MindSpore's dtype defaults spelled ``mindspore.float32``. :func:`params` parses it;
:func:`canonical` writes any signature (a spec string or an ``inspect.Signature``) in one
form that ignores annotations and spells dtype defaults ``mindspore.<name>``, so a
generated function's signature and MindSpore's compare as text.

:func:`plan` decides how a wrapper with MindSpore's parameters calls the implementation:
each MindSpore parameter goes to the implementation's parameter of the same name, of a
synonym (``input``/``x``, ``other``/``y``, ``dim``/``axis``, ``keepdim``/``keep_dims``...),
or at the same position; a MindSpore parameter with none of these is *refused* (accepted
at its default, one line otherwise). A plan is impossible (:class:`Unmappable`) when a
MindSpore parameter without a default has no counterpart, or the implementation would be
left a required parameter no MindSpore parameter fills.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass

POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
SYNONYMS = (
    {"input", "x", "input_x", "a", "logits", "value", "inputs", "tensors"},
    {"other", "y", "b", "exponent"},
    {"dim", "axis"},
    {"keepdim", "keepdims", "keep_dims"},
    {"dims", "perm", "multiples"},
    {"dim0", "axis0"},
    {"dim1", "axis1"},
    {"condition", "cond"},
    {"input_params"},
    {"input_indices", "indices"},
)
_DTYPE_REPR = re.compile(r"\b(?:mindspore\.|mstype\.)?([A-Z][a-z]+(?:\d+)?|[a-z]+\d+|bool_)\b")


class Unmappable(ValueError):
    """MindSpore's signature cannot be served by calling the implementation."""


@dataclass(frozen=True)
class Param:
    """One parameter of a spec signature: its name, kind and default as source text."""

    name: str
    kind: inspect._ParameterKind
    default: str | None = None  # source text; None: no default


def params(sig: str) -> list[Param]:
    """The parameters of a spec signature string."""
    tree = ast.parse(f"def f{sig}: pass")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    out: list[Param] = []
    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs) else \
            inspect.Parameter.POSITIONAL_OR_KEYWORD
        out.append(Param(arg.arg, kind, None if default is None else ast.unparse(default)))
    if a.vararg:
        out.append(Param(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(Param(arg.arg, inspect.Parameter.KEYWORD_ONLY,
                         None if default is None else ast.unparse(default)))
    if a.kwarg:
        out.append(Param(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return out


def _default_text(value: object) -> str:
    from ..dtype import DType

    if isinstance(value, DType):
        return f"mindspore.{value.name}"
    return repr(value)


def canonical(sig: str | inspect.Signature) -> str:
    """``sig`` as comparable text: names, kinds and defaults, no annotations."""
    if isinstance(sig, str):
        items = [(p.name, p.kind, p.default) for p in params(sig)]
    else:
        items = [(p.name, p.kind, None if p.default is inspect.Parameter.empty
                  else _default_text(p.default)) for p in sig.parameters.values()]
    parts: list[str] = []
    star = False
    for name, kind, default in items:
        if kind is inspect.Parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(kind, "")
        if kind is inspect.Parameter.VAR_POSITIONAL:
            star = True
        parts.append(prefix + name + ("" if default is None else "=" + _dtype_name(default)))
    return "(" + ", ".join(parts) + ")"


def _dtype_name(text: str) -> str:
    """``mindspore.float32`` and our dtype repr ``Float32`` as one spelling."""
    if text.startswith(("mindspore.", "mstype.")):
        return "mindspore." + text.split(".", 1)[1]
    if re.fullmatch(r"(Float|Int|UInt|BFloat|Complex)\d+|Bool", text):
        return "mindspore." + text.lower().replace("bool", "bool_")
    return text


def opaque(sig: str) -> bool:
    """A signature that spells nothing (``(*args, **kwargs)``, a constructor's
    ``(self, *args, **kwargs)``): MindSpore's wrappers that take anything; the
    implementation's own signature stands."""
    found = params(sig)
    if found and found[0].name == "self":
        found = found[1:]
    return bool(found) and all(p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
                               for p in found)


@dataclass(frozen=True)
class Plan:
    """How a wrapper with MindSpore's parameters calls the implementation."""

    ms: list[Param]
    passed: dict[str, tuple[str, bool]]  # MindSpore name -> (implementation name, positional)
    refused: list[Param]


def _synonyms(name: str) -> set[str]:
    for group in SYNONYMS:
        if name in group:
            return group
    return {name}


def plan(ms_sig: str, impl: inspect.Signature) -> Plan:
    """Map MindSpore's parameters onto the implementation's (see the module docstring)."""
    ms = params(ms_sig)
    ours = [p for p in impl.parameters.values()
            if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    by_name = {p.name: p for p in ours}
    taken: dict[str, str] = {}
    # names first (exact, then synonyms), then positions among the positional parameters
    for p in ms:
        if p.name in by_name and p.name not in taken.values():
            taken[p.name] = p.name
    for p in ms:
        if p.name not in taken:
            for cand in sorted(_synonyms(p.name)):
                if cand in by_name and cand not in taken.values():
                    taken[p.name] = cand
                    break
    ms_pos = [p for p in ms if p.kind in POSITIONAL]
    our_pos = [p for p in ours if p.kind in POSITIONAL]
    for i, p in enumerate(ms_pos):
        if p.name not in taken and i < len(our_pos) and our_pos[i].name not in taken.values() \
                and not _named_elsewhere(our_pos[i].name, ms):
            taken[p.name] = our_pos[i].name
    refused = []
    for p in ms:
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise Unmappable(f"MindSpore's *{p.name} has no counterpart")
        if p.name not in taken:
            if p.default is None:
                raise Unmappable(f"MindSpore's required parameter {p.name!r} has no counterpart")
            refused.append(p)
    filled = set(taken.values())
    for p in ours:
        if p.name not in filled and p.default is inspect.Parameter.empty:
            raise Unmappable(f"the implementation's required parameter {p.name!r} gets no argument")
    passed = {m: (o, by_name[o].kind is inspect.Parameter.POSITIONAL_ONLY) for m, o in taken.items()}
    return Plan(ms, passed, refused)


def _named_elsewhere(our_name: str, ms: list[Param]) -> bool:
    """Whether some MindSpore parameter names ``our_name`` (or a synonym of it) outright."""
    group = _synonyms(our_name)
    return any(p.name in group for p in ms)
