"""Runs small programs with one engine and writes what they returned as JSON.

Used two ways by :mod:`tests.mindspore_ref.reference`: as a script, by the Python of the
venv holding MindSpore (``python driver.py OUT.json MODE:FILE ...``), and
imported here for :func:`run_program` and :func:`encode`, so both engines' results go
through the same code. It imports nothing from this project at module level (MindSpore's
venv has neither ``framework`` nor pytest).

A program is a module file whose prelude imports the engine as ``ms`` (with ``nn``,
``ops``, ``Tensor`` and ``np``) and which defines ``main()`` returning a Tensor, a Python
number or a (nested) tuple/list of them. Graph mode needs the file: both engines read
``construct``'s source.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def encode(value: Any) -> Any:
    """A JSON form of a result: tensors as ``{"dtype", "shape", "value"}``, sequences as
    lists, Python scalars, strings and None as ``{"py": value}``."""
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, bool | int | float | str | None) and not isinstance(value, np.generic):
        return {"py": value}
    array = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    if array.dtype.kind == "f":
        values = np.where(np.isfinite(array), array, 0).tolist()  # inf/nan: not JSON
        nonfinite = [str(v) for v in array.ravel() if not np.isfinite(v)]
        return {"dtype": array.dtype.name, "shape": list(array.shape), "value": values,
                "nonfinite": nonfinite}
    return {"dtype": array.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def run_program(ms: Any, mode: str, path: Path) -> Any:
    """Import the program at ``path`` as a fresh module, call its ``main()`` in ``mode``
    ('graph' or 'pynative'); its encoded result, or ``{"error": class name, "message"}``."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    name = f"refprog_{mode}_{path.stem}"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # MindSpore's graph mode resolves globals by module name
        spec.loader.exec_module(module)
        return encode(module.main())
    except Exception as error:  # noqa: BLE001  (the error's kind is a result)
        lines = str(error).strip().splitlines()
        return {"error": type(error).__name__, "message": lines[0][:500] if lines else ""}
    finally:
        sys.modules.pop(name, None)


def main(argv: list[str]) -> None:
    import mindspore as ms

    out, jobs = Path(argv[0]), argv[1:]
    results = {}
    for job in jobs:
        mode, path = job.split(":", 1)
        results[f"{mode}:{Path(path).stem}"] = run_program(ms, mode, Path(path))
    out.write_text(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
