"""docs/api_coverage.md is what tests/mindspore_ref/api_coverage.py makes of the stored MindSpore names
(no MindSpore needed), and, where ``MINDSPORE_PYTHON`` names MindSpore's venv, the stored
names are the ones it has."""

from __future__ import annotations

import json
import types

import pytest

from tests.mindspore_ref import api_coverage
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore

STALE = f"docs/api_coverage.md is stale: run `{api_coverage.COMMAND}`"


def _stored() -> dict:
    return json.loads(api_coverage.NAMES.read_text())


def test_the_table_is_up_to_date():
    table = api_coverage.TABLE
    if not table.is_file() or table.read_text() != api_coverage.render(_stored()):
        pytest.fail(STALE, pytrace=False)  # one line, not a diff of two long texts


def test_the_stored_names_are_names_only():
    names = _stored()
    assert set(names["namespaces"]) == set(api_coverage.NAMESPACES)
    for listed in names["namespaces"].values():
        assert listed == sorted(set(listed))
        assert all(isinstance(n, str) and n.isidentifier() for n in listed)


def test_each_status_is_found():
    from framework import Tensor, nn, ops

    owner = types.ModuleType("owner")
    owner.callable_name = len
    owner.value = 3
    owner.stub = types.SimpleNamespace(__refused__="stub: not supported, use X")

    def refuse(name):
        raise NotImplementedError(f"{name}: refused")

    owner.__getattr__ = refuse  # a module refusing the names it does not have
    assert api_coverage.classify(owner, "callable_name", "ops") == ("present", "")
    assert api_coverage.classify(owner, "value", "ops") == ("missing", "`value` is a value here")
    assert api_coverage.classify(owner, "stub", "ops") == ("refused", "stub: not supported, use X")
    assert api_coverage.classify(owner, "other", "ops") == ("refused",
                                                           "NotImplementedError: other: refused")
    assert api_coverage.classify(nn, "Dense", "nn")[0] == "present"
    assert api_coverage.classify(ops, "no_such_op", "ops") == ("missing", "")
    assert api_coverage.classify(Tensor(1.0), "shape", "Tensor")[0] == "present"


@needs_mindspore
def test_the_stored_names_are_mindspores():
    assert api_coverage.read_mindspore_names(MINDSPORE_PYTHON) == _stored(), (
        f"docs/mindspore_names.json differs from this MindSpore's: run `{api_coverage.COMMAND}` "
        "with MINDSPORE_PYTHON set")


def test_the_command_refuses_names_without_mindspore(monkeypatch):
    monkeypatch.delenv("MINDSPORE_PYTHON", raising=False)
    with pytest.raises(SystemExit):
        api_coverage.main(["names"])
