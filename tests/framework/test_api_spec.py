"""The API spec (``framework/api_spec``) and the surfaces generated from it.

- the generated files are what the rows give (``python -m framework.api_spec.generate``);
- every row with an implementation is present on ``ops`` and ``ops.functional`` under its
  name, every row without one is absent, and each row's Tensor methods call it;
- each generated function's signature is the row's, and each row's signature is MindSpore
  2.10's (stored in ``tests/mindspore_ref/mindspore_signatures.json``; read live from
  MindSpore with ``MINDSPORE_PYTHON``);
- the rows whose implementation cannot take MindSpore's signature yet are counted: the
  number only goes down.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import framework
from framework import nn, ops
from framework.api_spec import generate, load
from framework.api_spec.signature import canonical, opaque, params
from framework.ops import functional as F
from framework.ops import operations as P

ROOT = Path(__file__).resolve().parents[2]
STORED = ROOT / "tests" / "mindspore_ref" / "mindspore_signatures.json"
ROWS = load("ops")
# spec file -> (MindSpore's namespace, our module, whether its names are classes)
NAMESPACES = {"ops": ("ops", F, False), "operations": ("ops.operations", P, True),
              "nn": ("nn", nn, True)}
# rows whose implementation does not take MindSpore's signature yet (see each row's `differs`):
# numbers that only go down
MAX_DIFFERS = {"ops": 0, "operations": 0, "nn": 0}


def _mindspore_sigs(spec: str = "ops") -> dict[str, str | None]:
    return json.loads(STORED.read_text())["signatures"][NAMESPACES[spec][0]]


def _signature(obj: object, is_class: bool) -> inspect.Signature:
    """A class's constructor's signature (``self`` first, as MindSpore's read), else the
    function's (a class namespace may hold functions too: ``nn.cosine_decay_lr``)."""
    return inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)  # type: ignore[misc]


def _parseable(sig: str | None) -> bool:
    if sig is None:
        return False
    try:
        return not opaque(sig)
    except SyntaxError:
        return False


def test_generated_files_are_current():
    stale = [str(p.relative_to(ROOT)) for p, text in generate.outputs().items()
             if not p.exists() or p.read_text() != text]
    assert not stale, f"run `python -m framework.api_spec.generate`: stale {stale}"


def test_rows_are_the_namespace():
    wrong = []
    for row in ROWS.values():
        has = callable(getattr(F, row.name, None)) and callable(getattr(ops, row.name, None))
        if row.present and generate.generated_here(row) and not has:
            wrong.append(f"{row.name}: a row with an implementation, absent from ops/F")
        if not row.present and callable(getattr(ops, row.name, None)) \
                and not inspect.ismodule(getattr(ops, row.name)):
            wrong.append(f"{row.name}: present in ops, but its row has no implementation")
    assert not wrong, "\n".join(wrong)


def test_tensor_methods_call_their_rows():
    x = framework.Tensor(np.array([[0.5, -1.25], [2.0, 3.5]], np.float32))
    checked = 0
    for row in ROWS.values():
        impl = generate.resolve(row.impl) if row.tensor else None
        for method in row.tensor:
            assert hasattr(framework.Tensor, method), f"Tensor.{method} (row {row.name})"
            if row.sig and len([p for p in params(row.sig) if p.default is None]) == 1:
                try:
                    framework.set_seed(0)  # random ops (bernoulli): the same draws for both calls
                    want = impl(x)
                except Exception:  # noqa: BLE001  (needs more than a float matrix)
                    continue
                framework.set_seed(0)
                got = getattr(x, method)()
                got, want = _arrays(got), _arrays(want)  # results of several shapes (svd): one by one
                assert len(got) == len(want), f"Tensor.{method}"
                for g, w in zip(got, want):
                    np.testing.assert_array_equal(g, w, err_msg=f"Tensor.{method}")
                checked += 1
    assert checked > 30


def _arrays(value) -> list[np.ndarray]:
    items = value if isinstance(value, tuple | list) else [value]
    return [np.asarray(v.asnumpy()) if hasattr(v, "asnumpy") else np.asarray(v) for v in items]


