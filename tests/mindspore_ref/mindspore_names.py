"""Reads MindSpore's public names (names only, nothing else) and prints them as JSON.

Run by the Python of a venv holding MindSpore (``tests/mindspore_ref/api_coverage.py names`` does it
through ``MINDSPORE_PYTHON``); it imports nothing from this project. The namespaces:

- ``ops``: the functions and function-like objects of ``mindspore.ops.__all__`` (the
  classes it re-exports are the next namespace's);
- ``ops.operations``: the public classes of ``mindspore.ops.operations.__all__`` (``P.*``);
- ``nn``: ``mindspore.nn.__all__``;
- ``Tensor``: the public attributes of ``mindspore.Tensor`` (methods and properties).
"""

from __future__ import annotations

import inspect
import json
import sys


def _public(names) -> list[str]:
    return sorted({n for n in names if not n.startswith("_")})


def read_names() -> dict:
    import mindspore
    from mindspore import nn, ops
    from mindspore.ops import operations as P

    functional = [n for n in ops.__all__
                  if not inspect.isclass(getattr(ops, n)) and not inspect.ismodule(getattr(ops, n))]
    primitives = [n for n in P.__all__ if inspect.isclass(getattr(P, n, None))]
    return {
        "mindspore_version": mindspore.__version__,
        "namespaces": {
            "ops": _public(functional),
            "ops.operations": _public(primitives),
            "nn": _public(nn.__all__),
            "Tensor": _public(dir(mindspore.Tensor)),
        },
    }


if __name__ == "__main__":
    json.dump(read_names(), sys.stdout)
