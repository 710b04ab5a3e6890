"""Reads the signatures of MindSpore's public names (parameter names, kinds and defaults;
no annotations, nothing else) and prints them as JSON: ``{namespace: {name: text|null}}``.

Run by MindSpore's own Python (``MINDSPORE_PYTHON``): ``tests/framework/test_api_spec.py``
compares the spec's rows with it live, and ``python tests/mindspore_ref/mindspore_signatures.py
> tests/mindspore_ref/mindspore_signatures.json`` (in MindSpore's venv) refreshes the stored
copy CI reads. A class's signature is its ``__init__``'s; a name whose signature cannot be
read (a builtin, a property) is ``null``. Imports nothing from this project but
``mindspore_names`` beside it.
"""

from __future__ import annotations

import inspect
import json
import re
import sys

from mindspore_names import mint_modules, read_names


def _strip(text: str) -> str:
    """``(a: int = 1, *, b: 'x' = None) -> T`` as ``(a=1, *, b=None)`` (no object
    addresses: ``<function <lambda>>``)."""
    text = re.sub(r"\)\s*->.*$", ")", text.strip())
    text = re.sub(r" at 0x[0-9a-f]+>", ">", text)
    parts, depth, cur, quote = [], 0, "", None
    for ch in text[1:-1]:
        if quote:
            cur += ch
            quote = None if ch == quote else quote
            continue
        if ch in "'\"":
            quote = ch
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    out = []
    for part in parts:
        name, eq, default = part.partition("=")
        name = name.split(":")[0].strip()
        out.append(name + (f"={default.strip()}" if eq else ""))
    return "(" + ", ".join(out) + ")"


def signature(obj) -> str | None:
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    try:
        if inspect.isclass(obj):
            return _strip(str(inspect.signature(obj.__init__)))
        if isinstance(obj, property):
            return None
        return _strip(str(inspect.signature(obj)))
    except (TypeError, ValueError):
        return None


def read_signatures() -> dict:
    import mindspore
    from mindspore import nn, ops
    from mindspore.ops import operations as P

    names = read_names()["namespaces"]
    owners = {"ops": ops, "ops.operations": P, "nn": nn, "Tensor": mindspore.Tensor, **mint_modules()}
    out = {}
    for ns, listed in names.items():
        if ns not in owners:  # the module namespaces of modules.yaml re-export these names
            continue
        look = inspect.getattr_static if ns == "Tensor" else getattr
        out[ns] = {n: signature(look(owners[ns], n, None)) for n in listed}
    return {"mindspore_version": mindspore.__version__, "signatures": out}


if __name__ == "__main__":
    json.dump(read_signatures(), sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")
