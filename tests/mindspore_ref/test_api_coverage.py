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


def test_each_stored_name_has_a_cpu_flag_and_nothing_more():
    names = _stored()
    assert set(names["cpu"]) == set(names["namespaces"])
    for ns, listed in names["namespaces"].items():
        flags = names["cpu"][ns]
        assert sorted(flags) == listed, ns
        assert all(flag in (True, False, None) for flag in flags.values()), ns
    # MindSpore documents its losses and pools for CPU; spot checks of the reader's work
    assert names["cpu"]["nn"]["L1Loss"] is True and names["cpu"]["ops"]["l1_loss"] is True


def test_the_summary_counts_cpu_supported_names():
    from framework import nn, ops

    names = {"mindspore_version": "x", "namespaces": {ns: [] for ns in api_coverage.NAMESPACES},
             "cpu": {ns: {} for ns in api_coverage.NAMESPACES}}
    names["namespaces"]["nn"] = ["Dense", "NoSuchCell", "ReLU", "ZZ"]
    names["cpu"]["nn"] = {"Dense": True, "NoSuchCell": True, "ReLU": False, "ZZ": None}
    assert hasattr(nn, "Dense") and hasattr(nn, "ReLU") and not hasattr(nn, "NoSuchCell")
    assert not hasattr(ops, "ZZ")
    text = api_coverage.render(names)
    # 4 names, 2 present; 2 CPU-supported, 1 of them present
    assert "| [`nn`](#nn) | 4 | 2 | 0 | 2 | 50.0 | 2 | 1 | 50.0 |" in text
    assert "| **total** | 4 | 2 | 0 | 2 | 50.0 | 2 | 1 | 50.0 |" in text
    assert "| `Dense` | present | yes |  |" in text and "| `ReLU` | present | no |  |" in text
    assert "| `ZZ` | missing | - |  |" in text


def test_the_cpu_flag_is_read_from_the_platforms_section_only():
    from tests.mindspore_ref.mindspore_names import cpu_flag

    def doc(text):
        def f():
            pass
        f.__doc__ = text
        return f

    assert cpu_flag(doc("Sum.\n\nSupported Platforms:\n    ``Ascend`` ``GPU`` ``CPU``\n")) is True
    assert cpu_flag(doc("Sum.\n\nSupported Platforms:\n    ``Ascend``\n\nExamples:\n    CPU\n")) is False
    assert cpu_flag(doc("Runs on CPU.\n")) is None
    assert cpu_flag(None) is None
    assert cpu_flag(property(doc("Supported Platforms:\n    ``CPU``"))) is True


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


def test_every_present_name_is_exercised_against_mindspore():
    """Each name of the table that ``framework`` has is spelled by a differential program
    (tests/mindspore_ref/api_tested.py), or MindSpore 2.10 cannot run it on CPU (its error
    recorded in an ``UNTESTABLE`` entry)."""
    from tests.mindspore_ref.api_tested import untestable, untested

    gaps = {ns: names for ns, names in untested().items() if names}
    assert not gaps, f"present names no differential program exercises: {gaps}"
    assert all(reason.strip() for reason in untestable().values())


def test_the_tested_check_reads_spellings_per_namespace():
    from tests.mindspore_ref.api_tested import tested

    assert tested("ops", "matmul") and tested("nn", "Dense")
    assert not tested("ops", "no_such_name_anywhere") and not tested("mint.linalg", "matmul")
