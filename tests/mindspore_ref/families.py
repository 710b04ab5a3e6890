"""One builder for the "family" programs of the recorded sets (``ms_math``, ``ms_primitives``,
``ms_ops_cover``, ``ms_prims_cover``): a few forward expressions over fixed arrays, compiled
as one Cell (so graph mode compiles them), and optionally ``ops.grad`` of a loss summing
gradient templates, at every input.

``forward`` holds expressions over the arrays as tensors (lower-case names: ``u`` is
``Tensor(U)``); ``grads`` holds ``(template, arrays)`` pairs, each ``{}`` of the template a
fresh input fed the named array. The program's ``main`` returns the forward tuple, then the
gradients.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


def used_arrays(candidates: Iterable[str], forward: Sequence[str], token: str = r"[a-z0-9_]+") -> list[str]:
    """The candidates (upper-case array names, in the order given) that ``forward`` uses."""
    used = set().union(*(re.findall(token, e) for e in forward))
    return [a for a in candidates if a.lower() in used]


def family_source(prelude: str, arrays: Sequence[str], forward: Sequence[str],
                  grads: Sequence[tuple[str, Sequence[str]]] | None = None, extra: str = "") -> str:
    """The program's source (see the module docstring)."""
    args = ", ".join(a.lower() for a in arrays)
    body = [extra, "class Fwd(nn.Cell):", f"    def construct(self, {args}):",
            "        return (" + ",\n                ".join(forward) + ",)", ""]
    call = [f"Fwd()({', '.join(f'Tensor({a})' for a in arrays)})"]
    if grads:
        params: list[str] = []
        terms, feeds = [], []
        for template, inputs in grads:
            names = [f"a{len(params) + i}" for i in range(len(inputs))]
            params += names
            feeds += [f"Tensor({a})" for a in inputs]
            terms.append("(" + template.format(*names) + ").sum()")
        body += ["class Loss(nn.Cell):", f"    def construct(self, {', '.join(params)}):",
                 "        return (" + "\n                + ".join(terms) + ")", ""]
        call.append(f"ops.grad(Loss(), grad_position={tuple(range(len(params)))})({', '.join(feeds)})")
    body += ["def main():", f"    return {', '.join(call)}"]
    return prelude + "\n".join(body) + "\n"
