"""Reads MindSpore's public names (names only, nothing else) and prints them as JSON.

Run by the Python of a venv holding MindSpore (``tests/mindspore_ref/api_coverage.py names`` does it
through ``MINDSPORE_PYTHON``); it imports nothing from this project. The namespaces:

- ``ops``: the functions and function-like objects of ``mindspore.ops.__all__`` (the
  classes it re-exports are the next namespace's);
- ``ops.operations``: the public classes of ``mindspore.ops.operations.__all__`` (``P.*``);
- ``nn``: ``mindspore.nn.__all__``;
- ``Tensor``: the public attributes of ``mindspore.Tensor`` (methods and properties);
- ``mint``, ``mint.nn``, ``mint.nn.functional``, ``mint.optim``, ``mint.special``,
  ``mint.linalg``: each module's names (its ``__all__`` lists names some of these modules
  do not have: only those it has count), plus the public non-module names it has outside
  ``__all__`` whose docstring has a "Supported Platforms:" section (documented API such as
  ``mint.ones``, ``mint.nn.LayerNorm``), except internal spellings (``*_ext``, ``*_op``,
  ``*_func``, ``*_``, ``inplace_*``), the re-exported ``Cell``, and functions in ``mint.nn``
  (a namespace of Cells).

- the module namespaces (``MODULES``: MindSpore's module path and which of its names count):
  ``nn.optim``, ``experimental.optim`` and its ``lr_scheduler``, ``common`` and its
  ``tensor``/``parameter``/``dtype``/``initializer``/``api``, ``device_context.cpu``
  (and its ``op_tuning``) by ``__all__`` (the names the module has); ``dataset.text``,
  ``dataset.vision``, ``dataset.transforms`` by their public non-module attributes (no
  ``__all__``); ``device_context`` by its public submodules (``cpu``, ``gpu``, ``ascend``);
  ``device_context.cpu.op_tuning`` by the names it defines; the primitive modules
  ``ops.operations.nn_ops``, ``array_ops``, ``math_ops`` and ``_grad_ops`` by the public
  ``Primitive`` subclasses each has (defined there or imported, as programs import them
  from there), the three base classes apart.

Besides the names, one flag per name (``cpu``): ``true`` where the "Supported Platforms:"
section of its docstring names ``CPU``, ``false`` where the section names other platforms
only, ``null`` where the docstring has no such section. MindSpore's backward primitives
(``_grad_ops``) have no docstrings: one without a section takes its forward primitive's flag
(``DropoutGrad``: ``Dropout``'s; the forward is the ``ops.operations`` class named as it less
its ``Grad``/``GradV2``/``GradGrad``/``Backprop{Input,Filter}``/... suffix), else ``null``.
The flag is read from the section alone (up to its "Examples:"); no text of the docstring is kept.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys

SECTION = "Supported Platforms:"
INTERNAL_SUFFIXES = ("_ext", "_op", "_func", "_")


def _public(names) -> list[str]:
    return sorted({n for n in names if not n.startswith("_")})


def cpu_flag(obj) -> bool | None:
    """Whether ``obj``'s docstring lists CPU under "Supported Platforms:" (None: no section)."""
    if isinstance(obj, property):
        obj = obj.fget
    doc = (inspect.getdoc(obj) if obj is not None else None) or ""
    start = doc.find(SECTION)
    if start < 0:
        return None
    section = doc[start + len(SECTION):]
    end = section.find("Examples:")
    return "CPU" in (section if end < 0 else section[:end])


def _flags(owner, names: list[str], static: bool = False) -> dict[str, bool | None]:
    look = inspect.getattr_static if static else getattr
    return {n: cpu_flag(look(owner, n, None)) for n in names}


def _documented(module) -> list[str]:
    """A mint module's public names: those of ``__all__`` it has, and the documented ones
    outside it (see the module docstring)."""
    listed = {n for n in getattr(module, "__all__", ()) if hasattr(module, n)}
    extra = {n for n in dir(module) if n not in listed and _is_documented(module, n)}
    return _public(listed | extra)


def _is_documented(module, name: str) -> bool:
    """Whether ``module.name`` (outside ``__all__``) is documented public API (see above)."""
    obj = getattr(module, name, None)
    if name.startswith("_") or obj is None or inspect.ismodule(obj):
        return False
    if name.endswith(INTERNAL_SUFFIXES) or name.startswith("inplace_") or name == "Cell":
        return False
    if module.__name__.endswith("mint.nn") and not inspect.isclass(obj):
        return False
    return cpu_flag(obj) is not None


def mint_modules() -> dict:
    """``{namespace: module}`` of ``mindspore.mint``'s public modules."""
    from mindspore import mint
    from mindspore.mint import linalg, optim, special
    from mindspore.mint import nn as mint_nn
    from mindspore.mint.nn import functional

    return {"mint": mint, "mint.nn": mint_nn, "mint.nn.functional": functional,
            "mint.optim": optim, "mint.special": special, "mint.linalg": linalg}