@pytest.mark.parametrize("spec", NAMESPACES)
def test_generated_signatures_are_the_rows(spec):
    _, module, is_class = NAMESPACES[spec]
    wrong = []
    for row in load(spec).values():
        if not row.present or not _parseable(row.sig) or row.differs:
            continue
        if not is_class and not generate.generated_here(row):
            continue
        got = canonical(_signature(getattr(module, row.name), is_class))
        if got != canonical(row.sig):
            wrong.append(f"{row.name}: ours {got}, row {canonical(row.sig)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("spec", ["operations", "nn"])
def test_class_rows_are_the_namespace(spec):
    module = NAMESPACES[spec][1]
    wrong = []
    for row in load(spec).values():
        if row.present and not callable(getattr(module, row.name, None)):
            wrong.append(f"{spec}.{row.name}: a row with an implementation, absent")
        if not row.present and callable(getattr(module, row.name, None)):
            wrong.append(f"{spec}.{row.name}: present, but its row has no implementation")
    assert not wrong, "\n".join(wrong)


def _compare_with(ms_sigs: dict[str, str | None], spec: str = "ops") -> list[str]:
    rows = load(spec)
    wrong = []
    for name, ms_sig in ms_sigs.items():
        row = rows.get(name)
        if row is None:
            wrong.append(f"{name}: MindSpore's ops has it, the spec has no row")
            continue
        if not _parseable(ms_sig):
            continue
        if row.sig is None or canonical(row.sig) != canonical(ms_sig):
            wrong.append(f"{name}: row {row.sig}, MindSpore {ms_sig}")
    return wrong


@pytest.mark.parametrize("spec", NAMESPACES)
def test_rows_are_mindspore_signatures_stored(spec):
    wrong = _compare_with(_mindspore_sigs(spec), spec)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("spec", NAMESPACES)
def test_differing_rows_only_go_down(spec):
    differing = sorted(r.name for r in load(spec).values() if r.differs)
    assert len(differing) <= MAX_DIFFERS[spec], differing


@pytest.mark.skipif(not os.environ.get("MINDSPORE_PYTHON"), reason="MINDSPORE_PYTHON not set")
def test_rows_are_mindspore_signatures_live():
    script = ROOT / "tests" / "mindspore_ref" / "mindspore_signatures.py"
    done = subprocess.run([os.environ["MINDSPORE_PYTHON"], str(script)], capture_output=True,
                          text=True, cwd=script.parent, timeout=600,
                          env={**os.environ, "GLOG_v": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    live = json.loads(done.stdout)["signatures"]
    assert live == json.loads(STORED.read_text())["signatures"], \
        "stored signatures are stale: refresh mindspore_signatures.json"
    wrong = [w for spec, (ns, _, _) in NAMESPACES.items() for w in _compare_with(live[ns], spec)]
    assert not wrong, "\n".join(wrong)


def test_refused_argument_names_itself():
    x = framework.Tensor(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(ops.amax(x, 1, initial=None).asnumpy(), np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match=r"ops\.amax: initial=3\.0 is not supported"):
        ops.amax(x, 1, initial=3.0)


def test_tensor_rows_are_the_tensor_methods():
    """Each of MindSpore's Tensor names is one ops row's Tensor method or one tensor.yaml row,
    never both; a row is present exactly when Tensor has the name."""
    tensor_rows = load("tensor")
    from_ops = {m: r.name for r in ROWS.values() for m in r.tensor}
    both = sorted(set(from_ops) & set(tensor_rows))
    assert not both, f"in an ops row's tensor list and in tensor.yaml: {both}"
    names = json.loads((ROOT / "docs" / "mindspore_names.json").read_text())["namespaces"]["Tensor"]
    unlisted = sorted(set(names) - set(from_ops) - set(tensor_rows))
    assert not unlisted, f"MindSpore's Tensor names with no row: {unlisted}"
    wrong = [n for n, r in tensor_rows.items() if r.present != hasattr(framework.Tensor, n)]
    assert not wrong, f"tensor.yaml rows whose presence is not Tensor's: {wrong}"


# -- the module namespaces re-exporting names we have (framework/api_spec/modules.yaml) ----------

def _module_entries() -> dict:
    from framework.api_spec.modules import load_modules

    return load_modules()


@pytest.mark.parametrize("namespace", sorted(_module_entries()))
def test_module_namespaces_bind_each_mindspore_name_their_sources_have(namespace):
    """Each MindSpore name of the namespace is bound to the first ``from`` module's object of
    that name (or to its ``names`` exception), else absent with the one-line error."""
    import functools
    import importlib

    from framework.absent_names import AbsentNameError
    from framework.api_spec.modules import mindspore_names

    entry = _module_entries()[namespace]
    module = importlib.import_module(f"framework.{namespace}")
    sources = [importlib.import_module(m) for m in entry.get("from", ())]
    explicit = entry.get("names") or {}
    for name in mindspore_names(namespace):
        if name in explicit:
            module_name, _, attr = (explicit[name] or "").partition(":")
            expected = None if explicit[name] is None else functools.reduce(
                getattr, attr.split("."), importlib.import_module(module_name))
        else:
            source = next((s for s in sources if name in vars(s)), None)
            expected = None if source is None or inspect.ismodule(getattr(source, name)) \
                else getattr(source, name)
        if expected is None:
            assert name not in module.__all__, f"{namespace}.{name}"
            if inspect.ismodule(getattr(module, name, None)):
                continue  # the package's submodule of that name (``common.dtype``)
            with pytest.raises(AbsentNameError):
                getattr(module, name)
        else:
            assert getattr(module, name) is expected, f"{namespace}.{name}"
            assert name in module.__all__, f"{namespace}.{name}"
    for name in entry.get("keep", ()):
        assert name in module.__all__ and getattr(module, name) is not None


def test_module_entries_that_name_nothing_are_refused():
    from framework.api_spec import SpecError
    from framework.api_spec.modules import bindings

    entry = {"file": "x.py", "doc": "x", "from": ["framework.dtype"]}
    with pytest.raises(SpecError, match="does not exist"):
        bindings("common.dtype", {**entry, "names": {"half": "framework.dtype:no_such_type"}})
    with pytest.raises(SpecError, match="dotted attribute needs `lazy: true`"):
        bindings("common", {**entry, "names": {"from_numpy": "framework.common.tensor:Tensor.from_numpy"}})
    with pytest.raises(SpecError, match="kept name"):
        bindings("common.dtype", {**entry, "keep": ["not_in_framework_dtype"]})
    with pytest.raises(SpecError, match="not a namespace"):
        bindings("no.such.namespace", entry)
