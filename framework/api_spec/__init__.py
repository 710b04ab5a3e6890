"""MindSpore's public names as one spec, from which the API surfaces are generated.

The spec is a set of YAML files beside this module, one row per name: ``ops.yaml`` holds
``mindspore.ops`` (and the ``ops.functional`` names, ``F.*``), ``operations.yaml``
``mindspore.ops.operations`` (the ``P.*`` classes), ``nn.yaml`` ``mindspore.nn`` and
``tensor.yaml`` the ``Tensor`` methods that are not an ``ops`` row's (see ``tensor``). A row
is the name and a flow mapping of:

- ``impl``: where the implementation lives, ``module.attribute`` relative to
  ``framework.ops`` (``math_unary.acos``, ``operations.prim_math.Xlogy``), or
  ``package.module:attribute`` outside it: a primitive's function or class, or a
  composition of primitives. No ``impl``: the name is not implemented yet (the coverage table lists it
  as missing and an absent-name error names the closest present one).
- ``sig``: the signature as MindSpore 2.10 spells it (``(input, dim=None, keepdim=False)``;
  ``mindspore.float32`` defaults are our dtypes; a class's is its ``__init__``'s). Omitted
  for names MindSpore does not have (``F``-only names) or spells as ``(*args, **kwargs)``:
  the implementation's own signature is the surface's then.
- ``tensor``: the Tensor methods that are this function with the tensor first
  (``x.eq(y)`` is ``ops.equal(x, y)``): they call the implementation, not the surface.
- ``provided`` (``tensor.yaml``): the module that defines the method (the ``Tensor`` class in
  ``framework.common.tensor``, its operators in ``framework.ops.tensor_operators``, the
  in-place or cast methods); the name is present but nothing is generated for it.
- ``property`` (``tensor.yaml``): ``true`` for a property (``x.H``), not a method.
- ``cpu``: MindSpore's own word (its docstring's "Supported Platforms") on CPU support:
  ``true``, ``false`` or ``null`` (no such section).
- ``differs``: why the implementation cannot take MindSpore's signature yet (the surface
  is then the implementation as it is; ``tests/framework/test_api_spec.py`` counts these
  rows, a number that only goes down).

Beside the rows, ``modules.yaml`` holds the module namespaces that only re-export names
this spec (or the framework) already has, under the module paths programs import them from
(``ops.operations.nn_ops``, ``nn.optim``, ``common.dtype`` ...): per namespace the generated
file, the modules it re-exports from, and its few exceptions; each MindSpore name of the
namespace that a source has is bound (see :mod:`.modules`).

``python -m framework.api_spec.generate`` writes the surfaces
(``framework/ops/functional.py`` and its ``signature_wrappers.py`` and
``elementwise_signatures.py``, ``tensor_delegates.py``, ``framework/ops/operations/__init__.py``)
from the rows. A class namespace's module imports each class under its row's name; a class
is its own surface, so its constructor must take MindSpore's signature (``differs``
otherwise). In ``ops``, a surface function is the
implementation itself where the signatures agree, else a wrapper with MindSpore's signature
that passes each argument to the implementation's parameter of that meaning (same name, a
known synonym, or the same position) and refuses, with one line, a MindSpore argument the
implementation does not have when it is given a value other than its default. The generated
files are committed (as MindSpore commits ``auto_generate/``) and a test checks they are
what the rows give. Nothing at run time reads the YAML: only the generator and the tests
import this package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPEC_DIR = Path(__file__).resolve().parent
NAMESPACES = ("ops", "operations", "nn", "tensor")
ROW_KEYS = {"impl", "sig", "tensor", "cpu", "differs", "provided", "property"}


class SpecError(ValueError):
    """A row of the spec that cannot be used (unknown key, bad value), with its file and name."""


@dataclass(frozen=True)
class Row:
    """One public name of a namespace (see the module docstring for each field)."""

    name: str
    impl: str | None = None
    sig: str | None = None
    tensor: tuple[str, ...] = field(default_factory=tuple)
    cpu: bool | None = None
    differs: str | None = None
    provided: str | None = None
    as_property: bool = False  # the row's ``property`` key

    @property
    def present(self) -> bool:
        return self.impl is not None or self.provided is not None


def load(namespace: str = "ops") -> dict[str, Row]:
    """The rows of ``namespace``'s YAML file, by name, in the file's order."""
    import yaml

    path = SPEC_DIR / f"{namespace}.yaml"
    data: Any = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise SpecError(f"{path}: the spec is a mapping of name -> row")
    rows: dict[str, Row] = {}
    for name, row in data.items():
        row = row or {}
        if not isinstance(row, dict):
            raise SpecError(f"{path}: {name}: a row is a mapping, got {row!r}")
        unknown = set(row) - ROW_KEYS
        if unknown:
            raise SpecError(f"{path}: {name}: unknown keys {sorted(unknown)} (known: {sorted(ROW_KEYS)})")
        tensor = row.get("tensor") or ()
        rows[str(name)] = Row(name=str(name), impl=row.get("impl"), sig=row.get("sig"),
                              tensor=tuple([tensor] if isinstance(tensor, str) else tensor),
                              cpu=row.get("cpu"), differs=row.get("differs"),
                              provided=row.get("provided"),
                              as_property=bool(row.get("property", False)))
    return rows