# namespace -> (MindSpore's module, which names count: see the module docstring)
MODULES = {
    "nn.optim": ("mindspore.nn.optim", "all"),
    "experimental.optim": ("mindspore.experimental.optim", "all"),
    "experimental.optim.lr_scheduler": ("mindspore.experimental.optim.lr_scheduler", "all"),
    "dataset.text": ("mindspore.dataset.text", "public"),
    "dataset.vision": ("mindspore.dataset.vision", "public"),
    "dataset.transforms": ("mindspore.dataset.transforms", "public"),
    "common": ("mindspore.common", "all"),
    "common.tensor": ("mindspore.common.tensor", "all"),
    "common.parameter": ("mindspore.common.parameter", "all"),
    "common.dtype": ("mindspore.common.dtype", "all"),
    "common.initializer": ("mindspore.common.initializer", "all"),
    "common.api": ("mindspore.common.api", "all"),
    "device_context": ("mindspore.device_context", "submodules"),
    "device_context.cpu": ("mindspore.device_context.cpu", "all"),
    "device_context.cpu.op_tuning": ("mindspore.device_context.cpu.op_tuning", "own"),
    "ops.operations.nn_ops": ("mindspore.ops.operations.nn_ops", "primitives"),
    "ops.operations.array_ops": ("mindspore.ops.operations.array_ops", "primitives"),
    "ops.operations.math_ops": ("mindspore.ops.operations.math_ops", "primitives"),
    "ops.operations._grad_ops": ("mindspore.ops.operations._grad_ops", "primitives"),
}
PRIMITIVE_BASES = {"Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer"}
GRAD_SUFFIX = re.compile(r"(GradGrad|GradWithArgmax(V2)?|GradWithFixedKsize|GradData|GradWeight|"
                         r"Grad(V\d)?|Backprop(Input|Filter))$")


def module_names(module, rule: str) -> list[str]:
    """``module``'s names that count by ``rule`` (see ``MODULES``)."""
    from mindspore.ops.primitive import Primitive

    public = [n for n in dir(module) if not n.startswith("_")]
    if rule == "all":
        return _public(n for n in module.__all__ if hasattr(module, n))
    if rule == "submodules":
        return _public(n for n in public if inspect.ismodule(getattr(module, n))
                       and getattr(module, n).__name__ == f"{module.__name__}.{n}")
    if rule == "own":
        return _public(n for n in public
                       if getattr(getattr(module, n), "__module__", None) == module.__name__)
    if rule == "primitives":
        return _public(n for n in public if n not in PRIMITIVE_BASES and inspect.isclass(getattr(module, n))
                       and issubclass(getattr(module, n), Primitive))
    return _public(n for n in public if not inspect.ismodule(getattr(module, n)))


def _grad_flags(module, names: list[str]) -> dict[str, bool | None]:
    """A backward primitive's flag: its own, else its forward primitive's (module docstring)."""
    from mindspore.ops import operations as P

    flags = {}
    for n in names:
        flag = cpu_flag(getattr(module, n))
        forward = GRAD_SUFFIX.sub("", n)
        if flag is None and forward != n and inspect.isclass(getattr(P, forward, None)):
            flag = cpu_flag(getattr(P, forward))
        flags[n] = flag
    return flags


def read_names() -> dict:
    import mindspore
    from mindspore import nn, ops
    from mindspore.ops import operations as P

    functional = [n for n in ops.__all__
                  if not inspect.isclass(getattr(ops, n)) and not inspect.ismodule(getattr(ops, n))]
    primitives = [n for n in P.__all__ if inspect.isclass(getattr(P, n, None))]
    namespaces = {
        "ops": _public(functional),
        "ops.operations": _public(primitives),
        "nn": _public(nn.__all__),
        "Tensor": _public(dir(mindspore.Tensor)),
    }
    owners = {"ops": ops, "ops.operations": P, "nn": nn, "Tensor": mindspore.Tensor}
    for ns, module in mint_modules().items():
        namespaces[ns] = _documented(module)
        owners[ns] = module
    for ns, (path, rule) in MODULES.items():
        owners[ns] = importlib.import_module(path)
        namespaces[ns] = module_names(owners[ns], rule)
    cpu = {ns: _flags(owners[ns], listed, static=ns == "Tensor") for ns, listed in namespaces.items()}
    cpu["ops.operations._grad_ops"] = _grad_flags(owners["ops.operations._grad_ops"],
                                                  namespaces["ops.operations._grad_ops"])
    return {"mindspore_version": mindspore.__version__, "namespaces": namespaces, "cpu": cpu}


if __name__ == "__main__":
    json.dump(read_names(), sys.stdout)
